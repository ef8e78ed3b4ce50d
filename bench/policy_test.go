//go:build bench

package bench

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// policyRounds is how many interleaved rounds figure 19 runs of each
// side; the median is kept.
const policyRounds = 5

// routerWithOurRules is figure 19: the router's answer (the next-survey
// answer, limit 5, checks.Service.NextSurveys in the harness's process,
// loadWorkers at once, the panelists drawn as figure 12's) on a copy of
// the scenario with a realistic set of our own rules in force (a minimum
// CPI, a maximum LOI, ten blocks, two caps, five priorities), against the
// same answers on a copy without them, in interleaved rounds, the median
// of five: p99 and throughput. The two caps are on the two
// subsamples the router picks first most often without rules, so the
// decisions that take a place under them (one write each) are measured;
// they are set high enough never to refuse, so both sides answer the same
// questions.
func routerWithOurRules(t *testing.T, s sizes, scenario string) []Row {
	ctx := context.Background()
	dir := t.TempDir()
	plain, ruled := filepath.Join(dir, "plain.db"), filepath.Join(dir, "ruled.db")
	copyFile(t, scenario, plain)
	copyFile(t, scenario, ruled)
	open := func(path string) *checks.Service {
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return &checks.Service{Store: st, Now: func() time.Time { return pageClock }}
	}
	without, with := open(plain), open(ruled)
	panelists := onPanel(t, without.Store, s, 500)

	// The subsamples the router picks first most often, without rules.
	firsts := map[int64]int{}
	for _, id := range panelists {
		routes, err := without.PreviewNextSurveys(ctx, id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(routes) > 0 {
			firsts[routes[0].SubsampleID]++
		}
	}
	picked := make([]int64, 0, len(firsts))
	for id := range firsts {
		picked = append(picked, id)
	}
	slices.SortFunc(picked, func(a, b int64) int { return cmp.Or(cmp.Compare(firsts[b], firsts[a]), cmp.Compare(a, b)) })
	if len(picked) < 2 {
		t.Fatalf("figure 19: the router picks fewer than two subsamples first (%v)", firsts)
	}
	set := ourRules(t, ctx, with, picked[:2])

	answer := func(svc *checks.Service) func(string) error {
		return func(id string) error {
			_, err := svc.NextSurveys(ctx, id, 5)
			return err
		}
	}
	// Each round loads both sides, one after the other; the figure is the
	// median round of each side, its ratio the median of the rounds'
	// ratios: a round the shared machine slowed counts for one round.
	var p99s, rates [2][]float64
	var p99Ratios, rateRatios []float64
	for range policyRounds {
		var round [2]routerLoad
		for side, svc := range []*checks.Service{without, with} {
			round[side] = loadRouter(t, panelists, answer(svc))
			p99s[side] = append(p99s[side], round[side].p99.Seconds())
			rates[side] = append(rates[side], round[side].rate)
		}
		p99Ratios = append(p99Ratios, round[1].p99.Seconds()/round[0].p99.Seconds())
		t.Logf("round: with our rules p99 %v, %.0f answers/s; without, p99 %v, %.0f answers/s", round[1].p99, round[1].rate, round[0].p99, round[0].rate)
		rateRatios = append(rateRatios, round[1].rate/round[0].rate)
	}
	p99Ratio, rateRatio := median(p99Ratios), median(rateRatios)
	label := fmt.Sprintf("with our rules in force (%s; caps on the two subsamples picked first most often)", set)
	return []Row{
		{Figure: "19 the router's answer, limit 5, " + label + " (p99, in process, the median of 5 interleaved rounds; floor: the same answers without them)",
			Value: round(median(p99s[1]) * 1000), Unit: "ms", Floor: round(median(p99s[0]) * 1000), Ratio: round(p99Ratio), Target: "<= 1.1 x floor", Met: p99Ratio <= 1.1},
		{Figure: "19 the router's answer throughput, " + label + " (answers/s, the median of 5 interleaved rounds; floor: the same answers without them)",
			Value: round(median(rates[1])), Unit: "answers/s", Floor: round(median(rates[0])), Ratio: round(rateRatio), Target: ">= 0.9 x floor", Met: rateRatio >= 1/1.1},
	}
}

// ourRules puts in force, on svc's database, a realistic set of our own
// rules: a minimum CPI in the snapshot's most used currency, a maximum
// LOI, ten blocks (subsamples, events, a research type, a category, a
// billing entity), caps on the subsamples capped, five priorities. It
// says what it set.
func ourRules(t *testing.T, ctx context.Context, svc *checks.Service, capped []int64) string {
	d, err := svc.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := d.LiveRows()
	sendable := func(rows []checks.LiveRow) int {
		n := 0
		for _, r := range rows {
			if r.Verdict.State == rules.Sendable {
				n++
			}
		}
		return n
	}
	before := sendable(rows)
	currencies := map[string]int{}
	for _, r := range rows {
		currencies[r.Currency]++
	}
	currency, most := "", 0
	for c, n := range currencies {
		if n > most || n == most && c < currency {
			currency, most = c, n
		}
	}
	// Blocks and priorities fall on live subsamples spread over the list,
	// none of them capped.
	var spread []liveRowRef
	for i := 7; i < len(rows) && len(spread) < 12; i += max(1, len(rows)/12) {
		if !slices.Contains(capped, rows[i].SubsampleID) {
			spread = append(spread, liveRowRef{rows[i].SubsampleID, rows[i].EventID, rows[i].ResearchType})
		}
	}
	if len(spread) < 8 {
		t.Fatalf("figure 19: too few live subsamples (%d) to spread rules over", len(rows))
	}
	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	words := [][]string{
		{"min-cpi", "0.25", currency},
		{"max-loi", "60"},
		{"block", "subsample", id(spread[0].subsample)}, {"block", "subsample", id(spread[1].subsample)},
		{"block", "subsample", id(spread[2].subsample)}, {"block", "subsample", id(spread[3].subsample)},
		{"block", "event", id(spread[4].event)}, {"block", "event", id(spread[5].event)}, {"block", "event", id(spread[6].event)},
		{"block", "research-type", "Product Test"}, {"block", "category", "99999"}, {"block", "billing-entity", "Nobody Ltd"},
		{"cap", "subsample", id(capped[0]), "sends", "1000000", "per", "hour"},
		{"cap", "subsample", id(capped[1]), "sends", "1000000", "per", "day"},
		{"priority", "subsample", id(spread[7].subsample), "+2"},
		{"priority", "subsample", id(capped[1]), "-1"},
		{"priority", "subsample", id(spread[0].subsample), "+1"},
		{"priority", "event", id(spread[4].event), "+1"},
		{"priority", "event", id(spread[1].event), "-2"},
	}
	for _, w := range words {
		if _, err := svc.SetRule(ctx, w, "bench", "figure 19"); err != nil {
			t.Fatalf("figure 19: set %v: %v", w, err)
		}
	}
	if d, err = svc.Current(ctx); err != nil { // decided with them, before the clock starts
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rules: a minimum CPI, a maximum LOI, 10 blocks, 2 caps, 5 priorities, over %d live subsamples, %d of whose %d sendable ones they leave",
		len(words), len(rows), sendable(d.LiveRows()), before)
}

// liveRowRef is a live subsample's ids, for ourRules.
type liveRowRef struct {
	subsample, event int64
	researchType     string
}

// routerLoad is one round of figure 19: the p99 and the answers a second.
type routerLoad struct {
	p99  time.Duration
	rate float64
}

// loadRouter asks answer for every panelist, twenty times over, loadWorkers
// at once, after a warm-up round.
func loadRouter(t *testing.T, panelists []string, answer func(string) error) routerLoad {
	for _, id := range panelists[:min(50, len(panelists))] {
		if err := answer(id); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 20
	latencies := make([]time.Duration, len(panelists)*rounds)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	next := 0
	start := time.Now()
	for range loadWorkers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(latencies) {
					return
				}
				began := time.Now()
				if err := answer(panelists[i%len(panelists)]); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				latencies[i] = time.Since(began)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if failed != nil {
		t.Fatal(failed)
	}
	slices.Sort(latencies)
	return routerLoad{p99: latencies[len(latencies)*99/100], rate: float64(len(latencies)) / took.Seconds()}
}

// median is the middle of vs (the upper of the two middles for an even
// count); vs is sorted.
func median(vs []float64) float64 {
	slices.Sort(vs)
	return vs[len(vs)/2]
}
