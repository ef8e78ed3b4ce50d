# Fieldboard. `make run` serves the dashboard on the built-in provider
# simulator; `make test` runs every check and test. Go is all they need:
# modules download on first build and templ runs as a Go tool (go.mod).

GO      ?= go
BIN     := bin/fieldboard
ADDR    ?= localhost:8080
DB      ?= fieldboard.db

# The race detector needs cgo and a C compiler; without them the tests run
# without it and say so.
RACE := $(shell [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$$($(GO) env CC)" >/dev/null 2>&1 && echo -race)

.PHONY: run build test generate check-generated check-fmt vet unit bench bench-scale bench-busy chromium postgresql

## run: build and serve the dashboard at http://$(ADDR) on the built-in simulator
run: build
	@[ -e $(DB) ] || echo "first start on a new $(DB): the demo replays the simulator's last day before it serves, half a minute; the admin's password is in the log"
	./$(BIN) serve --addr $(ADDR) --db $(DB)

## build: build bin/fieldboard
build:
	@echo "checking the Go modules (downloaded the first time only)"
	@$(GO) mod download
	@[ -x $(BIN) ] && echo "building $(BIN)" || echo "building $(BIN): the first build compiles everything, a minute or two"
	$(GO) build -o $(BIN) ./cmd/fieldboard

## generate: regenerate the templ components' Go code (committed)
generate:
	$(GO) tool templ generate -path views

## test: formatting, vet, generated-code freshness, then every test (browser tests in headless Chromium and store tests on a throwaway PostgreSQL included)
test: chromium postgresql check-fmt vet check-generated unit

# The browser tests need Chromium: installed from Debian's packages when it
# is missing and we run as root; otherwise they are skipped with a loud
# message (and fail under CI=true).
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the browser tests (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "WARNING: no chromium and not root: the browser tests will be skipped"; fi

# The store's tests run on SQLite and on PostgreSQL: Debian's postgresql is
# installed when it is missing and we run as root; otherwise the tests on
# PostgreSQL are skipped with a loud message (and fail under CI=true).
# Nothing is started here: scripts/with-postgres starts a throwaway cluster
# for the run of the tests and removes it after.
postgresql:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing postgresql for the store's tests (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "WARNING: no postgresql and not root: the tests on PostgreSQL will be skipped"; fi

# Every test, once, with FIELDBOARD_TEST_POSTGRES naming a throwaway
# PostgreSQL cluster that lives for this run only (scripts/with-postgres).
# The timeout is a safety net against a hang, not a measure of speed: go
# test's default (10 minutes a package) is one a loaded machine reaches.
#
# go test starts the packages' tests in the order they are named, as many
# at once as -p (the number of CPUs): the slowest come first, so that the
# many quick packages run beside them rather than after (web, the slowest,
# comes last in ./... and started minutes in). ./... adds the rest; a
# package named twice runs once.
SLOWEST_PACKAGES := ./web/ ./store/ ./cmd/fieldboard/

# The race detector then runs again where goroutines share state: the
# packages of the refresher, the webhook worker, leases, sign-in, the
# checks service's caches and turns, the provider client and its
# simulator, the handlers, and the server's own concurrency tests
# (RACE_WEB_TESTS: requests during a refresh and an import, slow and
# departing clients, timeouts, a refresh shown while it runs, shutdown,
# survey links judged in the background after returns).
# Everything once under it took about 9 minutes on two cores, three times
# the plain run: modernc's SQLite is Go translated from C and the race
# detector instruments every one of its memory accesses. A new test of
# the server's concurrency is named in RACE_WEB_TESTS.
RACE_PACKAGES := ./web/refresh/ ./web/webhooks/ ./web/lease/ ./web/auth/ ./rules/checks/... ./client/... ./handlers/
RACE_WEB_TESTS := ^(TestConcurrentRequestsDuringRefreshAndImport|TestSlowReadersHoldUpNobody|TestClientThatGoesAwayIsNoError|TestSlowBodiesAreCutOffButUploadsMayBeSlow|TestRefusedUploadsAreAnsweredAtOnce|TestUploadsWaitLongOnlyForWhoMaySend|TestSignedInDashboardUploadsMayBeSlow|TestLivePageBeforeAndAfterRefresh|TestRefreshButtonShowsProgressAndFinishes|TestRefreshOnAnotherInstanceIsShownRunning|TestSubsampleRefreshButton|TestLiveFragmentsAreKeptByTheQueryAsRead|TestBodiesAreCapped|TestServeShutsDownGracefully|TestBrokenLinkIsFlagged)$$

unit:
	./scripts/with-postgres $(GO) test -count=1 -timeout 60m $(SLOWEST_PACKAGES) ./...
	@[ -n "$(RACE)" ] || echo "note: no C compiler for cgo, the race detector's run is skipped"
	[ -z "$(RACE)" ] || ./scripts/with-postgres $(GO) test $(RACE) -count=1 -timeout 60m $(RACE_PACKAGES)
	[ -z "$(RACE)" ] || ./scripts/with-postgres $(GO) test $(RACE) -count=1 -timeout 60m -run '$(RACE_WEB_TESTS)' ./web/

check-fmt:
	@out="$$(gofmt -l .)"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Each committed *_templ.go must be what templ generates from its .templ now.
check-generated:
	@cd views && for f in *.templ; do \
		$(GO) tool templ generate -f "$$f" -stdout | cmp -s - "$${f%.templ}_templ.go" \
		|| { echo "views/$${f%.templ}_templ.go is stale: run 'make generate' and commit it"; exit 1; }; \
	done

# The figures run through scripts/with-postgres, as the tests do: a
# throwaway PostgreSQL cluster lives for the run of the figures only.
## bench: Go benchmarks of the rules and CSV writers; then build the large scenario (cached per seed), measure every figure next to its floor (figures 1, 2, 6, 7, 10, 12, 13, 15, 16 and 17 on a throwaway PostgreSQL too), write bench/results.json; then bench-scale and bench-busy
bench: postgresql
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./rules/ ./handlers/ ./views/formats/
	cd bench && ../scripts/with-postgres $(GO) test -tags bench -run '^TestBench$$' -count=1 -timeout 60m -v .
	$(MAKE) --no-print-directory bench-scale
	$(MAKE) --no-print-directory bench-busy

## bench-scale: figures 2, 4, 8 and 12 on the default scenario's subsamples and on 4 times as many (history and panel fixed at 1,000,000 records over 100,000 panelists, SQLite), each scenario built once and cached; prints the growth against its targets
bench-scale:
	cd bench && $(GO) test -tags bench -run '^TestBenchScale$$' -count=1 -timeout 90m -v .

## bench-busy: figures 12 and 13 with their floors (the default scenario, SQLite) while another process (bench/cmd/burn) keeps every core busy; their rows go in bench/results.json marked busy:
bench-busy:
	cd bench && $(GO) test -tags bench -run '^TestBenchBusy$$' -count=1 -timeout 60m -v .
