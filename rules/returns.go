package rules

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"net/url"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// ReturnStatuses are the statuses a respondent may be returned with, by
// the name their return address carries (/return/{name}), each a
// respondent return code (the spec's "Respondent return codes").
var ReturnStatuses = map[string]int64{
	"complete":  domain.ReturnComplete,
	"screenout": domain.ReturnScreenOut,
	"quotafull": domain.ReturnQuotaFull,
}

// ReturnStatusName is the name of a return address's status, "" for a
// status no return address carries.
func ReturnStatusName(statusID int64) string {
	for name, id := range ReturnStatuses {
		if id == statusID {
			return name
		}
	}
	return ""
}

// ReturnSignature is how the provider signs the return addresses
// (--return-secret): an HMAC, with Alg ("sha256", "sha1" or "sha512"), of
// the address's path and query as received without the Param parameter
// ("/return/screenout?id=P1"), in hex, as the value of Param. Scheme and
// host are left out so that a proxy in front of Fieldboard changes
// nothing. The zero value (no Secret) checks nothing.
type ReturnSignature struct {
	Secret []byte
	Param  string // default "sig"
	Alg    string // default "sha256"
}

// ReturnSignatureAlgs are the hashes a return signature may use.
var ReturnSignatureAlgs = map[string]func() hash.Hash{"sha256": sha256.New, "sha1": sha1.New, "sha512": sha512.New}

// Validate says what is wrong with the signature's settings, nil when
// nothing is.
func (s ReturnSignature) Validate() error {
	if _, ok := ReturnSignatureAlgs[s.alg()]; !ok {
		return fmt.Errorf("return signature algorithm %q is not one of sha256, sha1, sha512", s.Alg)
	}
	if p := s.param(); strings.ContainsAny(p, "&=?#% ") {
		return fmt.Errorf("return signature parameter %q must be a plain name", p)
	}
	return nil
}

func (s ReturnSignature) alg() string {
	if s.Alg == "" {
		return "sha256"
	}
	return strings.ToLower(s.Alg)
}

func (s ReturnSignature) param() string {
	if s.Param == "" {
		return "sig"
	}
	return s.Param
}

// Sign is the address (path and query) with its signature appended, as
// the provider sends it.
func (s ReturnSignature) Sign(address string) string {
	sep := "?"
	if strings.Contains(address, "?") {
		sep = "&"
	}
	return address + sep + s.param() + "=" + s.mac(address)
}

func (s ReturnSignature) mac(address string) string {
	m := hmac.New(ReturnSignatureAlgs[s.alg()], s.Secret)
	m.Write([]byte(address))
	return hex.EncodeToString(m.Sum(nil))
}

// Check says why the return address (path and raw query as received)
// is not signed as s says, "" when it is or when s has no secret. The
// signature is the last parameter of the query; the address without it
// is what was signed, so any parameter added or changed after signing,
// the id above all, fails it.
func (s ReturnSignature) Check(address string) string {
	if len(s.Secret) == 0 {
		return ""
	}
	path, query, _ := strings.Cut(address, "?")
	param := s.param() + "="
	i := strings.LastIndex("&"+query, "&"+param)
	if i < 0 {
		return "The return is not signed."
	}
	got := query[i+len(param):]
	signed := path
	if rest := strings.TrimSuffix(query[:i], "&"); rest != "" {
		signed += "?" + rest
	}
	if strings.Contains(got, "&") {
		return "The return's signature is not the last parameter of its address."
	}
	if got, err := url.QueryUnescape(got); err != nil || !hmac.Equal([]byte(strings.ToLower(got)), []byte(s.mac(signed))) {
		return "The return's signature does not match its address."
	}
	return ""
}

// TooFast says whether a complete returned after took was too quick to
// be believed: sooner than share of the survey's expected length (loi,
// in minutes). An unknown length (nil, or not above 0) or share
// (not above 0) flags nothing: no doubt without a figure to doubt by.
func TooFast(took time.Duration, loi *float64, share float64) bool {
	if loi == nil || !(*loi > 0) || !(share > 0) || *loi > domain.MaxLOIMinutes {
		return false
	}
	return took.Minutes() < *loi*share
}
