package store

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// The translation of own answers (own_profiles, migration 018) into the
// profiles rows every reader matches. For one panelist, the translation
// before (own_translations: what it wrote) is taken out of their profile,
// what is left being the answers imported by provider ids, and the new
// translation is added to it; own_translations then keeps what this one
// added, which is what the next one takes out. Answers imported by
// provider ids win: a question that holds some (the birth date, for the
// age question) gets no translated answer, and the own answers that would
// have given it one are covered but not applied (state 2), counted as
// untranslated. An answer reaches a panelist only where the library of
// their country's locales knows it (domain.ProfileMapping.Translate).

// translateChunk is how many panelists one pass of a translation reads
// and writes.
const translateChunk = 256

// translation is the state of one run of translations inside an import's
// transaction.
type translation struct {
	ctx     context.Context
	tx      *sqlx.Tx
	mapping domain.ProfileMapping
	now     time.Time
	// importID is the profile_imports row the profiles rows written are
	// put under; made when the first is written (0 before).
	importID int64
	// panelists translated, and of them the ones whose profile changed.
	panelists, changed int
	// What a chunk changed, written at its end, batchRows rows to a
	// statement: the own answers' states (an upsert of rows that exist,
	// which sets only the state), the translations kept, the profiles
	// rewritten, and the panelists left with no profile.
	states, translations, profiles *inserter
	emptied                        []any
}

// newTranslation reads the stored mapping, and the library that says
// which answers each country knows, once for a run of translations in tx.
func newTranslation(ctx context.Context, tx *sqlx.Tx, importID int64) (*translation, error) {
	rows, err := mappingRows(ctx, tx)
	if err != nil {
		return nil, err
	}
	var lib domain.MappingLibrary
	if len(rows) > 0 { // without a row, no library is needed
		entries, err := libraryEntries(ctx, tx)
		if err != nil {
			return nil, err
		}
		lib = domain.NewMappingLibrary(entries)
	}
	return &translation{ctx: ctx, tx: tx, mapping: domain.CompileMapping(rows, lib), now: time.Now(), importID: importID,
		states: newInserter(tx, "own_profiles", `panelist_id, code, value, import_id, state`, `(?, ?, ?, 0, ?)`,
			`ON CONFLICT (panelist_id, code, value) DO UPDATE SET state = excluded.state`),
		translations: newInserter(tx, "own_translations", `panelist_id, country, answers`, `(?, ?, ?)`,
			`ON CONFLICT (panelist_id) DO UPDATE SET country = excluded.country, answers = excluded.answers`),
		profiles: newInserter(tx, "profiles", `panelist_id, import_id, answers`, `(?, ?, ?)`,
			`ON CONFLICT (panelist_id) DO UPDATE SET import_id = excluded.import_id, answers = excluded.answers`),
	}, nil
}

// close releases the run's statements.
func (tr *translation) close() { closeInserters(tr.states, tr.translations, tr.profiles) }

// mappingRows reads the stored mapping.
func mappingRows(ctx context.Context, q sqlx.QueryerContext) ([]domain.MappingRow, error) {
	var rows []domain.MappingRow
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT code, value, question_id AS questionid, answer_id AS answerid, country
		FROM profile_mapping ORDER BY code, value, country, question_id, answer_id`)
	if err != nil {
		return nil, fmt.Errorf("read the profile mapping: %w", err)
	}
	return rows, nil
}

// run translates again every panelist the query next lists: its two
// parameters are the panelist after which to list and how many at most,
// in panelist order (keyset paging: the translation may change the rows
// the query reads, never the ids before the last one listed).
func (tr *translation) run(next string) error {
	after := ""
	for {
		var ids []string
		if err := tr.tx.SelectContext(tr.ctx, &ids, next, after, translateChunk); err != nil {
			return fmt.Errorf("list the panelists to translate: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if err := tr.chunk(ids); err != nil {
			return err
		}
		if len(ids) < translateChunk {
			return nil
		}
		after = ids[len(ids)-1]
	}
}

// ownPanelist is what one panelist's translation reads.
type ownPanelist struct {
	answers []domain.OwnAnswer
	states  []int  // own_profiles.state of each answer
	country string // in the panel
	// The translation before: whether there was one, its country and the
	// answers it wrote (own_translations).
	translated    bool
	beforeCountry string
	before        []byte
	profile       []byte // profiles.answers (none: empty)
}

// chunk translates the panelists ids (distinct) again.
func (tr *translation) chunk(ids []string) error {
	ctx, tx := tr.ctx, tr.tx
	in := "(" + placeholders(len(ids)) + ")"
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	ps := make(map[string]*ownPanelist, len(ids))
	for _, id := range ids {
		ps[id] = &ownPanelist{}
	}
	read := func(what, query string, scan func(rows *sqlx.Rows) error) error {
		rows, err := tx.QueryxContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("translate own profiles: read %s: %w", what, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return fmt.Errorf("translate own profiles: read %s: %w", what, err)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("translate own profiles: read %s: %w", what, err)
		}
		return nil
	}
	err := read("own answers", `SELECT panelist_id, code, value, state FROM own_profiles WHERE panelist_id IN `+in+` ORDER BY panelist_id, code, value`,
		func(rows *sqlx.Rows) error {
			var id string
			var a domain.OwnAnswer
			var state int
			if err := rows.Scan(&id, &a.Code, &a.Value, &state); err != nil {
				return err
			}
			if p := ps[id]; p != nil {
				p.answers = append(p.answers, a)
				p.states = append(p.states, state)
			}
			return nil
		})
	if err == nil {
		err = read("countries", `SELECT panelist_id, country FROM panel WHERE panelist_id IN `+in, func(rows *sqlx.Rows) error {
			var id, country string
			if err := rows.Scan(&id, &country); err != nil {
				return err
			}
			if p := ps[id]; p != nil {
				p.country = country
			}
			return nil
		})
	}
	if err == nil {
		err = read("earlier translations", `SELECT panelist_id, country, answers FROM own_translations WHERE panelist_id IN `+in, func(rows *sqlx.Rows) error {
			var id, country string
			var b []byte
			if err := rows.Scan(&id, &country, &b); err != nil {
				return err
			}
			if p := ps[id]; p != nil {
				p.translated, p.beforeCountry, p.before = true, country, b
			}
			return nil
		})
	}
	if err == nil {
		err = read("profiles", `SELECT panelist_id, answers FROM profiles WHERE panelist_id IN `+in, func(rows *sqlx.Rows) error {
			var id string
			var b []byte
			if err := rows.Scan(&id, &b); err != nil {
				return err
			}
			if p := ps[id]; p != nil {
				p.profile = b
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := tr.panelist(id, ps[id]); err != nil {
			return fmt.Errorf("translate the own profile of panelist %s: %w", domain.QuoteField(id), err)
		}
	}
	if err := flushAll(ctx, tr.states, tr.translations, tr.profiles); err != nil {
		return fmt.Errorf("translate own profiles: %w", err)
	}
	if len(tr.emptied) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM profiles WHERE panelist_id IN (`+placeholders(len(tr.emptied))+`)`, tr.emptied...); err != nil {
			return fmt.Errorf("translate own profiles: %w", err)
		}
		tr.emptied = tr.emptied[:0]
	}
	return nil
}

// panelist translates one panelist's own answers again and writes what
// changed: the state of each own answer, the translation kept, the
// profile.
func (tr *translation) panelist(id string, p *ownPanelist) error {
	ctx, tx := tr.ctx, tr.tx
	tr.panelists++
	stored, err := unpackAnswers(p.profile)
	if err != nil {
		return err
	}
	profile := make(map[int64][]int64, len(stored))
	for q, as := range stored {
		profile[q] = slices.Clone(as)
	}
	before, err := unpackAnswers(p.before)
	if err != nil {
		return err
	}
	// What is left once the translation before is taken out: the answers
	// imported by provider ids, which win over the translation's.
	for q, as := range before {
		kept := slices.DeleteFunc(profile[q], func(a int64) bool { return slices.Contains(as, a) })
		if len(kept) == 0 {
			delete(profile, q)
		} else {
			profile[q] = kept
		}
	}
	t := tr.mapping.Translate(p.country, p.answers, profile, tr.now)
	states := make(map[domain.OwnAnswer]int, len(t.Untranslated))
	for _, u := range t.Untranslated {
		states[u.OwnAnswer] = 1 // no row covers it for the panelist's country
		if u.Covered() {
			states[u.OwnAnswer] = 2
		}
	}
	for i, a := range p.answers {
		if state := states[a]; state != p.states[i] {
			if err := tr.states.add(ctx, id, a.Code, a.Value, state); err != nil {
				return err
			}
		}
	}
	added := map[int64][]int64{} // to questions without provider answers only
	for _, a := range t.Answers {
		added[a.QuestionID] = append(added[a.QuestionID], a.AnswerID)
		profile[a.QuestionID] = append(profile[a.QuestionID], a.AnswerID)
	}
	newBefore := packAnswers(added)
	if !p.translated || p.beforeCountry != p.country || !bytes.Equal(newBefore, p.before) {
		if err := tr.translations.add(ctx, id, p.country, newBefore); err != nil {
			return err
		}
	}
	for q, as := range profile {
		slices.Sort(as)
		profile[q] = as
	}
	if maps.EqualFunc(profile, stored, slices.Equal) {
		return nil // unchanged
	}
	packed := packAnswers(profile)
	tr.changed++
	if len(packed) == 0 {
		tr.emptied = append(tr.emptied, id)
		return nil
	}
	if tr.importID == 0 {
		if err := tx.GetContext(ctx, &tr.importID, `INSERT INTO profile_imports (imported_at, records) VALUES (?, 0) RETURNING import_id`, tr.now); err != nil {
			return err
		}
	}
	return tr.profiles.add(ctx, id, tr.importID, packed)
}

// unpackAnswers unpacks a packed profile (profiles_codec.go) into answer
// lists by question, the age question's birth date as yyyymmdd.
func unpackAnswers(blob []byte) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	r := profileReader{b: blob}
	for {
		q, _, answers, ok, err := r.next(nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out[q] = answers
	}
}

// packAnswers packs answer lists by question as a profile (none of them
// fresh: fresh marks what a provider-id import wrote itself).
func packAnswers(answers map[int64][]int64) []byte {
	out := []byte{}
	var prev int64
	for _, q := range slices.Sorted(maps.Keys(answers)) {
		as := slices.Clone(answers[q])
		slices.Sort(as)
		as = slices.Compact(as)
		if len(as) == 0 {
			continue
		}
		out = appendQuestion(out, prev, q, false, as)
		prev = q
	}
	return out
}

// translateMoved translates again, in a panel import's transaction tx,
// the panelists with own answers whose country in the panel is no longer
// the one their translation used, and refreshes the unmapped codes when
// there were any. It first serializes with the profile imports (which
// write the same profiles rows, on PostgreSQL from other instances too),
// and only then looks for own answers (one row read without any): an own
// import still running may be writing some, translated with the country
// this import is changing. The panel import already holds its own lock,
// and no profile import takes the panel's, so the two never wait for each
// other in turn.
func (s *Store) translateMoved(ctx context.Context, tx *sqlx.Tx) error {
	if err := s.dialect.serialize(ctx, tx, "profile import"); err != nil {
		return err
	}
	var own bool
	if err := tx.GetContext(ctx, &own, `SELECT EXISTS (SELECT 1 FROM own_translations)`); err != nil || !own {
		if err != nil {
			return fmt.Errorf("translate own profiles: %w", err)
		}
		return nil
	}
	tr, err := newTranslation(ctx, tx, 0)
	if err != nil {
		return err
	}
	defer tr.close()
	err = tr.run(`SELECT t.panelist_id FROM own_translations t LEFT JOIN panel p ON p.panelist_id = t.panelist_id
		WHERE t.country <> COALESCE(p.country, '') AND t.panelist_id > ? ORDER BY t.panelist_id LIMIT ?`)
	return err
}
