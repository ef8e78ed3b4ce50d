package rules

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"fieldboard/rules/domain"
)

// ErrBadEntryLink is wrapped by every error EntryLink returns.
var ErrBadEntryLink = errors.New("not a usable entry link")

// EntryLink prepares a provider entry link for a panelist.
//
// The spec's entry links carry an opaque token p, may carry rType, and end
// with an empty id parameter. EntryLink:
//
//   - accepts only absolute http and https links with a host (the scheme in
//     any case) and no user info (https://user@host/...: the provider's
//     links carry none, and a browser would send it to whatever host
//     follows); anything else (javascript:, ftp:, relative, unparsable, a
//     query net/url cannot parse) is an error wrapping ErrBadEntryLink,
//     never a link;
//   - accepts only a link whose query ends with the empty id parameter, its
//     name in any ASCII case (id, ID, Id, iD; not a name that equals id only
//     by Unicode folding), as the spec's do: a link without one, with
//     another parameter after it, or with its id= in the fragment (after a
//     #, which never reaches the provider: ?p=AB#CD&rType=2&id=, or a
//     hash-routed /s/#/start?p=T&id=) is an error, since where the provider
//     reads the id is then not known. An id parameter that already carries
//     a value is an error too: what a value there means is not known;
//   - keeps everything but the query byte-for-byte, and keeps every other
//     query parameter in its original order and encoding (the token p may
//     hold escapes such as %2B that must survive exactly); empty segments
//     ("&&") are dropped;
//   - for an API-compatible subsample adds SAPI=1 (spec rule 2) just before
//     id; an existing SAPI parameter (any case) is not duplicated but set to
//     1 where it stands (SAPI in ASCII letters of any case: "ſapi", with a
//     long s, is another parameter); for a subsample that is not API
//     compatible, the parameters are left as the provider sent them;
//   - keeps the provider's spelling of the id key byte for byte ("ID="
//     stays "ID=", an escaped "%49d=" stays "%49d="); several empty id
//     parameters collapse into the last one. The panelist id is filled in
//     by FillEntryLink, the one place that decides where it goes: with
//     panelistID empty, the id stays empty.
//
// A fragment (#...) stays at the very end, after the query.
func EntryLink(raw string, apiCompatible bool, panelistID string) (string, error) {
	prepared, err := prepareEntryLink(raw, apiCompatible)
	if err != nil {
		return "", err
	}
	link, _ := FillEntryLink(prepared, panelistID) // prepared by prepareEntryLink: ok
	return link, nil
}

// FillEntryLink fills the empty id of a link EntryLink prepared for nobody
// (its query's last parameter, before any fragment) with panelistID,
// escaped with url.QueryEscape ("P 1/x" becomes "P+1%2Fx"): the link
// EntryLink prepares for the panelist, without parsing it again. The id
// goes into the query, never into the fragment, however the fragment
// ends. ok is false, and the link "", when prepared is not such a link
// (its part before the first # does not end in "=").
func FillEntryLink(prepared, panelistID string) (link string, ok bool) {
	rest, fragment, hasFragment := strings.Cut(prepared, "#")
	if !strings.HasSuffix(rest, "=") || !strings.Contains(rest, "?") {
		return "", false
	}
	if panelistID == "" {
		return prepared, true
	}
	id := url.QueryEscape(panelistID)
	var b strings.Builder
	b.Grow(len(prepared) + len(id))
	b.WriteString(rest)
	b.WriteString(id)
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(fragment)
	}
	return b.String(), true
}

// prepareEntryLink is EntryLink for nobody: the link with its id empty.
func prepareEntryLink(raw string, apiCompatible bool) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadEntryLink, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" { // url.Parse lower-cases the scheme
		if u.Scheme == "" {
			return "", fmt.Errorf("%w: %q is not an absolute http or https address", ErrBadEntryLink, raw)
		}
		return "", fmt.Errorf("%w: scheme %q is not http or https", ErrBadEntryLink, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%w: %q has no host", ErrBadEntryLink, raw)
	}
	if u.User != nil {
		// Not quoted: the user info may hold a password.
		return "", fmt.Errorf("%w: the link carries user info before its host %s; the provider's entry links carry none", ErrBadEntryLink, strconv.Quote(u.Hostname()))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return "", fmt.Errorf("%w: query: %w", ErrBadEntryLink, err)
	}

	// Work on the raw text so nothing is re-sorted or re-encoded. url.Parse
	// splits the same way: the fragment first, then the query.
	rest, fragment, hasFragment := strings.Cut(raw, "#")
	base, query, _ := strings.Cut(rest, "?")
	endsWithID := endsWithEmptyID(query)

	var b strings.Builder
	b.Grow(len(raw) + len("&SAPI=1"))
	b.WriteString(base)
	sep := byte('?')
	write := func(param string) {
		b.WriteByte(sep)
		b.WriteString(param)
		sep = '&'
	}

	idKey, sapiSeen := "", false
	for query != "" {
		var param string
		param, query, _ = strings.Cut(query, "&")
		if param == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(param, "=")
		key, _ := url.QueryUnescape(rawKey) // valid: ParseQuery accepted it
		switch {
		case isParamName(key, "id"):
			if rawValue != "" {
				// The spec's links end with an empty id for the supplier
				// to fill: a value there is not understood, and
				// replacing it would be a guess.
				return "", fmt.Errorf("%w: its id parameter already carries a value (%s); the provider's entry links end with an empty id",
					ErrBadEntryLink, strconv.Quote(domain.Clip(rawValue, 40)))
			}
			idKey = rawKey
		case apiCompatible && isParamName(key, "SAPI"):
			if !sapiSeen {
				write(rawKey + "=1")
			}
			sapiSeen = true
		default:
			write(param)
		}
	}
	if !endsWithID {
		why := "its query does not end with the empty id parameter the provider's entry links end with (…&id=)"
		if hasFragment && endsWithEmptyID(fragment[strings.LastIndexByte(fragment, '?')+1:]) {
			why += "; its id= is in the fragment, after #, which never reaches the provider"
		}
		return "", fmt.Errorf("%w: %s", ErrBadEntryLink, why)
	}
	if apiCompatible && !sapiSeen {
		write("SAPI=1")
	}
	write(idKey + "=")
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(fragment)
	}
	return b.String(), nil
}

// endsWithEmptyID reports whether a raw query's last parameter, empty
// segments aside, is an empty id ("id=", or "id" alone, the name in any
// ASCII case, escaped or not).
func endsWithEmptyID(query string) bool {
	query = strings.TrimRight(query, "&")
	last := query[strings.LastIndexByte(query, '&')+1:]
	rawKey, rawValue, _ := strings.Cut(last, "=")
	key, err := url.QueryUnescape(rawKey)
	return err == nil && rawValue == "" && isParamName(key, "id")
}

// isParamName reports whether a parameter name (unescaped) is name in any
// ASCII case: "SAPI", "sapi"; "ID", "Id". strings.EqualFold alone would
// also match "ſAPI" (with a long s), which the provider does not read as
// SAPI: the link would then lack SAPI=1. name is ASCII, so a key of the
// same length in bytes that folds to it has only ASCII letters.
func isParamName(key, name string) bool { return len(key) == len(name) && strings.EqualFold(key, name) }

// EntryURLs are the provider's entry addresses, the spec's {entry_url}:
// "liveEntryLink and testingEntryLink are absolute addresses under
// {entry_url}". A nil EntryURLs checks nothing (Under accepts every
// link): links are then not checked, and every place that gives them says
// so (LinksUnchecked).
type EntryURLs []*url.URL

// LinksUnchecked is what pages, the API and the command line say while no
// entry address is set.
const LinksUnchecked = "Entry links are not checked against the provider's entry address: --entry-url is not set, so a link to any host is handed out."

// ParseEntryURL reads one entry address: an absolute http or https URL
// with a host and no query or fragment, such as
// https://survey.provider.test/start.
func ParseEntryURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, fmt.Errorf("entry address %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("entry address %q is not an absolute http or https address", raw)
	case u.Host == "" || u.Opaque != "" || u.User != nil:
		return nil, fmt.Errorf("entry address %q has no host, or has user info", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("entry address %q has a query or fragment; give the address the links start with", raw)
	}
	return u, nil
}

// Under says why link, an address EntryLink accepted, is not under one of
// the entry addresses, wrapping ErrBadEntryLink; nil when it is, or when
// there are none. A link is under an address when it has the same host
// and port (the host in any case; no port is the scheme's), no user info,
// a path that is the address's or goes on below it ("/start" covers
// "/start" and "/start/x", not "/started"), and the same scheme: an http
// link on the host of an https address is not under it, as it would
// travel in plain text, and says so.
func (e EntryURLs) Under(link string) error {
	if len(e) == 0 {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadEntryLink, err)
	}
	plainHTTP := false
	for _, base := range e {
		if u.User != nil || !underPath(u.EscapedPath(), base.EscapedPath()) {
			continue
		}
		if u.Scheme == base.Scheme && sameHost(u, base) {
			return nil
		}
		plainHTTP = plainHTTP || (u.Scheme == "http" && base.Scheme == "https" && strings.EqualFold(u.Hostname(), base.Hostname()))
	}
	if plainHTTP {
		return fmt.Errorf("%w: the link is on plain http, but the provider's entry address is https (%s)", ErrBadEntryLink, e.String())
	}
	return fmt.Errorf("%w: %s is not under the provider's entry address (%s)", ErrBadEntryLink, linkOrigin(u), e.String())
}

// String lists the entry addresses: "https://a/start, https://b/start".
func (e EntryURLs) String() string {
	names := make([]string, len(e))
	for i, u := range e {
		names[i] = u.String()
	}
	return strings.Join(names, ", ")
}

// sameHost compares hosts in any case and ports, a missing port being the
// scheme's default.
func sameHost(u, base *url.URL) bool {
	port := func(v *url.URL) string {
		if p := v.Port(); p != "" {
			return p
		}
		if v.Scheme == "http" {
			return "80"
		}
		return "443"
	}
	return strings.EqualFold(u.Hostname(), base.Hostname()) && port(u) == port(base)
}

// underPath reports whether path is base or below it, segment by segment.
// A path with a dot segment, escaped or not (/start/../admin,
// /start/%2e%2e/admin), is under nothing: a browser resolves it elsewhere.
func underPath(path, base string) bool {
	if unescaped, err := url.PathUnescape(path); err != nil || hasDotSegment(unescaped) {
		return false
	}
	base = strings.TrimSuffix(base, "/")
	return path == base || strings.HasPrefix(path, base+"/") || (base == "" && path == "")
}

// hasDotSegment reports whether path has a "." or ".." segment.
func hasDotSegment(path string) bool {
	for segment := range strings.SplitSeq(path, "/") {
		if segment == "." || segment == ".." {
			return true
		}
	}
	return false
}

// linkOrigin is a link's scheme and host, for a reason: the rest may hold
// the provider's token.
func linkOrigin(u *url.URL) string { return u.Scheme + "://" + u.Host }
