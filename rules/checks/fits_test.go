package checks

import (
	"fmt"
	"reflect"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// TestFitsOfAreFitPanels: the fits kept for a country and language are,
// at every place, what fitPanel decides for a panelist of that country and
// language: panelists of one country with other languages, or none, get
// their own; past maxPanelFits pairs none is kept, and fitPanel decides.
func TestFitsOfAreFitPanels(t *testing.T) {
	d := &Decisions{defaultLocales: map[string]string{"CA": "en-ca"}}
	for _, p := range []rules.PanelTarget{
		{Countries: []string{"CA"}, Locales: []rules.PanelLocale{{Code: "en-ca", Usable: true}, {Code: "fr-ca", Usable: true}}},
		{Countries: []string{"CA"}, Locales: []rules.PanelLocale{{Code: "en-ca", Usable: true}}},
		{Countries: []string{"CA", "FR"}, Locales: []rules.PanelLocale{{Code: "fr-ca", Usable: false, Problem: "no link."}, {Code: "fr-fr", Usable: true}}},
		{Countries: []string{"DE"}, Locales: []rules.PanelLocale{{Code: "de-de", Usable: true}}},
		{},
	} {
		d.targets = append(d.targets, liveTarget{report: &SubsampleReport{}, panel: p})
	}
	members := []domain.PanelMember{
		{Country: "CA"}, {Country: "CA", Locale: "fr-ca"}, {Country: "CA", Locale: "en-ca"},
		{Country: "FR", Locale: "fr-fr"}, {Country: "FR"}, {Country: "DE"}, {},
	}
	for round := range 2 { // made, then kept
		for _, m := range members {
			fits := d.fitsOf(m)
			if fits == nil || len(fits.at) != len(d.targets) {
				t.Fatalf("round %d, %+v: fits %+v for %d subsamples", round, m, fits, len(d.targets))
			}
			for i := range d.targets {
				if want := d.fitPanel(&d.targets[i], m); !reflect.DeepEqual(fits.fit(i), want) {
					t.Errorf("round %d, %+v on subsample %d: kept %+v, fitPanel decides %+v", round, m, i, fits.fit(i), want)
				}
			}
		}
	}
	for k := len(members); k < maxPanelFits; k++ {
		d.fitsOf(domain.PanelMember{Country: fmt.Sprintf("C%d", k)})
	}
	if fits := d.fitsOf(domain.PanelMember{Country: "XX"}); fits != nil {
		t.Errorf("a pair past %d kept: %v", maxPanelFits, fits)
	}
	if fits := d.fitsOf(members[1]); fits == nil {
		t.Errorf("a pair kept before the bound was reached is no longer kept")
	}
}
