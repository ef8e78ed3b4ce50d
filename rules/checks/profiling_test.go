package checks_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestProfilingAgreesWithTheChecks counts the hand-made world's panel
// (checkstest) against its one sendable subsample, whose hard Gender table
// asks question 43, with two more panelists of its country: one without a
// profile, one whose profile does not answer 43. The coverage counts
// exactly the panelists whose country and language fit the subsample, one
// by one (Eligibility: P-zh, in zh-us, does not), and its undecided are
// exactly those of them whose quota verdict there is unknown; the
// ranking counts every panelist of the country, P-zh included. Data past
// the staleness limit leaves no sendable subsample and no advice.
func TestProfilingAgreesWithTheChecks(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	checkstest.Build(t, st)
	more := []domain.PanelMember{{PanelistID: "P-bare", Country: "US", Locale: "en-us"}, {PanelistID: "P-nogender", Country: "US", Locale: "en-us"}}
	if r, err := st.ImportPanel(ctx, slices.Values(more)); err != nil || r.BadLines > 0 {
		t.Fatalf("panel: %v %+v", err, r)
	}
	known := func(int64) bool { return true }
	if r, err := st.ImportProfiles(ctx, slices.Values([]domain.ProfileRecord{{PanelistID: "P-nogender", QuestionID: 99, Value: "1"}}), known); err != nil || r.BadLines > 0 {
		t.Fatalf("profiles: %v %+v", err, r)
	}
	now := checkstest.ReadAt.Add(time.Minute)
	s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}

	rep, err := s.Profiling(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// At stake: what the 2 panelists without a gender could earn, 2 of
	// Target's 5 remaining completes at 2 USD.
	wantQuestions := []rules.QuestionStake{{QuestionID: checkstest.GenderQuestion, Country: "US", Subsamples: []int64{checkstest.Target},
		RemainingCompletes: 5, PanelistsWithoutAnswer: 2, Panelists: 11, Stake: rules.Money{"USD": 400}, Currency: "USD"}}
	if !reflect.DeepEqual(rep.Questions, wantQuestions) {
		t.Errorf("ranking:\n got %+v\nwant %+v", rep.Questions, wantQuestions)
	}
	if !slices.Equal(rep.Countries, []string{"US"}) {
		t.Errorf("countries = %v, want [US]", rep.Countries)
	}
	if len(rep.Coverage) != 1 {
		t.Fatalf("coverage = %+v, want the Gender table of subsample %d", rep.Coverage, checkstest.Target)
	}
	cov := rep.Coverage[0]
	var fits, undecided int64
	panel := []string{"P-bare", "P-nogender", // and the world's panelists of the US
		"P-held", "P-held-once-older", "P-two-reversed", "P-open", "P-full", "P-zh", "P-again", "P-sibling", "P-other-event"}
	for _, id := range panel {
		pc, err := s.Eligibility(ctx, id, checkstest.Target)
		if err != nil {
			t.Fatal(err)
		}
		if !pc.Panel.Fits {
			continue
		}
		fits++
		if pc.Quota == rules.QuotaUnknown {
			undecided++
		}
	}
	if cov.Panelists != fits || cov.Undecided != undecided || cov.Decided != fits-undecided || undecided != 2 || fits != int64(len(panel))-1 {
		t.Errorf("coverage = %+v; one by one, %d of the %d who fit undecided, of %d", cov, undecided, fits, len(panel))
	}

	stale := &checks.Service{Store: st, Now: func() time.Time { return now.Add(2 * checkstest.StaleAfter) }, StaleAfter: checkstest.StaleAfter}
	if rep, err := stale.Profiling(ctx); err != nil || len(rep.Questions) != 0 || len(rep.Coverage) != 0 {
		t.Errorf("on stale data: %+v, %v; want no advice", rep, err)
	}
}

// TestProfilingReportOfSubsample: a subsample's page shows its own hard
// tables, in the report's order, and nothing of another subsample.
func TestProfilingReportOfSubsample(t *testing.T) {
	rep := checks.ProfilingReport{ProfilingReport: rules.ProfilingReport{Coverage: []rules.TableCoverage{
		{SubsampleID: 1, Country: "DE", TableID: 5}, {SubsampleID: 2, Country: "FR", TableID: 3},
		{SubsampleID: 1, Country: "FR", TableID: 3}, {SubsampleID: 1, Country: "FR", TableID: 2}}}}
	want := []rules.TableCoverage{{SubsampleID: 1, Country: "DE", TableID: 5}, {SubsampleID: 1, Country: "FR", TableID: 3}, {SubsampleID: 1, Country: "FR", TableID: 2}}
	if got := rep.OfSubsample(1); !reflect.DeepEqual(got, want) {
		t.Errorf("OfSubsample(1) = %+v, want %+v", got, want)
	}
	if got := rep.OfSubsample(9); len(got) != 0 {
		t.Errorf("OfSubsample(9) = %+v, want none", got)
	}
}
