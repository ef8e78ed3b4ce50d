package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Dataset names: the refresher keeps three datasets, each refreshed on the
// provider's caching window.
const (
	DatasetEvents    = "events"    // event/all, live-details, quotas and eligibility rules
	DatasetLibrary   = "library"   // questions and answers per locale
	DatasetReference = "reference" // countries, locales, survey statuses
)

// Run describes one refresh attempt of a dataset.
type Run struct {
	Dataset        string
	StartedAt      time.Time
	FinishedAt     time.Time
	Requests       int
	FailedRequests int
	// MalformedCount counts the elements of the provider's lists the run
	// dropped as unreadable (domain.MalformedElement); MalformedFirst
	// describes the first.
	MalformedCount int
	MalformedFirst string
}

// RecordFailure records a refresh of run.Dataset that failed as a whole:
// nothing of it was written and the previous snapshot stays current.
func (s *Store) RecordFailure(ctx context.Context, run Run, endpoint string, cause error) error {
	msg := cause.Error()
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := insertRun(ctx, tx, run, false, msg, endpoint); err != nil {
			return err
		}
		if err := bumpVersion(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO datasets (name, last_attempt_at, last_error, last_error_at, last_error_endpoint)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET
				last_attempt_at = excluded.last_attempt_at,
				last_error = excluded.last_error,
				last_error_at = excluded.last_error_at,
				last_error_endpoint = excluded.last_error_endpoint`,
			run.Dataset, run.FinishedAt, msg, run.FinishedAt, endpoint)
		return err
	})
	if err != nil {
		return fmt.Errorf("record failed %s refresh: %w", run.Dataset, err)
	}
	return nil
}

// insertRun adds run to the refresh log and returns its id.
func insertRun(ctx context.Context, tx *sqlx.Tx, run Run, ok bool, msg, endpoint string) (int64, error) {
	var runID int64
	err := tx.GetContext(ctx, &runID, `
		INSERT INTO refresh_runs (dataset, started_at, finished_at, ok, requests, failed_requests, error, endpoint,
			malformed, malformed_first)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING run_id`,
		run.Dataset, run.StartedAt, run.FinishedAt, ok, run.Requests, run.FailedRequests, msg, endpoint,
		run.MalformedCount, run.MalformedFirst)
	if err != nil {
		return 0, fmt.Errorf("record refresh run: %w", err)
	}
	return runID, nil
}

// markCurrent makes runID the dataset's current snapshot.
func markCurrent(ctx context.Context, tx *sqlx.Tx, dataset string, runID int64, at time.Time) error {
	if dataset != DatasetEvents { // SaveEvents bumps the version itself
		if err := bumpVersion(ctx, tx); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO datasets (name, current_run_id, last_success_at, last_attempt_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET
			current_run_id = excluded.current_run_id,
			last_success_at = excluded.last_success_at,
			last_attempt_at = excluded.last_attempt_at`,
		dataset, runID, at, at)
	if err != nil {
		return fmt.Errorf("mark %s snapshot current: %w", dataset, err)
	}
	return nil
}

// DatasetState says when a dataset was last refreshed and how the last
// attempt went.
type DatasetState struct {
	Name              string     `db:"name"`
	CurrentRunID      *int64     `db:"current_run_id"`
	LastSuccessAt     *time.Time `db:"last_success_at"`
	LastAttemptAt     *time.Time `db:"last_attempt_at"`
	LastError         string     `db:"last_error"`
	LastErrorAt       *time.Time `db:"last_error_at"`
	LastErrorEndpoint string     `db:"last_error_endpoint"`
	// MalformedCount and MalformedFirst are those of the current snapshot's run:
	// how many elements it dropped as unreadable, and the first.
	MalformedCount int    `db:"malformed"`
	MalformedFirst string `db:"malformed_first"`
}

// Failing reports whether the last attempt failed, that is the last error
// is newer than the last success.
func (d DatasetState) Failing() bool {
	if d.LastErrorAt == nil {
		return false
	}
	return d.LastSuccessAt == nil || d.LastErrorAt.After(*d.LastSuccessAt)
}

// Datasets returns the state of every dataset refreshed at least once.
func (s *Store) Datasets(ctx context.Context) (map[string]DatasetState, error) {
	var rows []DatasetState
	err := s.reader.SelectContext(ctx, &rows, `
		SELECT d.name, d.current_run_id, d.last_success_at, d.last_attempt_at, d.last_error, d.last_error_at,
			d.last_error_endpoint, COALESCE(r.malformed, 0) AS malformed, COALESCE(r.malformed_first, '') AS malformed_first
		FROM datasets d LEFT JOIN refresh_runs r ON r.run_id = d.current_run_id`)
	if err != nil {
		return nil, fmt.Errorf("dataset states: %w", err)
	}
	out := make(map[string]DatasetState, len(rows))
	for _, r := range rows {
		out[r.Name] = r
	}
	return out, nil
}

// RunRecord is one row of the refresh log.
type RunRecord struct {
	RunID          int64     `db:"run_id"`
	Dataset        string    `db:"dataset"`
	StartedAt      time.Time `db:"started_at"`
	FinishedAt     time.Time `db:"finished_at"`
	OK             bool      `db:"ok"`
	Requests       int       `db:"requests"`
	FailedRequests int       `db:"failed_requests"`
	Error          string    `db:"error"`
	Endpoint       string    `db:"endpoint"`
	MalformedCount int       `db:"malformed"`
	MalformedFirst string    `db:"malformed_first"`
}

// RecentRuns returns the last n refresh runs, newest first.
func (s *Store) RecentRuns(ctx context.Context, n int) ([]RunRecord, error) {
	var out []RunRecord
	err := s.reader.SelectContext(ctx, &out, `
		SELECT run_id, dataset, started_at, finished_at, ok, requests, failed_requests, error, endpoint,
			malformed, malformed_first
		FROM refresh_runs ORDER BY run_id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("recent refresh runs: %w", err)
	}
	return out, nil
}
