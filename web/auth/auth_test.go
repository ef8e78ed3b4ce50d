package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/views"
)

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/live?sort=cpi", "/live?sort=cpi"},
		{"", "/"},
		{"https://evil.example/", "/"},
		{"//evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"/live\r\nSet-Cookie: x=1", "/"},
		{"live", "/"},
	}
	for _, tt := range tests {
		if got := SafeNext(tt.in); got != tt.want {
			t.Errorf("SafeNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// openStore opens the database target names, closed when the test ends.
func openStore(t *testing.T, target string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLimitWait(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	recent := []time.Time{t0, t0.Add(10 * time.Second), t0.Add(30 * time.Second)}
	for _, tt := range []struct {
		failures, max int
		want          time.Duration
	}{
		{0, 2, 0}, {1, 2, 0},
		{2, 2, failureWindow - 20*time.Second}, // until the first leaves the window
		{3, 2, failureWindow - 10*time.Second}, // a failure counted past the limit: until the second leaves
	} {
		if got := limitWait(recent[:tt.failures], tt.max, t0.Add(20*time.Second)); got != tt.want {
			t.Errorf("%d failures of %d allowed: wait %v, want %v", tt.failures, tt.max, got, tt.want)
		}
	}
}

// addUsers adds users with password's hash at bcrypt's lowest cost: a
// wrong password for them is checked quicker than for an unknown name,
// which is compared with a hash of the default cost.
func addUsers(t *testing.T, st *store.Store, password string, names ...string) {
	t.Helper()
	hash, _ := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	for _, name := range names {
		if err := st.AddUser(context.Background(), name, store.RoleAdmin, string(hash), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSignInLimitsHoldOnEveryInstance: two instances on one database
// (two Auths, each on a store of its own, as two processes have): a name
// locked through one is locked through the other, for the address that
// locked it, and the address's failures count on both.
func TestSignInLimitsHoldOnEveryInstance(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		target := d.Target(t)
		one, other := openStore(t, target), openStore(t, target)
		const password = "a long enough secret"
		addUsers(t, one, password, "maria")
		for i := failuresPerUser; i < failuresPerAddress; i++ {
			addUsers(t, one, password, fmt.Sprintf("user%d", i))
		}
		now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		a, b := New(one, Options{Now: clock}), New(other, Options{Now: clock})
		try := func(through *Auth, name, password, address string) error {
			now = now.Add(time.Second)
			_, err := through.SignIn(ctx, httptest.NewRequest("POST", "/login", nil), name, password, address)
			return err
		}
		const guesser = "192.0.2.66"
		for i := range failuresPerUser {
			if err := try(a, "maria", "guess guess guess", guesser); !errors.Is(err, ErrBadCredentials) {
				t.Fatalf("guess %d through a: %v, want wrong credentials", i+1, err)
			}
		}
		var limited *RateLimitedError
		if err := try(b, "maria", password, guesser); !errors.As(err, &limited) {
			t.Errorf("the right password through b from the address that locked the name through a: %v, want refused", err)
		}
		for i := failuresPerUser; i < failuresPerAddress; i++ {
			if err := try(b, fmt.Sprintf("user%d", i), "guess guess guess", guesser); !errors.Is(err, ErrBadCredentials) {
				t.Fatalf("guess %d through b: %v, want wrong credentials", i+1, err)
			}
		}
		if err := try(a, "someone", "guess guess guess", guesser); !errors.As(err, &limited) {
			t.Errorf("a guess through a after %d failures from the address on a and b: %v, want refused", failuresPerAddress, err)
		}
		if err := try(b, "maria", password, "198.51.100.7"); err != nil {
			t.Errorf("the right password through b from an address without failures: %v, want signed in", err)
		}
	})
}

func TestAddressKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7": "192.0.2.7", "2001:db8:1:2:aaaa::1": "2001:db8:1:2::/64", "2001:db8:1:2:bbbb::9": "2001:db8:1:2::/64",
		"::ffff:192.0.2.7": "::ffff:192.0.2.7", "not an address": "not an address",
	} {
		if got := AddressKey(in); got != want {
			t.Errorf("AddressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParallelSignInsAreLimited sends many wrong passwords at once: no more
// than the limit may be checked, however the attempts interleave.
func TestParallelSignInsAreLimited(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { parallelSignIns(t, openStore(t, d.Target(t))) })
}

func parallelSignIns(t *testing.T, st *store.Store) {
	ctx := context.Background()
	addUsers(t, st, "a long enough secret", "maria")
	for i := 1; i < 60; i += 2 {
		addUsers(t, st, "a long enough secret", "nobody"+strconv.Itoa(i))
	}
	a := New(st, Options{})
	var mu sync.Mutex
	checked := map[string]int{}
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "maria"
			if i%2 == 1 {
				name = "nobody" + strconv.Itoa(i) // many names from one address
			}
			_, err := a.SignIn(ctx, httptest.NewRequest("POST", "/login", nil), name, "wrong guess!!", "192.0.2.7")
			if errors.Is(err, ErrBadCredentials) {
				mu.Lock()
				checked[name[:5]]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if checked["maria"] > failuresPerUser || checked["maria"]+checked["nobod"] > failuresPerAddress {
		t.Errorf("checked %v in parallel; want at most %d for the user and %d from the address", checked, failuresPerUser, failuresPerAddress)
	}
}

func TestSessionsExpire(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hash, _ := bcrypt.GenerateFromPassword([]byte("a long enough secret"), bcrypt.MinCost)
	if err := st.AddUser(ctx, "maria", store.RoleAdmin, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	a := New(st, Options{SessionTTL: time.Hour, Now: func() time.Time { return now }})
	req := httptest.NewRequest("POST", "/login", nil)
	cookie, err := a.SignIn(ctx, req, "maria", "a long enough secret", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	seen := func() string {
		e := echo.New()
		r := httptest.NewRequest("GET", "/live.csv", nil)
		r.AddCookie(cookie)
		var who string
		err := a.Middleware(func(c echo.Context) error {
			who = views.ViewerOf(c.Request().Context()).Name
			return nil
		})(e.NewContext(r, httptest.NewRecorder()))
		if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusUnauthorized {
			return "refused"
		}
		return who
	}
	if got := seen(); got != "maria" {
		t.Fatalf("a fresh session is seen as %q", got)
	}
	now = now.Add(59 * time.Minute)
	if got := seen(); got != "maria" {
		t.Errorf("a session 59 minutes old (TTL 1h) is seen as %q", got)
	}
	now = now.Add(time.Minute)
	if got := seen(); got != "refused" {
		t.Errorf("an expired session is seen as %q, want refused", got)
	}
	// A new password ends every session.
	now = now.Add(-30 * time.Minute)
	if err := st.SetPassword(ctx, "maria", string(hash), now); err != nil {
		t.Fatal(err)
	}
	if got := seen(); got != "refused" {
		t.Errorf("after a password change the old session is seen as %q, want refused", got)
	}
}

func TestCookieIsSecureOverTLSOrWhenAsked(t *testing.T) {
	plain := httptest.NewRequest("POST", "/login", nil)
	tls := httptest.NewRequest("POST", "https://fieldboard.example/login", nil)
	tests := []struct {
		name   string
		opts   Options
		req    *http.Request
		secure bool
	}{
		{"plain HTTP", Options{}, plain, false},
		{"over TLS", Options{}, tls, true},
		{"behind a TLS proxy (--secure-cookies)", Options{SecureCookies: true}, plain, true},
	}
	for _, tt := range tests {
		c := (&Auth{opts: tt.opts}).cookie(tt.req, "secret", time.Now().Add(time.Hour))
		if c.Secure != tt.secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
			t.Errorf("%s: cookie Secure %v HttpOnly %v SameSite %v; want Secure %v, HttpOnly, Lax", tt.name, c.Secure, c.HttpOnly, c.SameSite, tt.secure)
		}
	}
}

// TestLockedNameLetsTheRightPasswordInFromElsewhere: five failures lock a
// name for the addresses that failed, not for everyone: the rightful user
// signs in from an address without failures, while the guesser stays
// locked out; an attempt through the lock counts like any other.
func TestLockedNameLetsTheRightPasswordInFromElsewhere(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		lockedNameLetsTheRightPasswordIn(t, openStore(t, d.Target(t)))
	})
}

func lockedNameLetsTheRightPasswordIn(t *testing.T, st *store.Store) {
	ctx := context.Background()
	const password = "a long enough secret"
	hash, _ := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err := st.AddUser(ctx, "maria", store.RoleAdmin, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	addUsers(t, st, "another long secret", "jo")
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	a := New(st, Options{Now: func() time.Time { return now }})
	try := func(name, password, address string) error {
		now = now.Add(time.Second)
		_, err := a.SignIn(ctx, httptest.NewRequest("POST", "/login", nil), name, password, address)
		return err
	}
	var limited *RateLimitedError
	const guesser, maria, typist = "192.0.2.66", "198.51.100.7", "203.0.113.5"
	for i := range failuresPerUser {
		if err := try("maria", "guess guess guess", guesser); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("guess %d: %v, want wrong credentials", i+1, err)
		}
	}
	if err := try("Maria", password, guesser); !errors.As(err, &limited) {
		t.Errorf("the right password from the address that locked the name: %v, want refused", err)
	}
	if err := try("maria", password, maria); err != nil {
		t.Errorf("the right password from an address without failures: %v, want signed in", err)
	}
	if err := try("maria", "guess guess guess", guesser); !errors.As(err, &limited) {
		t.Errorf("a guess after the user signed in elsewhere: %v, want still refused", err)
	}
	if err := try("maria", "typo typo typo", typist); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("a wrong password from an address without failures: %v, want checked and wrong", err)
	}
	if err := try("maria", password, typist); !errors.As(err, &limited) {
		t.Errorf("the right password from an address that just failed on the locked name: %v, want refused (its failure counted)", err)
	}
	if err := try("maria", password, maria); err != nil {
		t.Errorf("the right password again from the address that signed in: %v, want signed in", err)
	}

	// IPv6: an address of the guesser's /64 is the guesser's.
	for range failuresPerUser {
		try("jo", "guess guess guess", "2001:db8:7:7::1")
	}
	if err := try("maria", password, "2001:db8:7:7::abcd"); !errors.As(err, &limited) {
		t.Errorf("the right password from the guesser's /64: %v, want refused", err)
	}
	if err := try("maria", password, "2001:db8:7:8::1"); err != nil {
		t.Errorf("the right password from another /64: %v, want signed in", err)
	}

	// The lock ends with the window.
	now = now.Add(failureWindow)
	if err := try("maria", password, guesser); err != nil {
		t.Errorf("the right password from the guesser's address a window later: %v, want signed in", err)
	}
}

// TestNamesThatCannotBeUsersAreWrongCredentials: a sign-in whose name
// could never be a user's (too long for the database's index, bytes that
// are not UTF-8, a NUL) is a wrong user name or password, counted against
// the address, never a server error: on PostgreSQL such a name cannot
// even be looked up.
func TestNamesThatCannotBeUsersAreWrongCredentials(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		st := openStore(t, d.Target(t))
		now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
		a := New(st, Options{Now: func() time.Time { now = now.Add(time.Second); return now }})
		var long strings.Builder // 16 KiB that compress poorly: PostgreSQL indexes 2,704 bytes at most
		for h := sha256.Sum256([]byte("maria")); long.Len() < 16<<10; h = sha256.Sum256(h[:]) {
			long.WriteString(base64.RawURLEncoding.EncodeToString(h[:]))
		}
		for _, name := range []string{long.String(), "mar\xffia", "mar\x00ia", strings.Repeat("é", 40)} {
			_, err := a.SignIn(ctx, httptest.NewRequest("POST", "/login", nil), name, "a long enough secret", "192.0.2.9")
			if !errors.Is(err, ErrBadCredentials) {
				t.Errorf("sign-in as %.20q...: %v, want wrong credentials", name, err)
			}
		}
	})
}
