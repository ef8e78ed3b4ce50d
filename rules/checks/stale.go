package checks

import (
	"context"
	"fmt"
	"sync"

	"fieldboard/rules"
	"fieldboard/store"
)

// staleState is the events' refresh state (store.DatasetState) read for
// one snapshot version: every write of it moves the version on
// (store.RecordFailure, the snapshot's writes), so one read serves every
// decision of the version, and only the clock moves staleness on.
type staleState struct {
	mu      sync.Mutex
	version int64
	read    bool
	events  store.DatasetState
}

// staleReasonOf is StaleReason for decisions of version, the events'
// state read once per version (staleState) rather than once per answer:
// read after the decisions, it is never older than they are.
func (s *Service) staleReasonOf(ctx context.Context, version int64) (string, error) {
	if s.StaleAfter <= 0 {
		return "", nil
	}
	st := &s.stale
	st.mu.Lock()
	events, ok := st.events, st.read && st.version == version
	st.mu.Unlock()
	if !ok {
		states, err := s.Store.Datasets(ctx)
		if err != nil {
			return "", fmt.Errorf("check how old the data is: %w", err)
		}
		events = states[store.DatasetEvents]
		st.mu.Lock()
		st.version, st.read, st.events = version, true, events
		st.mu.Unlock()
	}
	return staleness(events, s), nil
}

// staleness is rules.Staleness of the events' state at the service's
// clock: "" when nothing was read yet (nothing to decide on either).
func staleness(events store.DatasetState, s *Service) string {
	if events.LastSuccessAt == nil {
		return ""
	}
	var failed = events.LastErrorAt
	if !events.Failing() {
		failed = nil
	}
	return rules.Staleness(*events.LastSuccessAt, failed, events.LastError, s.Now(), s.StaleAfter)
}
