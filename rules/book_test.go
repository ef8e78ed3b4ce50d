package rules

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestRuleBookAgreesWithEligibility checks the book's promise on random
// snapshots and histories: for every target, exactly Eligibility's answer,
// exclusions in the same order with the same sentences.
func TestRuleBookAgreesWithEligibility(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 8))
	small := func() int64 { return rng.Int64N(6) } // 0 is the placeholder id
	codes := func() []int64 { return [][]int64{{0}, {41}, {3, 41}, {41, 3}, {}}[rng.IntN(5)] }
	days := func() int64 { return []int64{0, -1, 1, 30}[rng.IntN(4)] }
	parents := domain.CategoryParents{}
	for specific := int64(1); specific < 6; specific++ {
		parents[specific] = domain.CategoryPath{GenericID: specific % 3, MainID: specific % 2}
	}
	// Category 5 was named under two parents: not understood.
	parents[5] = domain.CategoryPath{GenericID: 2, MainID: 1, Contradiction: "live-details puts category 5 under two parents"}
	var excluded int
	for round := range 300 {
		var targets []Target
		var ruleSets []domain.EligibilityRules
		for i := range 20 {
			targets = append(targets, Target{SubsampleID: int64(i), EventID: small()})
			ruleSets = append(ruleSets, domain.EligibilityRules{
				Surveys:       []domain.SurveyRule{{ID: id64(small()), ReturnCodes: codes(), NumDays: days()}, {ID: id64(small()), ReturnCodes: codes()}},
				ResearchTypes: []domain.ResearchTypeRule{{ID: id64(small()), ReturnCodes: codes(), NumDays: days()}},
				Categories: []domain.CategoryRule{
					{SpecificCategoryID: id64(small()), ReturnCodes: codes(), NumDays: days()},
					{GenericCategoryID: id64(small()), ReturnCodes: codes()},
					{MainCategoryID: id64(small()), GenericCategoryID: id64(0), ReturnCodes: codes()},
				},
				Events: []domain.EventRule{{ID: id64(small()), ReturnCodes: codes(), NumDays: days(), Name: str("Wave " + string(rune('A'+rng.IntN(2))))}},
			})
		}
		book := NewRuleBook(targets, ruleSets, parents)
		// Several panelists against one book: what a check decided must
		// not reach the next (the book keeps its scratch between checks).
		for range 3 {
			var history []domain.HistoryRecord
			for range rng.IntN(5) {
				history = append(history, domain.HistoryRecord{SubsampleID: small(), StatusID: []int64{3, 41, 0}[rng.IntN(3)], EventID: small(),
					CategoryID: rng.Int64N(8) /* 6 and 7 were never seen */, ResearchTypeID: small(), RegisteredAt: now.Add(-time.Duration(rng.IntN(60*24)) * time.Hour)})
			}
			next := 0
			book.Check(history, now, func(i int, got EligibilityResult) {
				if i != next {
					t.Fatalf("round %d: target %d reported after %d", round, i, next-1)
				}
				next++
				want := Eligibility(targets[i], ruleSets[i], history, parents, now)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, target %d:\n book        %+v\n eligibility %+v", round, i, got, want)
				}
				if !got.Eligible {
					excluded++
				}
			})
			if next != len(targets) {
				t.Fatalf("round %d: %d targets reported, want %d", round, next, len(targets))
			}
			// CheckTargets: the targets asked for, in the order asked, each
			// Eligibility's answer, until fn says stop.
			some := []int32{int32(rng.IntN(20)), int32(rng.IntN(20)), 19, 0}
			stopAfter := 1 + rng.IntN(len(some))
			var seen []int32
			book.CheckTargets(history, now, some, func(i int, got EligibilityResult) bool {
				seen = append(seen, int32(i))
				if want := Eligibility(targets[i], ruleSets[i], history, parents, now); !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, CheckTargets target %d:\n book        %+v\n eligibility %+v", round, i, got, want)
				}
				return len(seen) < stopAfter
			})
			if !reflect.DeepEqual(seen, some[:stopAfter]) {
				t.Fatalf("round %d: CheckTargets looked at %v, want %v", round, seen, some[:stopAfter])
			}
			// CheckTargetsEligible: the same targets, each Eligibility's
			// Eligible, until fn says stop.
			seen = nil
			book.CheckTargetsEligible(history, now, some, func(i int, got bool) bool {
				seen = append(seen, int32(i))
				if want := Eligibility(targets[i], ruleSets[i], history, parents, now); got != want.Eligible {
					t.Fatalf("round %d, CheckTargetsEligible target %d: eligible %v, eligibility %+v", round, i, got, want)
				}
				return len(seen) < stopAfter
			})
			if !reflect.DeepEqual(seen, some[:stopAfter]) {
				t.Fatalf("round %d: CheckTargetsEligible looked at %v, want %v", round, seen, some[:stopAfter])
			}
		}
	}
	if excluded < 500 {
		t.Errorf("only %d exclusions over all rounds: the test does not exercise the book", excluded)
	}
}

// TestCheckTargetsFollowsTheCandidates checks the router's promise: one
// panelist checked against the same candidates allocates as often and as
// much in a book four times larger, whose other targets (other countries'
// subsamples, each with entries of its own) the check never looks at.
// It measures the heap, so it runs alone (not t.Parallel).
func TestCheckTargetsFollowsTheCandidates(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled scratch at random: what an answer allocates is measured without it (make bench, go test ./rules/)")
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	const candidates = 50
	book := func(others int) *RuleBook {
		var targets []Target
		var ruleSets []domain.EligibilityRules
		for i := range candidates + others {
			id := int64(100000 + i)
			targets = append(targets, Target{SubsampleID: id, EventID: 500000 + id})
			ruleSets = append(ruleSets, domain.EligibilityRules{
				Surveys:       []domain.SurveyRule{{ID: id64(id - 1), ReturnCodes: []int64{3}}, {ID: id64(id - 2), NumDays: 30, ReturnCodes: []int64{3, 41}}},
				ResearchTypes: []domain.ResearchTypeRule{{ID: id64(int64(i%7) + 1), NumDays: int64(i%90) + 1, ReturnCodes: []int64{3}}},
				Events:        []domain.EventRule{{ID: id64(500000 + id - 1), ReturnCodes: []int64{3, 41}, Name: str("Wave")}},
			})
		}
		return NewRuleBook(targets, ruleSets, domain.CategoryParents{})
	}
	var history []domain.HistoryRecord
	for i := range 30 {
		id := int64(100000 + i*2)
		history = append(history, domain.HistoryRecord{SubsampleID: id, StatusID: 3, EventID: 500000 + id, ResearchTypeID: int64(i%7) + 1,
			RegisteredAt: now.Add(-time.Duration(i) * 20 * time.Hour)})
	}
	places := make([]int32, candidates)
	for i := range places {
		places[i] = int32(i)
	}
	perAnswer := func(b *RuleBook) (allocs float64, bytes uint64, excluded int) {
		check := func() {
			excluded = 0
			b.CheckTargets(history, now, places, func(_ int, r EligibilityResult) bool {
				if !r.Eligible {
					excluded++
				}
				return true
			})
		}
		allocs = testing.AllocsPerRun(100, check)
		const runs = 100
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			check()
		}
		runtime.ReadMemStats(&after)
		return allocs, (after.TotalAlloc - before.TotalAlloc) / runs, excluded
	}
	smallAllocs, smallBytes, smallExcluded := perAnswer(book(1000))
	largeAllocs, largeBytes, largeExcluded := perAnswer(book(4 * (candidates + 1000)))
	t.Logf("per answer: %v allocations, %d bytes (%d candidates excluded) in the small book; %v, %d (%d) in the large one",
		smallAllocs, smallBytes, smallExcluded, largeAllocs, largeBytes, largeExcluded)
	if smallExcluded == 0 || smallExcluded != largeExcluded {
		t.Fatalf("%d and %d candidates excluded: want the same, some", smallExcluded, largeExcluded)
	}
	if largeAllocs != smallAllocs {
		t.Errorf("%v allocations per answer in the large book, %v in the small: want the same", largeAllocs, smallAllocs)
	}
	if largeBytes > smallBytes+smallBytes/10 {
		t.Errorf("%d bytes per answer in the large book, %d in the small: want them alike", largeBytes, smallBytes)
	}
}
