package checks

import "fieldboard/rules/domain"

// heldRules are the eligibility rules as read of a decided snapshot, as
// it holds them once decided: every subsample's numbers back to back in
// one array and an event's name as a place in a table, nothing the
// collector scans on each cycle. rules gives a subsample's back as read,
// nil lists, ids and names nil, empty ones empty.
type heldRules struct {
	at    map[int64][2]int // a subsample's rules are words[at[0]:at[1]]
	words []int64
	names []string // an event's name is word place+1 here; 0 is none (nil)
}

// holdRules holds rules as heldRules.
func holdRules(rules map[int64]domain.EligibilityRules) *heldRules {
	h := &heldRules{at: make(map[int64][2]int, len(rules))}
	places := map[string]int64{}
	w := func(v ...int64) { h.words = append(h.words, v...) }
	count := func(n int, isNil bool) {
		if isNil {
			w(-1)
		} else {
			w(int64(n))
		}
	}
	id := func(p *int64) {
		if p == nil {
			w(0, 0)
		} else {
			w(1, *p)
		}
	}
	codes := func(c []int64) {
		count(len(c), c == nil)
		w(c...)
	}
	name := func(s *string) {
		if s == nil {
			w(0)
			return
		}
		p, ok := places[*s]
		if !ok {
			p = int64(len(h.names)) + 1
			h.names = append(h.names, *s)
			places[*s] = p
		}
		w(p)
	}
	for sub, r := range rules {
		from := len(h.words)
		count(len(r.Surveys), r.Surveys == nil)
		for _, e := range r.Surveys {
			id(e.ID)
			w(e.NumDays)
			codes(e.ReturnCodes)
		}
		count(len(r.ResearchTypes), r.ResearchTypes == nil)
		for _, e := range r.ResearchTypes {
			id(e.ID)
			w(e.NumDays)
			codes(e.ReturnCodes)
		}
		count(len(r.Categories), r.Categories == nil)
		for _, e := range r.Categories {
			id(e.MainCategoryID)
			id(e.GenericCategoryID)
			id(e.SpecificCategoryID)
			w(e.NumDays)
			codes(e.ReturnCodes)
		}
		count(len(r.Events), r.Events == nil)
		for _, e := range r.Events {
			id(e.ID)
			name(e.Name)
			w(e.NumDays)
			codes(e.ReturnCodes)
		}
		h.at[sub] = [2]int{from, len(h.words)}
	}
	return h
}

// rules are subsampleID's rules as they were held; the zero value when
// none were.
func (h *heldRules) rules(subsampleID int64) domain.EligibilityRules {
	at, ok := h.at[subsampleID]
	if !ok {
		return domain.EligibilityRules{}
	}
	words := h.words[at[0]:at[1]]
	next := func() int64 {
		v := words[0]
		words = words[1:]
		return v
	}
	id := func() *int64 {
		if next() == 0 {
			next()
			return nil
		}
		v := next()
		return &v
	}
	codes := func() []int64 {
		n := next()
		if n < 0 {
			return nil
		}
		c := make([]int64, n)
		for i := range c {
			c[i] = next()
		}
		return c
	}
	list := func(alloc func(n int)) {
		if n := next(); n >= 0 {
			alloc(int(n))
		}
	}
	var r domain.EligibilityRules
	list(func(n int) { r.Surveys = make([]domain.SurveyRule, n) })
	for i := range r.Surveys {
		e := &r.Surveys[i]
		e.ID = id()
		e.NumDays = next()
		e.ReturnCodes = codes()
	}
	list(func(n int) { r.ResearchTypes = make([]domain.ResearchTypeRule, n) })
	for i := range r.ResearchTypes {
		e := &r.ResearchTypes[i]
		e.ID = id()
		e.NumDays = next()
		e.ReturnCodes = codes()
	}
	list(func(n int) { r.Categories = make([]domain.CategoryRule, n) })
	for i := range r.Categories {
		e := &r.Categories[i]
		e.MainCategoryID = id()
		e.GenericCategoryID = id()
		e.SpecificCategoryID = id()
		e.NumDays = next()
		e.ReturnCodes = codes()
	}
	list(func(n int) { r.Events = make([]domain.EventRule, n) })
	for i := range r.Events {
		e := &r.Events[i]
		e.ID = id()
		if p := next(); p > 0 {
			name := h.names[p-1]
			e.Name = &name
		}
		e.NumDays = next()
		e.ReturnCodes = codes()
	}
	return r
}

// all are every subsample's rules, as they were held.
func (h *heldRules) all() map[int64]domain.EligibilityRules {
	out := make(map[int64]domain.EligibilityRules, len(h.at))
	for id := range h.at {
		out[id] = h.rules(id)
	}
	return out
}

// rulesOf are subsampleID's eligibility rules: as the store read them
// while d is decided, then as it holds them. Read-only.
func (d *Decisions) rulesOf(subsampleID int64) domain.EligibilityRules {
	if d.heldRules != nil {
		return d.heldRules.rules(subsampleID)
	}
	return d.rules[subsampleID]
}
