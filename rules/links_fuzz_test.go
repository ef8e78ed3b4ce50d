package rules

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzEntryLink checks EntryLink's contract on any input: no panic; either
// an error wrapping ErrBadEntryLink and no link, or, for a link whose
// query ended with an empty id and which had no user info, an absolute
// http or https link that parses, keeps the provider's address and
// fragment, has no user info, is the link prepared for nobody filled by
// FillEntryLink (the send path's quick fill), has
// exactly one SAPI parameter set to 1 when the subsample is API compatible
// (and the provider's own parameters otherwise), and ends with the one id
// parameter (in any ASCII case, spelled as the provider's last one, "id"
// when it has none), holding the panelist id when one is given.
func FuzzEntryLink(f *testing.F) {
	const base = "https://entry.example.com/survey/start"
	for _, seed := range []struct {
		raw      string
		api      bool
		panelist string
	}{
		{base + "?p=abc%2Bdef&rType=2&id=", true, ""},
		{base + "?p=abc%2Bdef&rType=2&id=", false, "P 1/x"},
		{base + "?id=&p=tok&rType=1&sapi=0&SAPI=1#top", true, "42"},
		{"HTTP://Entry.Example.com:8080/s?p=tok&&id=abc&id=", true, "p&id=2"},
		{"  http://h/?%69d=1&i%64=2\n", false, "\xff\x00"},
		{base + "?p=%C5%BFAPI&%C5%BFAPI=0&id=", true, "p1"},
		{base + "?p=tok&ID=", true, "7"},
		{base + "?Id=x&p=tok&iD=y&%49d=z&rType=1", false, ""},
		{base + "?%C4%B1d=1&ID&p=tok", true, "P 1/x"},
		{"javascript:alert(1)//?id=", true, "p1"},
		{"JaVaScRiPt:alert(document.cookie)", false, ""},
		{"data:text/html,<script>alert(1)</script>", true, ""},
		{"//entry.example.com/s?p=tok&id=", true, ""},
		{"https:opaque?id=", true, ""},
		{"https://entry.example.com/s?p=a;b&id=", true, ""},
		{"https://entry.example.com/s?p=%zz&id=", true, ""},
		{"https://[::1]:443/s?p=tok#a?b&id=", true, "x"},
		{"https://user:pass@entry.example.com/s?p=tok", true, ""},
		{"https://user@entry.example.com/s?p=tok&id=", true, "P1"},
		{base + "?p=AB#CD&rType=2&id=", true, "P1"},
		{"https://entry.example.com/s/#/start?p=tok&id=", false, "P1"},
		{base + "?p=tok&id=#/start?x=1&id=", true, "P 1/x"},
		{base + "?p=tok&id=#", true, "P1"},
		{base + "?p=tok&id=##id=", false, "#"},
		{base + "?p=tok&id", true, "P1"},
		{"", true, ""},
	} {
		f.Add(seed.raw, seed.api, seed.panelist)
	}
	f.Fuzz(func(t *testing.T, raw string, api bool, panelist string) {
		got, err := EntryLink(raw, api, panelist)
		if err != nil {
			if got != "" || !errors.Is(err, ErrBadEntryLink) {
				t.Fatalf("EntryLink(%q) = %q, %v; want no link and an error wrapping ErrBadEntryLink", raw, got, err)
			}
			return
		}
		in, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			t.Fatalf("EntryLink accepted %q, which does not parse: %v", raw, err)
		}
		if in.User != nil {
			t.Fatalf("EntryLink accepted %q, which has user info", raw)
		}
		if query := strings.TrimRight(in.RawQuery, "&"); !asciiNamed(unescaped(strings.TrimSuffix(query[strings.LastIndexByte(query, '&')+1:], "=")), "id") {
			t.Fatalf("EntryLink accepted %q, whose query does not end with an empty id", raw)
		}
		prepared, err := EntryLink(raw, api, "")
		if err != nil {
			t.Fatalf("EntryLink(%q) for nobody: %v; for %q it gave %q", raw, err, panelist, got)
		}
		if filled, ok := FillEntryLink(prepared, panelist); !ok || filled != got {
			t.Fatalf("FillEntryLink(%q, %q) = %q, %v; EntryLink gives %q", prepared, panelist, filled, ok, got)
		}
		out, err := url.Parse(got)
		if err != nil {
			t.Fatalf("EntryLink(%q) = %q, which does not parse: %v", raw, got, err)
		}
		if lower := strings.ToLower(got); !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
			t.Fatalf("EntryLink(%q) = %q: not an http or https link", raw, got)
		}
		if (out.Scheme != "http" && out.Scheme != "https") || out.Host == "" || out.Opaque != "" {
			t.Fatalf("EntryLink(%q) = %q: scheme %q, host %q; want an absolute http(s) link", raw, got, out.Scheme, out.Host)
		}
		if out.Scheme != in.Scheme || out.Host != in.Host || out.User.String() != in.User.String() ||
			out.EscapedPath() != in.EscapedPath() || out.EscapedFragment() != in.EscapedFragment() {
			t.Errorf("EntryLink(%q) = %q changed the address or fragment", raw, got)
		}
		if _, err := url.ParseQuery(out.RawQuery); err != nil {
			t.Fatalf("EntryLink(%q) = %q: query does not parse: %v", raw, got, err)
		}

		// The provider's last id parameter, in any case, gives the key.
		wantKey := "id"
		for _, p := range strings.Split(in.RawQuery, "&") {
			if k, _, _ := strings.Cut(p, "="); p != "" && asciiNamed(unescaped(k), "id") {
				wantKey = k
			}
		}
		params := strings.Split(out.RawQuery, "&")
		last := params[len(params)-1]
		lastKey, lastValue, hasValue := strings.Cut(last, "=")
		if lastKey != wantKey || !hasValue {
			t.Errorf("EntryLink(%q) = %q: the last parameter is %q, want %s=", raw, got, last, wantKey)
		}
		if panelist != "" && lastValue != url.QueryEscape(panelist) {
			t.Errorf("EntryLink(%q, %q) = %q: the last parameter is %q, want the panelist id", raw, panelist, got, last)
		}
		ids, sapis := 0, 0
		for _, p := range params {
			if p == "" {
				t.Errorf("EntryLink(%q) = %q has an empty parameter", raw, got)
				continue
			}
			rawKey, rawValue, _ := strings.Cut(p, "=")
			key, _ := url.QueryUnescape(rawKey)
			switch {
			case asciiNamed(key, "id"):
				ids++
			case asciiNamed(key, "SAPI"):
				sapis++
				if api && rawValue != "1" {
					t.Errorf("EntryLink(%q) = %q: %s, want SAPI=1", raw, got, p)
				}
			}
		}
		if ids != 1 {
			t.Errorf("EntryLink(%q) = %q has %d id parameters, want 1", raw, got, ids)
		}
		if api && sapis != 1 {
			t.Errorf("EntryLink(%q) of an API-compatible subsample = %q has %d SAPI parameters, want 1 (SAPI=1)", raw, got, sapis)
		}
		if !api {
			// The provider's parameters are kept as they came, id aside.
			var kept []string
			for _, p := range strings.Split(in.RawQuery, "&") {
				if k, _, _ := strings.Cut(p, "="); p != "" && !asciiNamed(unescaped(k), "id") {
					kept = append(kept, p)
				}
			}
			if want := strings.Join(append(kept, last), "&"); out.RawQuery != want {
				t.Errorf("EntryLink(%q) of a subsample not API compatible = %q; want the query %q", raw, got, want)
			}
		}
	})
}

// asciiNamed reports whether a parameter name is name (upper-case ASCII
// letters) in any ASCII case, the only spellings the provider reads: SAPI,
// sapi; ID, id. It folds byte by byte, unlike strings.EqualFold.
func asciiNamed(key, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		c, n := key[i], name[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if 'a' <= n && n <= 'z' {
			n -= 'a' - 'A'
		}
		if c != n {
			return false
		}
	}
	return true
}

func unescaped(s string) string {
	u, _ := url.QueryUnescape(s)
	return u
}

// FuzzEntryLink's SAPI property failed on its long-s seed: strings.EqualFold
// matched "ſapi" as SAPI, so the link kept ſapi=1 and lacked SAPI=1.
func TestEntryLinkSAPIIsSpelledInASCII(t *testing.T) {
	const base = "https://entry.example.com/s"
	got := mustLink(t, base+"?%C5%BFapi=0&p=tok&id=", true, "")
	if want := base + "?%C5%BFapi=0&p=tok&SAPI=1&id="; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
