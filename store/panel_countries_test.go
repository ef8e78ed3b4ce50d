package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestScanPanelistsIn: a scan of some countries visits exactly the
// profiled panelists whose panel row holds one of them, byte for byte, in
// panelist id order, with their rows and profiles, as the whole scan
// gives them: the other countries' rows are not read. CountProfiledIn
// counts the same panelists.
func TestScanPanelistsIn(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		// More panelists of a country than one chunk (1000), their ids
		// interleaved with the other countries', panel rows without a
		// profile, and profiles without a panel row.
		const n = 6007
		s := open(t, db)
		var profiles, panel strings.Builder
		profiles.WriteString(store.ProfileHeader + "\n")
		panel.WriteString(store.PanelHeader + "\nA0,FR,fr-fr\nZ9,CA,\n")
		places := [5][2]string{{"FR", "fr-fr"}, {"CA", "fr-ca"}, {"CA", ""}, {"US", "en-us"}, {}}
		for i := range n {
			p := (i * 7919) % n
			fmt.Fprintf(&profiles, "S%05d,43,%d\n", p, 1+p%2)
			if place := places[p%5]; place[0] != "" {
				fmt.Fprintf(&panel, "S%05d,%s,%s\n", p, place[0], place[1])
			}
			fmt.Fprintf(&panel, "S%05db,FR,\n", p) // no profile
		}
		importProfiles(t, s, profiles.String())
		importPanel(t, s, panel.String())
		type visited struct {
			m       domain.PanelMember
			answers string
		}
		var all []visited
		err := s.ScanPanelists(context.Background(), func(id string, m domain.PanelMember, p domain.Profile) error {
			all = append(all, visited{m, fmt.Sprint(p.Answers)})
			return nil
		})
		if err != nil || len(all) != n {
			t.Fatalf("ScanPanelists visited %d, %v", len(all), err)
		}
		for _, countries := range [][]string{{"CA", "FR"}, {"FR"}, {"US", "ca", "CA", "Ca"}, {"fr"}, {"DE"}, {}, nil} {
			t.Run(strings.Join(countries, ","), func(t *testing.T) {
				var want, got []visited
				for _, v := range all {
					if slices.Contains(countries, v.m.Country) {
						want = append(want, v)
					}
				}
				err := s.ScanPanelistsIn(context.Background(), countries, func(id string, m domain.PanelMember, p domain.Profile) error {
					if id != m.PanelistID {
						t.Fatalf("visited %q with the panel row of %q", id, m.PanelistID)
					}
					got = append(got, visited{m, fmt.Sprint(p.Answers)})
					return nil
				})
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("ScanPanelistsIn(%q) visited %d panelists (%v), want the %d of ScanPanelists in those countries, in order", countries, len(got), err, len(want))
				}
				if slices.Contains(countries, "FR") && len(got) < 1000 {
					t.Errorf("ScanPanelistsIn(%q) visited %d panelists: want more than a chunk", countries, len(got))
				}
				// The count a send list is compared with counts those same
				// panelists (the "CA" given twice counts once).
				if n, err := s.CountProfiledIn(context.Background(), countries); err != nil || n != int64(len(want)) {
					t.Errorf("CountProfiledIn(%q) = %d, %v; want the %d ScanPanelistsIn visits", countries, n, err, len(want))
				}
			})
		}
	})
}

func TestScanPanelistsInStopsOnError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		var profiles, panel strings.Builder
		profiles.WriteString(store.ProfileHeader + "\n")
		panel.WriteString(store.PanelHeader + "\n")
		for i := range 3000 {
			fmt.Fprintf(&profiles, "P%04d,43,1\n", i)
			fmt.Fprintf(&panel, "P%04d,%s,\n", i, []string{"FR", "DE"}[i%2])
		}
		importProfiles(t, s, profiles.String())
		importPanel(t, s, panel.String())
		stop := errors.New("stop")
		for _, at := range []int{1, 1001} {
			calls := 0
			err := s.ScanPanelistsIn(context.Background(), []string{"DE", "FR"}, func(string, domain.PanelMember, domain.Profile) error {
				if calls++; calls == at {
					return stop
				}
				return nil
			})
			if err != stop || calls != at {
				t.Errorf("ScanPanelistsIn = %v after %d calls, want fn's error after %d", err, calls, at)
			}
		}
		// The store still reads after a scan stopped early.
		n := 0
		err := s.ScanPanelistsIn(context.Background(), []string{"FR"}, func(id string, m domain.PanelMember, _ domain.Profile) error {
			if k, _ := strconv.Atoi(id[1:]); k%2 != 0 || m.Country != "FR" {
				t.Fatalf("%s of %s in a scan of FR", id, m.Country)
			}
			n++
			return nil
		})
		if err != nil || n != 1500 {
			t.Errorf("ScanPanelistsIn(FR) after a stopped scan = %d, %v; want 1500", n, err)
		}
	})
}
