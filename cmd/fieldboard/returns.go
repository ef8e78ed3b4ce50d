package main

import (
	"flag"
	"log/slog"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// linkJudgeDelay is how long after a return serve judges its subsample's
// survey link: a burst of returns on one subsample is judged once, and a
// broken link is flagged seconds after the return that shows it.
const linkJudgeDelay = 2 * time.Second

// returnFlags are serve's flags of the way back: how returns are matched
// to sends and believed, how far a session routes a respondent, and where
// a complete goes.
type returnFlags struct {
	window                   *time.Duration
	secret, sigParam, sigAlg *string
	maxHops                  *int
	tooFast                  *float64
	completeURL              *string
	fieldCloseFor            *time.Duration
}

// returnFlagsOf registers returnFlags on fs.
func returnFlagsOf(fs *flag.FlagSet) returnFlags {
	return returnFlags{
		window:        fs.Duration("return-window", checks.DefaultReturnWindow, "how long after a send a respondent's return is accepted: a return with no send to them within it is refused"),
		secret:        fs.String("return-secret", "", "the secret the provider signs return addresses with (an HMAC of the address's path and query, see --return-sig-param); set, an unsigned or wrongly signed return is refused. Empty checks no signature: a respondent could then report a complete they never made"),
		sigParam:      fs.String("return-sig-param", "sig", "the query parameter that carries a return address's signature (with --return-secret)"),
		sigAlg:        fs.String("return-sig-alg", "sha256", "the hash of a return address's HMAC signature: sha256, sha1 or sha512"),
		maxHops:       fs.Int("max-hops", checks.DefaultMaxHops, "how many surveys one session sends a respondent to: a return from the last is not routed on"),
		tooFast:       fs.Float64("too-fast-share", 0.3, "flag a complete returned sooner than this share of the survey's expected length (LOI) as too fast; 0 flags none"),
		completeURL:   fs.String("complete-url", "", "where a respondent returned with a complete goes; empty shows a plain page of thanks"),
		fieldCloseFor: fs.Duration("field-close-for", rules.DefaultFieldCloseFor, "how long a quota cell stays closed for routing after a quota full came back from the field for a panelist judged to fall in it, when no quota read shows its counts moved"),
	}
}

// settings checks the flags and returns them as the checks service takes
// them.
func (f returnFlags) settings(logger *slog.Logger) (checks.Returns, error) {
	if *f.window <= 0 {
		return checks.Returns{}, errFlag("return-window", "must be positive")
	}
	if *f.fieldCloseFor <= 0 {
		return checks.Returns{}, errFlag("field-close-for", "must be positive")
	}
	if *f.maxHops < 1 {
		return checks.Returns{}, errFlag("max-hops", "must be at least 1")
	}
	if !(*f.tooFast >= 0 && *f.tooFast <= 1) {
		return checks.Returns{}, errFlag("too-fast-share", "must be from 0 to 1")
	}
	if *f.completeURL != "" {
		if err := absoluteURL(*f.completeURL); err != nil {
			return checks.Returns{}, errFlag("complete-url", "%v", err)
		}
	}
	sig := rules.ReturnSignature{Param: *f.sigParam, Alg: *f.sigAlg}
	if *f.secret != "" {
		sig.Secret = []byte(*f.secret)
	}
	if _, ok := rules.ReturnSignatureAlgs[strings.ToLower(*f.sigAlg)]; !ok {
		return checks.Returns{}, errFlag("return-sig-alg", "%q is not one of sha256, sha1, sha512", *f.sigAlg)
	}
	if err := sig.Validate(); err != nil {
		return checks.Returns{}, errFlag("return-sig-param", "%v", err)
	}
	return checks.Returns{Window: *f.window, MaxHops: *f.maxHops, Signature: sig, TooFastShare: *f.tooFast, Logger: logger,
		JudgeLinksAfter: linkJudgeDelay}, nil
}
