package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// NewSubscription checks what a coordinator asks for and returns the
// subscription to store, with a new secret: url through the guard, events
// a comma-separated list of change kinds ("" for all), country a country
// code ("" for all).
func NewSubscription(ctx context.Context, guard Guard, url, events, country string, now time.Time) (store.WebhookSubscription, error) {
	sub := store.WebhookSubscription{URL: strings.TrimSpace(url), Secret: NewSecret(), CreatedAt: now}
	if err := guard.CheckURL(ctx, sub.URL); err != nil {
		return sub, fmt.Errorf("the URL: %w", err)
	}
	for _, k := range strings.Split(events, ",") {
		kind := domain.ChangeKind(strings.TrimSpace(k))
		if kind == "" || slices.Contains(sub.Events, kind) {
			continue
		}
		if !slices.Contains(domain.ChangeKinds, kind) {
			names := make([]string, len(domain.ChangeKinds))
			for i, k := range domain.ChangeKinds {
				names[i] = string(k)
			}
			return sub, fmt.Errorf("event kind %q is none of %s", kind, strings.Join(names, ", "))
		}
		sub.Events = append(sub.Events, kind)
	}
	if strings.TrimSpace(country) != "" {
		c, err := domain.ParseCountry(country)
		if err != nil {
			return sub, fmt.Errorf("country: %w", err)
		}
		sub.Country = c
	}
	return sub, nil
}

// NewTestMessageID is the webhook-id of a test event: test_ and 16
// random hex digits.
func NewTestMessageID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "test_" + hex.EncodeToString(b)
}
