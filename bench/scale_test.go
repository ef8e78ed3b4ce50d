//go:build bench

package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"fieldboard/store"
)

// scaleSizes are the scale rows' default scenario: the default's
// subsamples, with the history and the panel fixed at 1,000,000 records
// over 100,000 panelists, so that only the snapshot grows.
var scaleSizes = sizes{seed: 1, subsamples: 6000, history: 1_000_000, panelists: 100_000, bulk: 100_000}

// scaleFactor is how much larger the larger scenario is.
const scaleFactor = 4

// atScale is what the scale rows measure on one scenario.
type atScale struct {
	live int
	// write is figure 2 (ms), page figure 4's worst p99 (ms), rss figure
	// 8 (MiB), next figure 12's throughput (answers/s), garbage the heap
	// a next-survey answer allocates (bytes), decided the heap a decided
	// snapshot holds (bytes).
	write, page, rss, next, garbage float64
	decided                         uint64
}

// TestBenchScale is `make bench-scale`: figures 2, 4, 8 and 12 on the
// scale scenario (scaleSizes, resized by the BENCH_ sizes) and on one with
// scaleFactor times its subsamples, the same history and panel, and the
// growth from the one to the other against the targets of a supplier that
// grows: the snapshot write at most linear in the live subsamples, the
// router's throughput within 20% (its work follows the candidates of a
// panelist's country, not the snapshot), serve's RSS within figure 8's
// 150 MB, the subsample page within figure 4's 10 ms. It also reports the
// heap a decided snapshot holds per live subsample, which serve's default
// heap limit is chosen from.
func TestBenchScale(t *testing.T) {
	base := sizesFrom(t, scaleSizes)
	big := base
	big.subsamples *= scaleFactor
	var at [2]atScale
	var routers [2]servedRouter
	for i, s := range []sizes{base, big} {
		db := cachedScenario(t, s)
		withProfiles(t, s, db)
		withPanel(t, s, db)
		withPrices(t, s, db)
		at[i], routers[i] = measureAtScale(t, s, db)
	}
	at[0].next, at[1].next = throughputsAtScale(t, routers)
	for i, a := range at {
		t.Logf("%d subsamples, %d live: %+v", []sizes{base, big}[i].subsamples, a.live, a)
	}
	rows := scaleRows(base, big, at[0], at[1])
	report(t, rows, false)
	if base == scaleSizes {
		keepGroup(t, scaleMark, rows)
	}
}

// measureAtScale measures the scale rows' figures on the scenario db: figure
// 2 on a copy of it, the served figures as TestBench does. The serve
// process of those runs until the test ends: its throughput is measured
// beside the other scenario's (throughputsAtScale).
func measureAtScale(t *testing.T, s sizes, db string) (atScale, servedRouter) {
	var a atScale
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	a.live, err = st.CountLive(ctx)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	a.decided, _, _ = decidedMemory(t, db)
	a.garbage = routerGarbage(t, s, db)
	written := filepath.Join(t.TempDir(), "written.db")
	copyFile(t, db, written)
	a.write = rowOf(t, snapshotWrite(t, s, written), "2 ").Value
	served, router := servedFigures(t, s, db)
	a.page = rowOf(t, served, "4 ").Value
	a.rss = rowOf(t, served, "8 ").Value
	return a, router
}

// scaleRounds is how many throughput rounds each scenario's serve answers
// for the scale row, the two taking turns: enough answers on each side
// (throughputRequests a round) for the collector's cycles, which come
// every few thousand answers at 24,000 subsamples, to weigh in as they
// do in a steady load rather than fall in one short round or none.
// A round times timedRequests answers.
const scaleRounds = 60

// throughputsAtScale is the scale row of figure 12: each serve process
// (both still running, after their served figures) asked for one
// panelist's next-survey answer (sendingPath), in rounds taking turns, so
// that whatever else the shared machine does weighs on both alike. Each is
// all its rounds' answers over all their time, in answers a second.
func throughputsAtScale(t *testing.T, routers [2]servedRouter) (at1, at4 float64) {
	var getters [2]*getter
	var paths [2]string
	for i, r := range routers {
		answers := &nextAnswers{limit: nextLimit}
		getters[i] = newGetter(r.base, r.token, answers.check)
		paths[i], _, _ = sendingPath(t, getters[i], r.panelists)
	}
	// Each round's timed answers over its time, summed over the rounds.
	var seconds [2]float64
	for range scaleRounds {
		for i := range routers {
			bytesPerSecond, size := throughput(t, getters[i], paths[i])
			seconds[i] += float64(timedRequests) * float64(size) / bytesPerSecond
		}
	}
	rate := func(s float64) float64 { return round(scaleRounds * timedRequests / s) }
	return rate(seconds[0]), rate(seconds[1])
}

// timedRequests is how many of a throughput round's requests its clock
// times (throughputOver: the warm-up is not).
const timedRequests = loadWorkers * throughputEach

// rowOf is the first of rows whose figure begins with prefix.
func rowOf(t *testing.T, rows []Row, prefix string) Row {
	for _, r := range rows {
		if strings.HasPrefix(r.Figure, prefix) {
			return r
		}
	}
	t.Fatalf("no row %q measured", prefix)
	return Row{}
}

// scaleRows are the growth rows: each figure at scaleFactor times the
// subsamples, against the same figure on the scale scenario as its floor.
func scaleRows(base, big sizes, at1, at4 atScale) []Row {
	of := fmt.Sprintf("at %d subsamples (%d live) against %d (%d live); history %d records over %d panelists",
		big.subsamples, at4.live, base.subsamples, at1.live, base.history, base.panelists)
	perLive := func(v float64, a atScale) float64 { return v / float64(max(a.live, 1)) }
	write1, write4 := perLive(at1.write, at1)*1000, perLive(at4.write, at4)*1000 // µs a live subsample
	kib1, kib4 := perLive(float64(at1.decided), at1)/1024, perLive(float64(at4.decided), at4)/1024
	growth := func(v4, v1 float64) float64 { return round(v4 / v1) }
	return []Row{
		{Figure: "2 scale: snapshot write per live subsample (" + fmt.Sprintf("%.0f ms and %.0f ms in all) ", at4.write, at1.write) + of,
			Value: round(write4), Unit: "µs", Floor: round(write1), Ratio: growth(write4, write1), Target: "<= 1.1 x at 1x", Met: write4 <= 1.1*write1},
		{Figure: "4 scale: subsample page, worst p99 of three runs, " + of,
			Value: at4.page, Unit: "ms", Floor: at1.page, Ratio: growth(at4.page, at1.page), Target: "<= 10 ms", Met: at4.page <= 10},
		{Figure: "8 scale: RSS of fieldboard serve after the page runs, " + of,
			Value: at4.rss, Unit: "MiB", Floor: at1.rss, Ratio: growth(at4.rss, at1.rss), Target: "<= 150 MB", Met: at4.rss*1.048576 <= 150},
		{Figure: fmt.Sprintf("8 scale: heap a decided snapshot holds per live subsample (%.0f MiB and %.0f MiB in all), ", float64(at4.decided)/(1<<20), float64(at1.decided)/(1<<20)) + of,
			Value: round(kib4), Unit: "KiB", Floor: round(kib1), Ratio: growth(kib4, kib1), Target: "<= 1.1 x at 1x", Met: kib4 <= 1.1*kib1},
		{Figure: "12 scale: heap allocated per next-survey answer (checks.Service.NextSurveys in the harness's process, its reads included), " + of,
			Value: round(at4.garbage / 1024), Unit: "KiB", Floor: round(at1.garbage / 1024), Ratio: growth(at4.garbage, at1.garbage), Target: "<= 1.1 x at 1x", Met: at4.garbage <= 1.1*at1.garbage},
		{Figure: fmt.Sprintf("12 scale: next-survey answer throughput (%d rounds of %d answers, the two scenarios' serve taking turns), ", scaleRounds, timedRequests) + of,
			Value: at4.next, Unit: "answers/s", Floor: at1.next, Ratio: growth(at4.next, at1.next), Target: ">= 0.8 x at 1x", Met: at4.next >= 0.8*at1.next},
	}
}
