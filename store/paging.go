package store

import (
	"context"
	"math"
	"strings"
	"time"
)

// filtered is a list's SQL condition as a filter builds it: conditions
// joined by AND (always true when there are none) and their arguments.
type filtered struct {
	conds []string
	args  []any
}

// add appends a condition with its arguments.
func (f *filtered) add(cond string, args ...any) {
	f.conds, f.args = append(f.conds, cond), append(f.args, args...)
}

// period adds the conditions of a time filter on column: at or after
// since, before until; a zero time is no bound.
func (f *filtered) period(column string, since, until time.Time) {
	if !since.IsZero() {
		f.add(column+" >= ?", since.UTC())
	}
	if !until.IsZero() {
		f.add(column+" < ?", until.UTC())
	}
}

// where is the condition, "1 = 1" for none.
func (f filtered) where() string {
	if len(f.conds) == 0 {
		return "1 = 1"
	}
	return strings.Join(f.conds, " AND ")
}

// page counts the rows of table that f selects and reads into dest those
// of query (selecting from table WHERE the condition, ending in LIMIT ?
// OFFSET ?) limit after offset; limit 0 reads them all. The whole-page
// lists (/changes, /routing) page this way.
func (s *Store) page(ctx context.Context, dest any, table string, f filtered, query string, limit, offset int) (int, error) {
	var total int
	if err := s.reader.GetContext(ctx, &total, `SELECT COUNT(*) FROM `+table+` WHERE `+f.where(), f.args...); err != nil {
		return 0, err
	}
	if limit <= 0 {
		limit = math.MaxInt64
	}
	return total, s.reader.SelectContext(ctx, dest, query, append(f.args, limit, offset)...)
}
