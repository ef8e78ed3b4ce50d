package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestScanPanelistsWithHistory: a scan of countries (or of the whole
// panel) with history visits the panelists keep accepts, in panelist id
// order, each with the records that match the filter, newest first,
// exactly as ScanPanelistsIn (ScanPanelists) followed by ScanHistory of
// the kept panelists gives them, on both databases (on PostgreSQL it is
// one query, on SQLite the two reads).
func TestScanPanelistsWithHistory(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		const n = 3001 // more than two chunks of kept panelists in FR and CA
		s := open(t, db)
		var profiles, panel strings.Builder
		profiles.WriteString(store.ProfileHeader + "\n")
		panel.WriteString(store.PanelHeader + "\nA0,FR,fr-fr\n") // no profile
		places := [4][2]string{{"FR", "fr-fr"}, {"CA", "fr-ca"}, {"DE", ""}, {}}
		var records []domain.HistoryRecord
		for i := range n {
			p := (i * 7919) % n
			id := fmt.Sprintf("S%05d", p)
			fmt.Fprintf(&profiles, "%s,43,%d\n", id, 1+p%2)
			if place := places[p%4]; place[0] != "" {
				fmt.Fprintf(&panel, "%s,%s,%s\n", id, place[0], place[1])
			}
			// 0 to 4 records: on the subsample the filter names (100), on
			// its event (50), of the hold's status (99) and of nothing.
			for k := range p % 5 {
				records = append(records, domain.HistoryRecord{PanelistID: id, SubsampleID: int64(100 + k%3*100), StatusID: []int64{3, 82, 99, 2}[(p+k)%4],
					RegisteredAt: day(1 + (p+k*7)%28), EventID: int64(40 + k%2*10), CategoryID: int64(k), ResearchTypeID: int64(p % 3)})
			}
		}
		importProfiles(t, s, profiles.String())
		importPanel(t, s, panel.String())
		importRecords(t, s, records)
		ctx := context.Background()
		keep := func(id string, m domain.PanelMember, p domain.Profile) bool {
			k, _ := strconv.Atoi(id[1:])
			return k%3 != 0 && len(p.Answers) > 0 && m.PanelistID == id
		}
		show := func(id string, m domain.PanelMember, recs []domain.HistoryRecord) string {
			out := id + " " + m.Country + " " + m.Locale + ":"
			for _, r := range recs {
				if r.PanelistID != id {
					t.Errorf("record of %q given for %q", r.PanelistID, id)
				}
				out += fmt.Sprintf(" %d/%d/%d/%d/%d/%d", r.SubsampleID, r.StatusID, r.RegisteredAt.UnixMilli(), r.EventID, r.CategoryID, r.ResearchTypeID)
			}
			return out
		}
		for _, f := range []struct {
			name   string
			filter store.HistoryFilter
		}{
			{"a filter", store.HistoryFilter{Statuses: []int64{3}, SubsampleIDs: []int64{100}, EventID: 50, AnyOf: []int64{99}}},
			{"every record", store.HistoryFilter{SubsampleIDs: []int64{100, 200, 300}, Statuses: []int64{2, 3, 82, 99}}},
			{"a filter that matches nothing", store.HistoryFilter{}},
		} {
			for _, countries := range [][]string{{"CA", "FR"}, {"FR", "fr", "Fr"}, {"DE"}, {"US"}, nil} {
				for _, whole := range []bool{false, true} {
					if whole && countries != nil {
						continue
					}
					t.Run(fmt.Sprintf("%s, %q, whole %v", f.name, countries, whole), func(t *testing.T) {
						var kept []domain.PanelMember
						scan := func(id string, m domain.PanelMember, p domain.Profile) error {
							if keep(id, m, p) {
								kept = append(kept, m)
							}
							return nil
						}
						var err error
						if whole {
							err = s.ScanPanelists(ctx, scan)
						} else {
							err = s.ScanPanelistsIn(ctx, countries, scan)
						}
						if err != nil {
							t.Fatal(err)
						}
						var want []string
						i := 0
						ids := func(yield func(string) bool) {
							for _, m := range kept {
								if !yield(m.PanelistID) {
									return
								}
							}
						}
						if err := s.ScanHistory(ctx, ids, f.filter, func(id string, recs []domain.HistoryRecord) error {
							want = append(want, show(id, kept[i], recs))
							i++
							return nil
						}); err != nil {
							t.Fatal(err)
						}
						var got []string
						err = s.ScanPanelistsWithHistory(ctx, countries, whole, f.filter, keep, func(id string, m domain.PanelMember, recs []domain.HistoryRecord) error {
							got = append(got, show(id, m, recs))
							return nil
						})
						if err != nil || !slices.Equal(got, want) {
							t.Errorf("ScanPanelistsWithHistory gave %d panelists (%v), want the %d of a scan and ScanHistory:\n got %.300q\nwant %.300q", len(got), err, len(want), got, want)
						}
						if slices.Equal(countries, []string{"CA", "FR"}) && len(got) < 500 {
							t.Errorf("%d panelists kept: want more than a chunk", len(got))
						}
					})
				}
			}
		}
		// An error from fn stops the scan and comes back as it is; the
		// store reads on after it.
		stop := errors.New("stop")
		filter := store.HistoryFilter{SubsampleIDs: []int64{100}, Statuses: []int64{3}, AnyOf: []int64{99}}
		for _, at := range []int{1, 501} {
			calls := 0
			err := s.ScanPanelistsWithHistory(ctx, []string{"FR", "CA"}, false, filter, keep, func(string, domain.PanelMember, []domain.HistoryRecord) error {
				if calls++; calls == at {
					return stop
				}
				return nil
			})
			if err != stop || calls != at {
				t.Errorf("ScanPanelistsWithHistory = %v after %d calls, want fn's error after %d", err, calls, at)
			}
		}
		calls := 0
		if err := s.ScanPanelistsWithHistory(ctx, []string{"DE"}, false, filter, keep, func(string, domain.PanelMember, []domain.HistoryRecord) error {
			calls++
			return nil
		}); err != nil || calls == 0 {
			t.Errorf("after a stopped scan: %d calls, %v", calls, err)
		}
	})
}

// TestScanPanelistsWithHistoryOfTheHold: with HeldBy, of the records of
// AnyOf those of a subsample on which the panelist has a record of
// HeldBy since HeldSince count; a scan gives each of them, and each
// record once, on both databases (PostgreSQL's one query reads only
// those, by joins that give a record once per verdict and per record of
// the rules; the other reads give every record of AnyOf besides).
func TestScanPanelistsWithHistoryOfTheHold(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, store.ProfileHeader+"\nH1,43,1\nH2,43,2\nH3,43,1\n")
		importPanel(t, s, store.PanelHeader+"\nH1,FR,fr-fr\nH2,FR,fr-fr\nH3,FR,fr-fr\n")
		rec := func(id string, subsample, status int64, d int, event int64) domain.HistoryRecord {
			return domain.HistoryRecord{PanelistID: id, SubsampleID: subsample, StatusID: status, RegisteredAt: day(d), EventID: event}
		}
		importRecords(t, s, []domain.HistoryRecord{
			// Held on 100: a complete and two verdicts since day 3.
			rec("H1", 100, 3, 1, 40), rec("H1", 100, 98, 5, 40), rec("H1", 100, 99, 6, 40),
			// A complete without a verdict, and a verdict before day 3.
			rec("H1", 200, 3, 2, 40), rec("H1", 300, 3, 1, 40), rec("H1", 300, 99, 2, 40),
			// On the event the rules name (50), held too.
			rec("H3", 400, 82, 2, 50), rec("H3", 400, 3, 3, 50), rec("H3", 400, 98, 4, 50),
		})
		filter := store.HistoryFilter{EventID: 50, AnyOf: []int64{3, 98, 99}, HeldBy: []int64{98, 99}, HeldSince: day(3)}
		counts := func(r domain.HistoryRecord, all []domain.HistoryRecord) bool {
			return r.EventID == 50 || slices.ContainsFunc(all, func(v domain.HistoryRecord) bool {
				return v.SubsampleID == r.SubsampleID && (v.StatusID == 98 || v.StatusID == 99) && !v.RegisteredAt.Before(day(3))
			})
		}
		show := func(recs []domain.HistoryRecord) string {
			var out []string
			for _, r := range recs {
				out = append(out, fmt.Sprintf("%d/%d/%d", r.SubsampleID, r.StatusID, r.RegisteredAt.Day()))
			}
			return strings.Join(out, " ")
		}
		want := map[string]string{"H1": "100/99/6 100/98/5 100/3/1", "H2": "", "H3": "400/98/4 400/3/3 400/82/2"}
		got := map[string]string{}
		err := s.ScanPanelistsWithHistory(context.Background(), []string{"FR"}, false, filter,
			func(string, domain.PanelMember, domain.Profile) bool { return true },
			func(id string, _ domain.PanelMember, recs []domain.HistoryRecord) error {
				var counted []domain.HistoryRecord
				for _, r := range recs {
					if counts(r, recs) {
						counted = append(counted, r)
					}
				}
				got[id] = show(counted)
				if db.Name == "postgres" && len(counted) != len(recs) {
					t.Errorf("%s: %s read; want only %s", id, show(recs), got[id])
				}
				for i := 1; i < len(recs); i++ {
					if recs[i] == recs[i-1] {
						t.Errorf("%s: %s holds a record twice", id, show(recs))
					}
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("the records that count, newest first: %q; want %q", got, want)
		}
	})
}
