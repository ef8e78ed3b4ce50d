package refresh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules"
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
//     to end and answers with its outcome, the refreshes the other
//     recorded under that lease of what req asks for (the events; with Force, the library
//     and the reference data too): the two never ask the provider at
//     once. When the other ended without recording them all (it died,
//     refreshed one subsample, or read only the datasets that were due
//     while req forces every one), this one takes the lease and
//     refreshes after all, as it would after a lesser refresh in its own
//     process (covers).
//
// Without Options.Lease it runs req at once.
func (r *Refresher) leased(ctx context.Context, ru *run, req Request) error {
	holder := r.opts.Lease
	if holder == nil {
		return r.execute(ctx, ru, req)
	}
	for {
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
		if outcome, ok, err := r.outcomeSince(ctx, other.AcquiredAt, datasetsOf(req)); err != nil || ok {
			return cmp.Or(err, outcome)
		}
		r.opts.Logger.Info("the refresh on another instance ended without a result: refreshing here", "holder", other.Holder)
	}
}

// datasetsOf are the datasets whose refreshes, recorded by another
// instance, answer req: the events (a subsample's quotas and rules are
// read with them), and with Force every dataset.
func datasetsOf(req Request) []string {
	if req.Force {
		return []string{store.DatasetEvents, store.DatasetLibrary, store.DatasetReference}
	}
	return []string{store.DatasetEvents}
}

// outcomeSince finds the newest refresh of each of datasets, and when
// each started at since or later (during the other instance's tenure of
// the lease, taken at since by its clock, which also timed its runs),
// returns their outcome: nil when each succeeded, else the failures. ok
// is false unless each of datasets was refreshed since.
func (r *Refresher) outcomeSince(ctx context.Context, since time.Time, datasets []string) (outcome error, ok bool, err error) {
	runs, err := r.store.RecentRuns(ctx, 10)
	if err != nil {
		return nil, false, err
	}
	var failures []error
	for _, dataset := range datasets {
		i := slices.IndexFunc(runs, func(run store.RunRecord) bool { return run.Dataset == dataset }) // newest first
		if i < 0 || runs[i].StartedAt.Before(since) {
			return nil, false, nil
		}
		if run := runs[i]; !run.OK {
			failures = append(failures, fmt.Errorf("the refresh of the %s on another instance failed at %s: %s", dataset, rules.FormatTime(run.FinishedAt), run.Error))
		}
	}
	return errors.Join(failures...), true, nil
}
