package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

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
		SELECT name, current_run_id, last_success_at, last_attempt_at, last_error, last_error_at, last_error_endpoint
		FROM datasets`)
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
}

// RecentRuns returns the last n refresh runs, newest first.
func (s *Store) RecentRuns(ctx context.Context, n int) ([]RunRecord, error) {
	var out []RunRecord
	err := s.reader.SelectContext(ctx, &out, `
		SELECT run_id, dataset, started_at, finished_at, ok, requests, failed_requests, error, endpoint
		FROM refresh_runs ORDER BY run_id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("recent refresh runs: %w", err)
	}
	return out, nil
}

// notFound turns sql.ErrNoRows into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// Checkpoint copies the write-ahead log into the database file and
// truncates it, so the file's size is the database's size.
func (s *Store) Checkpoint(ctx context.Context) error {
	if _, err := s.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
