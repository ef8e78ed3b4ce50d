package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
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

// TestFourInvoicesAgree: on one database, the invoice page's CSV, the
// API's CSV (format=csv), the API's JSON and `fieldboard report invoice`
// agree on every line of a month: the three CSVs byte for byte, the JSON
// line by line. The month holds a price change, a complete before the
// first price seen (estimated), a reversal of an earlier month's
// complete, a line of a credit alone (a negative amount, a number in a
// spreadsheet), a reversal of nothing and a subsample whose price was
// never seen.
func TestFourInvoicesAgree(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	at := checkstest.ReadAt // 2026-11-20 09:00 UTC; Target priced 2 USD from then
	if err := st.AddPriceHistory(ctx, []domain.PricePoint{
		{SubsampleID: checkstest.Target, Currency: "USD", CPI: 2.35, From: at.Add(48 * time.Hour)},
		{SubsampleID: checkstest.Sibling, Currency: "USD", CPI: 1.25, From: at.AddDate(0, -2, 0)},
	}); err != nil {
		t.Fatal(err)
	}
	rec := func(panelist string, subsample, event, status int64, when time.Time) domain.HistoryRecord {
		return domain.HistoryRecord{PanelistID: panelist, SubsampleID: subsample, EventID: event, StatusID: status, RegisteredAt: when}
	}
	T, E := checkstest.Target, checkstest.Event
	if _, err := st.ImportHistory(ctx, []domain.HistoryRecord{
		rec("Q1", T, E, domain.ReturnComplete, at.Add(time.Hour)),
		rec("Q2", T, E, domain.ReturnComplete, at.Add(-3*24*time.Hour)), // before the first price: estimated
		rec("Q3", T, E, domain.ReturnComplete, at.Add(72*time.Hour)),    // after the change
		rec("Q3", T, E, domain.ReturnErroneousComplete, at.Add(96*time.Hour)),
		rec("Q4", T, E, domain.ReturnComplete, at.AddDate(0, -1, 0)), // October's, reversed in November
		rec("Q4", T, E, domain.ReturnPotentiallyUnengaged, at.Add(time.Hour)),
		rec("Q5", T, E, domain.ReturnErroneousComplete, at.Add(time.Hour)), // a reversal of nothing
		rec("Q6", 77, 9, domain.ReturnComplete, at.Add(time.Hour)),         // never priced
		rec("Q7", checkstest.Sibling, E, domain.ReturnComplete, at.AddDate(0, -1, 0)),
		rec("Q7", checkstest.Sibling, E, domain.ReturnErroneousComplete, at.Add(time.Hour)), // a credit alone on its line
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"token", "create", "--db", db, "--name", "invoice-test"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	token := lines[len(lines)-1]
	out.Reset()
	if err := run(ctx, []string{"report", "invoice", "--db", db, "--month", "2026-11"}, &out, &errOut); err != nil {
		t.Fatalf("report invoice: %v\n%s", err, errOut.String())
	}
	report := out.String()

	st, err = store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &web.Server{Store: st, Checks: &checks.Service{Store: st, Now: time.Now}, Refresher: refresh.New(nil, st, refresh.Options{Logger: logger}),
		Auth: auth.New(st, auth.Options{Logger: logger}), Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC}
	srv := httptest.NewServer(s.Routes())
	defer srv.Close()
	defer s.Close()
	get := func(path string) string {
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
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	page := get("/outcomes/invoice.csv?month=2026-11")
	api := get("/api/v1/invoice?month=2026-11&format=csv")
	if page != report || api != report {
		t.Errorf("the CSVs differ:\nreport invoice:\n%s\n/outcomes/invoice.csv:\n%s\n/api/v1/invoice?format=csv:\n%s", report, page, api)
	}
	if !strings.Contains(report, ",USD,1.25,0,1,-1.25,false,0\n") {
		t.Errorf("report invoice has no credit line of -1.25 written as a number:\n%s", report)
	}
	if n := strings.Count(report, "\n"); n < 5 {
		t.Fatalf("report invoice printed %d lines, want a header and at least four lines:\n%s", n, report)
	}

	var inv formats.InvoiceJSON
	if err := json.Unmarshal([]byte(get("/api/v1/invoice?month=2026-11")), &inv); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(report)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Lines) != len(rows)-1 {
		t.Fatalf("the JSON has %d lines, the CSV %d", len(inv.Lines), len(rows)-1)
	}
	opt := func(v *float64, decimals int) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', decimals, 64)
	}
	cpi := func(v *float64) string {
		if v == nil {
			return ""
		}
		return rules.FormatCPI(*v)
	}
	for i, l := range inv.Lines {
		got := []string{inv.Month, l.BillingEntity, l.JobBookID, strconv.FormatInt(l.EventID, 10), strconv.FormatInt(l.SubsampleID, 10),
			l.Currency, cpi(l.CPI), strconv.Itoa(l.Completes), strconv.Itoa(l.Reversed), opt(l.Amount, 2), strconv.FormatBool(l.Estimated),
			strconv.Itoa(l.UnconfirmedCompletes)}
		if strings.Join(got, ",") != strings.Join(rows[i+1], ",") {
			t.Errorf("line %d: the JSON says %v, the CSV %v", i+1, got, rows[i+1])
		}
	}
	if inv.ReversalsOfNothing != 1 {
		t.Errorf("the JSON counts %d reversals of nothing, want Q5's", inv.ReversalsOfNothing)
	}
}
