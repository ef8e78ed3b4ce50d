package web

import (
	"crypto/sha256"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"fieldboard/views"
	"fieldboard/web/auth"
)

// The click limits' defaults, when the Server's fields are 0.
const (
	defaultClicksPerSecond     = 5 // per client address
	defaultClickBurst          = 30
	defaultLinkClicksPerSecond = 1 // per invitation link
	defaultLinkClickBurst      = 10
	defaultAllClicksPerSecond  = 200 // all links, from everyone
	defaultAllClickBurst       = 1000
)

// clickKeyIdle is how long a client address or a link without clicks is
// remembered by its limit.
const clickKeyIdle = time.Minute

// clickLimits bound the clicks on the public invitation links three
// ways: per client address (an IPv6 /64 counting as one, as for
// sign-in), per link, and over all links together, so that neither one
// address nor many addresses rotating on one link, nor many links, fill
// the routing record and the database. A click beyond a limit is answered
// 429 with Retry-After, counted by the limit it met (refused, for /routing
// and /metrics), and goes no further: it is neither decided nor recorded.
type clickLimits struct {
	overall   *rate.Limiter
	addresses *keyedLimits
	links     *keyedLimits
	// observe counts a refusal on /metrics by limit: address, link or
	// overall.
	observe func(limit string)
	refused [3]atomic.Int64 // by limit, in clickLimitNames' order
}

// clickLimitNames are the limits, as /metrics labels them.
var clickLimitNames = [3]string{"address", "link", "overall"}

func newClickLimits(s *Server, observe func(limit string)) *clickLimits {
	or := func(v, d float64) float64 {
		if v <= 0 {
			return d
		}
		return v
	}
	orInt := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	return &clickLimits{
		overall:   rate.NewLimiter(rate.Limit(or(s.AllClicksPerSecond, defaultAllClicksPerSecond)), orInt(s.AllClickBurst, defaultAllClickBurst)),
		addresses: newKeyedLimits(or(s.ClicksPerSecond, defaultClicksPerSecond), orInt(s.ClickBurst, defaultClickBurst)),
		links:     newKeyedLimits(or(s.LinkClicksPerSecond, defaultLinkClicksPerSecond), orInt(s.LinkClickBurst, defaultLinkClickBurst)),
		observe:   observe,
	}
}

// middleware refuses the clicks beyond a limit. The overall limit is
// asked first, so that a flood of addresses or links the other limits
// would have to remember is turned away before they are; its token is
// given back when another limit refuses the click.
func (l *clickLimits) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		now := time.Now() // the limits' own clock: a click's tokens refill in real time
		overall := l.overall.ReserveN(now, 1)
		if !overall.OK() || overall.DelayFrom(now) > 0 {
			overall.CancelAt(now)
			return l.refuse(c, 2)
		}
		if !l.addresses.allow(auth.AddressKey(c.RealIP()), now) {
			overall.CancelAt(now)
			return l.refuse(c, 0)
		}
		if link := sha256.Sum256([]byte(c.Param("token"))); !l.links.allow(string(link[:]), now) {
			overall.CancelAt(now)
			return l.refuse(c, 1)
		}
		return next(c)
	}
}

// refuse answers a click beyond limit i. It is no failure of the
// server's: nothing is logged (the counts say how many).
func (l *clickLimits) refuse(c echo.Context, i int) error {
	l.refused[i].Add(1)
	if l.observe != nil {
		l.observe(clickLimitNames[i])
	}
	message := "Too many requests; try again in a moment."
	if i == 0 {
		message = "Too many requests from your address; try again in a moment."
	}
	c.Response().Header().Set("Retry-After", "1")
	return c.String(http.StatusTooManyRequests, message)
}

// Refused are the clicks refused since the server started, by limit
// (handlers.ClickRefusals).
func (l *clickLimits) Refused() views.RefusedClicks {
	return views.RefusedClicks{Address: l.refused[0].Load(), Link: l.refused[1].Load(), Overall: l.refused[2].Load()}
}

// keyedLimits is a token bucket per key (a client address, a link's
// SHA-256, whatever its length), forgetting a key idle for clickKeyIdle.
type keyedLimits struct {
	limit rate.Limit
	burst int

	mu        sync.Mutex
	buckets   map[string]*keyedBucket
	lastSweep time.Time
}

type keyedBucket struct {
	limiter  *rate.Limiter
	lastSeen time.Time
}

func newKeyedLimits(perSecond float64, burst int) *keyedLimits {
	return &keyedLimits{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*keyedBucket{}}
}

// allow takes a token from key's bucket at now, reporting whether there
// was one.
func (k *keyedLimits) allow(key string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.lastSweep) > clickKeyIdle {
		for key, b := range k.buckets {
			if now.Sub(b.lastSeen) > clickKeyIdle {
				delete(k.buckets, key)
			}
		}
		k.lastSweep = now
	}
	b := k.buckets[key]
	if b == nil {
		b = &keyedBucket{limiter: rate.NewLimiter(k.limit, k.burst)}
		k.buckets[key] = b
	}
	b.lastSeen = now
	return b.limiter.AllowN(now, 1)
}
