package rules

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrBadEntryLink is wrapped by every error EntryLink returns.
var ErrBadEntryLink = errors.New("not a usable entry link")

// EntryLink prepares a provider entry link for a panelist.
//
// The spec's entry links carry an opaque token p, may carry rType, and end
// with an empty id parameter. EntryLink:
//
//   - accepts only absolute http and https links with a host (the scheme in
//     any case); anything else (javascript:, ftp:, relative, unparsable,
//     a query net/url cannot parse) is an error wrapping ErrBadEntryLink,
//     never a link;
//   - keeps everything but the query byte-for-byte, and keeps every other
//     query parameter in its original order and encoding (the token p may
//     hold escapes such as %2B that must survive exactly); empty segments
//     ("&&") are dropped;
//   - for an API-compatible subsample adds SAPI=1 (spec rule 2) just before
//     id; an existing SAPI parameter (any case) is not duplicated but set to
//     1 where it stands (SAPI in ASCII letters of any case: "ſapi", with a
//     long s, is another parameter); for a subsample that is not API
//     compatible, the parameters are left as the provider sent them;
//   - finds the id parameter whatever its ASCII case (id, ID, Id, iD; not a
//     name that equals id only by Unicode folding), and puts it last, so a
//     router that appends a respondent id still works, adding an empty
//     "id=" when the link has none. The provider's spelling of the key is
//     kept byte for byte ("ID=" stays "ID=", an escaped "%49d=" stays
//     "%49d="); the id is filled, never added a second time. With
//     panelistID non-empty, its value is set to it, escaped with
//     url.QueryEscape ("P 1/x" becomes "P+1%2Fx"); with panelistID empty,
//     it keeps the value the provider gave it (normally empty). Several id
//     parameters, in any case, collapse into one: the last one's spelling
//     and value.
//
// A fragment (#...) stays at the very end, after the query.
func EntryLink(raw string, apiCompatible bool, panelistID string) (string, error) {
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
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return "", fmt.Errorf("%w: query: %w", ErrBadEntryLink, err)
	}

	// Work on the raw text so nothing is re-sorted or re-encoded. url.Parse
	// splits the same way: the fragment first, then the query.
	rest, fragment, hasFragment := strings.Cut(raw, "#")
	base, query, _ := strings.Cut(rest, "?")

	var b strings.Builder
	b.Grow(len(raw) + len("?&SAPI=1&id=") + 3*len(panelistID))
	b.WriteString(base)
	sep := byte('?')
	write := func(param string) {
		b.WriteByte(sep)
		b.WriteString(param)
		sep = '&'
	}

	idKey, idValue, sapiSeen := "id", "", false
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
			idKey, idValue = rawKey, rawValue
		case apiCompatible && isParamName(key, "SAPI"):
			if !sapiSeen {
				write(rawKey + "=1")
			}
			sapiSeen = true
		default:
			write(param)
		}
	}
	if apiCompatible && !sapiSeen {
		write("SAPI=1")
	}
	if panelistID != "" {
		idValue = url.QueryEscape(panelistID)
	}
	write(idKey + "=" + idValue)
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(fragment)
	}
	return b.String(), nil
}

// isParamName reports whether a parameter name (unescaped) is name in any
// ASCII case: "SAPI", "sapi"; "ID", "Id". strings.EqualFold alone would
// also match "ſAPI" (with a long s), which the provider does not read as
// SAPI: the link would then lack SAPI=1. name is ASCII, so a key of the
// same length in bytes that folds to it has only ASCII letters.
func isParamName(key, name string) bool { return len(key) == len(name) && strings.EqualFold(key, name) }
