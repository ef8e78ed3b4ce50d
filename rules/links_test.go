package rules

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestEntryLink(t *testing.T) {
	const base = "https://entry.example.com/survey/start"
	tests := []struct {
		name     string
		raw      string
		api      bool
		panelist string
		want     string
	}{
		{"SAPI=1 is appended for every API-compatible survey, before the trailing id",
			base + "?p=abc%2Bdef&rType=2&id=", true, "", base + "?p=abc%2Bdef&rType=2&SAPI=1&id="},
		{"not API compatible: no SAPI, the link as the provider sent it",
			base + "?p=abc%2Bdef&rType=2&id=", false, "", base + "?p=abc%2Bdef&rType=2&id="},
		{"panelist id fills the trailing id, query-escaped",
			base + "?p=abc%2Bdef&rType=2&id=", true, "P 1/x", base + "?p=abc%2Bdef&rType=2&SAPI=1&id=P+1%2Fx"},
		{"token p keeps its bytes: no re-encoding or re-sorting",
			base + "?rType=3&p=a%2Fb+c%3D%3D~*&id=", true, "42", base + "?rType=3&p=a%2Fb+c%3D%3D~*&SAPI=1&id=42"},
		{"an existing SAPI parameter is not duplicated",
			base + "?p=tok&SAPI=1&id=", true, "", base + "?p=tok&SAPI=1&id="},
		{"an existing SAPI in another case and value is set to 1 where it stands",
			base + "?sapi=0&p=tok&id=", true, "", base + "?sapi=1&p=tok&id="},
		{"uppercase scheme HTTP is accepted and kept",
			"HTTP://Entry.Example.com/s?p=tok&id=", true, "", "HTTP://Entry.Example.com/s?p=tok&SAPI=1&id="},
		{"http is accepted",
			"http://entry.example.com:8080/s?p=tok&id=", true, "", "http://entry.example.com:8080/s?p=tok&SAPI=1&id="},
		{"several id parameters collapse into one",
			base + "?id=&p=tok&id=", true, "7", base + "?p=tok&SAPI=1&id=7"},
		{"empty segments are dropped",
			base + "?p=tok&&rType=2&id=&", true, "", base + "?p=tok&rType=2&SAPI=1&id="},
		{"an id without = is the empty id",
			base + "?p=tok&id", false, "P1", base + "?p=tok&id=P1"},
		{"the id goes into the query, not into a fragment that also ends in id=",
			base + "?p=tok&id=#/start?x=1&id=", true, "P 1", base + "?p=tok&SAPI=1&id=P+1#/start?x=1&id="},
		{"a fragment stays at the very end",
			base + "?p=tok&id=#top", true, "", base + "?p=tok&SAPI=1&id=#top"},
		{"surrounding spaces are trimmed",
			"  " + base + "?p=tok&id=\n", true, "", base + "?p=tok&SAPI=1&id="},
		{"a parameter named like id but different stays in place",
			base + "?pid=3&ids=x&i=1&d=2&p=tok&id=", false, "", base + "?pid=3&ids=x&i=1&d=2&p=tok&id="},
		{"the id parameter is found whatever its ASCII case: ID= is filled, never added twice",
			base + "?p=tok&ID=", true, "7", base + "?p=tok&SAPI=1&ID=7"},
		{"the provider's spelling of the key is kept: Id=",
			base + "?p=tok&rType=1&Id=", true, "", base + "?p=tok&rType=1&SAPI=1&Id="},
		{"the provider's spelling of the key is kept byte for byte: an escaped %49D",
			base + "?p=tok&%49D=", false, "P 1/x", base + "?p=tok&%49D=P+1%2Fx"},
		{"several empty id parameters (any case) collapse into one, spelled as the last one, filled with the panelist id",
			base + "?ID=&pid=3&p=tok&iD=", true, "7", base + "?pid=3&p=tok&SAPI=1&iD=7"},
		{"a name equal to id only by Unicode folding (dotless ı) is another parameter",
			base + "?%C4%B1d=x&p=tok&ID=", false, "7", base + "?%C4%B1d=x&p=tok&ID=7"},
		{"a name equal to SAPI only by Unicode folding (long s) is another parameter, beside an upper-case ID",
			base + "?%C5%BFAPI=0&p=tok&ID=", true, "7", base + "?%C5%BFAPI=0&p=tok&SAPI=1&ID=7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustLink(t, tt.raw, tt.api, tt.panelist)
			if got != tt.want {
				t.Errorf("EntryLink(%q, %v, %q)\n got %s\nwant %s", tt.raw, tt.api, tt.panelist, got, tt.want)
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			if id, ok := lastID(u.RawQuery); !ok {
				t.Errorf("the last parameter of %s is not id", got)
			} else if tt.panelist != "" && id != tt.panelist {
				t.Errorf("id decodes to %q, want %q", id, tt.panelist)
			}
		})
	}
}

// lastID is the value of the last parameter of a raw query, decoded, and
// whether its name is id in some ASCII case.
func lastID(rawQuery string) (string, bool) {
	params := strings.Split(rawQuery, "&")
	key, value, _ := strings.Cut(params[len(params)-1], "=")
	if !asciiNamed(unescaped(key), "id") {
		return "", false
	}
	return unescaped(value), true
}

func TestEntryLinkRejects(t *testing.T) {
	for _, raw := range []string{
		"javascript:alert(1)//?id=",
		"JavaScript:alert(document.cookie)",
		"ftp://files.example.com/s?p=tok&id=",
		"/survey/start?p=tok&id=",
		"survey/start?p=tok&id=",
		"//entry.example.com/s?p=tok&id=",
		"https:///no-host?p=tok&id=",
		"https:opaque?id=",
		"",
		"https://entry.example.com/s?p=%zz&id=",
		"https://entry.example.com/s?p=a;b&id=",
		"https://entry.example.com/\x00s?id=",
		"data:text/html,<script>alert(1)</script>",
	} {
		t.Run(raw, func(t *testing.T) {
			got, err := EntryLink(raw, true, "p1")
			if err == nil || got != "" {
				t.Fatalf("EntryLink(%q) = %q, %v; want no link and an error", raw, got, err)
			}
			if !errors.Is(err, ErrBadEntryLink) {
				t.Errorf("error %v does not wrap ErrBadEntryLink", err)
			}
		})
	}
}

// TestEntryLinkRefusesWhatTheSpecDoesNotDescribe: the spec's entry links
// "are absolute addresses under {entry_url}. Their query string carries an
// opaque token parameter p, may carry rType, and ends with an empty id
// parameter." A link whose query does not end so is not usable, with the
// reason, whether or not --entry-url is set: the id would go where the
// provider may not read it (a fragment never reaches the provider), and
// the complete could not be credited. User info is refused always.
func TestEntryLinkRefusesWhatTheSpecDoesNotDescribe(t *testing.T) {
	const (
		base       = "https://entry.example.com/survey/start"
		noIDLast   = "its query does not end with the empty id parameter"
		inFragment = "its id= is in the fragment, after #, which never reaches the provider"
	)
	tests := []struct {
		name, raw string
		why       []string // what the error says
	}{
		{"an id= after the # (the token cut at an unescaped #) is in the fragment",
			base + "?p=AB#CD&rType=2&id=", []string{noIDLast, inFragment}},
		{"a hash-routed link carries its whole query in the fragment",
			"https://entry.example.com/s/#/start?p=tok&id=", []string{noIDLast, inFragment}},
		{"a hash-routed link whose fragment starts with the query",
			"https://entry.example.com/s#?p=tok&rType=2&ID=", []string{noIDLast, inFragment}},
		{"a link without query", base, []string{noIDLast}},
		{"a link with an empty query", base + "?", []string{noIDLast}},
		{"a link without id", base + "?p=tok&rType=2", []string{noIDLast}},
		{"an id that is not the last parameter", base + "?id=&p=tok&rType=1", []string{noIDLast}},
		{"an escaped %49D that is not last", base + "?%49D=&p=tok", []string{noIDLast}},
		{"a name equal to id only by Unicode folding (dotless ı) is no id", base + "?p=tok&%C4%B1d=", []string{noIDLast}},
		{"user info before the host", "https://user@entry.example.com/s?p=tok&id=",
			[]string{`the link carries user info before its host "entry.example.com"`}},
		{"user info with a password, which the reason does not repeat", "https://user:secret@entry.example.com/s?p=tok&id=",
			[]string{"the link carries user info"}},
		{"an empty user info", "https://@entry.example.com/s?p=tok&id=", []string{"the link carries user info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, api := range []bool{true, false} {
				for _, panelist := range []string{"", "P1"} {
					got, err := EntryLink(tt.raw, api, panelist)
					if err == nil || got != "" || !errors.Is(err, ErrBadEntryLink) {
						t.Fatalf("EntryLink(%q, %v, %q) = %q, %v; want no link and an error wrapping ErrBadEntryLink", tt.raw, api, panelist, got, err)
					}
					for _, why := range tt.why {
						if !strings.Contains(err.Error(), why) {
							t.Errorf("EntryLink(%q): %v; want it to say %q", tt.raw, err, why)
						}
					}
					if strings.Contains(err.Error(), "secret") {
						t.Errorf("EntryLink(%q): %v repeats the password", tt.raw, err)
					}
				}
			}
		})
	}
}

// TestEntryLinkDoubt: the spec's entry links "are absolute addresses under
// {entry_url}" and end "with an empty id parameter". A link that is not
// (another host, plain http where the address is https, an id that
// already carries a value) is not usable, with the reason; one that is
// stays usable. Without entry addresses, hosts are not checked.
func TestEntryLinkDoubt(t *testing.T) {
	entry := func(raws ...string) EntryURLs {
		var e EntryURLs
		for _, raw := range raws {
			u, err := ParseEntryURL(raw)
			if err != nil {
				t.Fatal(err)
			}
			e = append(e, u)
		}
		return e
	}
	provider := entry("https://survey.provider.test/start")
	tests := []struct {
		name  string
		urls  EntryURLs
		raw   string
		error string // "" when the link is usable
	}{
		{"a link under the provider's entry address is usable",
			provider, "https://survey.provider.test/start?p=tok&id=", ""},
		{"the host is compared in any case, and below the address's path",
			provider, "https://Survey.Provider.TEST/start/nl?p=tok&id=", ""},
		{"a link on another host is not usable: it is not under {entry_url}",
			provider, "https://evil.example.net/start?p=tok&id=",
			"not a usable entry link: https://evil.example.net is not under the provider's entry address (https://survey.provider.test/start)"},
		{"a host that only ends like the provider's is another host",
			provider, "https://evilsurvey.provider.test/start?p=tok&id=", "is not under the provider's entry address"},
		{"user info before the host is refused: the browser goes to the host after the @",
			provider, "https://survey.provider.test@evil.example.net/start?p=tok&id=", `the link carries user info before its host "evil.example.net"`},
		{"a path that climbs out of the address's with a dot segment is not under it",
			provider, "https://survey.provider.test/start/../admin?p=tok&id=", "is not under"},
		{"an escaped dot segment climbs out too",
			provider, "https://survey.provider.test/start/%2e%2e/admin?p=tok&id=", "is not under"},
		{"a dot inside a segment is no dot segment: usable",
			provider, "https://survey.provider.test/start/v1.2/x?p=tok&id=", ""},
		{"a path beside the address's is not under it",
			provider, "https://survey.provider.test/started?p=tok&id=", "is not under"},
		{"another port is another address",
			provider, "https://survey.provider.test:8443/start?p=tok&id=", "is not under"},
		{"an http link on the right host is not usable where the address is https",
			provider, "http://survey.provider.test/start?p=tok&id=",
			"not a usable entry link: the link is on plain http, but the provider's entry address is https"},
		{"several entry addresses: a link under any of them is usable",
			entry("https://survey.provider.test/start", "https://entry.other-host.test/"), "https://entry.other-host.test/s?p=tok&id=", ""},
		{"an http entry address takes http links of its host",
			entry("http://127.0.0.1:9090/entry"), "http://127.0.0.1:9090/entry?p=tok&id=", ""},
		{"no entry address: hosts are not checked (and every place says so)",
			nil, "https://evil.example.net/start?p=tok&id=", ""},
		{"debatable, decided: an id that already carries a value is not usable, never silently replaced",
			nil, "https://survey.provider.test/start?p=tok&id=abc", `its id parameter already carries a value ("abc")`},
		{"debatable, decided: several id parameters, one with a value, are not usable",
			nil, "https://survey.provider.test/start?ID=x&p=tok&id=", `its id parameter already carries a value ("x")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link, err := EntryLink(tt.raw, true, "P1")
			if err == nil {
				err = tt.urls.Under(link)
			}
			switch {
			case tt.error == "" && err != nil:
				t.Fatalf("link %q: %v; want it usable", tt.raw, err)
			case tt.error != "" && (err == nil || !strings.Contains(err.Error(), tt.error) || !errors.Is(err, ErrBadEntryLink)):
				t.Fatalf("link %q: %v; want an error wrapping ErrBadEntryLink saying %q", tt.raw, err, tt.error)
			}
		})
	}
}

func TestParseEntryURL(t *testing.T) {
	for _, raw := range []string{"survey.provider.test/start", "ftp://survey.provider.test/", "https:///start",
		"https://survey.provider.test/start?p=1", "https://u:p@survey.provider.test/", "https://survey.provider.test/#x"} {
		if u, err := ParseEntryURL(raw); err == nil {
			t.Errorf("ParseEntryURL(%q) = %v; want an error", raw, u)
		}
	}
	if u, err := ParseEntryURL(" https://survey.provider.test/start "); err != nil || u.Host != "survey.provider.test" {
		t.Errorf("ParseEntryURL of a good address: %v, %v", u, err)
	}
}
