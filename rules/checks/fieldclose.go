package checks

import (
	"context"
	"fmt"
	"time"

	"fieldboard/rules"
)

// CloseFromField closes cells (quota ids) of subsampleID for routing: a
// quota full came back from the field at at for a send judged to fall
// surely in them (the routing log's cells), while the provider's quotas
// still showed them open. From the next check on, on every instance, a
// panelist who surely falls in one is quota full there on every send
// path (quotaVerdict), saying why (rules.FieldClosureReason), until a
// quota read shows the cell's counts moved or FieldCloseFor has passed
// (rules.FieldClosureHolds). A cell still closed keeps its first closure
// and is closed until the later end (store.Store.CloseFromField). Then
// QuotasStale, when set, is told to read the subsample's quotas again.
func (s *Service) CloseFromField(ctx context.Context, subsampleID int64, cells []int64, at time.Time) error {
	if len(cells) == 0 {
		return nil
	}
	until := at.Add(s.fieldCloseFor())
	if _, err := s.Store.CloseFromField(ctx, subsampleID, cells, at, until); err != nil {
		return fmt.Errorf("close cells from the field: %w", err)
	}
	if s.QuotasStale != nil {
		s.QuotasStale(subsampleID)
	}
	return nil
}

// fieldCloseFor is FieldCloseFor, rules.DefaultFieldCloseFor when unset.
func (s *Service) fieldCloseFor() time.Duration {
	if s.FieldCloseFor > 0 {
		return s.FieldCloseFor
	}
	return rules.DefaultFieldCloseFor
}
