//go:build bench

package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Figure 17 (issue 27): the ranking of what to profile next over the whole
// scenario, checks.Service.Profiling, against one hand-written SQL query
// giving the same counts (floorProfiling), on SQLite and (17p) on the
// scenario's copy on PostgreSQL; and, on SQLite, the /profiling page's
// p99 through `fieldboard serve` against its CSV's (profilingPage).

// profilingKey is one row of the ranking as figure 17 compares it: a
// provider question in a country.
type profilingKey struct {
	Country  string
	Question int64
}

// profilingCounts are the counts figure 17 compares: per question and
// country, the panelists of the country with no answer to it; per
// country, its panelists (those without a profile included).
type profilingCounts struct {
	WithoutAnswer map[profilingKey]int64
	Panelists     map[string]int64
}

// profilingRanking is figure 17 (17p on PostgreSQL): the ranking over
// every live sendable subsample and every panelist of the database target
// names. Each round builds a new checks.Service, so the advice is never
// the memo of an earlier round (the memo lives with a service's decisions
// of a version), and decides the snapshot before the clock starts: a
// server has it decided already, every page asks for it. The best of three
// rounds, after a first that warms the caches, against floorProfiling's
// best of three; the run fails unless both give every question and country
// the same panelists without an answer and every country the same
// panelists. It returns the row and the ranking's rows, which the page's
// figure checks the server's answers against.
func profilingRanking(t *testing.T, target string) (Row, []rules.QuestionStake) {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC()
	var rep checks.ProfilingReport
	ours := func() time.Duration {
		s := &checks.Service{Store: st, Now: func() time.Time { return now }}
		if _, err := s.Current(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var err error
		if rep, err = s.Profiling(ctx); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	ours()
	got := profilingCounts{WithoutAnswer: map[profilingKey]int64{}, Panelists: map[string]int64{}}
	for _, q := range rep.Questions {
		got.WithoutAnswer[profilingKey{q.Country, q.QuestionID}] = q.PanelistsWithoutAnswer
		got.Panelists[q.Country] = q.Panelists
	}
	if len(got.WithoutAnswer) == 0 {
		t.Fatalf("figure 17 on %s: the ranking is empty: no sendable subsample has a hard quota", engineOf(target))
	}
	asked := hardQuestions(t, st)
	want, floorTook := floorProfiling(t, openFloor(t, target), asked, now)
	if !reflect.DeepEqual(got.Panelists, want.Panelists) {
		t.Fatalf("figure 17 on %s: the panelists per country disagree with the hand-written query's on %s", engineOf(target), firstDifference(got.Panelists, want.Panelists))
	}
	if !reflect.DeepEqual(got.WithoutAnswer, want.WithoutAnswer) {
		t.Fatalf("figure 17 on %s: the panelists without an answer disagree with the hand-written query's on %s", engineOf(target), firstDifference(got.WithoutAnswer, want.WithoutAnswer))
	}
	oursTook := best(3, ours)
	var panelists int64
	for _, n := range got.Panelists {
		panelists += n
	}
	t.Logf("figure 17 on %s: %d questions and countries, %d coverage rows, %d panelists in %d countries: %v against the floor's %v",
		engineOf(target), len(rep.Questions), len(rep.Coverage), panelists, len(got.Panelists), oursTook.Round(time.Millisecond), floorTook.Round(time.Millisecond))
	ratio := oursTook.Seconds() / floorTook.Seconds()
	return Row{Figure: onEngine(target, fmt.Sprintf("17 what to profile next: the ranking (%d questions and countries) and coverage (%d hard tables) over %d panelists",
		len(rep.Questions), len(rep.Coverage), panelists)),
		Value: ms(oursTook), Unit: "ms", Floor: ms(floorTook), Ratio: round(ratio), Target: "<= 2 x floor", Met: ratio <= 2}, rep.Questions
}

// hardQuestions are the questions each country's sendable live
// subsamples ask in their hard quota cells (rules.IsHardCell), read from
// the quotas and the countries the store holds: the rows the ranking
// must have. Sendability itself is Fieldboard's (the checks service's
// verdict), as it is not what figure 17 measures.
func hardQuestions(t *testing.T, st *store.Store) map[string][]int64 {
	ctx := context.Background()
	reports, err := (&checks.Service{Store: st, Now: time.Now}).Subsamples(ctx, checks.SubsampleFilter{Sendability: rules.Sendable})
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string][]int64{}
	for _, r := range reports {
		snap, err := st.ReadSnapshot(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		quotas, err := st.QuotasOf(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		for _, country := range snap.Countries[r.SubsampleID] {
			country = strings.ToUpper(country)
			for _, q := range quotas {
				if !rules.IsHardCell(q) {
					continue
				}
				for _, qq := range q.Questions {
					if !slices.Contains(asked[country], qq.ID) {
						asked[country] = append(asked[country], qq.ID)
					}
				}
			}
		}
	}
	return asked
}

// floorProfiling is figure 17's floor: one query streaming every panel
// row of the countries asked with its packed profile (none for a
// panelist without one), each profile unpacked by the store's decoder
// and its answers counted against the questions its country's hard cells
// ask: what nothing correct can skip, since every panelist of those
// countries counts, and each profile must be read to know what it
// answers. A question's panelists without an answer are then the
// country's panelists less those who answered it (for the age question,
// those with a birth date that gives an age on the day, as matching reads
// it).
func floorProfiling(t *testing.T, f *floorDB, asked map[string][]int64, now time.Time) (profilingCounts, time.Duration) {
	ctx := context.Background()
	var countries []string
	for c := range asked {
		countries = append(countries, c)
	}
	slices.Sort(countries)
	query := `SELECT p.country, pr.answers FROM panel p LEFT JOIN profiles pr ON pr.panelist_id = p.panelist_id
		WHERE p.country IN (` + quoteAll(countries) + `)`
	// tally is one country's counts: its panelists, and how many answered
	// each question asked (index: place in asked[country]).
	type tally struct {
		panelists int64
		place     map[int64]int
		answered  []int64
		age       int // place of the age question; -1 when not asked
	}
	var out profilingCounts
	run := func() time.Duration {
		tallies := make(map[string]*tally, len(asked))
		for c, qs := range asked {
			tl := &tally{place: make(map[int64]int, len(qs)), answered: make([]int64, len(qs)), age: -1}
			for i, q := range qs {
				if q == domain.AgeRangeQuestionID {
					tl.age = i
				} else {
					tl.place[q] = i
				}
			}
			tallies[c] = tl
		}
		start := time.Now()
		rows, err := f.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		defer rows.Close()
		var country string
		var blob []byte
		for rows.Next() {
			if err := rows.Scan(&country, &blob); err != nil {
				t.Fatal(err)
			}
			tl := tallies[country]
			tl.panelists++
			if blob == nil {
				continue
			}
			p, err := store.DecodeProfile(blob)
			if err != nil {
				t.Fatal(err)
			}
			for q, answers := range p.Answers {
				if i, ok := tl.place[q]; ok && len(answers) > 0 {
					tl.answered[i]++
				}
			}
			if tl.age >= 0 && rules.AgeOn(p.BirthDate, now) >= 0 {
				tl.answered[tl.age]++
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		out = profilingCounts{WithoutAnswer: map[profilingKey]int64{}, Panelists: map[string]int64{}}
		for c, tl := range tallies {
			out.Panelists[c] = tl.panelists
			for i, q := range asked[c] {
				out.WithoutAnswer[profilingKey{c, q}] = tl.panelists - tl.answered[i]
			}
		}
		return took
	}
	run()
	return out, best(3, run)
}

// profilingPage is figure 17's page: /profiling served by `fieldboard
// serve` in its own process on a copy of the scenario, loaded as the
// other pages are (load: 8 workers after a warm-up), its p99 against the
// p99 of /profiling.csv loaded the same way in the same run. Both are
// served from the advice the server computed once for the snapshot's
// version (the memo): a user opening the page meets it warm, and the CSV
// is written from the same memoized report, so the page is compared warm
// with the CSV warm; the first request, which computes it, is made before
// either is loaded. Each answer checked must hold the ranking's rows
// (ranking, from figure 17 on the same scenario).
func profilingPage(t *testing.T, s sizes, scenario string, ranking []rules.QuestionStake) Row {
	dir := t.TempDir()
	db := filepath.Join(dir, "serve.db")
	copyFile(t, scenario, db)
	bin := buildFieldboard(t)
	out, err := exec.Command(bin, "token", "create", "--db", db, "--name", "bench").Output()
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	token := lines[len(lines)-1]
	upstream := serve(t, sim.New(simOptions(s)))
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--upstream", upstream,
		"--refresh-every", "8760h", "--library-every", "8760h", "--log-level", "warn", "--stale-after", "0")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://" + addr
	waitHealthy(t, base)

	page := newGetter(base, token, func(_ string, body []byte) error {
		if n := bytes.Count(body, []byte("<tr data-question=")); n != len(ranking) {
			return fmt.Errorf("a page of %d questions, the ranking has %d", n, len(ranking))
		}
		return nil
	})
	sheet := newGetter(base, token, func(_ string, body []byte) error {
		records, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			return err
		}
		if len(records) != len(ranking)+1 || len(records[0]) < 9 || records[0][0] != "questionId" {
			return fmt.Errorf("a CSV of %d records, header %v; the ranking has %d rows", len(records), records[0], len(ranking))
		}
		return nil
	})
	var buf bytes.Buffer
	start := time.Now()
	if _, _, err := page.get("/profiling", &buf); err != nil { // computes the advice
		t.Fatal(err)
	}
	t.Logf("/profiling, the first request (the advice computed): %v", time.Since(start).Round(time.Millisecond))
	pageLoad := load(t, page, func(int) string { return "/profiling" })
	csvLoad := load(t, sheet, func(int) string { return "/profiling.csv" })
	ratio := pageLoad.p99.Seconds() / csvLoad.p99.Seconds()
	return Row{Figure: fmt.Sprintf("17 /profiling page (p99; %d KiB) against its CSV's generation (p99; %d KiB), both from the advice memoized for the version",
		pageLoad.meanSize()>>10, csvLoad.meanSize()>>10),
		Value: ms(pageLoad.p99), Unit: "ms", Floor: ms(csvLoad.p99), Ratio: round(ratio), Target: "<= 1.5 x floor", Met: ratio <= 1.5}
}
