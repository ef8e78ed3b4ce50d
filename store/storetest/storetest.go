// Package storetest gives tests an empty database of each dialect the
// store runs on: a file in the test's temporary folder for SQLite, a
// schema of its own in a throwaway PostgreSQL cluster for PostgreSQL.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/store"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// PostgresEnv names the variable holding the URL of the PostgreSQL
// cluster tests may create schemas in. `make test` sets it to a throwaway
// cluster (scripts/with-postgres); a developer may point it at any
// cluster where the URL's user may create schemas.
const PostgresEnv = "FIELDBOARD_TEST_POSTGRES"

// SQLitePath returns the path of a database file that does not exist yet,
// in the test's temporary folder.
func SQLitePath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "fieldboard.db")
}

// MigratedSQLitePath returns the path of a SQLite database in the test's
// temporary folder that holds the store's schema and no data: a copy of
// one file the store migrated once for the whole test binary. Migrating a
// new file takes a third of a second under -race; a test that opens many
// stores and tests no migration takes this copy instead, and store.Open
// finds every migration applied. SQLitePath is the file the store creates.
func MigratedSQLitePath(t testing.TB) string {
	t.Helper()
	migrated.once.Do(migrateTemplate)
	if migrated.err != nil {
		t.Fatalf("migrate a template SQLite database: %v", migrated.err)
	}
	dir := t.TempDir()
	for name, content := range migrated.files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, migratedName)
}

const migratedName = "fieldboard.db"

// migrated is the template of MigratedSQLitePath: the files of the
// database (its write-ahead log too, should closing have left one), by
// name, held in memory so that no folder outlives the tests.
var migrated struct {
	once  sync.Once
	files map[string][]byte
	err   error
}

func migrateTemplate() {
	dir, err := os.MkdirTemp("", "fieldboard-migrated-*")
	if err != nil {
		migrated.err = err
		return
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, migratedName))
	if err != nil {
		migrated.err = err
		return
	}
	if err := st.Close(); err != nil {
		migrated.err = err
		return
	}
	migrated.files = map[string][]byte{}
	for _, name := range []string{migratedName, migratedName + "-wal"} {
		content, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist) && name != migratedName:
		case err != nil:
			migrated.err = err
			return
		default:
			migrated.files[name] = content
		}
	}
}

// PostgresURL returns the URL of an empty schema of its own in the
// cluster named by FIELDBOARD_TEST_POSTGRES, dropped when the test ends:
// the URL's search_path is that schema, so every table the store creates
// lands there. Without the variable the test is skipped with a loud
// message, or fails under CI=true, where PostgreSQL must be tested.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		msg := "NO POSTGRESQL: " + PostgresEnv + " is not set, the test on PostgreSQL did not run. " +
			"make test starts a throwaway cluster (scripts/with-postgres); as root it installs Debian's postgresql first."
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	var random [6]byte
	rand.Read(random[:])
	schema := "fieldboard_test_" + hex.EncodeToString(random[:])

	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", PostgresEnv, err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create a schema in the cluster of %s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() {
		// After the test's own cleanups (those registered later run
		// first), so the store is closed. Best effort: the cluster of
		// make test goes away anyway.
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Dialect is a database the store runs on, as tests make one.
type Dialect struct {
	Name string // sqlite or postgres
	// Target returns what names a fresh, empty database of the dialect,
	// as store.Open and --db take it.
	Target func(t testing.TB) string
}

// Dialects are the databases the store runs on.
func Dialects() []Dialect {
	return []Dialect{{"sqlite", SQLitePath}, {"postgres", PostgresURL}}
}

// Each runs body once per dialect, as a subtest named after it. The
// subtests run in parallel with each other (each has a database of its
// own), once the test's function has returned: Each is the last thing a
// test does.
func Each(t *testing.T, body func(t *testing.T, d Dialect)) {
	t.Helper()
	for _, d := range Dialects() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			body(t, d)
		})
	}
}

// Raw opens the database target names (a SQLite path or a PostgreSQL URL)
// without the store, for a test that changes it behind the store's back;
// closed when the test ends. Its statements take the database's own
// placeholders.
func Raw(t testing.TB, target string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+target
	if strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		driver, dsn = "pgx", target
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
