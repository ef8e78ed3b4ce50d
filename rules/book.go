package rules

import (
	"sync"
	"time"

	"fieldboard/rules/domain"
)

// RuleBook is the eligibility rules of many targets (every live subsample
// of a snapshot) compiled once, to check one panelist against all of them:
// "where may P go now?". Subsamples share most entries (the same research
// type, days and statuses), so the book keeps each distinct entry once and
// decides it once per panelist, starting from the panelist's records: the
// cost follows the history and the entries it touches, not the number of
// subsamples. Its answers are exactly Eligibility's, target by target.
//
// A decided snapshot holds its book for as long as it is current, so the
// book holds its lists back to back, without a pointer per list or per
// target for the collector to scan (heldLists).
type RuleBook struct {
	parents domain.CategoryParents
	entries []bookEntry
	// byKey finds the entries naming a record's subsample, research type,
	// category (at each level) or event.
	byKey heldLists[bookKey]
	// users are the targets using each entry; byEvent and bySubsample the
	// targets of each event and subsample (the unique-respondents rule).
	users       heldLists[int32]
	byEvent     heldLists[int64]
	bySubsample heldLists[int64]
	targets     []bookTarget
	uses        []entryUse // of every target, bookTarget.from to .to
	// scratch keeps bookScratch values between checks, so that a check
	// allocates nothing sized to the book.
	scratch sync.Pool
}

type bookKey struct {
	field match
	id    int64
}

// bookEntry is one distinct applicable entry. Entries with the same
// sentence are the same entry: the sentence names everything they decide on.
type bookEntry struct {
	kind    string
	key     bookKey
	codes   []int64
	numDays int64
	rule    string
}

type bookTarget struct {
	target Target
	// from and to are its entries in RuleBook.uses, in the order
	// Eligibility reports exclusions.
	from, to int32
}

// usesOf are target t's entries.
func (b *RuleBook) usesOf(t *bookTarget) []entryUse { return b.uses[t.from:t.to:t.to] }

// heldLists are lists of int32 by key, back to back in one array: a map
// and an array without pointers, which the collector does not scan.
type heldLists[K comparable] struct {
	at  map[K][2]int32 // a list's first place in all, and the place after its last
	all []int32
}

// holdLists holds m as heldLists.
func holdLists[K comparable](m map[K][]int32) heldLists[K] {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	h := heldLists[K]{at: make(map[K][2]int32, len(m)), all: make([]int32, 0, n)}
	for k, l := range m {
		from := int32(len(h.all))
		h.all = append(h.all, l...)
		h.at[k] = [2]int32{from, int32(len(h.all))}
	}
	return h
}

// of is k's list; none when k has none.
func (h heldLists[K]) of(k K) []int32 {
	at := h.at[k]
	return h.all[at[0]:at[1]:at[1]]
}

// entryUse is a target's entry: which one, and its position in its array.
type entryUse struct{ entry, index int32 }

// NewRuleBook compiles rules[i], the rules of targets[i], for every i.
func NewRuleBook(targets []Target, rules []domain.EligibilityRules, parents domain.CategoryParents) *RuleBook {
	b := &RuleBook{parents: parents, targets: make([]bookTarget, len(targets))}
	byKey, byEvent, bySubsample, users := map[bookKey][]int32{}, map[int64][]int32{}, map[int64][]int32{}, map[int32][]int32{}
	bySentence := map[string]int32{}
	for i, t := range targets {
		bt := &b.targets[i]
		bt.target = t
		bt.from = int32(len(b.uses))
		use := func(kind string, index int, field match, id int64, codes []int64, numDays int64, sentence func() string) {
			if id == 0 || !hasRealCode(codes) {
				return // a placeholder: applies to nothing
			}
			rule := sentence()
			e, ok := bySentence[rule]
			if !ok {
				e = int32(len(b.entries))
				bySentence[rule] = e
				key := bookKey{field, id}
				b.entries = append(b.entries, bookEntry{kind: kind, key: key, codes: codes, numDays: numDays, rule: rule})
				byKey[key] = append(byKey[key], e)
			}
			if u := users[e]; len(u) == 0 || u[len(u)-1] != int32(i) {
				users[e] = append(u, int32(i))
			}
			b.uses = append(b.uses, entryUse{e, int32(index)})
		}
		r := &rules[i]
		for j, e := range r.Surveys {
			id := idOf(e.ID)
			use(KindSurveys, j, matchSubsample, id, e.ReturnCodes, e.NumDays, func() string { return surveySentence(id, e.NumDays, e.ReturnCodes) })
		}
		for j, e := range r.ResearchTypes {
			id := idOf(e.ID)
			use(KindResearchTypes, j, matchResearchType, id, e.ReturnCodes, e.NumDays, func() string { return researchTypeSentence(id, e.NumDays, e.ReturnCodes) })
		}
		for j := range r.Categories {
			e := &r.Categories[j]
			level, id := categoryLevel(e)
			use(KindCategories, j, level, id, e.ReturnCodes, e.NumDays, func() string { return categorySentence(level, id, e.NumDays, e.ReturnCodes) })
		}
		for j, e := range r.Events {
			id := idOf(e.ID)
			use(KindEvents, j, matchEvent, id, e.ReturnCodes, e.NumDays, func() string { return eventSentence(id, e.Name, e.NumDays, e.ReturnCodes) })
		}
		if t.EventID != 0 {
			byEvent[t.EventID] = append(byEvent[t.EventID], int32(i))
		}
		bySubsample[t.SubsampleID] = append(bySubsample[t.SubsampleID], int32(i))
		bt.to = int32(len(b.uses))
	}
	b.byKey, b.byEvent, b.bySubsample, b.users = holdLists(byKey), holdLists(byEvent), holdLists(bySubsample), holdLists(users)
	return b
}

// Check decides one panelist's eligibility for every target, calling fn
// with each target's index, in increasing order, and the result
// Eligibility would give. Exclusions that come from the same entry and
// record share their strings.
func (b *RuleBook) Check(history []domain.HistoryRecord, now time.Time, fn func(target int, r EligibilityResult)) {
	c := b.against(history, now)
	defer c.release()
	for i := range b.targets {
		fn(i, c.result(i))
	}
}

// CheckTargets is Check for the targets listed, in their order, until fn
// returns false: the work follows the panelist's history and the targets
// looked at, not the size of the book (the router's path). It decides an
// entry only when a target looked at uses it, where Check decides up front
// every entry the history's records name.
func (b *RuleBook) CheckTargets(history []domain.HistoryRecord, now time.Time, targets []int32, fn func(target int, r EligibilityResult) bool) {
	c := bookCheck{b: b, history: history, now: now}
	if len(history) > 0 {
		c.scratch = b.takeScratch()
		c.lazy = true
		defer c.release()
	}
	for _, i := range targets {
		if !fn(int(i), c.result(int(i))) {
			return
		}
	}
}

// CheckTargetsEligible is CheckTargets when only whether the panelist is
// eligible matters (EligibilityResult.Eligible, handed to fn): the
// exclusions that would say why not are never built, so a target that
// excludes the panelist costs no sentence. Each answer is the Eligible of
// the result CheckTargets gives for the same target.
func (b *RuleBook) CheckTargetsEligible(history []domain.HistoryRecord, now time.Time, targets []int32, fn func(target int, eligible bool) bool) {
	c := bookCheck{b: b, history: history, now: now}
	if len(history) > 0 {
		// Given back by itself, not through c: the history stays where
		// the caller keeps it (its stack, the router's).
		s := b.takeScratch()
		c.scratch, c.lazy = s, true
		defer b.releaseScratch(s)
	}
	for _, i := range targets {
		if !fn(int(i), c.eligible(int(i))) {
			return
		}
	}
}

// bookCheck is one panelist's history applied to a book: which entries
// matched which record, and which targets any record touches.
type bookCheck struct {
	b       *RuleBook
	history []domain.HistoryRecord
	now     time.Time
	// scratch holds which entries matched which record; touched holds
	// the targets to look at.
	*scratch
	touched []bool
	// lazy: entries are decided when a target's result needs them, and
	// every target is looked at (touched is nil).
	lazy bool
}

// scratch is what one check decided of the book's entries, sized to the
// book but kept between checks (RuleBook.scratch) and cleared entry by
// entry: a check's work and garbage follow the entries it decides, not the
// size of the book.
type scratch struct {
	// matched[e] is 1 + the record entry e matched (its most recent), -1
	// for none, 0 while undecided.
	matched    []int32
	exclusions []*Exclusion // built once per entry
	decided    []int32      // the entries whose matched is not 0
}

// takeScratch is a cleared scratch sized to the book.
func (b *RuleBook) takeScratch() *scratch {
	if s, ok := b.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{matched: make([]int32, len(b.entries)), exclusions: make([]*Exclusion, len(b.entries))}
}

// release clears what the check decided and gives its scratch back.
func (c *bookCheck) release() {
	s := c.scratch
	if s == nil {
		return
	}
	c.scratch = nil
	c.b.releaseScratch(s)
}

// releaseScratch clears what a check decided in s and keeps s for the
// next check.
func (b *RuleBook) releaseScratch(s *scratch) {
	for _, e := range s.decided {
		s.matched[e], s.exclusions[e] = 0, nil
	}
	s.decided = s.decided[:0]
	b.scratch.Put(s)
}

// decide decides entry e against the history, once: 1 + the record it
// matched (its most recent), or -1 for none.
func (c *bookCheck) decide(e int32) int32 {
	if c.matched[e] == 0 {
		c.decided = append(c.decided, e)
		entry := &c.b.entries[e]
		c.matched[e] = int32(mostRecent(c.history, entry.key.field, entry.key.id, c.b.parents, entry.codes, entry.numDays, c.now)) + 1
		if c.matched[e] == 0 {
			c.matched[e] = -1
		}
	}
	return c.matched[e]
}

// against decides the entries the history's records name, once each.
func (b *RuleBook) against(history []domain.HistoryRecord, now time.Time) *bookCheck {
	c := &bookCheck{b: b, history: history, now: now}
	if len(history) == 0 {
		return c
	}
	c.scratch = b.takeScratch()
	c.touched = make([]bool, len(b.targets))
	decide := func(key bookKey) {
		for _, e := range b.byKey.of(key) {
			if c.matched[e] != 0 {
				continue
			}
			if c.decide(e) > 0 {
				for _, t := range b.users.of(e) {
					c.touched[t] = true
				}
			}
		}
	}
	broad := false   // every generic and main entry decided
	unknown := false // every entry an unknown (0) research type, category or event may match decided
	for i := range history {
		rec := &history[i]
		if !unknown && (rec.ResearchTypeID == 0 || rec.CategoryID == 0 || rec.EventID == 0) {
			// A record whose research type, category or event is not
			// known matches every entry on it (fieldMatches).
			unknown, broad = true, true
			for key := range b.byKey.at {
				if key.field != matchSubsample {
					decide(key)
				}
			}
		}
		decide(bookKey{matchSubsample, rec.SubsampleID})
		decide(bookKey{matchResearchType, rec.ResearchTypeID})
		decide(bookKey{matchEvent, rec.EventID})
		decide(bookKey{matchSpecificCategory, rec.CategoryID})
		if p, ok := b.parents[rec.CategoryID]; ok && p.Contradiction == "" {
			decide(bookKey{matchGenericCategory, p.GenericID})
			decide(bookKey{matchMainCategory, p.MainID})
		} else if rec.CategoryID != 0 && !broad {
			// A category never seen, or named under two parents, matches
			// every generic and main entry.
			broad = true
			for key := range b.byKey.at {
				if key.field == matchGenericCategory || key.field == matchMainCategory {
					decide(key)
				}
			}
		}
		for _, t := range b.byEvent.of(rec.EventID) {
			c.touched[t] = true
		}
		for _, t := range b.bySubsample.of(rec.SubsampleID) {
			c.touched[t] = true
		}
	}
	return c
}

// eligible is result(i).Eligible, without building the exclusions: no
// entry target i uses matched a record, and no record is on its subsample
// or event.
func (c *bookCheck) eligible(i int) bool {
	if len(c.history) == 0 || !c.lazy && !c.touched[i] {
		return true
	}
	t := &c.b.targets[i]
	for _, u := range c.b.usesOf(t) {
		if c.decide(u.entry) > 0 {
			return false
		}
	}
	return sameEvent(t.target, c.history) < 0
}

// result is target i's eligibility under the history: eligible decides,
// and only an excluded target has its exclusions built (the entries
// decided are kept, so the second walk decides nothing again).
func (c *bookCheck) result(i int) EligibilityResult {
	if c.eligible(i) {
		return EligibilityResult{Eligible: true}
	}
	b, history := c.b, c.history
	t := &b.targets[i]
	var out []Exclusion
	for _, u := range b.usesOf(t) {
		m := c.decide(u.entry) - 1
		if m < 0 {
			continue
		}
		x := c.exclusions[u.entry]
		if x == nil {
			entry := &b.entries[u.entry]
			built := exclusion(entry.kind, 0, entry.rule, history[m], entry.numDays, c.now)
			if entry.kind == KindCategories {
				built = categoryExclusion(entry.key.field, 0, entry.rule, history[m], b.parents, entry.numDays, c.now)
			}
			x = &built
			c.exclusions[u.entry] = x
		}
		ex := *x
		ex.Index = int(u.index)
		out = append(out, ex)
	}
	if m := sameEvent(t.target, history); m >= 0 {
		out = append(out, uniqueEventExclusion(t.target, history[m]))
	}
	return EligibilityResult{Eligible: false, Exclusions: out}
}
