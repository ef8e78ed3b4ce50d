package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// mappingCSV builds a mapping file: the header, then lines.
func mappingCSV(lines ...string) string {
	return store.MappingHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// ownCSV builds an own-code profile file: the header, then lines.
func ownCSV(lines ...string) string {
	return store.OwnProfileHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// saveMappingLibrary stores a library of two locales: fr-fr with gender
// (43: 1 male, 2 female), region FR (97: 70 north-west, 71 south) and the
// hobbies (120, Multiple Punch: 5 outdoor, 6 indoor), en-gb with gender and
// region GB (96: 10 north-west, 11 south).
func saveMappingLibrary(t *testing.T, s *store.Store) {
	t.Helper()
	gender := domain.Question{ID: 43, Type: "Single Punch", Name: "GENDER", Text: "Gender?"}
	genders := []domain.Answer{{ID: 1, Text: "Male"}, {ID: 2, Text: "Female"}}
	run := store.Run{Dataset: store.DatasetLibrary, StartedAt: t0, FinishedAt: t0.Add(time.Second)}
	err := s.SaveLibrary(context.Background(), run, []store.LocaleLibrary{
		{Locale: "fr-fr", FetchedAt: t0, Questions: []domain.Question{gender, {ID: 97, Type: "Single Punch", Name: "REGION_FR", Text: "Région ?"},
			{ID: 120, Type: "Multiple Punch", Name: "HOBBIES", Text: "Loisirs ?"}},
			Answers: map[int64][]domain.Answer{43: genders, 97: {{ID: 70, Text: "Nord-Ouest"}, {ID: 71, Text: "Sud"}},
				120: {{ID: 5, Text: "Plein air"}, {ID: 6, Text: "Intérieur"}}}},
		{Locale: "en-gb", FetchedAt: t0, Questions: []domain.Question{gender, {ID: 96, Type: "Single Punch", Name: "REGION_GB", Text: "Region?"}},
			Answers: map[int64][]domain.Answer{43: genders, 96: {{ID: 10, Text: "North West"}, {ID: 11, Text: "South"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func importMapping(t *testing.T, s *store.Store, content string) store.MappingImportReport {
	t.Helper()
	report, err := s.ImportMappingCSV(context.Background(), strings.NewReader(content))
	if err != nil {
		t.Fatalf("import mapping: %v (report %+v)", err, report)
	}
	return report
}

func importOwn(t *testing.T, s *store.Store, content string) store.OwnProfileImportReport {
	t.Helper()
	report, err := s.ImportOwnProfilesCSV(context.Background(), strings.NewReader(content))
	if err != nil {
		t.Fatalf("import own profiles: %v (report %+v)", err, report)
	}
	return report
}

// wantAnswers fails unless the panelist's profile holds exactly answers
// (and birth date, zero for none).
func wantAnswers(t *testing.T, s *store.Store, panelistID string, answers map[int64][]int64, birth time.Time) {
	t.Helper()
	p := profileOf(t, s, panelistID)
	if !reflect.DeepEqual(p.Answers, answers) || !p.BirthDate.Equal(birth) {
		t.Errorf("profile of %s = %v born %v; want %v born %v", panelistID, p.Answers, p.BirthDate, answers, birth)
	}
}

func wantUnmapped(t *testing.T, s *store.Store, want []store.UnmappedCode) {
	t.Helper()
	got, err := s.UnmappedCodes(context.Background())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("UnmappedCodes = %+v, %v; want %+v", got, err, want)
	}
}

// TestOwnProfilesLateMapping: own answers imported before any mapping are
// kept untranslated and counted; a mapping imported later translates them
// into the profiles, a country's row over the general one, a birth date for
// the age question, without the profiles being imported again.
func TestOwnProfilesLateMapping(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		saveMappingLibrary(t, s)
		importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,GB,en-gb"))
		report := importOwn(t, s, ownCSV("P1,gender,F", "P1,region,NW", "P1,dob,1984-03-02", "P2,region,NW", "P3,gender,M", "P3,income,high"))
		if want := (store.OwnProfileImportReport{Records: 6, Answers: 6, Untranslated: 6, Panelists: 3}); !reflect.DeepEqual(report, want) {
			t.Errorf("own import before any mapping: %+v, want %+v", report, want)
		}
		if n := profileCount(t, s); n != 0 {
			t.Errorf("%d profiles before any mapping; want none: an untranslated answer is never a provider answer", n)
		}
		wantUnmapped(t, s, []store.UnmappedCode{{"dob", "1984-03-02", "FR", 1}, {"gender", "F", "FR", 1}, {"gender", "M", "", 1}, {"income", "high", "", 1},
			{"region", "NW", "FR", 1}, {"region", "NW", "GB", 1}})

		mapping := mappingCSV("gender,F,43,2,", "gender,M,43,1,", "region,NW,96,10,", "region,NW,97,70,FR", "dob,,-1,,")
		mr := importMapping(t, s, mapping)
		if want := (store.MappingImportReport{Records: 5, Panelists: 3, Changed: 3, Translated: 5, Untranslated: 1}); !reflect.DeepEqual(mr, want) {
			t.Errorf("mapping import: %+v, want %+v", mr, want)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {2}, 97: {70}}, date(1984, 3, 2))
		wantAnswers(t, s, "P2", map[int64][]int64{96: {10}}, time.Time{})
		wantAnswers(t, s, "P3", map[int64][]int64{43: {1}}, time.Time{}) // no country on file: the general rows
		wantUnmapped(t, s, []store.UnmappedCode{{"income", "high", "", 1}})
		rows, err := s.ProfileMapping(context.Background())
		if err != nil || len(rows) != 5 || rows[0] != (domain.MappingRow{Code: "dob", QuestionID: -1}) {
			t.Errorf("ProfileMapping = %+v, %v", rows, err)
		}

		// A panel import that moves P2 to France translates P2 again: the
		// French row applies now.
		importPanel(t, s, panelCSV("P2,FR,fr-fr"))
		wantAnswers(t, s, "P2", map[int64][]int64{97: {70}}, time.Time{})
	})
}

// TestOwnProfilesMappingChange: a new mapping removes the answers the old
// one reached and it does not, answers imported by provider ids win over
// translated ones (and keep), and a re-import of a (panelist, code)
// replaces its values.
func TestOwnProfilesMappingChange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		saveMappingLibrary(t, s)
		importPanel(t, s, panelCSV("P1,FR,fr-fr"))
		importProfiles(t, s, profileCSV("P1,43,1", "P1,500,9", "P1,-1,1980-01-01")) // by provider ids
		importMapping(t, s, mappingCSV("gender,F,43,2,", "region,NW,97,70,FR", "hobby,out,120,5,", "dob,,-1,,"))
		r := importOwn(t, s, ownCSV("P1,gender,F", "P1,region,NW", "P1,hobby,out", "P1,hobby,in", "P1,dob,1984-03-02"))
		// The provider-id file says male and 1980-01-01: those win; the
		// own gender F and birth date are covered but not applied, and
		// counted as untranslated (hobby in: no row).
		if want := (store.OwnProfileImportReport{Records: 5, Answers: 5, Translated: 2, Untranslated: 3, Panelists: 1}); !reflect.DeepEqual(r, want) {
			t.Errorf("own import: %+v, want %+v", r, want)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {1}, 97: {70}, 120: {5}, 500: {9}}, date(1980, 1, 1))
		wantUnmapped(t, s, []store.UnmappedCode{{"hobby", "in", "FR", 1}})

		// The new mapping no longer reaches region's answer, nor hobby's.
		mr := importMapping(t, s, mappingCSV("gender,F,43,2,"))
		if want := (store.MappingImportReport{Records: 1, Panelists: 1, Changed: 1, Untranslated: 5}); !reflect.DeepEqual(mr, want) {
			t.Errorf("mapping import: %+v, want %+v", mr, want)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {1}, 500: {9}}, date(1980, 1, 1))
		wantUnmapped(t, s, []store.UnmappedCode{{"dob", "1984-03-02", "FR", 1}, {"hobby", "in", "FR", 1}, {"hobby", "out", "FR", 1}, {"region", "NW", "FR", 1}})

		// gender again: M replaces F (a re-import of the pair); the
		// mapping has no M, so 43 keeps only the provider-id answer.
		importOwn(t, s, ownCSV("P1,gender,M"))
		wantAnswers(t, s, "P1", map[int64][]int64{43: {1}, 500: {9}}, date(1980, 1, 1))
		wantUnmapped(t, s, []store.UnmappedCode{{"dob", "1984-03-02", "FR", 1}, {"gender", "M", "FR", 1}, {"hobby", "in", "FR", 1}, {"hobby", "out", "FR", 1}, {"region", "NW", "FR", 1}})

		// The provider-id answer stays whatever the mapping reaches.
		importMapping(t, s, mappingCSV("gender,M,43,1,"))
		wantAnswers(t, s, "P1", map[int64][]int64{43: {1}, 500: {9}}, date(1980, 1, 1))
		importMapping(t, s, mappingCSV("gender,F,43,2,"))
		wantAnswers(t, s, "P1", map[int64][]int64{43: {1}, 500: {9}}, date(1980, 1, 1))
	})
}

// TestOwnProfilesGeneralRowPerCountry: a general row's answer, known in
// one country's locales only, reaches the panelists of that country and
// those with no country on file, never a panelist of a country whose
// library lacks it, where the same id may mean something else: there the
// value is not covered, and listed for their country.
func TestOwnProfilesGeneralRowPerCountry(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		saveMappingLibrary(t, s)
		importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,GB,en-gb"))
		importMapping(t, s, mappingCSV("region,NW,97,70,", "gender,F,43,2,"))
		r := importOwn(t, s, ownCSV("P1,region,NW", "P2,region,NW", "P2,gender,F", "P3,region,NW"))
		if r.Translated != 3 || r.Untranslated != 1 {
			t.Errorf("own import: %+v, want 3 translated and 1 not", r)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{97: {70}}, time.Time{})
		wantAnswers(t, s, "P2", map[int64][]int64{43: {2}}, time.Time{})
		wantAnswers(t, s, "P3", map[int64][]int64{97: {70}}, time.Time{})
		wantUnmapped(t, s, []store.UnmappedCode{{"region", "NW", "GB", 1}})

		// Moved to France, P2 gets it.
		importPanel(t, s, panelCSV("P2,FR,fr-fr"))
		wantAnswers(t, s, "P2", map[int64][]int64{43: {2}, 97: {70}}, time.Time{})
		wantUnmapped(t, s, []store.UnmappedCode{})
	})
}

// TestMappingImportBadFile: a bad mapping file says each bad line with its
// number and why, and leaves the mapping and the profiles as they were; a
// mapping before any library is refused.
func TestMappingImportBadFile(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.ImportMappingCSV(ctx, strings.NewReader(mappingCSV("gender,F,43,2,"))); !errors.Is(err, store.ErrNoLibrary) {
			t.Errorf("mapping before any library: %v, want ErrNoLibrary", err)
		}
		saveMappingLibrary(t, s)
		importPanel(t, s, panelCSV("P1,FR,fr-fr"))
		importMapping(t, s, mappingCSV("gender,F,43,2,"))
		importOwn(t, s, ownCSV("P1,gender,F"))
		report, err := s.ImportMappingCSV(ctx, strings.NewReader(mappingCSV(
			"gender,M,43,1,",
			"region,NW,96,10,FR",
			"gender,F,43,7,FR",
			"dob,,-1,3,",
			"gender,M,43,1,",
			"gender,M,43,2,",
		)))
		if !errors.Is(err, store.ErrInvalidImport) {
			t.Fatalf("bad mapping: %v, want ErrInvalidImport", err)
		}
		want := []store.LineError{
			{Line: 3, Reason: "question 96 is not in the library of FR's locales (fr-fr)"},
			{Line: 4, Reason: "answer 7 is not an answer of question 43 in the library of FR's locales (fr-fr)"},
			{Line: 5, Reason: `answerId must be empty for the age question (-1), not "3"`},
			{Line: 6, Reason: "the same row as line 2"},
			{Line: 7, Reason: `value "M" of code "gender" reaches answer 1 of question 43 on line 2, and answer 2 here: question 43 is not Multiple Punch, so a value reaches one answer of it`},
		}
		if !reflect.DeepEqual(report.Errors, want) || report.BadLines != 5 {
			t.Errorf("bad lines: %+v (%d)\nwant %+v", report.Errors, report.BadLines, want)
		}
		rows, err := s.ProfileMapping(ctx)
		if err != nil || !reflect.DeepEqual(rows, []domain.MappingRow{{Code: "gender", Value: "F", QuestionID: 43, AnswerID: 2}}) {
			t.Errorf("mapping after a bad file: %+v, %v; want the one before", rows, err)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {2}}, time.Time{})

		// A bad own profile file writes nothing either.
		r, err := s.ImportOwnProfilesCSV(ctx, strings.NewReader(ownCSV("P1,gender,M", ",gender,F", "P2,,x")))
		if !errors.Is(err, store.ErrInvalidImport) || r.BadLines != 2 || r.Errors[0].Line != 3 || r.Errors[1] != (store.LineError{Line: 4, Reason: "code is empty"}) {
			t.Errorf("bad own file: %+v, %v", r, err)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {2}}, time.Time{})
	})
}

// TestOwnProfilesJSONAndRecords: the JSON file and the records given as
// values import alike; a multi-valued code adds up within one file.
func TestOwnProfilesJSONAndRecords(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		saveMappingLibrary(t, s)
		importMapping(t, s, mappingCSV("gender,F,43,2,", "gender,M,43,1,", "hobby,out,120,5,", "hobby,in,120,6,"))
		r, err := s.ImportOwnProfilesJSON(ctx, strings.NewReader(`[{"panelistId":"P1","code":"gender","value":"F"},{"panelistId":7,"code":"gender","value":"M"}]`))
		if err != nil || r.Translated != 2 {
			t.Fatalf("JSON: %+v, %v", r, err)
		}
		wantAnswers(t, s, "7", map[int64][]int64{43: {1}}, time.Time{})
		r, err = s.ImportOwnProfiles(ctx, func(yield func(domain.OwnProfileRecord) bool) {
			_ = yield(domain.OwnProfileRecord{PanelistID: "P1", Code: "hobby", Value: "out"}) &&
				yield(domain.OwnProfileRecord{PanelistID: "P1", Code: "hobby", Value: "in"})
		})
		if err != nil || r.Answers != 2 || r.Translated != 2 {
			t.Fatalf("records: %+v, %v", r, err)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{43: {2}, 120: {5, 6}}, time.Time{})

		// Two values of gender, a Single Punch question: they disagree,
		// and neither is sent.
		r, err = s.ImportOwnProfiles(ctx, func(yield func(domain.OwnProfileRecord) bool) {
			_ = yield(domain.OwnProfileRecord{PanelistID: "P1", Code: "gender", Value: "M"}) &&
				yield(domain.OwnProfileRecord{PanelistID: "P1", Code: "gender", Value: "F"})
		})
		if err != nil || r.Answers != 2 || r.Untranslated != 2 {
			t.Fatalf("records: %+v, %v", r, err)
		}
		wantAnswers(t, s, "P1", map[int64][]int64{120: {5, 6}}, time.Time{})
	})
}

// TestOwnProfilesAcrossBatches: a file longer than one batch of writes
// adds up a panelist's values of a code wherever its lines are, and a
// later file replaces them.
func TestOwnProfilesAcrossBatches(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		saveMappingLibrary(t, s)
		importMapping(t, s, mappingCSV("hobby,out,120,5,", "hobby,in,120,6,"))
		var lines []string
		for _, value := range []string{"out", "in"} {
			for i := range 100 {
				lines = append(lines, fmt.Sprintf("P%03d,hobby,%s", i, value))
			}
		}
		r := importOwn(t, s, ownCSV(lines...))
		if r.Records != 200 || r.Answers != 200 || r.Translated != 200 || r.Panelists != 100 {
			t.Errorf("first file: %+v", r)
		}
		wantAnswers(t, s, "P099", map[int64][]int64{120: {5, 6}}, time.Time{})
		r = importOwn(t, s, ownCSV(lines[:100]...))
		if r.Answers != 100 || r.Panelists != 100 {
			t.Errorf("second file: %+v", r)
		}
		wantAnswers(t, s, "P099", map[int64][]int64{120: {5}}, time.Time{})
	})
}

// TestPanelImportWaitsForOwnImport: on PostgreSQL, where imports of other
// instances run at once, a panel import that changes a country takes the
// profile imports' lock before it looks for own answers to translate
// again. An own import still running (here a transaction holding that lock
// and writing what such an import writes for P1, translated with P1's
// country before the move) is waited for, and P1 is translated again with
// the new country once it commits. (On SQLite, imports already take turns
// at the database's one writer.)
func TestPanelImportWaitsForOwnImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := storetest.PostgresURL(t)
	s := openAt(t, target)
	saveMappingLibrary(t, s)
	importPanel(t, s, panelCSV("P0,FR,fr-fr", "P1,FR,fr-fr"))
	importMapping(t, s, mappingCSV("region,NW,97,70,FR", "region,NW,96,10,"))
	importOwn(t, s, ownCSV("P0,region,NW"))

	// What the own import wrote for P0, taken away: no own answer is
	// committed when the panel import starts.
	raw := storetest.Raw(t, target)
	var importID int64
	var translation, profile []byte
	if err := raw.QueryRowContext(ctx, `SELECT o.import_id, t.answers, p.answers FROM own_profiles o, own_translations t, profiles p
		WHERE o.panelist_id = 'P0' AND t.panelist_id = 'P0' AND p.panelist_id = 'P0'`).Scan(&importID, &translation, &profile); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"own_profiles", "own_translations", "profiles"} {
		if _, err := raw.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`SELECT pg_advisory_xact_lock(hashtext('fieldboard profile import'))`, nil},
		{`INSERT INTO own_profiles (panelist_id, code, value, import_id, state) VALUES ('P1', 'region', 'NW', $1, 0)`, []any{importID}},
		{`INSERT INTO own_translations (panelist_id, country, answers) VALUES ('P1', 'FR', $1)`, []any{translation}},
		{`INSERT INTO profiles (panelist_id, import_id, answers) VALUES ('P1', $1, $2)`, []any{importID, profile}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.ImportPanelCSV(ctx, strings.NewReader(panelCSV("P1,GB,en-gb")))
		done <- err
	}()
	select { // long enough for the panel import to get past its look, were it not waiting
	case err := <-done:
		done <- err
	case <-time.After(500 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantAnswers(t, s, "P1", map[int64][]int64{96: {10}}, time.Time{})
}
