//go:build bench

// The benchmark harness (behind the bench build tag, so `make test` never
// runs it) builds a large supplier's scenario once per seed into a cache
// folder, measures each figure next to its floor in the same run, prints a
// table and writes bench/results.json and bench/README.md's table.

package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/refresh"
)

// scenario sizes, overridable from the environment for a quick run.
type sizes struct {
	seed       int64
	subsamples int
	history    int
	panelists  int
	bulk       int
}

// defaultSizes are the scenario of the figures in results.json.
var defaultSizes = sizes{seed: 1, subsamples: 6000, history: 10_000_000, panelists: 1_000_000, bulk: 100_000}

func scenarioSizes(t *testing.T) sizes { return sizesFrom(t, defaultSizes) }

// sizesFrom is s resized by the BENCH_ sizes the environment sets.
func sizesFrom(t *testing.T, s sizes) sizes {
	for name, p := range map[string]*int{"BENCH_SUBSAMPLES": &s.subsamples, "BENCH_HISTORY": &s.history, "BENCH_PANELISTS": &s.panelists, "BENCH_BULK": &s.bulk} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				t.Fatalf("%s=%q: want a positive number", name, v)
			}
			*p = n
		}
	}
	return s
}

func simOptions(s sizes) sim.Options {
	created := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	return sim.Options{Seed: s.seed, Subsamples: s.subsamples, Locales: 20, QuestionsPerLocale: 300, AnswersPerQuestion: 10,
		Now: func() time.Time { return created }}
}

// cachedScenario returns the path of a database holding a full refresh of
// the scenario's simulator and its generated history, building it when the
// cache folder does not have it yet.
func cachedScenario(t *testing.T, s sizes) string {
	dir := filepath.Join(os.TempDir(), "fieldboard-bench", fmt.Sprintf("seed%d-sub%d-hist%d-pan%d", s.seed, s.subsamples, s.history, s.panelists))
	db := filepath.Join(dir, "scenario.db")
	if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
		return db
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("building the scenario in %s (cached for the next run)", dir)
	ctx := context.Background()
	simulator := sim.New(simOptions(s))
	srv := serve(t, simulator)
	c, err := client.New(client.Config{BaseURL: srv})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	r := refresh.New(c, st, refresh.Options{Concurrency: 16, Logger: discardLogger()})
	if err := r.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Logf("refresh: %v", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	batch := make([]domain.HistoryRecord, 0, 500_000)
	for rec := range simulator.History(s.seed, s.history, s.panelists) {
		batch = append(batch, rec)
		if len(batch) == cap(batch) {
			if _, err := st.ImportHistory(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := st.ImportHistory(ctx, batch); err != nil {
		t.Fatal(err)
	}
	t.Logf("history of %d records: %v", s.history, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return db
}

// withProfiles imports the simulator's profiles of every panelist into the
// scenario once (issue 8's figures need them), marked by its own file so
// an older cache gains them without a rebuild.
func withProfiles(t *testing.T, s sizes, db string) {
	marker := filepath.Join(filepath.Dir(db), "profiles-ready")
	if _, err := os.Stat(marker); err == nil {
		return
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	report, err := st.ImportProfiles(ctx, sim.New(simOptions(s)).Profiles(s.seed, s.panelists), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("profiles of %d panelists, %d answers: %v", s.panelists, report.Records, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// withPanel imports the simulator's panel (each panelist's country and
// locale) into the scenario once, marked by its own file as withProfiles:
// without it nobody is sent anywhere.
func withPanel(t *testing.T, s sizes, db string) {
	marker := filepath.Join(filepath.Dir(db), "panel-ready")
	if _, err := os.Stat(marker); err == nil {
		return
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	report, err := st.ImportPanel(ctx, sim.New(simOptions(s)).Panel(s.seed, s.panelists))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("panel of %d panelists: %v", report.Records, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBench measures every figure and writes bench/results.json. For a
// quicker look while working on one figure, BENCH_FIGURES=2,7 runs only
// the figures listed (and those measured with them: figure 1 with 2, the
// served figures 3, 4, 5, 8, 10, 12, 13 and 18 together); a run of some figures, or
// of a scenario resized by the BENCH_ sizes, prints its table but leaves
// results.json to the full run.
//
// Figures 1, 2, 6, 7, 10, 12, 13, 15, 16 and 17 run on PostgreSQL too
// (postgres_test.go, router_postgres_test.go), as rows 1p, 2p, 6p, 7p,
// 10p, 12p, 13p, 15p, 16p and 17p (12p and 13p, which come with 12 or 13,
// on two serve instances sharing the database), when FIELDBOARD_TEST_POSTGRES names a
// cluster (make bench starts a throwaway one); without it those rows say
// they did not run and why, and under CI=true the run fails.
func TestBench(t *testing.T) {
	s := scenarioSizes(t)
	want := figuresWanted(t)
	db := cachedScenario(t, s)
	withProfiles(t, s, db)
	withPanel(t, s, db)
	withPrices(t, s, db)
	var rows []Row
	cluster, noCluster := postgresCluster()
	if noCluster != "" && os.Getenv("CI") == "true" {
		t.Errorf("the figures on PostgreSQL did not run and CI=true: %s", noCluster)
	}
	if want.any(1, 2, 14) {
		refreshRow, refreshed := fullRefresh(t, s, filepath.Join(t.TempDir(), "refresh.db"))
		rows = append(rows, refreshRow)
		if want.any(2, 14) {
			rows = append(rows, snapshotWrite(t, s, refreshed)...)
		}
	}
	if cluster != "" && want.any(1, 2) {
		refreshRow, refreshed := fullRefresh(t, s, pgSchema(t, cluster, "refresh"))
		rows = append(rows, refreshRow)
		if want.any(2) {
			rows = append(rows, snapshotWritePostgres(t, s, cluster, refreshed))
		}
	}
	if want.any(3, 4, 5, 8, 10, 11, 12, 13, 18) {
		served, _ := servedFigures(t, s, db)
		rows = append(rows, served...)
	}
	if want.any(6) {
		rows = append(rows, bulkCheck(t, db, db, s))
	}
	if want.any(19) {
		rows = append(rows, routerWithOurRules(t, s, db)...)
	}
	if want.any(15) {
		rows = append(rows, monthOutcomes(t, db))
	}
	if want.any(16) {
		rows = append(rows, monthInvoice(t, db))
	}
	if want.any(17) {
		row, ranking := profilingRanking(t, db)
		rows = append(rows, row, profilingPage(t, s, db, ranking))
	}
	if cluster != "" && want.any(6, 10, 12, 13, 15, 16, 17) {
		scenario := postgresScenario(t, cluster, db)
		if want.any(6) {
			rows = append(rows, bulkCheck(t, db, scenario, s))
		}
		if want.any(10) {
			rows = append(rows, sendListPostgres(t, scenario))
		}
		if want.any(15) {
			rows = append(rows, monthOutcomes(t, scenario))
		}
		if want.any(16) {
			rows = append(rows, monthInvoice(t, scenario))
		}
		if want.any(17) {
			row, _ := profilingRanking(t, scenario)
			rows = append(rows, row)
		}
		// The router's answers record their sends: after the figures
		// that only read the copy.
		if want.any(12, 13) {
			rows = append(rows, routerOnPostgres(t, s, cluster, scenario)...)
		}
	}
	if want.any(7) {
		rows = append(rows, historyImport(t, s))
	}
	if cluster != "" && want.any(7) {
		rows = append(rows, historyImportPostgres(t, s, cluster))
	}
	if want.any(9) {
		rows = append(rows, weekOfRefreshes(t, s, db))
	}
	if noCluster != "" {
		rows = append(rows, notRunOnPostgres(want, noCluster)...) // after each figure's own row
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return figureNumber(a) - figureNumber(b) })
	if want != nil && s == defaultSizes && os.Getenv("BENCH_UPDATE") != "" {
		rows = withRowsOf(t, rows, want)
		want = nil
	}
	report(t, rows, want == nil && s == defaultSizes)
}

// withRowsOf is results.json's rows with those of the figures wanted
// replaced by rows, measured now (BENCH_UPDATE: a run of some figures on
// the full scenario that updates theirs and keeps the others'). Each
// figure's rows go where its old ones were, or before the first row of a
// later figure or of a group (keepGroup: those close the file).
func withRowsOf(t *testing.T, rows []Row, want figures) []Row {
	kept, err := ReadResults(ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	nums := make([]int, 0, len(want))
	for f := range want {
		nums = append(nums, f)
	}
	slices.Sort(nums)
	out := kept[:0:0]
	placed := map[int]bool{}
	place := func(n int) {
		if !placed[n] {
			placed[n] = true
			out = append(out, slices.DeleteFunc(slices.Clone(rows), func(r Row) bool { return figureNumber(r) != n })...)
		}
	}
	for _, r := range kept {
		n, grouped := figureNumber(r), inGroup(r)
		for _, f := range nums {
			if grouped || f < n {
				place(f)
			}
		}
		if want[n] && !grouped {
			place(n) // its old rows give way to the new
			continue
		}
		out = append(out, r)
	}
	for _, f := range nums {
		place(f)
	}
	return out
}

// keepGroup puts rows, a group's measured at full size (each with mark in
// its figure), in results.json and the README's table in place of the
// group's rows of the previous run (replaceGroup).
func keepGroup(t *testing.T, mark string, rows []Row) {
	kept, err := ReadResults(ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	writeResults(t, replaceGroup(kept, mark, rows))
}

// inGroupNamed is what figures take in group mark: "12 next-survey ..."
// is "12 busy: next-survey ...".
func inGroupNamed(mark string) func(figure string) string {
	return func(figure string) string {
		number, rest := splitFigure(figure)
		return number + mark + rest
	}
}

// figures is the set of figures a run measures; nil is all of them.
type figures map[int]bool

// figuresWanted reads BENCH_FIGURES, a comma-separated list of figure
// numbers.
func figuresWanted(t *testing.T) figures {
	list := os.Getenv("BENCH_FIGURES")
	if list == "" {
		return nil
	}
	want := figures{}
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("BENCH_FIGURES=%q: want figure numbers separated by commas", list)
		}
		want[n] = true
	}
	return want
}

// any says whether any of numbers is wanted.
func (f figures) any(numbers ...int) bool {
	if f == nil {
		return true
	}
	return slices.ContainsFunc(numbers, func(n int) bool { return f[n] })
}

// figureNumber is the number a row's figure begins with ("5+11 ..." is 5).
func figureNumber(r Row) int {
	digits := strings.IndexFunc(r.Figure, func(c rune) bool { return c < '0' || c > '9' })
	n, _ := strconv.Atoi(r.Figure[:max(0, digits)])
	return n
}

// bulkCheck is figure 6: s.bulk panelists against the live subsample with
// the most eligibility entries, on the database target names (the SQLite
// scenario, or its copy on PostgreSQL for 6p); the panelists are drawn
// from the SQLite scenario, so both engines check the same ones. Its
// floor is the cheapest correct answer to the same question written by
// hand, on the same database: one SQL query over the ids that gives each
// panelist's exclusion (the subsample's rules, the unique-respondents
// rule, the panel's country and language) and stored profile, then the
// quota matcher on each profile; it must reach the same exclusions and
// quota verdicts. Fieldboard's answer also gives each panelist's reasons.
func bulkCheck(t *testing.T, scenario, target string, s sizes) Row {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	checker := &checks.Service{Store: st, Now: func() time.Time { return now }}
	subsample, ruleSet := busiestSubsample(t, st)
	snap, err := st.ReadSnapshot(ctx, subsample.SubsampleID)
	if err != nil {
		t.Fatal(err)
	}
	var locales []string
	for _, l := range snap.Links[subsample.SubsampleID] {
		locales = append(locales, strings.ToLower(l.Name))
	}
	countries := snap.Countries[subsample.SubsampleID]
	// A supplier checks panelists of the subsample's country: others are
	// out by their country alone, before any history is read.
	ids := panelistsOf(t, scenario, countries, s.bulk)

	var ours bulkTally
	measure := func() time.Duration {
		ours = bulkTally{quota: map[rules.QuotaVerdict]int{}}
		start := time.Now()
		err := checker.BulkCheck(ctx, subsample.SubsampleID, slices.Values(ids), func(r checks.BulkResult) error {
			ours.add(r.Eligible, r.Send, r.Quota)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	measure() // warm the page cache
	took := best(3, measure)

	quotas, err := st.QuotasOf(ctx, subsample.SubsampleID)
	if err != nil {
		t.Fatal(err)
	}
	cells := rules.CompileQuotas(quotas)
	floorTally, floor := floorBulkCheck(t, target, ids, subsample, ruleSet, countries, locales, &cells, now)
	if !ours.equal(floorTally) || ours.send == 0 {
		t.Errorf("bulk check: %+v; the hand-written floor: %+v; want the same, some sent", ours, floorTally)
	}
	t.Logf("bulk check of %d panelists against subsample %d on %s: %+v", len(ids), subsample.SubsampleID, engineOf(target), ours)
	ratio := took.Seconds() / floor.Seconds()
	return Row{Figure: onEngine(target, "6 bulk check, "+strconv.Itoa(len(ids))+" panelists of its country against one subsample"), Value: ms(took), Unit: "ms",
		Floor: ms(floor), Ratio: round(ratio), Target: "<= 1.5 x floor", Met: ratio <= 1.5}
}

// bulkTally is what a bulk check decided, counted: who is eligible, who is
// sent, and the quota verdicts.
type bulkTally struct {
	eligible, send int
	quota          map[rules.QuotaVerdict]int
}

func (b *bulkTally) add(eligible, send bool, quota rules.QuotaVerdict) {
	if eligible {
		b.eligible++
	}
	if send {
		b.send++
	}
	b.quota[quota]++
}

func (b bulkTally) equal(o bulkTally) bool {
	return b.eligible == o.eligible && b.send == o.send && maps.Equal(b.quota, o.quota)
}

// busiestSubsample picks the sendable subsample with the most applicable
// eligibility entries, so that a bulk check of it sends some panelists.
func busiestSubsample(t *testing.T, st *store.Store) (rules.Target, domain.EligibilityRules) {
	ctx := context.Background()
	filter, err := checks.ParseSubsampleFilter(domain.StatusLive, string(rules.Sendable), "")
	if err != nil {
		t.Fatal(err)
	}
	reports, err := (&checks.Service{Store: st, Now: time.Now}).Subsamples(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	var best rules.Target
	var bestRules domain.EligibilityRules
	most := -1
	for _, r := range reports {
		rs, err := st.EligibilityRulesOf(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, sentence := range rules.DescribeRules(rs) {
			if sentence.Applies {
				n++
			}
		}
		if n > most {
			most, best, bestRules = n, rules.Target{SubsampleID: r.SubsampleID, EventID: r.EventID}, rs
		}
	}
	if most < 0 {
		t.Fatal("no sendable subsample in the scenario")
	}
	return best, bestRules
}

// floorBulkCheck decides, with one SQL query on the database target
// names, which panelists among ids the subsample's rules or the
// unique-respondents rule exclude and which the panel fits, and reads
// their stored profiles, which the quota matcher then decides. The ids
// are loaded into a temporary table before the clock starts.
func floorBulkCheck(t *testing.T, target string, ids []string, subsample rules.Target, r domain.EligibilityRules, countries, locales []string, cells *rules.QuotaCells, now time.Time) (bulkTally, time.Duration) {
	ctx := context.Background()
	conn := openFloor(t, target)
	if _, err := conn.ExecContext(ctx, conn.idsTable); err != nil {
		t.Fatal(err)
	}
	conn.loadIDs(t, ids)

	query := `SELECT EXISTS (SELECT 1 FROM history h WHERE h.panelist_id = ids.id AND (` + exclusions(conn, r, subsample, now) + `)),
		COALESCE(` + panelFits(countries, locales) + `, false), pr.answers
		FROM ids LEFT JOIN panel p ON p.panelist_id = ids.id LEFT JOIN profiles pr ON pr.panelist_id = ids.id`

	var tally bulkTally
	run := func() time.Duration {
		tally = bulkTally{quota: map[rules.QuotaVerdict]int{}}
		start := time.Now()
		rows, err := conn.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		defer rows.Close()
		for rows.Next() {
			var excluded, fits bool
			var blob []byte
			if err := rows.Scan(&excluded, &fits, &blob); err != nil {
				t.Fatal(err)
			}
			p := domain.Profile{}
			if blob != nil {
				if p, err = store.DecodeProfile(blob); err != nil {
					t.Fatal(err)
				}
			}
			quota := cells.Verdict(p, now)
			tally.add(!excluded, !excluded && fits && quota == rules.QuotaFits, quota)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	run()
	return tally, best(3, run)
}

// floorDB is one connection to the database of a figure's hand-written
// floor, with what its SQL says differently on each engine.
type floorDB struct {
	*sql.DB
	postgres bool
	// idsTable creates the temporary table ids (id), keyed by it.
	idsTable string
}

// openFloor opens one connection (the temporary tables are the
// connection's) to the database target names, a SQLite path or a
// PostgreSQL URL; closed when the test ends.
func openFloor(t *testing.T, target string) *floorDB {
	f := &floorDB{postgres: store.IsPostgres(target)}
	var err error
	if f.postgres {
		// Tuned for the query as its writer would: no just-in-time
		// compilation (PostgreSQL compiles a query it estimates costly,
		// which took 0.8 s of figure 6's floor and saved nothing), and
		// index lookups priced as the cached pages they are (with the
		// default random_page_cost of 4 the planner joined figure 6's
		// ids to whole scans of the panel and the profiles: 750 ms
		// instead of 440).
		f.DB, err = sql.Open("pgx", target+"&jit=off&random_page_cost=1.1")
		f.idsTable = `CREATE TEMP TABLE ids (id TEXT COLLATE "C" PRIMARY KEY)`
	} else {
		f.DB, err = sql.Open("sqlite", "file:"+target+"?_pragma=busy_timeout(10000)")
		f.idsTable = `CREATE TEMP TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID`
	}
	if err != nil {
		t.Fatal(err)
	}
	f.SetMaxOpenConns(1)
	t.Cleanup(func() { f.Close() })
	return f
}

// loadIDs fills the table ids, and on PostgreSQL gives the planner its
// statistics (nothing analyzes a temporary table by itself).
func (f *floorDB) loadIDs(t *testing.T, ids []string) {
	ctx := context.Background()
	if f.postgres {
		if _, err := f.ExecContext(ctx, `INSERT INTO ids SELECT DISTINCT unnest(CAST($1 AS text[]))`, ids); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ExecContext(ctx, `ANALYZE ids`); err != nil {
			t.Fatal(err)
		}
		return
	}
	tx, err := f.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO ids VALUES (?)`, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// time is an instant as an SQL literal of the engine: Unix milliseconds
// on SQLite, a timestamptz on PostgreSQL.
func (f *floorDB) time(at time.Time) string {
	if f.postgres {
		return "'" + at.UTC().Format(time.RFC3339Nano) + "'::timestamptz"
	}
	return strconv.FormatInt(at.UnixMilli(), 10)
}

// exclusions is the SQL condition on a history record h that excludes its
// panelist from subsample under r (the subsample's rules and the
// unique-respondents rule), written by hand.
func exclusions(f *floorDB, r domain.EligibilityRules, subsample rules.Target, now time.Time) string {
	var conds []string
	since := func(numDays int64) string {
		if numDays <= 0 {
			return ""
		}
		return " AND h.registered_at >= " + f.time(now.Add(-time.Duration(numDays)*24*time.Hour))
	}
	entry := func(column string, id *int64, numDays int64, codes []int64) {
		if id == nil || *id == 0 || len(nonZero(codes)) == 0 {
			return
		}
		conds = append(conds, fmt.Sprintf("(h.%s = %d AND h.status_id IN (%s)%s)", column, *id, join(nonZero(codes)), since(numDays)))
	}
	for _, e := range r.Surveys {
		entry("subsample_id", e.ID, e.NumDays, e.ReturnCodes)
	}
	for _, e := range r.ResearchTypes {
		entry("research_type_id", e.ID, e.NumDays, e.ReturnCodes)
		if e.ID != nil && *e.ID != 0 && len(nonZero(e.ReturnCodes)) > 0 {
			// A record without a research type takes its subsample's.
			conds = append(conds, fmt.Sprintf("(h.research_type_id = 0 AND h.subsample_id IN (SELECT subsample_id FROM subsample_topics WHERE research_type_id = %d) AND h.status_id IN (%s)%s)",
				*e.ID, join(nonZero(e.ReturnCodes)), since(e.NumDays)))
		}
	}
	for _, e := range r.Events {
		entry("event_id", e.ID, e.NumDays, e.ReturnCodes)
	}
	for _, e := range r.Categories {
		codes := nonZero(e.ReturnCodes)
		if len(codes) == 0 {
			continue
		}
		// The categories the entry names: a category never seen is under
		// any generic or main one.
		var level string
		switch {
		case e.SpecificCategoryID != nil && *e.SpecificCategoryID != 0:
			level = fmt.Sprintf("IN (%d)", *e.SpecificCategoryID)
		case e.GenericCategoryID != nil && *e.GenericCategoryID != 0:
			level = fmt.Sprintf("IN (SELECT category_id FROM categories WHERE generic_id = %d)", *e.GenericCategoryID)
		case e.MainCategoryID != nil && *e.MainCategoryID != 0:
			level = fmt.Sprintf("IN (SELECT category_id FROM categories WHERE main_id = %d)", *e.MainCategoryID)
		default:
			continue
		}
		unseen := ""
		if !strings.HasPrefix(level, "IN (SELECT") {
			unseen = " AND false"
		}
		// A record stands for its own category and every category of its
		// subsample.
		conds = append(conds, fmt.Sprintf(`((h.category_id %[1]s OR (h.category_id != 0 AND h.category_id NOT IN (SELECT category_id FROM categories)%[2]s)
			OR h.subsample_id IN (SELECT subsample_id FROM subsample_categories WHERE category_id %[1]s OR (category_id NOT IN (SELECT category_id FROM categories)%[2]s)))
			AND h.status_id IN (%[3]s)%[4]s)`, level, unseen, join(codes), since(e.NumDays)))
	}
	// Respondents are unique within the event, the subsample itself included.
	conds = append(conds, fmt.Sprintf("(h.event_id = %d OR h.subsample_id = %d)", subsample.EventID, subsample.SubsampleID))
	return strings.Join(conds, " OR ")
}

// panelFits is the SQL condition that the panelist whose row of the
// panel is p fits by country and locale (no default-locale subtleties:
// the floors' subsamples have a usable link in each of their locales, and
// the tallies compared say when that stops being so); NULL without a row.
func panelFits(countries, locales []string) string {
	return `(p.country IN (` + quoteAll(countries) + `) AND (p.locale = '' OR p.locale IN (` + quoteAll(locales) + `)))`
}

// panelistsOf picks n panelists of the panel living in one of countries,
// spread evenly over their ids.
func panelistsOf(t *testing.T, db string, countries []string, n int) []string {
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT panelist_id FROM panel WHERE country IN (` + quoteAll(countries) + `) ORDER BY panelist_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
	}
	step := max(1, len(all)/n)
	ids := make([]string, 0, n)
	for i := 0; i < len(all) && len(ids) < n; i += step {
		ids = append(ids, all[i])
	}
	return ids
}

// quoteAll writes strings as SQL literals, an empty one for none.
func quoteAll(list []string) string {
	if len(list) == 0 {
		return "''"
	}
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return strings.Join(out, ", ")
}

func nonZero(codes []int64) []int64 {
	var out []int64
	for _, c := range codes {
		if c != 0 {
			out = append(out, c)
		}
	}
	return out
}

func join(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

// best returns the shortest of n runs of f.
func best(n int, f func() time.Duration) time.Duration {
	d := f()
	for range n - 1 {
		d = min(d, f())
	}
	return d
}

func ms(d time.Duration) float64 { return round(float64(d.Microseconds()) / 1000) }

func round(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	return r
}

// report prints the table and, for a full run, writes bench/results.json
// and the table of bench/README.md made from it.
func report(t *testing.T, rows []Row, full bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-60s %12s %12s %8s  %-22s %s\n", "figure", "value", "floor", "ratio", "target", "met")
	for _, r := range rows {
		if r.NotRun != "" {
			fmt.Fprintf(&b, "%-60s not run: %s\n", r.Figure, r.NotRun)
			continue
		}
		fmt.Fprintf(&b, "%-60s %9.3f %-2s %12.3f %8.3f  %-22s %v\n", r.Figure, r.Value, r.Unit, r.Floor, r.Ratio, r.Target, r.Met)
	}
	fmt.Print(b.String())
	if !full {
		t.Log("some figures, or a resized scenario: results.json is left as it was")
		return
	}
	writeResults(t, rows)
}

// writeResults writes rows to results.json and the table of the README
// beside them, never typed by hand.
func writeResults(t *testing.T, rows []Row) {
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ResultsFile, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateReadme(".", rows); err != nil {
		t.Fatal(err)
	}
}

// serve serves h on loopback for the rest of the test.
func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
