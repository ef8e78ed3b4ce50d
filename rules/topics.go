package rules

import "fieldboard/rules/domain"

// WithTopics completes history records from what their subsamples were
// seen to be about: a record with research type 0 takes its subsample's, a
// record with category 0 its subsample's first category, and a record
// stands once more for each other category of its subsample, so that a
// category rule compares every category of the subsample, not only the
// one on the record, and once more for each other event the provider
// groups its subsample in, so that it counts in that event too (spec rule
// 5: "subsamples must be grouped by eventId"). Records of subsamples never
// seen stay as they are. When nothing changes, history itself is
// returned.
func WithTopics(history []domain.HistoryRecord, topics domain.SubsampleTopics) []domain.HistoryRecord {
	return WithTopicsIn(nil, history, topics)
}

// WithTopicsIn is WithTopics, the completed records written in buf's
// array while it has room (buf's length is ignored): a caller whose
// records do not outlive the check keeps them on its stack.
func WithTopicsIn(buf, history []domain.HistoryRecord, topics domain.SubsampleTopics) []domain.HistoryRecord {
	var out []domain.HistoryRecord
	for i, rec := range history {
		t, ok := topics.Of(rec.SubsampleID)
		if !ok || !completes(rec, t) {
			if out != nil {
				out = append(out, rec)
			}
			continue
		}
		if out == nil {
			if out = buf[:0]; cap(out) < len(history)+len(t.CategoryIDs) {
				out = make([]domain.HistoryRecord, 0, len(history)+len(t.CategoryIDs))
			}
			out = append(out, history[:i]...)
		}
		if rec.ResearchTypeID == 0 {
			rec.ResearchTypeID = t.ResearchTypeID
		}
		if rec.CategoryID == 0 && len(t.CategoryIDs) > 0 {
			rec.CategoryID = t.CategoryIDs[0]
		}
		out = append(out, rec)
		for _, c := range t.CategoryIDs {
			if c != rec.CategoryID {
				other := rec
				other.CategoryID = c
				out = append(out, other)
			}
		}
		for _, e := range t.EventIDs {
			if e != rec.EventID {
				other := rec
				other.EventID = e
				out = append(out, other)
			}
		}
	}
	if out == nil {
		return history
	}
	return out
}

// completes reports whether t adds anything to rec.
func completes(rec domain.HistoryRecord, t domain.Topics) bool {
	if rec.ResearchTypeID == 0 && t.ResearchTypeID != 0 {
		return true
	}
	for _, c := range t.CategoryIDs {
		if c != rec.CategoryID {
			return true
		}
	}
	for _, e := range t.EventIDs {
		if e != rec.EventID {
			return true
		}
	}
	return false
}
