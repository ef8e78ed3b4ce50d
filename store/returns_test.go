package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestReturnsAgainstSends: a return belongs to the panelist's newest send
// made since the window's start, never to an older one or another
// panelist's; a send is returned once, however many returns race for it;
// the record is in the history at once, unconfirmed, until an imported
// record of the same panelist and subsample registered since the send
// replaces it, and an older imported one does not.
func TestReturnsAgainstSends(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		sends := []domain.RoutingDecision{
			{At: t0, PanelistID: "P1", Chosen: 100, Outcome: domain.RoutedNext, Reason: "best", Cells: "7"},
			{At: t0.Add(time.Minute), PanelistID: "P1", Intended: 200, Outcome: domain.RoutedNone, Reason: "no survey"},
			{At: t0.Add(2 * time.Minute), PanelistID: "P1", Chosen: 300, Outcome: domain.RoutedAnswer, Reason: "named first"},
			{At: t0.Add(3 * time.Minute), PanelistID: "P2", Chosen: 100, Outcome: domain.RoutedIntended, Reason: "as invited"},
		}
		if err := s.RecordRoutings(ctx, sends); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name, panelist string
			since          time.Time
			want           int64 // the send's chosen subsample; 0: none
		}{
			{"the newest send, not the decision that chose nothing", "P1", t0, 300},
			{"at the window's start exactly", "P1", t0.Add(2 * time.Minute), 300},
			{"the window begun a minute after it", "P1", t0.Add(3 * time.Minute), 0},
			{"another panelist's own", "P2", t0, 100},
			{"nobody sent", "P9", t0, 0},
		} {
			got, err := s.LastSend(ctx, tt.panelist, tt.since)
			switch {
			case tt.want == 0 && !errors.Is(err, store.ErrNotFound):
				t.Errorf("%s: %+v, %v; want ErrNotFound", tt.name, got, err)
			case tt.want != 0 && (err != nil || got.Chosen != tt.want || got.Hop != 1):
				t.Errorf("%s: %+v, %v; want the send to %d, hop 1", tt.name, got, err, tt.want)
			}
			// The panelist's rows read with it say the same.
			rows, err := s.PanelistRowsWithSend(ctx, tt.panelist, tt.since)
			switch {
			case err != nil:
				t.Fatal(err)
			case tt.want == 0 && rows.LastSend != nil:
				t.Errorf("%s, with the rows: %+v; want none", tt.name, rows.LastSend)
			case tt.want != 0 && (rows.LastSend == nil || rows.LastSend.Chosen != tt.want || rows.LastSend.DecisionID != got.DecisionID ||
				!rows.LastSend.At.Equal(got.At) || rows.LastSend.Hop != 1 || rows.LastSend.Outcome != got.Outcome):
				t.Errorf("%s, with the rows: %+v; want %+v", tt.name, rows.LastSend, got)
			}
		}

		send, err := s.LastSend(ctx, "P1", t0)
		if err != nil {
			t.Fatal(err)
		}
		at := t0.Add(10 * time.Minute)
		r := store.Returned{Send: send, Via: domain.ReturnByRedirect, Flag: domain.ReturnTooFast,
			Record: domain.HistoryRecord{PanelistID: "P1", SubsampleID: 300, StatusID: domain.ReturnComplete, RegisteredAt: at, EventID: 30}}
		errs := make(chan error, 4)
		for range 4 {
			go func() { errs <- s.RecordReturn(ctx, r) }()
		}
		recorded := 0
		for range 4 {
			switch err := <-errs; {
			case err == nil:
				recorded++
			case !errors.Is(err, store.ErrAlreadyReturned):
				t.Fatal(err)
			}
		}
		if recorded != 1 {
			t.Errorf("4 returns of one send at once recorded %d, want 1", recorded)
		}
		send, _ = s.LastSend(ctx, "P1", t0)
		if send.ReturnStatus != domain.ReturnComplete || send.ReturnVia != domain.ReturnByRedirect || send.ReturnFlag != domain.ReturnTooFast ||
			send.ReturnedAt == nil || !send.ReturnedAt.Equal(at) {
			t.Errorf("the send after its return: %+v", send)
		}
		unconfirmed := func() []store.ReturnedRecord {
			t.Helper()
			got, err := s.ReturnedRecords(ctx, time.Time{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := unconfirmed(); len(got) != 1 || got[0].PanelistID != "P1" || got[0].EventID != 30 || got[0].Flag != domain.ReturnTooFast {
			t.Errorf("unconfirmed records %+v; want the complete of P1", got)
		}
		if h, _ := s.HistoryOf(ctx, "P1"); len(h) != 1 || h[0].StatusID != domain.ReturnComplete {
			t.Errorf("history %+v; want the return's complete", h)
		}

		// An import of an older record of the same subsample replaces
		// nothing; one registered since the send does.
		older := "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\nP1,300,82,2024-01-01T00:00:00Z,30,1,1\n"
		if _, err := s.ImportHistoryCSV(ctx, strings.NewReader(older), nil); err != nil {
			t.Fatal(err)
		}
		if got := unconfirmed(); len(got) != 1 {
			t.Errorf("an import of an older record confirmed the return: %+v", got)
		}
		newer := "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\nP1,300,3," + at.Add(-time.Minute).Format(time.RFC3339) + ",30,1,1\n"
		if _, err := s.ImportHistoryCSV(ctx, strings.NewReader(newer), nil); err != nil {
			t.Fatal(err)
		}
		if got := unconfirmed(); len(got) != 0 {
			t.Errorf("the imported complete left the return unconfirmed: %+v", got)
		}
		h, _ := s.HistoryOf(ctx, "P1")
		if len(h) != 2 || !h[0].RegisteredAt.Equal(at.Add(-time.Minute)) && !h[1].RegisteredAt.Equal(at.Add(-time.Minute)) {
			t.Errorf("history %+v; want the older screen-out and the imported complete, the return's record gone", h)
		}
		for _, r := range h {
			if r.RegisteredAt.Equal(at) {
				t.Errorf("the return's record is still in the history: %+v", h)
			}
		}
	})
}
