package checks_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
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
		if err := p.EachCandidate(0, func(_ int, pc checks.PanelistCheck) bool {
			sent = sent || pc.SubsampleID == subsampleID && pc.Send()
			return true
		}); err != nil {
			t.Fatalf("EachCandidate(%s): %v", panelistID, err)
		}
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
				held, err := (&checks.Service{Store: st, Now: func() time.Time { return now }, QualityHold: tc.policy}).HeldWhy(ctx, tc.panelist, rows.History)
				if err != nil {
					t.Fatal(err)
				}
				if (held != "") == tc.wantSent {
					t.Errorf("HeldWhy(%s) = %q under %+v, want held %v", tc.panelist, held, tc.policy, !tc.wantSent)
				}
			})
		}
	})
}

// TestEverySendPathStopsWhenTheFieldEnds: the clock, not the time the
// data was read, ends a field (docs/rules.md, decided cases): a subsample
// the provider still says is Live is sent to until its field end, and from
// the minute after it no path sends anyone there, though no refresh came
// between, the service's decisions of the snapshot kept from before. A
// field that ends at this very moment has not ended.
func TestEverySendPathStopsWhenTheFieldEnds(t *testing.T) {
	fieldEnd := checkstest.ReadAt.Add(10 * time.Minute) // after the read, before the staleness limit
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st, func(snap *store.EventsSnapshot) {
			for i := range snap.Live {
				snap.Live[i].FieldEndDate.Time = fieldEnd
			}
		})
		// One service, its clock moved on: what it decided before the
		// field end must not send after it.
		now := checkstest.ReadAt.Add(time.Minute)
		s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
		for _, tc := range []struct {
			name string
			now  time.Time
			sent bool
		}{
			{"nine minutes before the field end, sent", fieldEnd.Add(-9 * time.Minute), true},
			{"at the very moment of the field end, still sent", fieldEnd, true},
			{"a minute after the field end, with no refresh between, nobody is sent", fieldEnd.Add(time.Minute), false},
			{"the clock set back before the field end, sent again", fieldEnd.Add(-time.Minute), true},
		} {
			now = tc.now
			for _, p := range sendPaths {
				if got := p.sent(ctx, t, s, "P-open", checkstest.Target); got != tc.sent {
					t.Errorf("%s: %s: P-open sent to subsample %d, whose field ends %s, at %s = %v, want %v",
						tc.name, p.name, checkstest.Target, fieldEnd.Format(time.RFC3339), tc.now.Format(time.RFC3339), got, tc.sent)
				}
			}
			if tc.sent {
				continue
			}
			r, err := s.Subsample(ctx, checkstest.Target)
			want := "The provider says Live, but the field period ended 20 Nov 2026 09:10 (it is now 20 Nov 2026 09:11)"
			if err != nil || r.Verdict.State != "not_sendable" || len(r.Verdict.Reasons) == 0 || !strings.HasPrefix(r.Verdict.Reasons[0], want) {
				t.Errorf("%s: the subsample's verdict %s %q (%v), want not_sendable saying %q", tc.name, r.Verdict.State, r.Verdict.Reasons, err, want)
			}
		}
	})
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

// TestEverySendPathRefusesSourcesThatDisagree: status, event, country and
// field end, read from event/all and from live-details, must agree, and a
// field must not end before it starts; otherwise the subsample is not
// sendable, whatever path asks, and its verdict says what each source
// said (docs/rules.md, "Every field that decides, from every source").
// The same field said alike by both still sends. Both databases.
func TestEverySendPathRefusesSourcesThatDisagree(t *testing.T) {
	day := checkstest.ReadAt.Add(24 * time.Hour)
	summary := func(snap *store.EventsSnapshot) *domain.SubsampleSummary {
		for i := range snap.Summaries {
			if snap.Summaries[i].SubsampleID == checkstest.Target {
				return &snap.Summaries[i]
			}
		}
		panic("the world lists its target")
	}
	for _, tc := range []struct {
		name   string
		edit   func(*store.EventsSnapshot)
		sent   bool
		reason string // the verdict's reason, when not sent
	}{
		{"live-details puts the subsample in another event than event/all: nobody is sent", func(snap *store.EventsSnapshot) {
			snap.Live[0].EventID = 7
		}, false, "The sources disagree on the event: event/all says 1, live-details says 7; nobody is sent until they agree."},
		{"event/all fields the subsample in another country than live-details: nobody is sent", func(snap *store.EventsSnapshot) {
			summary(snap).Country = domain.Country{ID: 2, Code: "CA", Name: "Canada"}
		}, false, "The sources disagree on the country: event/all says CA, live-details says US; nobody is sent until they agree."},
		{"event/all and live-details end the field on different days: nobody is sent", func(snap *store.EventsSnapshot) {
			summary(snap).FieldEndDate.Time = day.Add(24 * time.Hour)
			snap.Live[0].FieldEndDate.Time = day
		}, false, "The sources disagree on the field end: event/all says 22 Nov 2026 09:00:00 UTC, live-details says 21 Nov 2026 09:00:00 UTC; nobody is sent until they agree."},
		{"a field that ends before it starts: nobody is sent", func(snap *store.EventsSnapshot) {
			snap.Live[0].FieldStartDate.Time, snap.Live[0].FieldEndDate.Time = day.Add(time.Hour), day
			summary(snap).FieldStartDate.Time, summary(snap).FieldEndDate.Time = day.Add(time.Hour), day
		}, false, "The field period ends 21 Nov 2026 09:00, before it starts (21 Nov 2026 10:00): the dates are not understood, and nobody is sent until the provider corrects them."},
		{"both sources say the same event, country (in another case) and field period: sent", func(snap *store.EventsSnapshot) {
			summary(snap).Country.Code = "us"
			snap.Live[0].FieldStartDate.Time, snap.Live[0].FieldEndDate.Time = day.Add(-48*time.Hour), day
			summary(snap).FieldStartDate.Time, summary(snap).FieldEndDate.Time = day.Add(-48*time.Hour), day.In(time.FixedZone("CET", 3600))
		}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
				ctx := context.Background()
				st, err := store.Open(ctx, db.Target(t))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				checkstest.Build(t, st, tc.edit)
				now := checkstest.ReadAt.Add(time.Minute)
				s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
				for _, p := range sendPaths {
					if got := p.sent(ctx, t, s, "P-open", checkstest.Target); got != tc.sent {
						t.Errorf("%s: P-open sent = %v, want %v", p.name, got, tc.sent)
					}
				}
				r, err := s.Subsample(ctx, checkstest.Target)
				if err != nil {
					t.Fatal(err)
				}
				if tc.reason != "" && !slices.Contains(r.Verdict.Reasons, tc.reason) {
					t.Errorf("verdict %s %q, want the reason %q", r.Verdict.State, r.Verdict.Reasons, tc.reason)
				}
				// The refresher's states, the change feed's, say the same.
				snap := checkstest.Snapshot()
				tc.edit(&snap)
				if got := checks.States(snap, nil)[checkstest.Target].Sendability; got != string(r.Verdict.State) {
					t.Errorf("the refresher's state %s, the checks' %s", got, r.Verdict.State)
				}
			})
		})
	}
}

// TestEverySendPathDoubtsHistoryItCannotRead: a history record that
// cannot be read to the end rules its panelist out of the rules that would
// need it, on every send path, both databases (docs/rules.md, eligibility):
//   - a research type or a category of 0 on a subsample never seen live
//     (legacy history) may be the entry's;
//   - a record naming another event, on a subsample the provider puts in
//     the target's event, counts in the target's event too (spec rule 5:
//     "subsamples must be grouped by eventId");
//   - a category live-details puts under two generic categories, one
//     subsample each, may be under either.
//
// A record read to the end, of another research type, category and
// event, still sends.
func TestEverySendPathDoubtsHistoryItCannotRead(t *testing.T) {
	category := func(specific, generic, main int64) domain.Category {
		return domain.Category{CategoryID: specific, GenericCategoryID: generic, MainCategoryID: main}
	}
	edit := func(snap *store.EventsSnapshot) {
		snap.Live[0].ResearchTypeID = 8
		snap.Live[0].Categories = []domain.Category{category(55, 12, 3)}
		other := snap.Live[0]
		other.SubsampleID, other.EventID, other.SubsampleName = 30, 3, "Other"
		other.Categories = []domain.Category{category(55, 13, 4), category(57, 14, 4)}
		snap.Live = append(snap.Live, other)
		summary := snap.Summaries[0]
		summary.SubsampleID, summary.EventID, summary.SubsampleName = 30, 3, "Other"
		snap.Summaries = append(snap.Summaries, summary)
		d := snap.Details[checkstest.Target]
		d.Rules = domain.EligibilityRules{
			ResearchTypes: []domain.ResearchTypeRule{{ID: ptr(int64(7)), ReturnCodes: []int64{domain.ReturnScreenOut}}},
			Categories: []domain.CategoryRule{{SpecificCategoryID: ptr(int64(58)), ReturnCodes: []int64{domain.ReturnScreenOut}},
				{GenericCategoryID: ptr(int64(13)), ReturnCodes: []int64{domain.ReturnScreenOut}}},
		}
		snap.Details[checkstest.Target] = d
	}
	took := func(id string, subsample, event, category, researchType int64) domain.HistoryRecord {
		// Screen-outs: the quality hold reads every complete anyway,
		// and what is asked is whether the rules' own reads find these.
		return domain.HistoryRecord{PanelistID: id, SubsampleID: subsample, EventID: event, StatusID: domain.ReturnScreenOut,
			RegisteredAt: checkstest.ReadAt.AddDate(0, 0, -3), CategoryID: category, ResearchTypeID: researchType}
	}
	cases := []struct {
		name   string
		record domain.HistoryRecord
		sent   bool
	}{
		{"a record read to the end, of another research type, category and event, still sends", took("P-known", 501, 51, 57, 8), true},
		{"a record of research type 0 on a subsample never seen live may be research type 7's: not sent", took("P-rt-unknown", 502, 52, 57, 0), false},
		{"a record of category 0 on a subsample never seen live may be category 58's: not sent", took("P-category-unknown", 503, 53, 0, 8), false},
		{"a record naming event 99 on a subsample the provider puts in the target's event: not sent", took("P-grouped", checkstest.Sibling, 99, 57, 8), false},
		{"a record of category 55, which live-details puts under generic 12 and under generic 13: not sent", took("P-tree", 504, 54, 55, 8), false},
	}
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st, edit)
		var panel []domain.PanelMember
		var profiles []domain.ProfileRecord
		var history []domain.HistoryRecord
		for _, c := range cases {
			id := c.record.PanelistID
			panel = append(panel, domain.PanelMember{PanelistID: id, Country: "US", Locale: "en-us"})
			profiles = append(profiles, domain.ProfileRecord{PanelistID: id, QuestionID: checkstest.GenderQuestion, Value: checkstest.Male})
			history = append(history, c.record)
		}
		if r, err := st.ImportPanel(ctx, slices.Values(panel)); err != nil || r.BadLines > 0 {
			t.Fatalf("import the panel: %v %+v", err, r)
		}
		if r, err := st.ImportProfiles(ctx, slices.Values(profiles), func(int64) bool { return true }); err != nil || r.BadLines > 0 {
			t.Fatalf("import the profiles: %v %+v", err, r)
		}
		if r, err := st.ImportHistory(ctx, history); err != nil || r.BadLines > 0 {
			t.Fatalf("import the history: %v %+v", err, r)
		}
		now := checkstest.ReadAt.Add(time.Minute)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				for _, p := range sendPaths {
					s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
					if got := p.sent(ctx, t, s, c.record.PanelistID, checkstest.Target); got != c.sent {
						t.Errorf("%s: %s sent = %v, want %v", p.name, c.record.PanelistID, got, c.sent)
					}
				}
			})
		}
	})
}

func ptr[T any](v T) *T { return &v }
