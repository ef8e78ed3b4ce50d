package checks

import (
	"slices"
	"strconv"

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
