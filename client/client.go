// Package client is Fieldboard's typed client for the provider's Supplier
// Sample Allocation API (../shared/supplier-api-spec.md), and the home of the
// provider simulator (package sim) its tests run against.
package client

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"fieldboard/rules/domain"
)

// Defaults applied by New to the zero fields of a Config.
const (
	DefaultUserAgent    = "fieldboard/dev"
	DefaultTimeout      = 15 * time.Second
	DefaultMaxAttempts  = 3
	DefaultBackoff      = 250 * time.Millisecond
	DefaultMaxBodyBytes = 64 << 20
)

const (
	// maxBackoff caps the exponential delay between attempts.
	maxBackoff = 5 * time.Second
	// maxRetryAfter is the longest delay a 429 or 503 response may ask
	// for in Retry-After and be waited out; a call asked to wait longer
	// gives up at once (see Client).
	maxRetryAfter = 30 * time.Second
	// errorBodyPeek is how much of a non-2xx body is read for the error
	// message, and errorSnippetBytes how much of it is shown.
	errorBodyPeek     = 4 << 10
	errorSnippetBytes = 200
	// drainLimit bounds how much of an unread body is discarded so that the
	// connection can be reused; beyond it the connection is dropped instead.
	drainLimit = 256 << 10
)

// ErrAttemptTimeout is wrapped by an *Error when the last attempt ran out of
// Config.Timeout. It is deliberately not context.DeadlineExceeded, which means
// the caller's own context expired.
var ErrAttemptTimeout = errors.New("per-request timeout exceeded")

// Config configures a Client. Zero fields take the documented defaults.
type Config struct {
	// BaseURL is the provider's address, such as http://127.0.0.1:9090; the
	// API paths (/supplier/v1/...) are appended to it, after any path it has.
	BaseURL string
	// Header holds extra headers sent on every request, such as an
	// authentication header from --upstream-header (the spec names no auth
	// scheme). Values may be secrets: they never appear in errors.
	Header http.Header
	// UserAgent defaults to DefaultUserAgent.
	UserAgent string
	// Timeout bounds each attempt, response body included; default 15s.
	Timeout time.Duration
	// MaxAttempts bounds the attempts per call; default 3, 1 means no retry.
	MaxAttempts int
	// Backoff is the delay before the first retry, doubled for each further
	// one, jittered and capped at 5s; default 250ms.
	Backoff time.Duration
	// Location is the provider's time zone, in which its zone-less dates are
	// read; default UTC.
	Location *time.Location
	// MaxBodyBytes caps a response body; a larger body is an error, never
	// silently truncated. Default 64 MiB. The answers of one subsample,
	// of the library and the reference lists have lower caps of their own
	// (maxBodyOf).
	MaxBodyBytes int64
	// HTTPClient is optional. The default keeps connections alive (64 idle
	// per host) and refuses redirects to another host, which would otherwise
	// receive Header.
	HTTPClient *http.Client
}

// Client calls the provider's API. It is safe for concurrent use.
//
// A call is retried, up to Config.MaxAttempts attempts in all, when an attempt
// runs out of Config.Timeout, meets a network error or gets a 5xx or 429
// response; other responses and undecodable bodies are final. Retries wait an
// exponential, jittered backoff, or what a 429 or 503 response asks for in
// Retry-After, in seconds or as an HTTP date. A Retry-After over 30s (a
// hostile 1e9 included) ends the call at once with the response's error:
// retrying sooner would go against the provider's wish, and waiting would
// hold a whole refresh, whose next run asks again anyway. The caller's
// context ends the call at once, and when its deadline would fall before the
// next attempt, the last error is returned without waiting.
//
// Error messages never hold the values of Config.Header, whatever the
// provider echoes back.
type Client struct {
	base        string // scheme://host[/prefix], no trailing slash
	header      http.Header
	userAgent   string
	timeout     time.Duration
	maxAttempts int
	backoff     time.Duration
	loc         *time.Location
	maxBody     int64
	hc          *http.Client
}

// New validates cfg, applies its defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	header := make(http.Header, len(cfg.Header))
	for name, values := range cfg.Header {
		if !isToken(name) {
			return nil, fmt.Errorf("header name %q is not a valid HTTP token", name)
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				// The value may be a secret: name the header only.
				return nil, fmt.Errorf("header %s has a value with control characters", name)
			}
			header.Add(name, v)
		}
	}
	switch {
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("timeout %s is negative", cfg.Timeout)
	case cfg.MaxAttempts < 0:
		return nil, fmt.Errorf("max attempts %d is negative", cfg.MaxAttempts)
	case cfg.Backoff < 0:
		return nil, fmt.Errorf("backoff %s is negative", cfg.Backoff)
	case cfg.MaxBodyBytes < 0:
		return nil, fmt.Errorf("max body bytes %d is negative", cfg.MaxBodyBytes)
	}
	c := &Client{
		base:        base,
		header:      header,
		userAgent:   cmp.Or(cfg.UserAgent, DefaultUserAgent),
		timeout:     cmp.Or(cfg.Timeout, DefaultTimeout),
		maxAttempts: cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts),
		backoff:     cmp.Or(cfg.Backoff, DefaultBackoff),
		loc:         cmp.Or(cfg.Location, time.UTC),
		maxBody:     cmp.Or(cfg.MaxBodyBytes, DefaultMaxBodyBytes),
		hc:          cfg.HTTPClient,
	}
	if c.hc == nil {
		c.hc = defaultHTTPClient()
	}
	return c, nil
}

// Location is the provider time zone in which the client places zone-less
// dates.
func (c *Client) Location() *time.Location { return c.loc }

func parseBaseURL(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", errors.New("base URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base URL %s: scheme must be http or https", u.Redacted())
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("base URL %s: no host", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("base URL %s: must not have a query or fragment", u.Redacted())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

func defaultHTTPClient() *http.Client {
	var tr *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = dt.Clone()
	} else {
		tr = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	tr.MaxIdleConns = 256
	tr.MaxIdleConnsPerHost = 64
	tr.IdleConnTimeout = 90 * time.Second
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return &redirectError{"stopped after 10 redirects"}
			}
			if req.URL.Host != via[0].URL.Host {
				return &redirectError{"refusing redirect to another host (" + req.URL.Host + ")"}
			}
			return nil
		},
	}
}

// redirectError is a redirect the default client refused to follow; another
// attempt would meet it again.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// attemptResult is the outcome of one request.
type attemptResult struct {
	status      int
	contentType string
	body        []byte
	err         error
	retryable   bool
	retryAfter  time.Duration // asked for by the response when hasAfter
	hasAfter    bool
}

// call sends the request, retrying as configured, and decodes the 2xx body
// into out. path must already be escaped.
func (c *Client) call(ctx context.Context, method, path string, body []byte, out any) error {
	endpoint := method + " " + path
	fail := func(attempts, status int, err error) error {
		return &Error{Endpoint: c.redact(endpoint), StatusCode: status, Attempts: attempts, Err: c.redactErr(err)}
	}
	if err := ctx.Err(); err != nil {
		return fail(0, 0, err)
	}
	for attempt := 1; ; attempt++ {
		r := c.attempt(ctx, method, path, body, min(c.maxBody, maxBodyOf(path)))
		if r.err == nil {
			if err := decode(r.body, r.contentType, out); err != nil {
				return fail(attempt, r.status, err)
			}
			return nil
		}
		if ctx.Err() != nil {
			// The caller gave up: report that rather than what it caused.
			return fail(attempt, 0, ctx.Err())
		}
		if !r.retryable || attempt >= c.maxAttempts {
			return fail(attempt, r.status, r.err)
		}
		wait := c.delay(attempt)
		if r.hasAfter {
			if r.retryAfter > maxRetryAfter {
				return fail(attempt, r.status, fmt.Errorf("%w; its Retry-After asks to wait %s, longer than the %s a call waits",
					r.err, r.retryAfter.Round(time.Second), maxRetryAfter))
			}
			wait = r.retryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			// The next attempt could not start in time: the last error says
			// more than the deadline would.
			return fail(attempt, r.status, r.err)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fail(attempt, 0, ctx.Err())
		case <-timer.C:
		}
	}
}

// delay is the jittered exponential backoff before retry number n (1-based):
// a random duration in [d/2, d] where d is Backoff·2^(n-1), capped at 5s.
func (c *Client) delay(n int) time.Duration {
	d := c.backoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	half := d / 2
	return half + rand.N(d-half+1)
}

// Bounds of a response body by what the endpoint holds, below
// Config.MaxBodyBytes, which alone bounds the two event lists (every
// subsample of the supplier): one subsample's quotas or rules, a
// locale's questions or one question's answers, and the reference lists
// are far smaller, and a body near the general cap would cost hundreds of
// megabytes to read.
const (
	maxSubsampleBodyBytes = 4 << 20  // a subsample's quotas or eligibility rules
	maxLibraryBodyBytes   = 16 << 20 // a locale's questions, a question's answers
	maxReferenceBodyBytes = 4 << 20  // countries, locales, survey statuses
)

// maxBodyOf is the bound of the body of the endpoint at path (escaped,
// from /supplier/v1/).
func maxBodyOf(path string) int64 {
	switch {
	case strings.HasPrefix(path, "/supplier/v1/event/"):
		return math.MaxInt64 - 1
	case strings.HasPrefix(path, "/supplier/v1/subsamples/"):
		return maxSubsampleBodyBytes
	case strings.HasPrefix(path, "/supplier/v1/locales/"):
		return maxLibraryBodyBytes
	}
	return maxReferenceBodyBytes
}

// attempt sends one request and reads its body within the per-attempt
// timeout.
func (c *Client) attempt(parent context.Context, method, path string, body []byte, maxBody int64) attemptResult {
	ctx, cancel := context.WithTimeoutCause(parent, c.timeout, ErrAttemptTimeout)
	defer cancel()
	// timedOut turns an error caused by the attempt's own deadline into
	// ErrAttemptTimeout, keeping other errors.
	timedOut := func(err error) error {
		if parent.Err() == nil && errors.Is(context.Cause(ctx), ErrAttemptTimeout) {
			return fmt.Errorf("%w (%s)", ErrAttemptTimeout, c.timeout)
		}
		return err
	}

	var reqBody io.Reader
	if body != nil {
		reqBody = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, reqBody)
	if err != nil {
		return attemptResult{err: fmt.Errorf("building request: %w", err)}
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for name, values := range c.header {
		req.Header[name] = append([]string(nil), values...)
	}
	if host := c.header.Get("Host"); host != "" {
		req.Host = host
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		err = transportError(err)
		return attemptResult{err: timedOut(err), retryable: retryableTransport(err)}
	}
	defer closeBody(resp.Body)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		peek, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyPeek))
		r := attemptResult{
			status:    resp.StatusCode,
			err:       &statusError{code: resp.StatusCode, snippet: c.snippet(peek)},
			retryable: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500,
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			r.retryAfter, r.hasAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return r
	}

	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		err = transportError(err)
		return attemptResult{status: resp.StatusCode, err: timedOut(fmt.Errorf("reading response: %w", err)), retryable: true}
	}
	if int64(len(data)) > maxBody {
		return attemptResult{status: resp.StatusCode, err: fmt.Errorf("response larger than %d bytes", maxBody)}
	}
	return attemptResult{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: data}
}

// closeBody discards what is left of a body, up to a bound, so that the
// connection can be reused, and closes it.
func closeBody(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, drainLimit)
	_ = body.Close()
}

// transportError strips the *url.Error wrapper, whose text repeats the full
// URL, so that errors name the endpoint once.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryableTransport reports whether a failure to get a response is worth
// another attempt: timeouts, refused or reset connections and EOFs are;
// certificate problems are not.
func retryableTransport(err error) bool {
	var (
		certErr     *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidCert x509.CertificateInvalidError
		dnsErr      *net.DNSError
		redirErr    *redirectError
	)
	switch {
	case errors.As(err, &redirErr):
		return false
	case errors.As(err, &certErr), errors.As(err, &unknownAuth),
		errors.As(err, &hostErr), errors.As(err, &invalidCert):
		return false
	case errors.As(err, &dnsErr):
		return !dnsErr.IsNotFound
	}
	return true
}

// parseRetryAfter reads a Retry-After header, as seconds or an HTTP date; a
// number of seconds too large for a Duration reads as the largest one. ok is
// false when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if secs > uint64(math.MaxInt64/int64(time.Second)) {
			return math.MaxInt64, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// snippet makes the start of an error body fit one line of an error message:
// configured header values redacted, whitespace runs collapsed, control
// characters dropped, at most errorSnippetBytes bytes.
func (c *Client) snippet(body []byte) string {
	s := c.redact(strings.ToValidUTF8(string(body), "\uFFFD"))
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return domain.Clip(b.String(), errorSnippetBytes)
}

// redact replaces the configured header values in s, and each of their
// words of 8 bytes or more (the token of "Bearer <token>"), with
// [redacted], in every form a provider may echo them (secretForms).
func (c *Client) redact(s string) string {
	for _, values := range c.header {
		for _, v := range values {
			s = redact(s, v)
			for _, f := range strings.Fields(v) {
				if len(f) >= 8 {
					s = redact(s, f)
				}
			}
		}
	}
	return s
}

// redactErr hides the configured header values in err's message: a hostile
// or broken provider can echo them anywhere, in an error body, a field that
// does not decode, a content type or a status line. errors.Is and As still
// see the cause.
func (c *Client) redactErr(err error) error {
	if err == nil {
		return nil
	}
	var de *decodeError
	if errors.As(err, &de) {
		// Its message is clipped: the cause loses the secret first, or a
		// clip through the middle of it would leave a piece.
		de.err = c.redactErr(de.err)
	}
	msg := err.Error()
	if clean := c.redact(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

// redactedError is an error whose message had a secret taken out.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact replaces each form of secret in s, in any case, with [redacted].
func redact(s, secret string) string {
	if strings.TrimSpace(secret) == "" {
		return s
	}
	for _, form := range secretForms(secret) {
		s = replaceFold(s, form, "[redacted]")
	}
	return s
}

// secretForms are the ways a secret may be echoed: as it is, JSON-escaped
// (with "/" as "\/" or not, every other character as \uXXXX), URL-encoded
// as a query or a path, or every other byte as %XX. replaceFold matches
// each in any case, which covers the hex digits of the escapes too.
func secretForms(secret string) []string {
	quoted, _ := json.Marshal(secret)
	escaped := string(quoted[1 : len(quoted)-1])
	var uEsc, pctEsc strings.Builder
	for _, r := range secret {
		if r < utf8.RuneSelf && isAlnum(byte(r)) {
			uEsc.WriteRune(r)
			continue
		}
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&uEsc, "\\u%04x\\u%04x", r1, r2)
		} else {
			fmt.Fprintf(&uEsc, "\\u%04x", r)
		}
	}
	for i := 0; i < len(secret); i++ {
		if isAlnum(secret[i]) {
			pctEsc.WriteByte(secret[i])
		} else {
			fmt.Fprintf(&pctEsc, "%%%02x", secret[i])
		}
	}
	forms := []string{secret, escaped, strings.ReplaceAll(escaped, "/", `\/`),
		url.QueryEscape(secret), url.PathEscape(secret), uEsc.String(), pctEsc.String()}
	slices.Sort(forms)
	return slices.Compact(forms)
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// replaceFold replaces every occurrence of old in s, its ASCII letters in
// any case, with repl.
func replaceFold(s, old, repl string) string {
	if old == "" || len(old) > len(s) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i+len(old) <= len(s); {
		if equalFoldASCII(s[i:i+len(old)], old) {
			b.WriteString(s[last:i])
			b.WriteString(repl)
			i += len(old)
			last = i
			continue
		}
		i++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// equalFoldASCII compares a and b, of one length, ASCII letters in any
// case.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// decode unmarshals a 2xx body. encoding/json ignores unknown fields and
// matches keys case-insensitively, as the spec requires.
func decode(data []byte, contentType string, out any) error {
	data = wholeNumbers(data)
	var err error
	if d, ok := out.(bodyDecoder); ok {
		err = d.decodeBody(data)
	} else {
		err = json.Unmarshal(data, out)
	}
	var malformed *MalformedListError
	if err == nil || errors.As(err, &malformed) {
		return err // a list's elements say what is wrong with them in words
	}
	what := "response"
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		// An HTML login page or a proxy's error: say so, it explains the
		// syntax error.
		what = domain.Clip(mt, maxMediaTypeBytes) + " response"
	}
	return &decodeError{what: what, err: err}
}

// Bounds of a decode error's message, which is shown on the dashboard and
// stored with the refresh: encoding/json quotes a number of the body in
// full, a date error the date, and the media type is the sender's.
const (
	maxMediaTypeBytes   = 60
	maxDecodeCauseBytes = 200
)

// decodeError is a 2xx body that could not be decoded into the endpoint's
// resource. Its message is one line of bounded length; Unwrap gives the
// full cause.
type decodeError struct {
	what string // "response", or "text/html response" and the like
	err  error
}

func (e *decodeError) Error() string {
	return "decoding " + e.what + ": " + domain.Clip(e.err.Error(), maxDecodeCauseBytes)
}

func (e *decodeError) Unwrap() error { return e.err }
