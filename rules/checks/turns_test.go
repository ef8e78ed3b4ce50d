package checks

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// oneSendable is a service on a new database whose snapshot holds one
// sendable subsample, 10, with its total quota open.
func oneSendable(t *testing.T) *Service {
	t.Helper()
	st := newStore(t)
	if _, err := st.SaveEvents(context.Background(), oneSendableSnapshot(time.Now(), 10), time.Hour); err != nil {
		t.Fatal(err)
	}
	return &Service{Store: st, Now: time.Now}
}

// newStore is a store on a new SQLite file, closed after the test.
func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// oneSendableSnapshot is oneSendable's snapshot read at now, its total
// quota with remaining places left.
func oneSendableSnapshot(now time.Time, remaining int64) store.EventsSnapshot {
	us := domain.Country{ID: 1, Code: "US", Name: "United States"}
	return store.EventsSnapshot{
		Run:       store.Run{Dataset: store.DatasetEvents, StartedAt: now, FinishedAt: now},
		Summaries: []domain.SubsampleSummary{{EventID: 1, SubsampleID: 10, SubsampleStatus: domain.StatusLive, Country: us}},
		Live: []domain.LiveSubsample{{EventID: 1, SubsampleID: 10, SubsampleStatus: domain.StatusLive, SurveyAPICompatibility: true,
			TargetedCPI: 2, TargetedCurrency: "USD", Countries: []domain.Country{us},
			Locales: []domain.SubsampleLocale{{Name: "en-us", LiveEntryLink: "https://e.test/s?p=1&id=", TestingEntryLink: "https://e.test/t?p=1&id="}}}},
		Details: map[int64]store.SubsampleDetail{10: {FetchedAt: now, Quotas: []domain.Quota{{SubsampleStatus: domain.StatusLive,
			QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total", QuotaType: domain.QuotaTypeCounting, RemainingExclusive: remaining}}}},
	}
}

// waitingForTheTurn counts the goroutines waiting in takeTurn.
func waitingForTheTurn() int {
	buf := make([]byte, 4<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "checks.(*Service).takeTurn(")
}

// TestBulkChecksAndSendListsTakeTurns: while the turn is taken, bulk
// checks and send lists wait for it and none computes; once it is given
// back, each has its turn and finishes.
func TestBulkChecksAndSendListsTakeTurns(t *testing.T) {
	s := oneSendable(t)
	ctx := context.Background()
	if err := s.MustBeLive(ctx, 10); err != nil {
		t.Fatal(err)
	}
	release, err := s.takeTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		what string
		err  error
	}
	finished := make(chan outcome, 3)
	for range 2 {
		go func() {
			err := s.BulkCheck(ctx, 10, slices.Values([]string{"P1", "P2"}), func(BulkResult) error { return nil })
			finished <- outcome{"bulk check", err}
		}()
	}
	go func() {
		err := s.SendList(ctx, 10, 0, func(string, string) error { return nil })
		finished <- outcome{"send list", err}
	}()
	for waitingForTheTurn() < 3 {
		select {
		case o := <-finished:
			t.Fatalf("a %s finished (%v) while another held the turn", o.what, o.err)
		case <-time.After(time.Millisecond):
		}
	}
	release()
	for range 3 {
		if o := <-finished; o.err != nil {
			t.Errorf("%s: %v", o.what, o.err)
		}
	}
}
