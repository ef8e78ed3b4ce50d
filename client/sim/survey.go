package sim

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"html/template"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The simulated survey (Options.ReturnURL) plays the provider's survey
// behind the entry links: a respondent who follows a link, its id filled
// in, is sent back to the supplier's return address with a status.
//
// The status of an entry is decided in this order:
//   - BrokenLinkSubsample: screenout, always;
//   - FieldFullQuota's subsample: quotafull, always;
//   - the subsample is not Live and allocated at that moment, or its total
//     quota is full (so also while it is Live but paused): quotafull;
//   - the respondent falls in a full hard cell: quotafull. Each respondent
//     falls, in each quota table, in one cell, drawn by the cells' shares
//     from (seed, subsample, id), so the same respondent is in the same
//     cells on every entry;
//   - complete with probability conversion/100, screenout otherwise, drawn
//     from (seed, subsample, id, the number of earlier entries of that id
//     into that subsample). conversion is the total quota's
//     actualClientConversionRate, or the subsample's
//     expectedIncidenceRate while nothing is measured in field.
//
// Quota states are those of the simulator's own world at the moment of the
// entry, the field's truth: the quotas endpoint gives the same, except for
// FieldFullQuota's cell while the lag lasts.

// Return statuses as the {status} placeholder spells them, with the
// provider's status ids.
const (
	ReturnComplete  = "complete"  // status 3
	ReturnScreenout = "screenout" // status 82
	ReturnQuotaFull = "quotafull" // status 83
)

// SurveyCounts are the entries the simulated survey has answered, by the
// status it returned.
type SurveyCounts struct {
	Complete, Screenout, QuotaFull int
}

// survey is the state of the simulated survey.
type survey struct {
	path      string // the entry path: EntryURL's
	returnURL string
	secret    []byte
	sigParam  string
	newHash   func() hash.Hash
	pause     time.Duration
	seed      uint64

	lag int // Options.FieldFullLag

	mu        sync.Mutex // guards the fields below
	broken    *subsample // Options.BrokenLink's, or SetBrokenLink's; nil for none
	fieldFull *subsample // Options.FieldFullLag's, or SetFieldFull's; nil for none
	fullCell  int        // the index of fieldFull's full cell in its quotas
	entries   map[entryKey]int
	counts    SurveyCounts
	fullsSent int // quotafull returns of fieldFull
}

type entryKey struct {
	subsample int64
	id        string
}

// newSurvey sets up the simulated survey of opts, which CheckSurvey
// accepted; nil when it is off.
func newSurvey(opts Options, w *world) *survey {
	if opts.ReturnURL == "" {
		return nil
	}
	entry, _ := url.Parse(opts.EntryURL)
	path := "/"
	if entry != nil && entry.Path != "" {
		path = entry.Path
	}
	sv := &survey{
		path:      path,
		returnURL: opts.ReturnURL,
		secret:    opts.ReturnSecret,
		sigParam:  opts.ReturnSigParam,
		newHash:   sigHashes[opts.ReturnSigAlg],
		pause:     opts.SurveyPause,
		seed:      uint64(opts.Seed),
		entries:   make(map[entryKey]int),
	}
	sv.pickSituations(opts, w)
	return sv
}

// sigHashes are the hashes Options.ReturnSigAlg names.
var sigHashes = map[string]func() hash.Hash{"sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New}

// CheckSurvey says what is wrong with the simulated survey's options; nil
// when they are usable or the survey is off.
func (o Options) CheckSurvey() error {
	o = o.withDefaults()
	if o.ReturnURL == "" {
		return nil
	}
	if err := checkReturnURL(o.ReturnURL); err != nil {
		return err
	}
	if sigHashes[o.ReturnSigAlg] == nil {
		return fmt.Errorf("signature algorithm %q: give sha256, sha1 or sha512", o.ReturnSigAlg)
	}
	if strings.Trim(o.ReturnSigParam, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" {
		return fmt.Errorf("signature parameter %q: use letters, digits, '-', '_' and '.' only", o.ReturnSigParam)
	}
	if o.SurveyPause < 0 {
		return errors.New("the survey's pause must not be negative")
	}
	if o.FieldFullLag < 0 {
		return errors.New("the field-full lag must not be negative")
	}
	return nil
}

// checkReturnURL says what is wrong with a return address template.
func checkReturnURL(tmpl string) error {
	if !strings.Contains(tmpl, "{status}") || !strings.Contains(tmpl, "{id}") {
		return fmt.Errorf("return address %q must hold {status} and {id}", tmpl)
	}
	u, err := url.Parse(strings.NewReplacer("{status}", ReturnComplete, "{id}", "P1").Replace(tmpl))
	switch {
	case err != nil:
		return fmt.Errorf("return address %q: %w", tmpl, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return fmt.Errorf("return address %q is not an absolute http or https address", tmpl)
	case u.Path == "":
		return fmt.Errorf("return address %q has no path: give at least a / after the host", tmpl)
	case strings.Contains(tmpl, "#"):
		return fmt.Errorf("return address %q has a fragment", tmpl)
	}
	return nil
}

// SignReturn is the signature the simulated survey appends to a return
// address, as a lowercase hex string: the HMAC, keyed with secret, with
// the hash alg names ("sha256", "sha1" or "sha512"), of the address's
// request target before the signature parameter is appended: the address
// from the "/" that begins its path to its end, the path and, when it has
// a query, "?" and the raw query, byte for byte as the address holds them
// (escaped as they are sent; no scheme, host or port, so a proxy in front
// of the supplier does not change it). For
// "http://127.0.0.1:8080/return/screenout?id=P1" that is
// "/return/screenout?id=P1", and the address sent is
// "http://127.0.0.1:8080/return/screenout?id=P1&sig=<hex>". A verifier
// takes the request target as received, cuts its last parameter,
// "&sig=<hex>" (or "?sig=<hex>" when it is the only one), and computes the
// same HMAC over what is left. It returns "" for an unknown alg.
func SignReturn(secret []byte, alg, address string) string {
	newHash := sigHashes[alg]
	if newHash == nil {
		return ""
	}
	mac := hmac.New(newHash, secret)
	mac.Write([]byte(requestTarget(address)))
	return hex.EncodeToString(mac.Sum(nil))
}

// requestTarget is the address from the "/" that begins its path: the
// first "/" after "scheme://".
func requestTarget(address string) string {
	_, rest, ok := strings.Cut(address, "://")
	if !ok {
		return address
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return ""
}

// returnAddress is where the survey sends a respondent back: the template
// filled with status and the query-escaped id, signed when a secret is
// set.
func (sv *survey) returnAddress(status, id string) string {
	addr := strings.ReplaceAll(sv.returnURL, "{status}", status)
	addr = strings.ReplaceAll(addr, "{id}", url.QueryEscape(id))
	if len(sv.secret) == 0 {
		return addr
	}
	mac := hmac.New(sv.newHash, sv.secret)
	mac.Write([]byte(requestTarget(addr)))
	sep := "&"
	if !strings.Contains(addr, "?") {
		sep = "?"
	}
	return addr + sep + sv.sigParam + "=" + hex.EncodeToString(mac.Sum(nil))
}

// surveyEntry answers a respondent following an entry link: a 302 to the
// return address, or the pause page leading there; 404 for a link the
// world did not give or one without an id.
func (s *Simulator) surveyEntry(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "The survey is entered with GET.", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	ss := s.world.entryTokens[q.Get("p")]
	if ss == nil {
		http.Error(w, "No survey behind this link: its p token is not one of the simulator's entry links.", http.StatusNotFound)
		return
	}
	id := q.Get("id")
	if id == "" {
		http.Error(w, "No respondent: the entry link's id parameter is empty.", http.StatusNotFound)
		return
	}
	status := s.survey.enter(ss, id, s.world.minutesAt(s.now()))
	addr := s.survey.returnAddress(status, id)
	if s.survey.pause <= 0 {
		http.Redirect(w, r, addr, http.StatusFound)
		return
	}
	seconds := int(math.Ceil(s.survey.pause.Seconds()))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pausePage.Execute(w, pauseData{
		Subsample: ss.id,
		Status:    status,
		Seconds:   seconds,
		Refresh:   fmt.Sprintf("%d;url=%s", seconds, addr),
		Address:   template.URL(addr),
	})
}

type pauseData struct {
	Subsample int64
	Status    string
	Seconds   int
	Refresh   string       // the meta refresh's content, escaped as an attribute
	Address   template.URL // an http(s) address CheckSurvey accepted
}

var pausePage = template.Must(template.New("pause").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="{{.Refresh}}">
<title>Simulated survey</title>
</head>
<body>
<p>Simulated survey — subsample {{.Subsample}}. You will be returned as {{.Status}} in {{.Seconds}} s.</p>
<p><a href="{{.Address}}">Return now</a></p>
</body>
</html>
`))

// enter decides the status of one entry of respondent id into ss at minute
// m (see the top of this file) and counts it.
func (sv *survey) enter(ss *subsample, id string, m int64) string {
	key := entryKey{ss.id, id}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	n := sv.entries[key]
	sv.entries[key] = n + 1
	status := sv.status(ss, id, n, m)
	switch status {
	case ReturnComplete:
		sv.counts.Complete++
	case ReturnScreenout:
		sv.counts.Screenout++
	case ReturnQuotaFull:
		sv.counts.QuotaFull++
		if ss == sv.fieldFull {
			sv.fullsSent++
		}
	}
	return status
}

// status is the status of the n-th entry (from 0) of respondent id into
// ss at minute m.
func (sv *survey) status(ss *subsample, id string, n int, m int64) string {
	switch {
	case ss == sv.broken:
		return ReturnScreenout
	case ss == sv.fieldFull:
		return ReturnQuotaFull
	case !ss.listedLive(m):
		return ReturnQuotaFull
	}
	active := ss.activeMinutes(m)
	if total := ss.quotas[0].at(ss.rate, active); total.remExcl+total.remShared == 0 {
		return ReturnQuotaFull
	}
	person := sv.draw(ss.id, id, 0)
	for i := 1; i < len(ss.quotas); {
		j := i + 1 // the table is ss.quotas[i:j]
		for j < len(ss.quotas) && ss.quotas[j].tableID == ss.quotas[i].tableID {
			j++
		}
		q := cellAt(ss.quotas[i:j], person.Float64())
		if now := q.at(ss.rate, active); q.typ == quotaHard && now.remExcl+now.remShared == 0 {
			return ReturnQuotaFull
		}
		i = j
	}
	conversion := ss.quotas[0].conversion
	if conversion <= 0 {
		conversion = ss.ir
	}
	if sv.draw(ss.id, id, n+1).Float64()*100 < conversion {
		return ReturnComplete
	}
	return ReturnScreenout
}

// cellAt is the cell of table at u in [0, 1), the cells laid out by their
// shares; the last one when the shares add up to less than u.
func cellAt(table []quotaBase, u float64) *quotaBase {
	for i := range table {
		if u < table[i].share {
			return &table[i]
		}
		u -= table[i].share
	}
	return &table[len(table)-1]
}

// draw is the random source of respondent id in subsample ssID: stream 0
// is the respondent's own (its cells), stream n+1 its n-th entry's.
func (sv *survey) draw(ssID int64, id string, stream int) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ssID))
	h.Write(b[:])
	h.Write([]byte(id))
	return rand.New(rand.NewPCG(sv.seed^0x5e7e7a11, h.Sum64()+uint64(stream)*0x9e3779b97f4a7c15))
}

// SurveyEntries counts the entries the simulated survey has answered so
// far, by status; zero while it is off.
func (s *Simulator) SurveyEntries() SurveyCounts {
	if s.survey == nil {
		return SurveyCounts{}
	}
	s.survey.mu.Lock()
	defer s.survey.mu.Unlock()
	return s.survey.counts
}
