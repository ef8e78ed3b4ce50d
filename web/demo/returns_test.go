package demo_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/demo"
	"fieldboard/web/refresh"
)

// wayBack is a dashboard served over loopback on a simulator whose survey
// returns respondents to it, with the demo's broken link and a cell full
// in the field, its panel profiled and mapped as the demo's.
type wayBack struct {
	store  *store.Store
	sim    *sim.Simulator
	checks *checks.Service
	url    string
}

func serveWayBack(t *testing.T, subsamples int) wayBack {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	dashboard, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	simListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dashboardURL, simURL := "http://"+dashboard.Addr().String(), "http://"+simListener.Addr().String()
	simulator := sim.New(sim.Options{Seed: 1, Subsamples: subsamples, Locales: 3, QuestionsPerLocale: 12,
		EntryURL: simURL + "/start", ReturnURL: dashboardURL + "/return/{status}?id={id}", BrokenLink: true, FieldFullLag: 3})
	simServer := &http.Server{Handler: simulator}
	go simServer.Serve(simListener)
	t.Cleanup(func() { simServer.Close() })
	provider, err := client.New(client.Config{BaseURL: simURL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := refresh.New(provider, st, refresh.Options{Logger: logger, Concurrency: 4})
	t.Cleanup(r.Close)
	seeder := demo.Seeder{Store: st, Sim: simulator, Seed: 1, Logger: logger, Size: 1000}
	if err := seeder.Panel(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := seeder.MapCodes(ctx, func(ctx context.Context) error { return r.Refresh(ctx, refresh.Request{Force: true}) }); err != nil {
		t.Fatal(err)
	}
	checker := &checks.Service{Store: st, Now: time.Now}
	s := &web.Server{
		Store: st, Checks: checker, Refresher: r,
		Auth:   auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
		ClickBurst: 1000,
	}
	srv := &http.Server{Handler: s.Routes()}
	go srv.Serve(dashboard)
	t.Cleanup(s.Close)
	t.Cleanup(func() { srv.Close() })
	return wayBack{store: st, sim: simulator, checks: checker, url: dashboardURL}
}

// TestFirstStartDrivesTheWayBack: at the demo's first start simulated
// respondents click invitations on the served dashboard, take the
// simulator's survey and come back on its return address, so the store
// holds screen-outs and completes, respondents routed on after a return,
// and 25 non-complete returns or more on the broken link's subsample (the
// flag's threshold). A second
// run, on a database with returns, drives nobody.
func TestFirstStartDrivesTheWayBack(t *testing.T) {
	ctx := context.Background()
	w := serveWayBack(t, 50)
	var log bytes.Buffer
	drive := &demo.Returns{Store: w.store, Sim: w.sim, Checks: w.checks, Dashboard: w.url, InviteTTL: time.Hour,
		Logger: slog.New(slog.NewTextHandler(&log, nil)), Every: time.Millisecond, Size: 1000}
	counts, err := drive.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v\n%s", counts, &log)

	records, err := w.store.ReturnedRecords(ctx, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	broken, _ := w.sim.BrokenLinkSubsample()
	byStatus, brokenNonComplete := map[int64]int{}, 0
	for _, r := range records {
		byStatus[r.StatusID]++
		if r.SubsampleID == broken && r.StatusID != domain.ReturnComplete {
			brokenNonComplete++
		}
	}
	if byStatus[domain.ReturnComplete] == 0 || byStatus[domain.ReturnScreenOut] < 2 {
		t.Errorf("returns recorded by status = %v; want completes and several screen-outs", byStatus)
	}
	if brokenNonComplete < 25 {
		t.Errorf("%d non-complete returns on the broken link's subsample %d; want 25 or more", brokenNonComplete, broken)
	}
	hops, _, err := w.store.Routings(ctx, store.RoutingFilter{Outcome: domain.RoutedOnReturn}, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) == 0 || hops[0].Hop < 2 || hops[0].After == 0 {
		t.Errorf("respondents routed on after a return = %+v; want a hop after its send", hops)
	}
	if counts.Clicks == 0 || !bytes.Contains(log.Bytes(), []byte("came back")) {
		t.Errorf("the drive's log says %q after %d clicks; want one line of what came back", &log, counts.Clicks)
	}

	again, err := drive.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Clicks != 0 {
		t.Errorf("a second drive on a database with returns clicked %d invitations; want none", again.Clicks)
	}
}

// TestDriveClosesTheFieldFullCell: the drive sends panelists judged in
// the field-full cell to its subsample; the survey returns them quota
// full and the cell is closed from the field.
func TestDriveClosesTheFieldFullCell(t *testing.T) {
	ctx := context.Background()
	w := serveWayBack(t, 50)
	drive := &demo.Returns{Store: w.store, Sim: w.sim, Checks: w.checks, Dashboard: w.url, InviteTTL: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Every: time.Millisecond, Size: 1000}
	if _, err := drive.Run(ctx); err != nil {
		t.Fatal(err)
	}
	full, cell, _ := w.sim.FieldFullQuota()
	closures, err := w.store.FieldClosures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	for _, c := range closures {
		closed = closed || c.SubsampleID == full && c.QuotaID == cell
	}
	if !closed {
		t.Errorf("field closures = %+v; want quota %d of subsample %d closed from the field", closures, cell, full)
	}
}
