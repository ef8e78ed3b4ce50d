package rules

import (
	"errors"
	"net/url"
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
			base + "?ID=x&pid=3&p=tok&id=", false, "", base + "?ID=x&pid=3&p=tok&id="},
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
			if q := u.Query(); tt.panelist != "" && q.Get("id") != tt.panelist {
				t.Errorf("id decodes to %q, want %q", q.Get("id"), tt.panelist)
			}
		})
	}
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
