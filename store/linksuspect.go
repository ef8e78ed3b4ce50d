package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// ReturnRun is a subsample's current run of returns without a complete.
type ReturnRun struct {
	Returns int // the returns since its last complete, at most the limit ReturnRun was given
	// Since is when the last complete before the run came back, zero
	// when none did: the run is what came back after it.
	Since time.Time
}

// ReturnRun is subsampleID's current run: its returns (sends to it marked
// returned) since its last complete, counting at most limit of them (the
// run that would flag it, rules.LinkSuspectRun), and when that complete
// came back. Two ranges of the indexes of returns by subsample
// (migrations 025), so a return costs the same however many the
// subsample had.
func (s *Store) ReturnRun(ctx context.Context, subsampleID int64, limit int) (ReturnRun, error) {
	var run ReturnRun
	// The newest row, not MAX(): SQLite gives an aggregate no column type
	// to read a time from.
	err := s.reader.GetContext(ctx, &run.Since, `SELECT returned_at FROM routing_decisions
		WHERE chosen_subsample = ? AND return_status = ? AND returned_at IS NOT NULL ORDER BY returned_at DESC LIMIT 1`, subsampleID, domain.ReturnComplete)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return ReturnRun{}, fmt.Errorf("subsample %d's last complete: %w", subsampleID, err)
	}
	if err := s.reader.GetContext(ctx, &run.Returns, `SELECT COUNT(*) FROM (SELECT 1 FROM routing_decisions
		WHERE chosen_subsample = ? AND returned_at IS NOT NULL AND returned_at > ? ORDER BY returned_at DESC LIMIT ?) run`,
		subsampleID, run.Since.UTC(), limit); err != nil {
		return ReturnRun{}, fmt.Errorf("subsample %d's returns: %w", subsampleID, err)
	}
	return run, nil
}

// FlagLinkSuspect adds c, a subsample.link_suspect, to the change feed
// (and queues its webhook deliveries) unless the feed has one of its
// subsample after since, the last complete before the run it flags: once
// a run. It reports whether it added it. The feed is read first outside
// the write, which a run flagged already then never waits for.
func (s *Store) FlagLinkSuspect(ctx context.Context, c domain.Change, since time.Time) (bool, error) {
	const saidQuery = `SELECT COUNT(*) FROM changes WHERE subsample_id = ? AND kind = ? AND at > ?`
	var said int
	if err := s.reader.GetContext(ctx, &said, saidQuery, c.SubsampleID, string(domain.ChangeLinkSuspect), since.UTC()); err != nil {
		return false, fmt.Errorf("the feed's flags of subsample %d: %w", c.SubsampleID, err)
	}
	if said > 0 {
		return false, nil
	}
	added := false
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		added = false // a retried transaction starts again
		if err := s.dialect.serialize(ctx, tx, "snapshot"); err != nil {
			return err
		}
		var said int
		if err := tx.GetContext(ctx, &said, saidQuery, c.SubsampleID, string(domain.ChangeLinkSuspect), since.UTC()); err != nil {
			return fmt.Errorf("the feed's flags of subsample %d: %w", c.SubsampleID, err)
		}
		if said > 0 {
			return nil
		}
		added = true
		return appendFieldChanges(ctx, tx, s.dialect, 0, []domain.Change{c})
	})
	if err != nil {
		return false, fmt.Errorf("flag subsample %d's survey link: %w", c.SubsampleID, err)
	}
	return added, nil
}

// LinkSuspects are the subsamples flagged now as having a survey link
// that may be broken: the newest subsample.link_suspect of each
// subsample that the feed still keeps, when no complete came back from
// it after, newest first, with the names of the subsample and its event.
func (s *Store) LinkSuspects(ctx context.Context) ([]domain.Change, error) {
	out := []domain.Change{}
	kind := string(domain.ChangeLinkSuspect)
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+changeColumns+changeNames+` FROM changes
		WHERE change_id IN (SELECT MAX(change_id) FROM changes WHERE kind = ? GROUP BY subsample_id)
			AND NOT EXISTS (SELECT 1 FROM routing_decisions r WHERE r.chosen_subsample = changes.subsample_id
				AND r.return_status = ? AND r.returned_at IS NOT NULL AND r.returned_at > changes.at)
		ORDER BY change_id DESC`, kind, domain.ReturnComplete); err != nil {
		return nil, fmt.Errorf("subsamples whose survey link may be broken: %w", err)
	}
	return out, nil
}
