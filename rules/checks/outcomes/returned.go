package outcomes

import (
	"context"
	"fmt"
	"time"

	"fieldboard/rules/domain"
)

// reported are the history records that only a return reported (the
// respondent's redirect or the survey's post), not yet replaced by an
// imported record: unconfirmed. Each is kept with its flag
// (domain.ReturnTooFast or "").
type reported map[recordKey]string

type recordKey struct {
	panelistID            string
	subsampleID, statusID int64
	at                    int64 // registration time, Unix nanoseconds
}

func keyOf(r domain.HistoryRecord) recordKey {
	return recordKey{r.PanelistID, r.SubsampleID, r.StatusID, r.RegisteredAt.UnixNano()}
}

// reportedBefore reads the unconfirmed records registered before until,
// earlier periods' too: a scan hands over a pair's older records as well.
func (s *Service) reportedBefore(ctx context.Context, until time.Time) (reported, error) {
	records, err := s.Store.ReturnedRecords(ctx, time.Time{}, until)
	if err != nil {
		return nil, fmt.Errorf("outcomes: %w", err)
	}
	out := make(reported, len(records))
	for _, r := range records {
		out[keyOf(r.HistoryRecord)] = r.Flag
	}
	return out, nil
}

// has reports whether only a return reported r.
func (rp reported) has(r domain.HistoryRecord) bool {
	_, ok := rp[keyOf(r)]
	return ok
}

// tooFast reports whether only a return reported r, flagged too fast.
func (rp reported) tooFast(r domain.HistoryRecord) bool {
	return rp[keyOf(r)] == domain.ReturnTooFast
}

// split parts one pair's records into those imported and those only a
// return reported.
func (rp reported) split(records []domain.HistoryRecord) (imported, unconfirmed []domain.HistoryRecord) {
	if len(rp) == 0 {
		return records, nil
	}
	for _, r := range records {
		if rp.has(r) {
			unconfirmed = append(unconfirmed, r)
		} else {
			imported = append(imported, r)
		}
	}
	return imported, unconfirmed
}

// outcomeRecord is the record that makes a panelist's outcome in [from,
// to) (rules.Tally's): their latest record registered before to, when it
// was registered at or after from. records are oldest first.
func outcomeRecord(records []domain.HistoryRecord, from, to time.Time) (domain.HistoryRecord, bool) {
	for i := len(records) - 1; i >= 0; i-- {
		if r := records[i]; r.RegisteredAt.Before(to) {
			return r, !r.RegisteredAt.Before(from)
		}
	}
	return domain.HistoryRecord{}, false
}
