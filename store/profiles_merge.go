package store

import (
	"fmt"

	"fieldboard/rules/domain"
)

// A profile import writes a batch of panelists at a time: their stored
// rows are read (when they may exist), each merged with the panelist's
// records in the file, and the merged rows handed to the dialect's
// profileLoader at once.

// storedProfile is a panelist's row before the batch is written.
type storedProfile struct {
	importID int64
	answers  []byte
}

// writeBatch merges the batch with the stored profiles of its panelists
// and writes it.
func (im *profileImport) writeBatch() error {
	batch := im.batch
	im.batch = im.batch[:0]
	if len(batch) == 0 || im.badLines > 0 {
		return nil
	}
	clear(im.stored)
	if im.lookAlways || !im.sorted {
		if err := im.lookUp(batch); err != nil {
			return err
		}
	}
	im.buf, im.ends = im.buf[:0], im.ends[:0]
	for i := range batch {
		g := &batch[i]
		st, ok := im.stored[g.panelistID]
		if err := im.merge(g, st, ok); err != nil {
			return err
		}
		im.ends = append(im.ends, len(im.buf))
	}
	if im.badLines > 0 {
		return nil
	}
	im.rows = im.rows[:0]
	start := 0
	for i := range batch {
		im.rows = append(im.rows, profileRow{batch[i].panelistID, im.buf[start:im.ends[i]]})
		start = im.ends[i]
	}
	return im.loader.write(im.ctx, im.rows)
}

// lookUp reads the stored rows of the batch's panelists into im.stored:
// as this import wrote them, when it may have (its file is out of
// order).
func (im *profileImport) lookUp(batch []profileGroup) error {
	im.args = im.args[:0]
	for i := range profileBatch {
		im.args = append(im.args, batch[min(i, len(batch)-1)].panelistID)
	}
	err := im.loader.lookUp(im.ctx, im.args, !im.sorted, func(id string, st storedProfile) { im.stored[id] = st })
	if err != nil {
		return fmt.Errorf("look up stored profiles: %w", err)
	}
	return nil
}

// merge packs g's panelist's new profile onto im.buf: each question g
// answers replaces the stored one, unless this import wrote that one too,
// in which case the answers add up; the other stored questions are kept.
func (im *profileImport) merge(g *profileGroup, st storedProfile, stored bool) error {
	sameImport := stored && st.importID == im.importID
	r := profileReader{b: st.answers}
	var prev int64
	total := 0
	put := func(question int64, fresh bool, answers []int64) {
		im.buf = appendQuestion(im.buf, prev, question, fresh, answers)
		prev = question
		total += len(answers)
	}
	// The stored question read ahead, if any.
	sq, sFresh, sAnswers, sOK, err := r.next(im.scratch[:0])
	for gi := 0; gi < len(g.answers) || sOK; {
		if err != nil {
			break
		}
		var question int64
		switch {
		case gi == len(g.answers):
			question = sq
		case !sOK:
			question = g.answers[gi].question
		default:
			question = min(sq, g.answers[gi].question)
		}
		// The group's answers to question.
		gj := gi
		for gj < len(g.answers) && g.answers[gj].question == question {
			gj++
		}
		given := g.answers[gi:gj]
		newAnswers := im.given[:0]
		for _, a := range given {
			newAnswers = append(newAnswers, a.answer)
		}
		im.given = newAnswers
		switch {
		case len(given) == 0: // kept as stored
			put(question, sFresh && sameImport, sAnswers)
		case !sOK || sq != question: // a new question
			put(question, true, newAnswers)
			im.inserted += len(newAnswers)
		case sameImport && sFresh: // answered earlier in this file: add up
			if question == domain.AgeRangeQuestionID && sAnswers[0] != newAnswers[0] {
				im.bad(given[0].line, anotherBirthDate(g.panelistID, sAnswers[0]))
				return nil
			}
			merged, added := unionSorted(sAnswers, newAnswers)
			put(question, true, merged)
			im.inserted += added
		default: // answered by an earlier import: replace
			put(question, true, newAnswers)
			im.inserted += len(newAnswers)
			im.replaced += len(sAnswers)
		}
		gi = gj
		if sOK && sq == question {
			im.scratch = sAnswers[:0]
			sq, sFresh, sAnswers, sOK, err = r.next(im.scratch)
		}
	}
	if err != nil {
		return fmt.Errorf("panelist %s: %w", g.panelistID, err)
	}
	if total > maxProfileAnswers {
		im.bad(g.answers[0].line, fmt.Sprintf("panelist %s would have more than %d answers", domain.QuoteField(g.panelistID), maxProfileAnswers))
	}
	return nil
}

// unionSorted returns the ascending union of two ascending lists, and how
// many of b were not in a.
func unionSorted(a, b []int64) ([]int64, int) {
	out := make([]int64, 0, len(a)+len(b))
	added := 0
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			added++
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out, added
}
