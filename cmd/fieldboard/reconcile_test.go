package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// moneyWorld is a database whose November 2026 holds every kind of
// complete the outcomes and the invoice count apart, on two billing
// entities and a subsample whose entity and price nobody named:
//
//	Target (Acme GmbH, 2 USD): A1 standing; A2 reversed within the month;
//	  A3 October's, reversed in November; A4 only a return reported; A5
//	  followed by a screen-out.
//	Sibling (Beta Ltd, 7.58 EUR): B1 standing; B2 reversed within the
//	  month; B3 October's, reversed in November; B4 reversed in December.
//	77 (none named, never priced): C1 standing.
//
// It returns the database's path and a bearer token.
func moneyWorld(t *testing.T) (db, token string) {
	t.Helper()
	ctx := context.Background()
	db = filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st, func(snap *store.EventsSnapshot) {
		snap.Summaries[0].BillingEntity = "Acme GmbH"
		snap.Summaries[1].BillingEntity = "Beta Ltd"
	})
	at := checkstest.ReadAt // 2026-11-20 09:00 UTC; Target priced 2 USD from then
	if err := st.AddPriceHistory(ctx, []domain.PricePoint{
		{SubsampleID: checkstest.Sibling, Currency: "EUR", CPI: 7.58, From: at.AddDate(0, -2, 0)},
	}); err != nil {
		t.Fatal(err)
	}
	T, S, E := checkstest.Target, checkstest.Sibling, checkstest.Event
	rec := func(panelist string, subsample, status int64, when time.Time) domain.HistoryRecord {
		return domain.HistoryRecord{PanelistID: panelist, SubsampleID: subsample, EventID: E, StatusID: status, RegisteredAt: when}
	}
	h := time.Hour
	if _, err := st.ImportHistory(ctx, []domain.HistoryRecord{
		rec("A1", T, domain.ReturnComplete, at.Add(h)),
		rec("A2", T, domain.ReturnComplete, at.Add(2*h)), rec("A2", T, domain.ReturnErroneousComplete, at.Add(3*h)),
		rec("A3", T, domain.ReturnComplete, at.AddDate(0, -1, 0)), rec("A3", T, domain.ReturnPotentiallyUnengaged, at.Add(h)),
		rec("A5", T, domain.ReturnComplete, at.Add(5*h)), rec("A5", T, domain.ReturnScreenOut, at.Add(6*h)),
		rec("B1", S, domain.ReturnComplete, at.Add(h)),
		rec("B2", S, domain.ReturnComplete, at.Add(h)), rec("B2", S, domain.ReturnPotentiallyUnengaged, at.Add(2*h)),
		rec("B3", S, domain.ReturnComplete, at.AddDate(0, -1, 0)), rec("B3", S, domain.ReturnErroneousComplete, at.Add(h)),
		rec("B4", S, domain.ReturnComplete, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)),
		rec("B4", S, domain.ReturnErroneousComplete, time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)),
		{PanelistID: "C1", SubsampleID: 77, EventID: 9, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(h)},
	}); err != nil {
		t.Fatal(err)
	}
	// A4's complete only a return reported.
	if err := st.RecordRoutings(ctx, []domain.RoutingDecision{
		{At: at.Add(3 * h), PanelistID: "A4", Intended: T, Chosen: T, Outcome: domain.RoutedIntended, Reason: "sent"},
	}); err != nil {
		t.Fatal(err)
	}
	send, err := st.LastSend(ctx, "A4", at)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordReturn(ctx, store.Returned{Send: send, Record: rec("A4", T, domain.ReturnComplete, at.Add(4*h)), Via: domain.ReturnByRedirect}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out bytes.Buffer
	if err := run(ctx, []string{"token", "create", "--db", db, "--name", "money-test"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return db, lines[len(lines)-1]
}

// moneyServer serves db; get asks it for path with the bearer token and
// answers the status and body.
func moneyServer(t *testing.T, db, token string) (get func(path string) (int, string)) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &web.Server{Store: st, Checks: &checks.Service{Store: st, Now: time.Now}, Refresher: refresh.New(nil, st, refresh.Options{Logger: logger}),
		Auth: auth.New(st, auth.Options{Logger: logger}), Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC}
	srv := httptest.NewServer(s.Routes())
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close)
	return func(path string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
}

// recCell is the reconciliation's figure of line testID (rec-net...) in
// column (a currency, or "completes") as the page shows it.
func recCell(t *testing.T, page, testID, column string) string {
	t.Helper()
	row := regexp.MustCompile(`(?s)<tr data-testid="` + testID + `".*?</tr>`).FindString(page)
	if row == "" {
		t.Fatalf("no line %s in the reconciliation:\n%s", testID, page)
	}
	m := regexp.MustCompile(`data-testid="rec-` + column + `">([^<]*)<`).FindStringSubmatch(row)
	if m == nil {
		t.Fatalf("line %s has no %s:\n%s", testID, column, row)
	}
	return m[1]
}

// TestEarnedAndTheInvoiceReconcile: for a month with reversals within
// it, reversals of earlier months' completes, a complete only a return
// reported and one another record followed, /outcomes of that month and
// its invoice show the same lines from earned to the invoice's net, each
// currency to the cent as rules.Reconciliation states it; earned is the
// outcomes' own figure and gross, credits and net the invoice's own.
func TestEarnedAndTheInvoiceReconcile(t *testing.T) {
	db, token := moneyWorld(t)
	get := moneyServer(t, db, token)
	_, outcomesPage := get("/outcomes?from=2026-11-01&to=2026-11-30")
	_, invoicePage := get("/outcomes/invoice?month=2026-11")
	for name, page := range map[string]string{"/outcomes": outcomesPage, "/outcomes/invoice": invoicePage} {
		if !strings.Contains(page, `data-testid="reconciliation"`) {
			t.Fatalf("%s shows no reconciliation:\n%.3000s", name, page)
		}
		for _, tt := range []struct{ line, usd, eur, completes string }{
			{"rec-earned", "4.00", "15.16", ""},         // A1, A4; B1, B4 (+ C1 and the world's, unpriced)
			{"rec-unconfirmed", "2.00", "0.00", "1"},    // A4
			{"rec-reversed-within", "2.00", "7.58", ""}, // A2; B2 (+ the world's, unpriced)
			{"rec-superseded", "2.00", "0.00", "1"},     // A5
			{"rec-gross", "6.00", "22.74", ""},          // A1, A2, A5; B1, B2, B4
			{"rec-credits", "4.00", "15.16", ""},        // A2, A3; B2, B3
			{"rec-earlier-credits", "2.00", "7.58", ""}, // A3; B3
			{"rec-net", "2.00", "7.58", ""},
		} {
			if got := recCell(t, page, tt.line, "USD"); got != tt.usd {
				t.Errorf("%s: %s in USD is %s, want %s", name, tt.line, got, tt.usd)
			}
			if got := recCell(t, page, tt.line, "EUR"); got != tt.eur {
				t.Errorf("%s: %s in EUR is %s, want %s", name, tt.line, got, tt.eur)
			}
			if got := recCell(t, page, tt.line, "completes"); tt.completes != "" && got != tt.completes {
				t.Errorf("%s: %s counts %s completes, want %s", name, tt.line, got, tt.completes)
			}
		}
		if strings.Contains(page, `data-testid="reconciliation-rounding"`) {
			t.Errorf("%s says the figures part by rounding; every CPI is in whole cents", name)
		}
	}
	if !strings.Contains(outcomesPage, `href="/outcomes/invoice?month=2026-11" data-testid="reconciliation-link"`) ||
		!strings.Contains(invoicePage, `href="/outcomes?from=2026-11-01&amp;to=2026-11-30" data-testid="reconciliation-link"`) {
		t.Errorf("the two pages do not link each other's month")
	}

	// The relation, to the cent, between the two pages' own figures: the
	// outcomes' earned (its JSON total), the invoice's net (its JSON
	// total), and the lines the pages add between them.
	var outs formats.OutcomesJSON
	var inv formats.InvoiceJSON
	for path, into := range map[string]any{"/api/v1/outcomes?from=2026-11-01&to=2026-11-30": &outs, "/api/v1/invoice?month=2026-11": &inv} {
		code, body := get(path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, code, body)
		}
		if err := json.Unmarshal([]byte(body), into); err != nil {
			t.Fatal(err)
		}
	}
	cents := func(amounts []formats.AmountJSON, currency string) int64 {
		for _, a := range amounts {
			if a.Currency == currency {
				return int64(a.Amount*100 + 0.5)
			}
		}
		return 0
	}
	onPage := func(line, currency string) int64 {
		var v float64
		if _, err := fmt.Sscan(recCell(t, outcomesPage, line, currency), &v); err != nil {
			t.Fatal(err)
		}
		return int64(v*100 + 0.5)
	}
	for _, c := range []string{"USD", "EUR"} {
		earned, net := cents(outs.Total.Earned, c), cents(inv.Totals.Amounts, c)
		want := earned - onPage("rec-unconfirmed", c) - onPage("rec-earlier-credits", c) + onPage("rec-superseded", c)
		if net != want || net == 0 {
			t.Errorf("%s: the invoice's net %d cents, earned %d cents: want net = earned − unconfirmed − earlier credits + followed = %d", c, net, earned, want)
		}
	}
	// A period that is not one calendar month links to the month instead.
	_, page := get("/outcomes?from=2026-11-02&to=2026-11-30")
	if strings.Contains(page, `data-testid="reconciliation"`) || !strings.Contains(page, `data-testid="reconcile-hint"`) {
		t.Errorf("/outcomes of 2 to 30 November: want no reconciliation, the link to November's outcomes")
	}
}

// TestInvoiceOfOneBillingEntity: entity=NAME narrows the invoice page,
// its CSV, the API (JSON and CSV) and `fieldboard report invoice
// --entity` to that entity's lines and totals; the page and the command
// agree byte for byte. An entity with nothing in the month is a 404 (the
// page's names the month's entities) and a failing command; the page
// writes every CPI with two decimals and names subsamples and events.
func TestInvoiceOfOneBillingEntity(t *testing.T) {
	db, token := moneyWorld(t)
	get := moneyServer(t, db, token)
	entity := url.QueryEscape("Acme GmbH")

	code, page := get("/outcomes/invoice?month=2026-11&entity=" + entity)
	if code != http.StatusOK {
		t.Fatalf("the invoice of Acme GmbH: %d", code)
	}
	if n := strings.Count(page, `data-testid="invoice-line"`); n != 1 {
		t.Errorf("the invoice of Acme GmbH has %d lines, want Target's one at 2.00 USD (no Beta Ltd, no none named)", n)
	}
	for _, bad := range []string{"Beta Ltd</td>", "7.58 EUR", `data-testid="reconciliation"`} {
		if strings.Contains(page, bad) {
			t.Errorf("the invoice of Acme GmbH shows %q", bad)
		}
	}
	totals := regexp.MustCompile(`(?s)data-testid="invoice-totals".*?</section>`).FindString(page)
	if !strings.Contains(totals, "<strong>2.00 USD</strong>") {
		t.Errorf("the total of Acme GmbH is not its own 2.00 USD (6.00 gross − 4.00 credits):\n%s", totals)
	}

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"report", "invoice", "--db", db, "--month", "2026-11", "--entity", "Acme GmbH"}, &out, &errOut); err != nil {
		t.Fatalf("report invoice --entity: %v\n%s", err, errOut.String())
	}
	_, csvPage := get("/outcomes/invoice.csv?month=2026-11&entity=" + entity)
	_, csvAPI := get("/api/v1/invoice?month=2026-11&format=csv&entity=" + entity)
	if csvPage != out.String() || csvAPI != out.String() {
		t.Errorf("the CSVs of Acme GmbH differ:\nreport invoice --entity:\n%s\npage:\n%s\nAPI:\n%s", out.String(), csvPage, csvAPI)
	}
	if want := "2026-11,Acme GmbH,,1,10,USD,2.00,3,2,2.00,true,1\n"; !strings.HasSuffix(out.String(), "\n"+want) || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("report invoice --entity \"Acme GmbH\" printed, want a header and %s:\n%s", want, out.String())
	}
	var inv formats.InvoiceJSON
	_, body := get("/api/v1/invoice?month=2026-11&entity=" + entity)
	if err := json.Unmarshal([]byte(body), &inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Lines) != 1 || len(inv.ByEntity) != 1 || len(inv.Totals.Amounts) != 1 || inv.Totals.Amounts[0].Amount != 2 {
		t.Errorf("the API's invoice of Acme GmbH: %d lines, %d entities, totals %+v; want 1, 1, 2 USD", len(inv.Lines), len(inv.ByEntity), inv.Totals)
	}

	// Nothing of the entity in the month.
	code, page = get("/outcomes/invoice?month=2026-11&entity=Nobody")
	if code != http.StatusNotFound || !strings.Contains(page, `data-testid="invoice-no-entity"`) || !strings.Contains(page, "Acme GmbH, Beta Ltd") {
		t.Errorf("the invoice of Nobody: %d; want a 404 page naming Acme GmbH, Beta Ltd", code)
	}
	for _, path := range []string{"/outcomes/invoice.csv?month=2026-11&entity=Nobody", "/api/v1/invoice?month=2026-11&entity=Nobody"} {
		if code, body := get(path); code != http.StatusNotFound || !strings.Contains(body, "Acme GmbH, Beta Ltd") {
			t.Errorf("GET %s: %d %.200s; want a 404 naming the month's entities", path, code, body)
		}
	}
	out.Reset()
	err := run(context.Background(), []string{"report", "invoice", "--db", db, "--month", "2026-11", "--entity", "Nobody"}, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "Acme GmbH, Beta Ltd") || out.Len() != 0 {
		t.Errorf("report invoice --entity Nobody: %v, printed %q; want an error naming the month's entities and nothing printed", err, out.String())
	}

	// Every entity: CPIs with two decimals, names beside ids, and the
	// note on lines no billing entity was named for.
	_, page = get("/outcomes/invoice?month=2026-11")
	for _, want := range []string{">2.00 USD", ">7.58 EUR", `data-testid="invoice-subsample-name">Target<`, `data-testid="invoice-event-name">Event<`,
		`data-testid="none-named-note"`, `href="#none-named"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the invoice of every entity lacks %s", want)
		}
	}
	if regexp.MustCompile(`>\d+(\.\d)? (USD|EUR)`).MatchString(page) {
		t.Errorf("the invoice writes an amount or CPI with fewer than two decimals: %s", regexp.MustCompile(`>\d+(\.\d)? (USD|EUR)`).FindString(page))
	}
}

// TestFormatCPI: a CPI has at least two decimals, more only when it has
// them, never rounded.
func TestFormatCPI(t *testing.T) {
	for _, tt := range []struct {
		cpi  float64
		want string
	}{{7.6, "7.60"}, {4, "4.00"}, {7.58, "7.58"}, {2.345, "2.345"}, {0.1, "0.10"}, {1250, "1250.00"}} {
		if got := rules.FormatCPI(tt.cpi); got != tt.want {
			t.Errorf("FormatCPI(%v) = %q, want %q", tt.cpi, got, tt.want)
		}
	}
}
