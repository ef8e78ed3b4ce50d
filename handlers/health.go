package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
)

// HealthJSON is the answer of GET /healthz.
type HealthJSON struct {
	// Status is "ok", "stale" (the data is older than --stale-after) or
	// "unavailable" (the database does not answer). Why the data is stale
	// (the failed refresh, the provider's error) is shown only behind
	// sign-in: the overview and every page's banner.
	Status string `json:"status"`
	// Instance is this instance's lease holder id (host:pid:random).
	Instance      string    `json:"instance"`
	RefreshLease  LeaseJSON `json:"refreshLease"`
	WebhooksLease LeaseJSON `json:"webhooksLease"`
	// Snapshot is the current events snapshot; absent before the first
	// refresh.
	Snapshot *SnapshotJSON `json:"snapshot,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// LeaseJSON says who holds a lease now: Holder is "" when nobody does
// (the refresh lease is held only while a refresh runs).
type LeaseJSON struct {
	HeldHere  bool       `json:"heldHere"`
	Holder    string     `json:"holder"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// SnapshotJSON is the current events snapshot: the refresh run that wrote
// it, when, and how old it is.
type SnapshotJSON struct {
	RunID       int64     `json:"runId"`
	RefreshedAt time.Time `json:"refreshedAt"`
	AgeSeconds  float64   `json:"ageSeconds"`
}

// Health answers GET /healthz, which needs no sign-in, for load
// balancers and monitors: 200 while the database answers, whether the
// data is fresh ("ok") or not ("stale": every instance reads the same
// database, so taking this one out of rotation would not help); 503 when
// it does not ("unavailable"). It also says whether this instance holds
// the refresh and webhooks leases, who does, and the snapshot's age.
func (h *Handler) Health(c echo.Context) error {
	ctx := c.Request().Context()
	out, err := h.health(ctx)
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, HealthJSON{Status: "unavailable", Instance: h.Instance, Error: "the database does not answer"})
	}
	return c.JSON(http.StatusOK, out)
}

func (h *Handler) health(ctx context.Context) (HealthJSON, error) {
	now := h.Now()
	out := HealthJSON{Status: "ok", Instance: h.Instance}
	states, err := h.Store.Datasets(ctx)
	if err != nil {
		return out, err
	}
	if ev := states[store.DatasetEvents]; ev.CurrentRunID != nil && ev.LastSuccessAt != nil {
		out.Snapshot = &SnapshotJSON{RunID: *ev.CurrentRunID, RefreshedAt: *ev.LastSuccessAt, AgeSeconds: now.Sub(*ev.LastSuccessAt).Seconds()}
	}
	if h.SnapshotChecks != nil {
		why, err := h.SnapshotChecks.StaleReason(ctx)
		if err != nil {
			return out, err
		}
		if why != "" {
			out.Status = "stale"
		}
	}
	for name, to := range map[string]*LeaseJSON{store.LeaseRefresh: &out.RefreshLease, store.LeaseWebhooks: &out.WebhooksLease} {
		l, err := h.Store.LeaseOf(ctx, name)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return out, err
		}
		if !l.Free(now) {
			*to = LeaseJSON{HeldHere: l.HeldBy(h.Instance, now), Holder: l.Holder, ExpiresAt: &l.ExpiresAt}
		}
	}
	return out, nil
}
