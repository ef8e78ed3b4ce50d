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
		{"link without query gets SAPI and id",
			base, true, "", base + "?SAPI=1&id="},
		{"link with an empty query",
			base + "?", true, "", base + "?SAPI=1&id="},
		{"link without id gets an empty id last",
			base + "?p=tok", false, "", base + "?p=tok&id="},
		{"id not last is moved to the end",
			base + "?id=&p=tok&rType=1", true, "", base + "?p=tok&rType=1&SAPI=1&id="},
		{"an existing SAPI parameter is not duplicated",
			base + "?p=tok&SAPI=1&id=", true, "", base + "?p=tok&SAPI=1&id="},
		{"an existing SAPI in another case and value is set to 1 where it stands",
			base + "?sapi=0&p=tok&id=", true, "", base + "?sapi=1&p=tok&id="},
		{"uppercase scheme HTTP is accepted and kept",
			"HTTP://Entry.Example.com/s?p=tok&id=", true, "", "HTTP://Entry.Example.com/s?p=tok&SAPI=1&id="},
		{"http is accepted",
			"http://entry.example.com:8080/s?p=tok&id=", true, "", "http://entry.example.com:8080/s?p=tok&SAPI=1&id="},
		{"an id value the provider set is kept when no panelist is given",
			base + "?id=abc&p=tok", true, "", base + "?p=tok&SAPI=1&id=abc"},
		{"several id parameters collapse into one",
			base + "?id=&p=tok&id=", true, "7", base + "?p=tok&SAPI=1&id=7"},
		{"empty segments are dropped",
			base + "?p=tok&&rType=2&", true, "", base + "?p=tok&rType=2&SAPI=1&id="},
		{"a fragment stays at the very end",
			base + "?p=tok&id=#top", true, "", base + "?p=tok&SAPI=1&id=#top"},
		{"surrounding spaces are trimmed",
			"  " + base + "?p=tok&id=\n", true, "", base + "?p=tok&SAPI=1&id="},
		{"a parameter named like id but different stays in place",
			base + "?pid=3&ids=x&i=1&d=2&p=tok&id=", false, "", base + "?pid=3&ids=x&i=1&d=2&p=tok&id="},
		{"the id parameter is found whatever its ASCII case: ID= is filled, never added twice",
			base + "?p=tok&ID=", true, "7", base + "?p=tok&SAPI=1&ID=7"},
		{"the provider's spelling of the key is kept and that parameter put last: Id=",
			base + "?Id=&p=tok&rType=1", true, "", base + "?p=tok&rType=1&SAPI=1&Id="},
		{"the provider's spelling of the key is kept byte for byte: an escaped %49D",
			base + "?%49D=&p=tok", false, "P 1/x", base + "?p=tok&%49D=P+1%2Fx"},
		{"several id parameters (any case) collapse into one: the last one's spelling and value",
			base + "?ID=a&p=tok&iD=b", false, "", base + "?p=tok&iD=b"},
		{"several id parameters (any case) collapse into one, filled with the panelist id",
			base + "?ID=x&pid=3&p=tok&id=", true, "7", base + "?pid=3&p=tok&SAPI=1&id=7"},
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
