package rules_test

import (
	"testing"
	"time"

	"fieldboard/rules"
)

// TestReturnSignature: a return address is believed only as signed: the
// HMAC of its path and query without the signature, the signature last;
// anything changed after signing, the id above all, fails it. Without a
// secret nothing is checked.
func TestReturnSignature(t *testing.T) {
	sig := rules.ReturnSignature{Secret: []byte("k")}
	signed := sig.Sign("/return/screenout?id=P1")
	for _, tt := range []struct {
		name, address string
		ok            bool
	}{
		{"as signed", signed, true},
		{"the hex in capitals", signed[:len(signed)-64] + upper(signed[len(signed)-64:]), true},
		{"unsigned", "/return/screenout?id=P1", false},
		{"another id under the signature", "/return/screenout?id=P2" + signed[len("/return/screenout?id=P1"):], false},
		{"another status under the signature", "/return/complete?id=P1" + signed[len("/return/screenout?id=P1"):], false},
		{"a parameter after the signature", signed + "&x=1", false},
		{"the signature emptied", "/return/screenout?id=P1&sig=", false},
		{"a bad escape in the signature", "/return/screenout?id=P1&sig=%zz", false},
		{"signed with another hash", rules.ReturnSignature{Secret: []byte("k"), Alg: "sha1"}.Sign("/return/screenout?id=P1"), false},
	} {
		if got := sig.Check(tt.address); (got == "") != tt.ok {
			t.Errorf("%s (%s): %q; want ok %v", tt.name, tt.address, got, tt.ok)
		}
	}
	if got := (rules.ReturnSignature{}).Check("/return/screenout?id=P1"); got != "" {
		t.Errorf("no secret: %q; want nothing checked", got)
	}
	noQuery := sig.Sign("/return/complete")
	if got := sig.Check(noQuery); got != "" || noQuery[:len("/return/complete?sig=")] != "/return/complete?sig=" {
		t.Errorf("an address without a query: %q signed as %q", got, noQuery)
	}
	for _, bad := range []rules.ReturnSignature{{Alg: "md5"}, {Param: "a&b"}} {
		if bad.Validate() == nil {
			t.Errorf("%+v is valid; want an error", bad)
		}
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestTooFast: a complete sooner than the share of the survey's expected
// length (the spec's expectedClientLoi, in minutes) is doubted; at the
// share exactly it is not; without a length or a share nothing is.
func TestTooFast(t *testing.T) {
	loi := func(m float64) *float64 { return &m }
	for _, tt := range []struct {
		name  string
		took  time.Duration
		loi   *float64
		share float64
		want  bool
	}{
		{"a 20-minute survey done in 5 minutes, at a share of 0.3", 5 * time.Minute, loi(20), 0.3, true},
		{"done in 6 minutes exactly: not sooner than the share", 6 * time.Minute, loi(20), 0.3, false},
		{"a second under the share", 6*time.Minute - time.Second, loi(20), 0.3, true},
		{"no expected length", time.Second, nil, 0.3, false},
		{"an expected length of 0", time.Second, loi(0), 0.3, false},
		{"no share", time.Second, loi(20), 0, false},
	} {
		if got := rules.TooFast(tt.took, tt.loi, tt.share); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
