package store_test

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// migrationNumbers reads the numbers of the migrations in folder dir of
// migrations/, with their file names.
func migrationNumbers(t *testing.T, dir string) map[int]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("migrations", dir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range entries {
		n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil || e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			t.Errorf("migrations/%s/%s: a migration is NNN_name.sql", dir, e.Name())
			continue
		}
		out[n] = e.Name()
	}
	return out
}

// TestMigrationsAreNumberedAlike: each dialect has its migrations, the
// same numbers in each, and none lies outside a dialect's folder (where
// no dialect would apply it).
func TestMigrationsAreNumberedAlike(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("migrations/%s is in no dialect's folder: no database would apply it. Move it to migrations/sqlite/ "+
				"and write its PostgreSQL twin, the same number, in migrations/postgres/", e.Name())
		} else if e.Name() != "sqlite" && e.Name() != "postgres" {
			t.Errorf("migrations/%s: the dialects are sqlite and postgres", e.Name())
		}
	}
	sqlite, postgres := migrationNumbers(t, "sqlite"), migrationNumbers(t, "postgres")
	for _, n := range slices.Sorted(maps.Keys(sqlite)) {
		if postgres[n] == "" {
			t.Errorf("migrations/sqlite/%s has no twin in migrations/postgres/ (the same number, the same tables and columns in PostgreSQL's types)", sqlite[n])
		}
	}
	for _, n := range slices.Sorted(maps.Keys(postgres)) {
		if sqlite[n] == "" {
			t.Errorf("migrations/postgres/%s has no twin in migrations/sqlite/", postgres[n])
		}
	}
	if len(sqlite) < 12 {
		t.Fatalf("only %d SQLite migrations read", len(sqlite))
	}
}

// column is what the schema test compares of a column: its table and
// name, the kind of value it holds and whether it may be null.
type column struct {
	table, name, kind string
	nullable          bool
}

func (c column) String() string {
	null := "NOT NULL"
	if c.nullable {
		null = "null"
	}
	return fmt.Sprintf("%s.%s %s %s", c.table, c.name, c.kind, null)
}

// sqliteKinds and postgresKinds name the kind of value a column's declared
// type holds. A flag is an INTEGER on SQLite and a BOOLEAN on PostgreSQL:
// both are "integer" here.
var (
	sqliteKinds   = map[string]string{"INTEGER": "integer", "TEXT": "text", "REAL": "real", "DATETIME": "time", "BLOB": "bytes"}
	postgresKinds = map[string]string{"bigint": "integer", "integer": "integer", "boolean": "integer", "text": "text",
		"double precision": "real", "timestamp with time zone": "time", "bytea": "bytes"}
)

// schemaOf lists the versions recorded and the columns of every table of
// the database target names.
func schemaOf(t *testing.T, target string, postgres bool) (versions []int, columns []column) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := storetest.Raw(t, target)
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	rows.Close()

	query, kinds := `SELECT m.name, p.name, p.type, p."notnull" = 0 AND p.pk = 0
		FROM sqlite_schema m, pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`, sqliteKinds
	if postgres {
		query, kinds = `SELECT table_name, column_name, data_type, is_nullable = 'YES'
			FROM information_schema.columns WHERE table_schema = current_schema()`, postgresKinds
	}
	rows, err = db.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c column
		var declared string
		if err := rows.Scan(&c.table, &c.name, &declared, &c.nullable); err != nil {
			t.Fatal(err)
		}
		if c.kind = kinds[declared]; c.kind == "" {
			t.Errorf("%s.%s: a type the schema test does not know, %s", c.table, c.name, declared)
		}
		columns = append(columns, c)
	}
	slices.SortFunc(columns, func(a, b column) int { return strings.Compare(a.String(), b.String()) })
	return versions, columns
}

// TestDialectsReachTheSameSchema: a database migrated on SQLite and one
// migrated on PostgreSQL record the same versions and have the same
// tables, with the same columns, each holding the same kind of value and
// as nullable.
func TestDialectsReachTheSameSchema(t *testing.T) {
	t.Parallel()
	sqliteVersions, sqliteColumns := schemaOf(t, storetest.SQLitePath(t), false)
	postgresVersions, postgresColumns := schemaOf(t, storetest.PostgresURL(t), true)
	if !slices.Equal(sqliteVersions, postgresVersions) {
		t.Errorf("schema versions: SQLite %v, PostgreSQL %v", sqliteVersions, postgresVersions)
	}
	onlyIn := func(a, b []column) []string {
		var out []string
		for _, c := range a {
			if !slices.Contains(b, c) {
				out = append(out, c.String())
			}
		}
		return out
	}
	if diff := onlyIn(sqliteColumns, postgresColumns); diff != nil {
		t.Errorf("on SQLite, not so on PostgreSQL:\n  %s", strings.Join(diff, "\n  "))
	}
	if diff := onlyIn(postgresColumns, sqliteColumns); diff != nil {
		t.Errorf("on PostgreSQL, not so on SQLite:\n  %s", strings.Join(diff, "\n  "))
	}
	if len(sqliteColumns) < 200 {
		t.Errorf("only %d columns read on SQLite", len(sqliteColumns))
	}
}

// TestInstancesMigrateAtOnce: several instances starting at once on one
// new PostgreSQL database each open it, the schema made once.
func TestInstancesMigrateAtOnce(t *testing.T) {
	t.Parallel()
	target := storetest.PostgresURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := store.Open(context.Background(), target)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
		}
	}
	versions, _ := schemaOf(t, target, true)
	if len(versions) != len(slices.Compact(slices.Clone(versions))) {
		t.Errorf("versions recorded %v: a migration was applied twice", versions)
	}
}

// TestOpenAMissingPostgresDatabase: a URL naming no database is refused
// with what is wrong, not as a failed migration, and without the URL's
// password.
func TestOpenAMissingPostgresDatabase(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/fieldboard_no_such_database"
	u.User = url.UserPassword("postgres", "not-to-be-printed")
	_, err = store.Open(context.Background(), u.String())
	if err == nil || !strings.HasPrefix(err.Error(), "open database postgres://") || !strings.Contains(err.Error(), `database "fieldboard_no_such_database" does not exist`) ||
		strings.Contains(err.Error(), "not-to-be-printed") {
		t.Errorf("Open a missing database: %v; want it said so, without the password", err)
	}
}
