package web_test

import (
	"strings"
	"testing"
)

// TestInvoiceMonthFormIsAFilterForm: the invoice's month form behaves as
// every filter form (views.FiltersForm): it asks for the results alone
// with htmx, and they name the month and link the months around it, so
// nothing outside them goes stale.
func TestInvoiceMonthFormIsAFilterForm(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	_, page := a.do(t, "GET", "/outcomes/invoice?month=2026-03", nil)
	for _, want := range []string{`id="invoice-filters"`, `hx-get="/outcomes/invoice"`, `hx-target="#invoice-results"`, `data-drop-empty`} {
		if !strings.Contains(page, want) {
			t.Errorf("/outcomes/invoice: the month form lacks %s", want)
		}
	}
	resp, part := a.do(t, "GET", "/outcomes/invoice?month=2026-03", map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || !strings.HasPrefix(strings.TrimSpace(part), `<div id="invoice-results">`) {
		t.Fatalf("htmx asking for a month: %d, %.200s; want the results alone", resp.StatusCode, part)
	}
	for _, want := range []string{"Invoice 2026-03", `month=2026-02" rel="prev"`, `month=2026-04" rel="next"`} {
		if !strings.Contains(part, want) {
			t.Errorf("the month's results lack %q:\n%.600s", want, part)
		}
	}
}
