package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestReportInvoice: report invoice prints the month's lines as CSV, the
// unknown price of a subsample never seen live as an empty amount; a
// missing or impossible month is a usage error that says so.
func TestReportInvoice(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	at := checkstest.ReadAt
	if _, err := st.ImportHistory(ctx, []domain.HistoryRecord{
		{PanelistID: "Q1", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(time.Hour)},
		{PanelistID: "Q2", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(2 * time.Hour)},
		{PanelistID: "Q2", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnPotentiallyUnengaged, RegisteredAt: at.Add(3 * time.Hour)},
		{PanelistID: "Q3", SubsampleID: 77, EventID: 9, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"report", "invoice", "--db", db, "--month", "2026-11"}, &out, &errOut); err != nil {
		t.Fatalf("report invoice: %v\n%s", err, errOut.String())
	}
	want := "month,billingEntity,jobBookId,eventId,subsampleId,currency,cpi,completes,reversed,amount,estimated,unconfirmedCompletes\n" +
		"2026-11,,,1,10,USD,2.00,2,1,2.00,false,0\n" +
		"2026-11,,,9,77,,,1,0,,false,0\n" +
		// the world's own panelists, on subsamples never seen live
		"2026-11,,,34,32,,,3,3,,false,0\n" +
		"2026-11,,,35,33,,,3,2,,false,0\n"
	if out.String() != want {
		t.Errorf("report invoice printed\n%s\nwant\n%s", out.String(), want)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "invoice", "--db", db}, "--month"},
		{[]string{"report", "invoice", "--db", db, "--month", "2026-13"}, `"2026-13" is not a month like 2026-11`},
		{[]string{"report", "invoice", "--db", db, "--month", "2026-11", "--provider-tz", "Mars/Olympus"}, "--provider-tz"},
		{[]string{"report", "outcomes", "--db", db, "--group", "planet"}, "not a grouping"},
		{[]string{"report", "outcomes", "--db", db, "--from", "2026-11-31"}, "not a date"},
		{[]string{"report", "nothing"}, "invoice or outcomes"},
		{[]string{"report", "outcomes", "--db", db, "--month", "2026-11"}, "not defined"},
	} {
		errOut.Reset()
		err := run(ctx, tt.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %q", tt.args, err, tt.want)
		}
	}
}

// TestReportOutcomes: report outcomes prints a line per subsample, in the
// period asked, with the amount earned a number beside its currency and no
// line of totals among them; --totals prints what the period earned per
// currency instead.
func TestReportOutcomes(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	if _, err := st.ImportHistory(ctx, []domain.HistoryRecord{
		{PanelistID: "Q1", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnComplete, RegisteredAt: checkstest.ReadAt.Add(time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"report", "outcomes", "--db", db, "--from", "2026-11-01", "--to", "2026-11-30"}, &out, &errOut); err != nil {
		t.Fatalf("report outcomes: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "10,10,1,Target,US,,1,1,0,1,") || !strings.Contains(lines[1], ",2.00,USD,") {
		t.Errorf("report outcomes printed\n%s\nwant a header, Target's line with one complete earning 2.00 in USD and the world's two others", out.String())
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Total,") {
			t.Errorf("report outcomes printed a line of totals among the groups: %s", l)
		}
	}

	out.Reset()
	if err := run(ctx, []string{"report", "outcomes", "--db", db, "--from", "2026-11-01", "--to", "2026-11-30", "--totals"}, &out, &errOut); err != nil {
		t.Fatalf("report outcomes --totals: %v\n%s", err, errOut.String())
	}
	if want := "currency,earned,unpricedCompletes\nUSD,2.00,0\n,,1\n"; out.String() != want {
		t.Errorf("report outcomes --totals printed\n%s\nwant\n%s", out.String(), want)
	}
	if err := run(ctx, []string{"report", "outcomes", "--db", db, "--totals", "--format", "json"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "--totals") {
		t.Errorf("report outcomes --totals --format json: error %v, want one naming --totals", err)
	}
}
