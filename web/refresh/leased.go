package refresh

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"fieldboard/store"
)

// ElsewhereError says that another instance holds the refresh lease: a
// scheduled refresh is then left to it.
type ElsewhereError struct{ Lease store.Lease }

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("another instance (%s) is refreshing", e.Lease.Holder)
}

// leased runs req under the refresh lease (Options.Lease), so that of
// several instances on one database one refreshes at a time:
//
//   - when the lease is free, or this instance's, it takes it, refreshes
//     through the store fenced by it (a snapshot is written under the
//     lease or not at all), and releases it; the refresh's context is
//     cancelled when the lease is lost or cannot be renewed in time;
//   - when another instance holds it, a scheduled refresh is left to that
//     instance (ElsewhereError), and one asked for waits for the other's
//     to end and answers with its outcome, the events' refresh the other
//     recorded: the two never ask the provider at once. When the other
//     ended without recording one (it died, or refreshed one subsample),
//     this one takes the lease and refreshes after all.
//
// Without Options.Lease it runs req at once.
func (r *Refresher) leased(ctx context.Context, ru *run, req Request) error {
	holder := r.opts.Lease
	if holder == nil {
		return r.execute(ctx, ru, req)
	}
	for {
		mark, err := r.lastRunID(ctx)
		if err != nil {
			return err
		}
		tenure, other, err := holder.Take(ctx, store.LeaseRefresh)
		if err != nil {
			return fmt.Errorf("take the refresh lease: %w", err)
		}
		if tenure != nil {
			ru.store = r.store.Fenced(tenure.Lease())
			err := r.execute(tenure.Context(), ru, req)
			tenure.Release()
			return err
		}
		if req.scheduled {
			return &ElsewhereError{Lease: other}
		}
		ru.mu.Lock()
		ru.progress.Phase = "running on another instance (" + other.Holder + ")"
		ru.mu.Unlock()
		if err := holder.WaitChange(ctx, other); err != nil {
			return err
		}
		if outcome, ok, err := r.outcomeSince(ctx, mark); err != nil || ok {
			return cmp.Or(err, outcome)
		}
		r.opts.Logger.Info("the refresh on another instance ended without a result: refreshing here", "holder", other.Holder)
	}
}

// lastRunID is the id of the newest refresh recorded, 0 when none.
func (r *Refresher) lastRunID(ctx context.Context) (int64, error) {
	runs, err := r.store.RecentRuns(ctx, 1)
	if err != nil || len(runs) == 0 {
		return 0, err
	}
	return runs[0].RunID, nil
}

// outcomeSince finds the events' refresh recorded after the run mark, and
// returns its outcome: nil when it succeeded, its error when it failed.
// ok is false when none was recorded.
func (r *Refresher) outcomeSince(ctx context.Context, mark int64) (outcome error, ok bool, err error) {
	runs, err := r.store.RecentRuns(ctx, 10)
	if err != nil {
		return nil, false, err
	}
	for _, run := range runs { // newest first
		if run.RunID <= mark {
			break
		}
		if run.Dataset != store.DatasetEvents {
			continue
		}
		if run.OK {
			return nil, true, nil
		}
		return fmt.Errorf("the refresh on another instance failed at %s: %s", run.FinishedAt.Format(time.RFC3339), run.Error), true, nil
	}
	return nil, false, nil
}
