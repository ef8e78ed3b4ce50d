package checks

import (
	"math"
	"slices"
	"strconv"
	"time"

	"fieldboard/rules/domain"
)

// A decided snapshot is held for as long as it is current, in every
// process that answers from it (its heap, per live subsample, is what
// serve's default memory limit is chosen from): what it repeats is held
// once.

// shareStrings holds once the strings the reports repeat (statuses,
// countries, currencies, event names, and the reasons of their
// verdicts), for as long as the version is decided.
func (d *Decisions) shareStrings() {
	seen := map[string]string{}
	once := func(s *string) {
		if held, ok := seen[*s]; ok {
			*s = held
		} else {
			seen[*s] = *s
		}
	}
	for i := range d.reports {
		r := &d.reports[i]
		row := &r.SubsampleRow
		for _, s := range [...]*string{&row.EventName, &row.Status, &row.SummaryStatus, &row.LiveStatus, &row.CountryCode, &row.CountryName,
			&row.Currency, &row.ResearchType, &row.QuotasError, &row.RulesError, &row.Malformed} {
			once(s)
		}
		for j := range r.Verdict.Reasons {
			once(&r.Verdict.Reasons[j])
		}
	}
}

// shareValues points the reports' and the live rows' times, prices,
// counts and flags at one value for each that repeats (the store reads
// each into a value of its own): a field's dates, a read's time, a
// subsample's flags. The values are unchanged; a float is known by its
// bits, so 0 and -0 stay apart.
func (d *Decisions) shareValues() {
	times := map[time.Time]*time.Time{}
	floats := map[uint64]*float64{}
	ints := map[int64]*int64{}
	bools := map[bool]*bool{}
	for i := range d.reports {
		row := &d.reports[i].SubsampleRow
		for _, p := range [...]**time.Time{&row.FieldStart, &row.FieldEnd, &row.SummaryFieldEnd, &row.LiveFieldEnd, &row.QuotasAt} {
			sharePointer(times, p, func(t time.Time) time.Time { return t })
		}
		for _, p := range [...]**float64{&row.CPI, &row.ExpectedLOI, &row.ExpectedIR} {
			sharePointer(floats, p, math.Float64bits)
		}
		sharePointer(ints, &row.ResearchTypeID, func(n int64) int64 { return n })
		sharePointer(bools, &row.QuotasOK, func(b bool) bool { return b })
		sharePointer(bools, &row.RulesOK, func(b bool) bool { return b })
	}
	for i := range d.live {
		row := &d.live[i].LiveRow
		for _, p := range [...]**time.Time{&row.FieldStart, &row.FieldEnd} {
			sharePointer(times, p, func(t time.Time) time.Time { return t })
		}
		for _, p := range [...]**float64{&row.ExpectedLOI, &row.ExpectedIncidence} {
			sharePointer(floats, p, math.Float64bits)
		}
		sharePointer(ints, &row.TotalAchieved, func(n int64) int64 { return n })
		sharePointer(ints, &row.TotalRemaining, func(n int64) int64 { return n })
		sharePointer(bools, &row.QuotasOK, func(b bool) bool { return b })
	}
}

// sharePointer points *p at the value seen already under key(**p), or
// keeps it there for the next; nil stays nil.
func sharePointer[T any, K comparable](seen map[K]*T, p **T, key func(T) K) {
	if *p == nil {
		return
	}
	k := key(**p)
	if held, ok := seen[k]; ok {
		*p = held
		return
	}
	seen[k] = *p
}

// compactQuotas are quotas just read held in less memory, for as long as
// a version is decided (the operators are set in place: the quotas must
// be the read's alone): every subsample's quotas in one array, each slice exactly as
// long as its quotas (where the read's appends left up to twice as much),
// and the strings the quotas repeat (statuses, types, table and quota
// names, operators) held once. The quotas themselves are unchanged.
func compactQuotas(quotas map[int64][]domain.Quota) map[int64][]domain.Quota {
	n := 0
	for _, qs := range quotas {
		n += len(qs)
	}
	all := make([]domain.Quota, 0, n)
	out := make(map[int64][]domain.Quota, len(quotas))
	seen := map[string]string{}
	once := func(s *string) {
		if held, ok := seen[*s]; ok {
			*s = held
		} else {
			seen[*s] = *s
		}
	}
	// Cells of many subsamples ask the same questions (a gender, an age
	// band): one list of questions is held once, whoever asks it.
	questions := map[string][]domain.QuotaQuestion{}
	var key []byte
	for id, qs := range quotas {
		start := len(all)
		for _, q := range qs {
			once(&q.SubsampleStatus)
			once(&q.QuotaType)
			once(&q.TableName)
			once(&q.QuotaName)
			if len(q.Questions) > 0 {
				key = questionsKey(key[:0], q.Questions)
				if held, ok := questions[string(key)]; ok {
					q.Questions = held
				} else {
					q.Questions = slices.Clip(q.Questions)
					for i := range q.Questions {
						once(&q.Questions[i].Operator)
					}
					questions[string(key)] = q.Questions
				}
			}
			all = append(all, q)
		}
		out[id] = all[start:len(all):len(all)]
	}
	return out
}

// questionsKey appends to key what tells two lists of quota questions
// apart: every field of every question and answer, in order.
func questionsKey(key []byte, questions []domain.QuotaQuestion) []byte {
	text := func(s *string) {
		if s == nil {
			key = append(key, 0)
			return
		}
		key = strconv.AppendQuote(append(key, 1), *s)
	}
	for _, q := range questions {
		key = strconv.AppendInt(append(key, 'q'), q.ID, 10)
		key = strconv.AppendQuote(key, q.Operator)
		text(q.Locale)
		for _, a := range q.Answers {
			key = append(key, 'a')
			if a.ID == nil {
				key = append(key, 0)
			} else {
				key = strconv.AppendInt(append(key, 1), *a.ID, 10)
			}
			text(a.RangeStart)
			text(a.RangeEnd)
		}
	}
	return key
}

// heldQuotas are the quotas of a decided snapshot as it holds them once
// decided, in about two thirds of the memory of []domain.Quota: every
// field of every quota, its strings and its list of questions as places
// in tables that hold each once. quotas gives a subsample's back as
// compactQuotas left them.
type heldQuotas struct {
	// bySubsample are the places in quotaList of each subsample's quotas,
	// its first and the one after its last: a map and an array without a
	// pointer, which the collector does not scan.
	bySubsample map[int64][2]int
	quotaList   []heldQuota
	strings     []string
	questions   [][]domain.QuotaQuestion // places 1 and up; 0 is none (nil)
}

// heldQuota is one quota of heldQuotas.
type heldQuota struct {
	quotaID, tableID, achieved, remainingExclusive, remainingShared       int64
	incidence, conversion, abandon, estimatedIncidence, loi, estimatedLOI float64
	// subsampleStatus, tableName, quotaName and quotaType are places in
	// heldQuotas.strings, questions in heldQuotas.questions.
	subsampleStatus, tableName, quotaName, quotaType, questions uint32
}

// holdQuotas holds quotas (compactQuotas') as heldQuotas.
func holdQuotas(quotas map[int64][]domain.Quota) *heldQuotas {
	n := 0
	for _, qs := range quotas {
		n += len(qs)
	}
	h := &heldQuotas{bySubsample: make(map[int64][2]int, len(quotas)), questions: [][]domain.QuotaQuestion{nil}}
	places := map[string]uint32{}
	text := func(s string) uint32 {
		i, ok := places[s]
		if !ok {
			i = uint32(len(h.strings))
			h.strings = append(h.strings, s)
			places[s] = i
		}
		return i
	}
	// compactQuotas shares each distinct list: a list is known by its
	// first question's address and its length.
	type list struct {
		first *domain.QuotaQuestion
		n     int
	}
	lists := map[list]uint32{}
	all := make([]heldQuota, 0, n)
	for id, qs := range quotas {
		start := len(all)
		for i := range qs {
			q := &qs[i]
			held := heldQuota{quotaID: q.QuotaID, tableID: q.TableID, achieved: q.AchievedInterviews,
				remainingExclusive: q.RemainingExclusive, remainingShared: q.RemainingShared,
				incidence: q.ActualClientIncidenceRate, conversion: q.ActualClientConversionRate, abandon: q.ActualClientAbandonRate,
				estimatedIncidence: q.EstimatedIncidence, loi: q.ActualClientLOI, estimatedLOI: q.EstimatedLOI,
				subsampleStatus: text(q.SubsampleStatus), tableName: text(q.TableName), quotaName: text(q.QuotaName), quotaType: text(q.QuotaType)}
			if q.Questions != nil {
				key := list{n: len(q.Questions)}
				if len(q.Questions) > 0 {
					key.first = &q.Questions[0]
				}
				place, ok := lists[key]
				if !ok || key.first == nil {
					place = uint32(len(h.questions))
					h.questions = append(h.questions, q.Questions)
					lists[key] = place
				}
				held.questions = place
			}
			all = append(all, held)
		}
		h.bySubsample[id] = [2]int{start, len(all)}
	}
	h.quotaList = all
	return h
}

// hold holds d in less memory once it is decided, its live list
// included: its quotas as heldQuotas (quotasOf then gives them back, a
// subsample's at a time), its eligibility rules as heldRules (rulesOf),
// the values its rows repeat once.
func (d *Decisions) hold() {
	d.shareValues()
	d.held = holdQuotas(d.read)
	d.read, d.data.Quotas = nil, nil
	d.heldRules = holdRules(d.rules)
	d.rules, d.data.Rules = nil, nil
}

// quotasOf are subsampleID's quotas: as the store read them while d is
// decided, then as it holds them. Read-only.
func (d *Decisions) quotasOf(subsampleID int64) []domain.Quota {
	if d.held != nil {
		return d.held.quotas(subsampleID)
	}
	return d.read[subsampleID]
}

// quotas are subsampleID's quotas, as they were held.
func (h *heldQuotas) quotas(subsampleID int64) []domain.Quota {
	at, ok := h.bySubsample[subsampleID]
	if !ok {
		return nil
	}
	held := h.quotaList[at[0]:at[1]]
	out := make([]domain.Quota, len(held))
	for i, q := range held {
		out[i] = domain.Quota{QuotaID: q.quotaID, TableID: q.tableID, AchievedInterviews: q.achieved,
			RemainingExclusive: q.remainingExclusive, RemainingShared: q.remainingShared,
			ActualClientIncidenceRate: q.incidence, ActualClientConversionRate: q.conversion, ActualClientAbandonRate: q.abandon,
			EstimatedIncidence: q.estimatedIncidence, ActualClientLOI: q.loi, EstimatedLOI: q.estimatedLOI,
			SubsampleStatus: h.strings[q.subsampleStatus], TableName: h.strings[q.tableName], QuotaName: h.strings[q.quotaName], QuotaType: h.strings[q.quotaType],
			Questions: h.questions[q.questions]}
	}
	return out
}

// all are every subsample's quotas, as they were held.
func (h *heldQuotas) all() map[int64][]domain.Quota {
	out := make(map[int64][]domain.Quota, len(h.bySubsample))
	for id := range h.bySubsample {
		out[id] = h.quotas(id)
	}
	return out
}
