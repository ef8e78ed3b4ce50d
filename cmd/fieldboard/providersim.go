package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"fieldboard/client/sim"
)

func runProviderSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("provider-sim", "Serves a simulated provider: all nine endpoints of the Supplier Sample Allocation API with realistic, deterministic data that moves with time, and switches for latency and failures.", stderr)
	var (
		addr       = fs.String("addr", "127.0.0.1:9090", "address to listen on")
		seed       = fs.Int64("seed", 1, "seed of the generated world: the same seed gives the same data")
		subsamples = fs.Int("subsamples", 240, "subsamples in event/all")
		locales    = fs.Int("locales", 8, "locales with a question library")
		questions  = fs.Int("questions", 40, "questions per locale")
		answers    = fs.Int("answers", 6, "answers per filler question")
		latency    = fs.Duration("latency", 0, "latency added to every request, such as 20ms")
		failRate   = fs.Float64("fail-rate", 0, "share of requests that fail (5xx, timeout or malformed JSON), 0 to 1")
		returnURL  = fs.String("return-url", "", "play the provider's survey behind the entry links, which then point at the simulator, and return each respondent to this address template, such as http://127.0.0.1:8080/return/{status}?id={id} ({status}: complete, screenout or quotafull; {id}: the id the entry link carried)")
		secret     = fs.String("return-secret", "", "sign the return addresses with this secret (plain text), as --return-secret of serve checks")
		sigParam   = fs.String("return-sig-param", sim.DefaultReturnSigParam, "the query parameter that carries a return address's signature")
		sigAlg     = fs.String("return-sig-alg", sim.DefaultReturnSigAlg, "the hash of the return addresses' HMAC: sha256, sha1 or sha512")
		pause      = fs.Duration("survey-pause", 0, "the simulated survey's length: 0 returns the respondent at once (a redirect), more shows a page that returns them after it")
	)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *subsamples < 1:
		return errFlag("subsamples", "must be at least 1")
	case *failRate < 0 || *failRate > 1:
		return errFlag("fail-rate", "must be between 0 and 1")
	case *latency < 0:
		return errFlag("latency", "must not be negative")
	}
	opts := sim.Options{Seed: *seed, Subsamples: *subsamples, Locales: *locales,
		QuestionsPerLocale: *questions, AnswersPerQuestion: *answers, Latency: *latency, FailRate: *failRate,
		ReturnURL: *returnURL, ReturnSigParam: *sigParam, ReturnSigAlg: *sigAlg, SurveyPause: *pause}
	if *secret != "" {
		opts.ReturnSecret = []byte(*secret)
	}
	switch {
	case *returnURL == "" && (*secret != "" || *pause != 0):
		return errFlag("return-url", "--return-secret and --survey-pause need a return address")
	case *returnURL != "":
		probe := opts
		probe.ReturnSigAlg, probe.ReturnSigParam = sim.DefaultReturnSigAlg, sim.DefaultReturnSigParam
		if err := probe.CheckSurvey(); err != nil {
			return errFlag("return-url", "%v", err)
		}
		probe = opts
		probe.ReturnURL = "http://h/{status}?id={id}"
		if err := probe.CheckSurvey(); err != nil {
			return errFlag("return-sig-alg", "%v", err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if opts.ReturnURL != "" {
		// The entry links lead to the simulator's own survey.
		opts.EntryURL = "http://" + ln.Addr().String() + "/start"
	}
	handler := sim.New(opts)
	fmt.Fprintf(stdout, "provider simulator on http://%s (seed %d, %d subsamples)\n", ln.Addr(), *seed, *subsamples)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
