package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/auth"
	demodata "fieldboard/web/demo"
	"fieldboard/web/lease"
	"fieldboard/web/metrics"
	"fieldboard/web/refresh"
	"fieldboard/web/webhooks"
)

// defaultMemoryLimitMiB is serve's soft limit of the Go heap by default,
// chosen from what serve holds. Its heap holds about 5 MiB and 6.5 KiB a
// live subsample of the decided snapshot (bench's
// TestDecidedSnapshotMemory: 14.2 MiB at 6,000 subsamples, 2,147 of them
// live, 56.3 MiB at 24,000, 8,910 live; figure 8's label: 19 MiB held
// after a collection at 6,000, 68 MiB at 24,000). The limit is also what
// the runtime keeps of the memory it freed, so serve's RSS comes up to the
// limit and some 17 to 31 MiB outside the Go heap: 112 MiB keeps figure 8's
// 150 MB at the default scenario with room for noise, and leaves the
// collector room (the heap held at most about 0.6 of the limit) up to
// about 8,700 live subsamples (24,000 subsamples, where figure 8 measured
// 138 to 147.6 MiB). Near the limit the collector runs again and again over the
// same heap and takes the CPU from the answers: a larger supplier sets
// --memory-limit-mib to 1.7 times its heap held.
const defaultMemoryLimitMiB = 112

// secureCookies is whether the session cookie is marked Secure on plain
// HTTP: as --secure-cookies says when it is given (on the command line or
// in the environment), else whenever the public URL is https, since the
// dashboard is then reached through TLS that a proxy ends.
func secureCookies(fs *flag.FlagSet, given bool, publicURL string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "secure-cookies" })
	if set {
		return given
	}
	return strings.HasPrefix(strings.ToLower(publicURL), "https://")
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "Serves the dashboard and refreshes the provider's data on schedule. Without --upstream it starts the provider simulator in-process, so a new user sees a full dashboard at once.", stderr)
	var (
		up           upstreamFlags
		addr         = fs.String("addr", "localhost:8080", "address to serve the dashboard on")
		dbPath       = dbFlag(fs)
		tz           = fs.String("tz", "Local", "time zone the dashboard shows times in (IANA name)")
		eventsEvery  = fs.Duration("refresh-every", 3*time.Minute, "how often events, quotas and rules are read (the provider caches them 3 minutes; less is pointless)")
		libraryEvery = fs.Duration("library-every", 24*time.Hour, "how often the question library and reference data are read (cached 24 hours)")
		retention    = fs.Duration("retention", 7*24*time.Hour, "how long the quota history, the refresh log, the change feed, the routing record and the webhook deliveries are kept")
		logLevel     = fs.String("log-level", "info", "log level: debug, info, warn or error")
		memoryLimit  = fs.Int("memory-limit-mib", defaultMemoryLimitMiB, "soft limit of the Go heap in MiB (the garbage collector works harder near it, and runs away when it is close to what the process holds); 0 for none")
		simSeed      = fs.Int64("sim-seed", 1, "seed of the built-in simulator (without --upstream)")
		simSize      = fs.Int("sim-subsamples", 240, "subsamples of the built-in simulator (without --upstream)")
		simPanel     = fs.Int("sim-panelists", demodata.Panelists, "panelists of the demo's panel, written into an empty database (without --upstream)")
		simLatency   = fs.Duration("sim-latency", 20*time.Millisecond, "latency of the built-in simulator (without --upstream)")
		secureCookie = fs.Bool("secure-cookies", false, "mark the session cookie Secure on plain HTTP too, as behind a proxy that terminates TLS (requests over TLS always get it); on by default when --public-url is https, --secure-cookies=false turns it off")
		sessionTTL   = fs.Duration("session-ttl", 12*time.Hour, "how long a sign-in lasts")
		decide       = decisionFlags(fs)
		pprofAddr    = fs.String("pprof", "", "serve Go's CPU and memory profiles on this loopback address (e.g. 127.0.0.1:6060); empty for none")
		publicURL    = publicURLFlag(fs, "send lists then carry an inviteLink column")
		inviteTTL    = fs.Duration("invite-ttl", defaultInviteTTL, "how long the invitation links of send lists stay valid")
		noSurveyURL  = fs.String("no-survey-url", "", "where an invitation link goes when no survey would take the panelist; empty shows a plain page")
		clickRate    = fs.Float64("clicks-per-second", 5, "invitation link clicks allowed per client address and second (behind a proxy, see --trusted-proxies)")
		clickBurst   = fs.Int("click-burst", 30, "invitation link clicks a client address may make at once before --clicks-per-second applies")
		linkRate     = fs.Float64("link-clicks-per-second", 1, "clicks allowed per invitation link and second, from any addresses")
		linkBurst    = fs.Int("link-click-burst", 10, "clicks one invitation link may have at once before --link-clicks-per-second applies")
		allRate      = fs.Float64("all-clicks-per-second", 200, "clicks allowed on all invitation links together per second, on this instance")
		allBurst     = fs.Int("all-click-burst", 1000, "clicks all invitation links together may have at once before --all-clicks-per-second applies")
		hooksPrivate = fs.Bool("allow-private-webhooks", false, "let webhooks reach loopback, private and link-local addresses (refused otherwise, at subscription and at connection)")
		hooksTimeout = fs.Duration("webhook-timeout", 15*time.Second, "how long one webhook attempt may take before it counts as failed and is retried")
		leaseTTL     = fs.Duration("lease-ttl", lease.DefaultTTL, "how long this instance's hold on the refresh and webhook leases lasts without renewal (renewed every third of it), when several instances share the database: one that dies holding a lease is taken over after at most this long")
		proxies      = fs.String("trusted-proxies", "", "comma-separated addresses or CIDR ranges of the reverse proxies in front of the dashboard, whose X-Forwarded-For names the client for the sign-in limits; empty trusts no such header")
	)
	entry := entryURLFlag(fs)
	returning := returnFlagsOf(fs)
	up.register(fs, "provider base URL; empty starts the built-in simulator")
	if err := parse(fs, args); err != nil {
		return err
	}
	logger, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	base, err := parsePublicURL(*publicURL, false)
	if err != nil {
		return err
	}
	*secureCookie = secureCookies(fs, *secureCookie, base)
	if *inviteTTL <= 0 {
		return errFlag("invite-ttl", "must be positive")
	}
	if *clickRate <= 0 || *clickBurst <= 0 {
		return errFlag("clicks-per-second", "--clicks-per-second and --click-burst must be positive")
	}
	if *linkRate <= 0 || *linkBurst <= 0 {
		return errFlag("link-clicks-per-second", "--link-clicks-per-second and --link-click-burst must be positive")
	}
	if *allRate <= 0 || *allBurst <= 0 {
		return errFlag("all-clicks-per-second", "--all-clicks-per-second and --all-click-burst must be positive")
	}
	if *noSurveyURL != "" {
		if err := absoluteURL(*noSurveyURL); err != nil {
			return errFlag("no-survey-url", "%v", err)
		}
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		return fmt.Errorf("--tz %q: %w", *tz, err)
	}
	trustedProxies, err := parseProxies(*proxies)
	if err != nil {
		return err
	}
	if *leaseTTL < time.Second {
		return errFlag("lease-ttl", "must be at least 1s")
	}
	if *hooksTimeout <= 0 {
		return errFlag("webhook-timeout", "must be positive")
	}
	if *simPanel < 1 {
		return errFlag("sim-panelists", "must be at least 1")
	}
	if *memoryLimit < 0 {
		return errFlag("memory-limit-mib", "must not be negative")
	}
	if err := decide.validate(); err != nil {
		return err
	}
	returns, err := returning.settings(logger)
	if err != nil {
		return err
	}
	if *memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(*memoryLimit) << 20)
	}

	if *pprofAddr != "" {
		stopPprof, err := startPprof(*pprofAddr, logger)
		if err != nil {
			return err
		}
		defer stopPprof()
	}

	// The address is taken before anything is written: a demo whose port
	// is busy must not spend its one-time password on a run that cannot
	// serve. The demo's simulated survey returns respondents to it.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	defer ln.Close()
	dashboardURL := loopbackURL(ln.Addr())
	baseURL := up.url
	var demo *sim.Simulator
	var demoClock *demodata.Clock
	if baseURL == "" {
		// The simulator's world begins a day ago: a fresh database gets
		// that day replayed (demodata.Replay), then its clock follows
		// the real one. Its survey, behind its entry links, returns each
		// respondent to this dashboard's return address, signed as
		// --return-secret says, with a link that screens everyone out and
		// a cell full in the field before its quotas say so.
		demoClock = demodata.NewClock(time.Now)
		var simURL string
		var stopSim func()
		demo, simURL, stopSim, err = startSimulator(sim.Options{Seed: *simSeed, Subsamples: *simSize, Latency: *simLatency, Now: demoClock.Now, BusyDay: true,
			ReturnURL: dashboardURL + "/return/{status}?id={id}", ReturnSecret: returns.Signature.Secret,
			ReturnSigParam: returns.Signature.Param, ReturnSigAlg: returns.Signature.Alg, BrokenLink: true, FieldFullLag: 3})
		if err != nil {
			return err
		}
		defer stopSim()
		logger.Info("no --upstream given: serving the built-in provider simulator", "url", simURL, "seed", *simSeed, "subsamples", *simSize)
		baseURL = simURL
		if len(entry.urls) == 0 {
			// The simulator's links lie under its entry address: the demo
			// checks them as a real provider's should be.
			if err := entry.Set(demo.EntryURL()); err != nil {
				return err
			}
		}
	}
	if len(entry.urls) == 0 {
		logger.Warn(rules.LinksUnchecked)
	}
	provider, err := up.client(baseURL, userAgent)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := checkUsers(ctx, st, demo != nil, store.Describe(*dbPath), logger); err != nil {
		return err
	}
	seeder := demodata.Seeder{Store: st, Sim: demo, Seed: *simSeed, Logger: logger, Size: *simPanel}
	guard := webhooks.Guard{AllowPrivate: *hooksPrivate}
	var receiver *demodata.Receiver
	if demo != nil {
		if err := seeder.Panel(ctx); err != nil {
			return err
		}
		// The demo's own webhook receiver, on loopback, on the real
		// clock as any receiver: the guard lets through its address and
		// port alone.
		if receiver, err = demodata.StartReceiver(ctx, st, time.Now, logger); err != nil {
			return err
		}
		defer receiver.Close()
		guard.Allow = []netip.AddrPort{receiver.Addr()}
	}

	holder := &lease.Holder{Store: st, ID: lease.NewID(), TTL: *leaseTTL, Logger: logger}
	checker := decide.service(st, provider.Location(), entry.urls)
	checker.Returns, checker.FieldCloseFor = returns, *returning.fieldCloseFor
	defer checker.SettleLinks() // the survey links judged after returns, before the store closes
	measured := metrics.New(metrics.Sources{Store: st, Checks: checker, Returns: checker, Instance: holder.ID, Logger: logger})
	refreshOptions := refresh.Options{
		EventsEvery: *eventsEvery, LibraryEvery: *libraryEvery, ReferenceEvery: *libraryEvery,
		Concurrency: up.concurrency, Deadline: up.deadline, Retention: *retention, Logger: logger,
		Lease: holder, Observe: measured.ObserveRefresh,
	}
	refresher := refresh.New(measured.Provider(provider), st, refreshOptions)
	// A cell the field closed has its subsample's quotas read again at
	// once, in the background (Start returns without waiting).
	checker.QuotasStale = func(id int64) { refresher.Start(refresh.Request{SubsampleID: id}) }
	var driveReturns *demodata.Returns
	if demo != nil {
		// Only a fresh database gets the day replayed and, once the
		// dashboard serves, respondents driven through the way back.
		fresh, err := demodata.Fresh(ctx, st)
		if err != nil {
			return err
		}
		if fresh {
			driveReturns = &demodata.Returns{Store: st, Sim: demo, Checks: checker, Dashboard: dashboardURL, InviteTTL: *inviteTTL, Logger: logger, Size: *simPanel}
		}
		replayChecks := decide.service(st, provider.Location(), entry.urls)
		replayChecks.Now = demoClock.Now
		replay := &demodata.Replay{Seeder: seeder, Clock: demoClock, Receiver: receiver, Provider: provider, Refresh: refreshOptions,
			Checks: replayChecks, Guard: guard, WebhookTimeout: *hooksTimeout, InviteTTL: *inviteTTL}
		// The replay is the demo's extra, not the dashboard: when it
		// stops (the simulator's answers refused, say), serve what it
		// wrote; a database it left without a snapshot is replayed at the
		// next start.
		if err := replay.Run(ctx); err != nil {
			if ctx.Err() != nil {
				return err
			}
			logger.Warn("demo: the replay of the simulator's last day stopped; serving what it wrote", "err", err)
		}
		if err := seeder.MapCodes(ctx, func(ctx context.Context) error { return refresher.Refresh(ctx, refresh.Request{}) }); err != nil {
			return err
		}
		// Our own rules, holds and a release, once, on the snapshot the
		// replay left; like the replay, the demo's extra.
		if err := seeder.Policy(ctx, checker); err != nil {
			if ctx.Err() != nil {
				return err
			}
			logger.Warn("demo: our own rules and holds were not put in force; serving without them", "err", err)
		}
	}
	server := &web.Server{
		Store:               st,
		Checks:              checker,
		Outcomes:            &outcomes.Service{Store: st, Checks: checker, ProviderLocation: provider.Location()},
		Refresher:           refresher,
		Auth:                auth.New(st, auth.Options{SessionTTL: *sessionTTL, SecureCookies: *secureCookie, Logger: logger}),
		Logger:              logger,
		Now:                 time.Now,
		Location:            loc,
		ProviderLocation:    provider.Location(),
		ScheduleTick:        min(15*time.Second, *leaseTTL), // a dead instance's refresh taken over within a lease's time
		PublicURL:           base,
		InviteTTL:           *inviteTTL,
		NoSurveyURL:         *noSurveyURL,
		CompleteURL:         *returning.completeURL,
		ClicksPerSecond:     *clickRate,
		ClickBurst:          *clickBurst,
		LinkClicksPerSecond: *linkRate,
		LinkClickBurst:      *linkBurst,
		AllClicksPerSecond:  *allRate,
		AllClickBurst:       *allBurst,
		TrustedProxies:      trustedProxies,
		Webhooks: &webhooks.Worker{Store: st, Logger: logger, Guard: guard, Timeout: *hooksTimeout, Lease: holder,
			Observe: measured.ObserveWebhook},
		Instance:             holder.ID,
		Metrics:              measured,
		AllowPrivateWebhooks: *hooksPrivate,
	}
	if driveReturns != nil {
		// The drive's clicks wait in the listener's queue until Serve
		// takes them; serving waits for nothing.
		go func() {
			if _, err := driveReturns.Run(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("demo: the simulated respondents' way back stopped; the dashboard shows what they did", "err", err)
			}
		}()
	}
	logger.Info("serving the dashboard", "url", "http://"+ln.Addr().String(), "db", store.Describe(*dbPath), "instance", holder.ID)
	return server.Serve(ctx, ln)
}

// startSimulator serves a provider simulator with opts on a loopback port,
// its entry links under that port's /start, and returns it, its URL and a
// function that stops it.
func startSimulator(opts sim.Options) (*sim.Simulator, string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, fmt.Errorf("start the built-in simulator: %w", err)
	}
	url := "http://" + ln.Addr().String()
	opts.EntryURL = url + "/start"
	if err := opts.CheckSurvey(); err != nil {
		ln.Close()
		return nil, "", nil, fmt.Errorf("start the built-in simulator: %w", err)
	}
	s := sim.New(opts)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return s, url, func() { srv.Close() }, nil
}

// loopbackURL is the http address of a listener on addr, reached on
// loopback when it listens on every address.
func loopbackURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if ok && tcp.IP.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + addr.String()
}

// parseProxies reads --trusted-proxies: addresses (a range of one) and
// CIDR ranges, separated by commas.
func parseProxies(list string) ([]*net.IPNet, error) {
	var proxies []*net.IPNet
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if ip := net.ParseIP(item); ip != nil {
			bits := 8 * len(ip.To16())
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			proxies = append(proxies, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, network, err := net.ParseCIDR(item)
		if err != nil {
			return nil, errFlag("trusted-proxies", "%q is neither an address nor a CIDR range such as 10.0.0.0/8", item)
		}
		proxies = append(proxies, network)
	}
	return proxies, nil
}

// errFlag reports a flag error as a usage error.
func errFlag(name, format string, args ...any) error {
	return fmt.Errorf("%w: --%s: %s", errUsage, name, fmt.Sprintf(format, args...))
}

// checkUsers makes sure someone can sign in. The demo (no --upstream)
// creates the user admin on its first start and logs its password once,
// so a new user gets in with one command, and adds a coordinator and a
// viewer whose passwords nobody is shown (demodata.Colleagues); against a
// real provider, the log says how to add a user.
func checkUsers(ctx context.Context, st *store.Store, demo bool, dbPath string, logger *slog.Logger) error {
	users, err := st.Users(ctx)
	if err != nil || len(users) > 0 {
		return err
	}
	if !demo {
		logger.Warn("nobody can sign in yet: add a user with fieldboard user add --db " + dbPath + " NAME")
		return nil
	}
	password := auth.GeneratePassword()
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	if err := st.AddUser(ctx, "admin", store.RoleAdmin, hash, time.Now()); err != nil {
		return err
	}
	logger.Info("demo: created the user admin; its password is shown this once (change it with fieldboard user passwd)", "user", "admin", "password", password)
	return demodata.Colleagues(ctx, st, time.Now(), logger)
}
