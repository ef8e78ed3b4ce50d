package checks_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// sendPath is one of the ways the service decides whether a panelist is
// sent to a subsample: it answers whether they are.
type sendPath struct {
	name string
	sent func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool
}

// sendPaths are every decision that sends a panelist somewhere: the
// router's next surveys, an invitation click, the send list and the bulk
// check. Each must hold every case on its own.
var sendPaths = []sendPath{
	{"router (NextSurveys)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		routes, err := s.NextSurveys(ctx, panelistID, 50)
		if err != nil {
			t.Fatalf("NextSurveys(%s): %v", panelistID, err)
		}
		return slices.ContainsFunc(routes, func(r checks.Route) bool { return r.SubsampleID == subsampleID })
	}},
	{"invitation click (Route)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		routed, err := s.Route(ctx, invite.Invitation{PanelistID: panelistID, SubsampleID: subsampleID})
		if err != nil {
			t.Fatalf("Route(%s to %d): %v", panelistID, subsampleID, err)
		}
		return routed.Chosen == subsampleID && routed.Link != ""
	}},
	{"a panelist's surveys (PanelistSurveys)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		surveys, err := s.PanelistSurveys(ctx, panelistID)
		if err != nil {
			t.Fatalf("PanelistSurveys(%s): %v", panelistID, err)
		}
		return slices.ContainsFunc(surveys, func(pc checks.PanelistCheck) bool { return pc.SubsampleID == subsampleID && pc.Send() })
	}},
	{"a panelist's surveys, the default answer (EachCandidate)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		p, err := s.ReadPanelist(ctx, panelistID)
		if err != nil {
			t.Fatalf("ReadPanelist(%s): %v", panelistID, err)
		}
		sent := false
		p.EachCandidate(func(_ int, pc checks.PanelistCheck) bool {
			sent = sent || pc.SubsampleID == subsampleID && pc.Send()
			return true
		})
		return sent
	}},
	{"one panelist's eligibility (Eligibility)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		pc, err := s.Eligibility(ctx, panelistID, subsampleID)
		if err != nil {
			t.Fatalf("Eligibility(%s on %d): %v", panelistID, subsampleID, err)
		}
		return pc.Send()
	}},
	{"send list (SendList)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		var listed []string
		err := s.SendList(ctx, subsampleID, 0, func(id, _ string) error {
			listed = append(listed, id)
			return nil
		})
		if err != nil && !errors.Is(err, checks.ErrNotSendable) {
			t.Fatalf("SendList(%d): %v", subsampleID, err)
		}
		return slices.Contains(listed, panelistID)
	}},
	{"bulk check (BulkCheck)", func(ctx context.Context, t *testing.T, s *checks.Service, panelistID string, subsampleID int64) bool {
		var results []checks.BulkResult
		err := s.BulkCheck(ctx, subsampleID, slices.Values([]string{panelistID}), func(r checks.BulkResult) error {
			results = append(results, r)
			return nil
		})
		if err != nil || len(results) != 1 {
			t.Fatalf("BulkCheck(%s on %d): %v, %d results", panelistID, subsampleID, err, len(results))
		}
		return results[0].Send
	}},
}

// TestEverySendPathHoldsEveryBoundary asks each decision path of the
// checks service, on a world built by hand (checkstest), whether each
// case's panelist is sent to the one sendable subsample: a full quota cell,
// another country or language, a history on the subsample or on another of
// its event, and data past the staleness limit each mean no; an open cell,
// another event's history and data at or just inside the limit still mean
// yes. It runs on both databases: on PostgreSQL the send list reads its
// panelists and their records by one query of its own, which reads of
// the quality hold's records only those of subsamples with a verdict in
// its window.
func TestEverySendPathHoldsEveryBoundary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st)
		for _, c := range checkstest.Cases() {
			t.Run(c.Name, func(t *testing.T) {
				now := c.Now()
				for _, p := range sendPaths {
					s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
					if got := p.sent(ctx, t, s, c.Panelist, checkstest.Target); got != c.Sent {
						t.Errorf("%s: %s sent to subsample %d with data %s old = %v, want %v", p.name, c.Panelist, checkstest.Target, c.Age, got, c.Sent)
					}
				}
			})
		}
	})
}

// TestEverySendPathHoldsTheConfiguredQualityHold: a panelist is held for
// quality under the policy the service is given (--hold-reversals,
// --hold-days), on every send path, never under the default 3 in 90
// days. The world's P-held has three reversed completes, the oldest at
// the first instant of the default's 90 days, the others 10 days and a
// day before the read; P-two-reversed two, 20 and 10 days before.
func TestEverySendPathHoldsTheConfiguredQualityHold(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st)
		now := checkstest.ReadAt.Add(time.Minute)
		for _, tc := range []struct {
			name     string
			policy   rules.QualityHoldPolicy
			panelist string
			wantSent bool
		}{
			{"two reversals in 90 days hold P-two-reversed", rules.QualityHoldPolicy{Reversals: 2, Days: 90}, "P-two-reversed", false},
			{"two reversals in 15 days do not: its first is 20 days old", rules.QualityHoldPolicy{Reversals: 2, Days: 15}, "P-two-reversed", true},
			{"four reversals in 90 days do not hold P-held's three", rules.QualityHoldPolicy{Reversals: 4, Days: 90}, "P-held", true},
			{"three reversals in 30 days do not hold P-held: one is 90 days old", rules.QualityHoldPolicy{Reversals: 3, Days: 30}, "P-held", true},
			{"the hold turned off (0 days) holds nobody", rules.QualityHoldPolicy{Reversals: 3, Days: 0}, "P-held", true},
			{"the hold turned off (0 reversals) holds nobody", rules.QualityHoldPolicy{Reversals: 0, Days: 90}, "P-held", true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, p := range sendPaths {
					s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: tc.policy}
					if got := p.sent(ctx, t, s, tc.panelist, checkstest.Target); got != tc.wantSent {
						t.Errorf("%s: %s sent to subsample %d under a hold of %d reversals in %d days = %v, want %v",
							p.name, tc.panelist, checkstest.Target, tc.policy.Reversals, tc.policy.Days, got, tc.wantSent)
					}
				}
				rows, err := st.PanelistRowsOf(ctx, tc.panelist)
				if err != nil {
					t.Fatal(err)
				}
				held := (&checks.Service{Store: st, Now: func() time.Time { return now }, QualityHold: tc.policy}).HeldForQuality(rows.History)
				if (held != "") == tc.wantSent {
					t.Errorf("HeldForQuality(%s) = %q under %+v, want held %v", tc.panelist, held, tc.policy, !tc.wantSent)
				}
			})
		}
	})
}

// TestEverySendPathRefusesALiveSubsampleWhoseFieldEnded: a subsample the
// provider still says is Live, but whose field period ended before the
// data was read, disagrees with itself (docs/rules.md, decided cases):
// no path sends anyone there. A field that ends at the very moment of the
// read, or later, still sends the panelist of an open cell.
func TestEverySendPathRefusesALiveSubsampleWhoseFieldEnded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fieldEnd time.Time
		sent     bool
	}{
		{"a field end a minute before the read sends nobody", checkstest.ReadAt.Add(-time.Minute), false},
		{"a field end at the very moment of the read still sends", checkstest.ReadAt, true},
		{"a field end a day after the read still sends", checkstest.ReadAt.Add(24 * time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			checkstest.Build(t, st, func(snap *store.EventsSnapshot) {
				for i := range snap.Live {
					snap.Live[i].FieldEndDate.Time = tc.fieldEnd
				}
			})
			now := checkstest.ReadAt.Add(time.Minute)
			s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
			for _, p := range sendPaths {
				if got := p.sent(ctx, t, s, "P-open", checkstest.Target); got != tc.sent {
					t.Errorf("%s: P-open sent to subsample %d, whose field ends %s, read at %s = %v, want %v",
						p.name, checkstest.Target, tc.fieldEnd.Format(time.RFC3339), checkstest.ReadAt.Format(time.RFC3339), got, tc.sent)
				}
			}
		})
	}
}

// TestSendListErrors: an error of the caller's emit comes back as it was
// given, for the caller to recognise; a store's failure comes back
// saying what the service was doing, still the error it wraps.
func TestSendListErrors(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	checkstest.Build(t, st)
	now := checkstest.ReadAt.Add(time.Minute)
	s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}

	full := errors.New("the disk is full")
	if err := s.SendList(ctx, checkstest.Target, 0, func(string, string) error { return full }); err != full {
		t.Errorf("SendList with a failing emit = %v, want emit's error as it is", err)
	}

	gone, leave := context.WithCancel(ctx)
	leave()
	if err := s.SendList(gone, checkstest.Target, 0, func(string, string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("SendList whose reads were given up = %v, want an error wrapping context.Canceled", err)
	}
}

// TestSendListFindsTheCountryInAnyCase: the send list reads only the
// panel rows of the subsample's countries, yet a subsample whose country
// comes in another case than the panel stores it ("us" for the panel's
// "US"; FitPanel compares them by strings.EqualFold) still lists every
// panelist FitPanel sends, and still none of another country.
func TestSendListFindsTheCountryInAnyCase(t *testing.T) {
	for _, code := range []string{"US", "us", "uS", "Us"} {
		t.Run(code, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			checkstest.Build(t, st, func(snap *store.EventsSnapshot) {
				for i := range snap.Live {
					for j := range snap.Live[i].Countries {
						snap.Live[i].Countries[j].Code = code
					}
				}
			})
			now := checkstest.ReadAt.Add(time.Minute)
			s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
			var listed []string
			if err := s.SendList(ctx, checkstest.Target, 0, func(id, _ string) error { listed = append(listed, id); return nil }); err != nil {
				t.Fatal(err)
			}
			n, err := s.SendListSize(ctx, checkstest.Target)
			if err != nil || n != len(listed) {
				t.Errorf("SendListSize = %d, %v; the send list has %d", n, err, len(listed))
			}
			for _, c := range checkstest.Cases() {
				if c.Now() != now {
					continue
				}
				if got := slices.Contains(listed, c.Panelist); got != c.Sent {
					t.Errorf("subsample country %q: %s on the send list = %v, want %v (%s)", code, c.Panelist, got, c.Sent, c.Name)
				}
			}
			if !slices.Contains(listed, "P-open") || slices.Contains(listed, "P-ca") || slices.Contains(listed, "P-fr") {
				t.Errorf("subsample country %q: send list %q, want P-open and neither P-ca nor P-fr", code, listed)
			}
		})
	}
}
