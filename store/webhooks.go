package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// WebhookSubscription is an address the change feed is posted to.
type WebhookSubscription struct {
	ID  int64  `db:"subscription_id"`
	URL string `db:"url"`
	// Secret signs the deliveries (whsec_ and base64). It is read only by
	// ClaimDeliveries, for the sender; Webhooks and Webhook leave it empty,
	// so that no page or listing can show it after creation.
	Secret string `db:"secret"`
	// Events are the kinds of change sent; none means all. Country, when
	// set, keeps the changes of that country's subsamples only.
	Events     []domain.ChangeKind `db:"-"`
	Country    string              `db:"country"`
	CreatedAt  time.Time           `db:"created_at"`
	DisabledAt *time.Time          `db:"disabled_at"`
	// DisabledReason says why the subscription was disabled (a 410 Gone).
	DisabledReason string `db:"disabled_reason"`
}

// The statuses of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one event queued for one subscription.
type WebhookDelivery struct {
	ID             int64 `db:"delivery_id"`
	SubscriptionID int64 `db:"subscription_id"`
	// Kind is the change's kind, or webhook.test; MessageID the
	// webhook-id header, the same on every attempt.
	Kind           string     `db:"kind"`
	MessageID      string     `db:"message_id"`
	CreatedAt      time.Time  `db:"created_at"`
	Status         string     `db:"status"`
	Attempts       int        `db:"attempts"`
	NextAttemptAt  time.Time  `db:"next_attempt_at"`
	LastAttemptAt  *time.Time `db:"last_attempt_at"`
	LastStatusCode int        `db:"last_status_code"` // 0 when no answer came
	LastError      string     `db:"last_error"`
}

// DueDelivery is a delivery claimed for sending, with what sending needs:
// the subscription's address and secret and, for a change, the change
// (ChangeID 0 for a test event).
type DueDelivery struct {
	WebhookDelivery
	URL    string `db:"url"`
	Secret string `db:"secret"`
	Change domain.Change
}

// subscriptionColumns are the columns of a WebhookSubscription but its
// secret.
const subscriptionColumns = `subscription_id, url, events, country, created_at, disabled_at, disabled_reason`

type subscriptionRow struct {
	WebhookSubscription
	Events string `db:"events"`
}

func (r subscriptionRow) subscription() WebhookSubscription {
	s := r.WebhookSubscription
	for _, k := range strings.Split(r.Events, ",") {
		if k != "" {
			s.Events = append(s.Events, domain.ChangeKind(k))
		}
	}
	return s
}

// AddWebhook stores a subscription (its ID and the disabled fields are
// ignored) and returns its id.
func (s *Store) AddWebhook(ctx context.Context, sub WebhookSubscription) (int64, error) {
	events := make([]string, len(sub.Events))
	for i, k := range sub.Events {
		events[i] = string(k)
	}
	var id int64
	err := s.writer.GetContext(ctx, &id, `INSERT INTO webhook_subscriptions (url, secret, events, country, created_at) VALUES (?, ?, ?, ?, ?)
		RETURNING subscription_id`, sub.URL, sub.Secret, strings.Join(events, ","), sub.Country, sub.CreatedAt.UTC())
	if err != nil {
		return 0, fmt.Errorf("add a webhook: %w", err) // not its URL, which may carry a token
	}
	return id, nil
}

// Webhooks are the subscriptions, oldest first, without their secrets.
func (s *Store) Webhooks(ctx context.Context) ([]WebhookSubscription, error) {
	var rows []subscriptionRow
	if err := s.reader.SelectContext(ctx, &rows, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions ORDER BY subscription_id`); err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	out := make([]WebhookSubscription, len(rows))
	for i, r := range rows {
		out[i] = r.subscription()
	}
	return out, nil
}

// Webhook is subscription id, without its secret, or ErrNotFound.
func (s *Store) Webhook(ctx context.Context, id int64) (WebhookSubscription, error) {
	var row subscriptionRow
	if err := s.reader.GetContext(ctx, &row, `SELECT `+subscriptionColumns+` FROM webhook_subscriptions WHERE subscription_id = ?`, id); err != nil {
		return WebhookSubscription{}, fmt.Errorf("webhook %d: %w", id, notFound(err))
	}
	return row.subscription(), nil
}

// RemoveWebhook deletes subscription id and its deliveries, or says
// ErrNotFound.
func (s *Store) RemoveWebhook(ctx context.Context, id int64) error {
	res, err := s.writer.ExecContext(ctx, `DELETE FROM webhook_subscriptions WHERE subscription_id = ?`, id)
	if err != nil {
		return fmt.Errorf("remove webhook %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("remove webhook %d: %w", id, ErrNotFound)
	}
	return nil
}

// ErrWebhookDisabled refuses an event for a disabled subscription (it
// answered 410 Gone): nothing is sent to it, so the event would wait
// forever.
var ErrWebhookDisabled = errors.New("the subscription is disabled")

// QueueWebhookTest queues a webhook.test event for subscription id, due
// at now, with messageID as its webhook-id; ErrNotFound when there is no
// such subscription, ErrWebhookDisabled, with why, when it is disabled.
func (s *Store) QueueWebhookTest(ctx context.Context, id int64, messageID string, now time.Time) (int64, error) {
	var deliveryID int64
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		// The write that changes nothing locks the subscription's row on
		// PostgreSQL, so that a 410 recorded meanwhile either comes first,
		// and the test is refused, or waits and then fails it with the
		// subscription's other pending deliveries (RecordDeliveryAttempt).
		var sub struct {
			Disabled bool   `db:"disabled"`
			Reason   string `db:"disabled_reason"`
		}
		if err := tx.GetContext(ctx, &sub, `UPDATE webhook_subscriptions SET disabled_at = disabled_at WHERE subscription_id = ?
			RETURNING disabled_at IS NOT NULL AS disabled, disabled_reason`, id); err != nil {
			return notFound(err)
		}
		if sub.Disabled {
			return fmt.Errorf("%w: %s", ErrWebhookDisabled, sub.Reason)
		}
		return tx.GetContext(ctx, &deliveryID, `INSERT INTO webhook_deliveries (subscription_id, kind, message_id, created_at, next_attempt_at)
			VALUES (?, ?, ?, ?, ?) RETURNING delivery_id`, id, domain.WebhookTest, messageID, now.UTC(), now.UTC())
	})
	if err != nil {
		return 0, fmt.Errorf("queue a test event for webhook %d: %w", id, err)
	}
	return deliveryID, nil
}

// queueDeliveries queues, in the snapshot's transaction, a delivery of
// each change after change id since to each enabled subscription that
// wants it (its kinds and country), due at once. The webhook-id of a
// change is chg_ and its id, as the feed's API numbers it.
func queueDeliveries(ctx context.Context, tx *sqlx.Tx, d dialect, since int64) error {
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO webhook_deliveries (subscription_id, change_id, kind, message_id, created_at, next_attempt_at)
		SELECT s.subscription_id, c.change_id, c.kind, 'chg_' || c.change_id, c.at, c.at
		FROM changes c JOIN webhook_subscriptions s ON s.disabled_at IS NULL
			AND (s.events = '' OR `+d.findText(`',' || s.events || ','`, `',' || c.kind || ','`)+` > 0)
			AND (s.country = '' OR s.country = c.country)
		WHERE c.change_id > ?
		ORDER BY c.change_id, s.subscription_id`, since); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}

// DueWebhooks are the enabled subscriptions with a pending delivery due
// at now, the one due the longest first: the worker sends each one's
// deliveries apart from the others' (ClaimDeliveryOf).
func (s *Store) DueWebhooks(ctx context.Context, now time.Time) ([]int64, error) {
	var ids []int64
	if err := s.reader.SelectContext(ctx, &ids, `
		SELECT d.subscription_id FROM webhook_deliveries d JOIN webhook_subscriptions s USING (subscription_id)
		WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND s.disabled_at IS NULL
		GROUP BY d.subscription_id ORDER BY MIN(d.next_attempt_at), d.subscription_id`, now.UTC()); err != nil {
		return nil, fmt.Errorf("webhooks with a delivery due: %w", err)
	}
	return ids, nil
}

// ClaimDeliveries returns up to limit pending deliveries due at now, of
// enabled subscriptions, the longest due first, and moves each one's next
// attempt to now+lease, so that no other worker claims it meanwhile and,
// if this one dies before recording the outcome, it is sent again after
// the lease (at least once).
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]DueDelivery, error) {
	out, err := s.claimDeliveries(ctx, now, lease, limit, "")
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	return out, nil
}

// ClaimDeliveryOf is the delivery of subscription id due at now the
// longest, claimed as ClaimDeliveries claims, or ErrNotFound when none is
// due (or the subscription is disabled).
func (s *Store) ClaimDeliveryOf(ctx context.Context, id int64, now time.Time, lease time.Duration) (DueDelivery, error) {
	out, err := s.claimDeliveries(ctx, now, lease, 1, " AND d.subscription_id = ?", id)
	if err == nil && len(out) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return DueDelivery{}, fmt.Errorf("claim a delivery of webhook %d: %w", id, err)
	}
	return out[0], nil
}

// claimDeliveries is ClaimDeliveries of the deliveries that also meet
// and, a condition on d (the delivery) with its arguments.
func (s *Store) claimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, and string, args ...any) ([]DueDelivery, error) {
	var out []DueDelivery
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		var rows []struct {
			WebhookDelivery
			URL    string `db:"url"`
			Secret string `db:"secret"`
			domain.Change
			// ChangeAt is the change's time, nil for a test event (a
			// COALESCE would lose the column's type, which the driver
			// reads times by).
			ChangeAt *time.Time `db:"change_at"`
		}
		if err := tx.SelectContext(ctx, &rows, `
			SELECT d.delivery_id, d.subscription_id, d.kind, d.message_id, d.created_at, d.status, d.attempts, d.next_attempt_at,
				d.last_attempt_at, d.last_status_code, d.last_error, s.url, s.secret,
				COALESCE(c.change_id, 0) AS change_id, c.at AS change_at,
				COALESCE(c.subsample_id, 0) AS subsample_id, COALESCE(c.event_id, 0) AS event_id, COALESCE(c.country, '') AS country,
				COALESCE(c.quota_id, '') AS quota_id, COALESCE(c.before_value, '') AS before_value, COALESCE(c.after_value, '') AS after_value
			FROM webhook_deliveries d JOIN webhook_subscriptions s USING (subscription_id)
			LEFT JOIN changes c ON c.change_id = d.change_id
			WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND s.disabled_at IS NULL`+and+`
			ORDER BY d.next_attempt_at, d.delivery_id LIMIT ?`+s.dialect.lockRows("d"), append(append([]any{now.UTC()}, args...), limit)...); err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE delivery_id = ?`, now.Add(lease).UTC(), r.ID); err != nil {
				return err
			}
			r.Change.Kind = domain.ChangeKind(r.WebhookDelivery.Kind) // the one kind column fills the delivery's
			r.Change.At = r.CreatedAt
			if r.ChangeAt != nil {
				r.Change.At = *r.ChangeAt
			}
			out = append(out, DueDelivery{WebhookDelivery: r.WebhookDelivery, URL: r.URL, Secret: r.Secret, Change: r.Change})
		}
		return nil
	})
	return out, err
}

// DeliveryAttempt is the outcome of one attempt at a delivery.
type DeliveryAttempt struct {
	At         time.Time
	StatusCode int    // 0 when no answer came
	Error      string // "" when delivered
	// Status is the delivery's status after it: delivered, pending (then
	// NextAttemptAt says when) or failed.
	Status        string
	NextAttemptAt time.Time
	// Disable disables the subscription (it answered 410 Gone), for the
	// reason Error says, and fails its other pending deliveries.
	Disable bool
}

// RecordDeliveryAttempt records the outcome of an attempt at delivery id.
func (s *Store) RecordDeliveryAttempt(ctx context.Context, id int64, a DeliveryAttempt) error {
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		next := a.NextAttemptAt
		if next.IsZero() {
			next = a.At
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?,
			last_attempt_at = ?, last_status_code = ?, last_error = ? WHERE delivery_id = ?`,
			a.Status, next.UTC(), a.At.UTC(), a.StatusCode, a.Error, id); err != nil {
			return err
		}
		if a.Status == DeliveryPending {
			// Another of its deliveries may have disabled the subscription
			// (a 410) while this one was under way: then this one goes no
			// further either, as the others pending then did not.
			_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'failed',
				last_error = last_error || '; not tried again: the subscription was disabled'
				WHERE delivery_id = ? AND subscription_id IN (SELECT subscription_id FROM webhook_subscriptions WHERE disabled_at IS NOT NULL)`, id)
			return err
		}
		if !a.Disable {
			return nil
		}
		var sub int64
		if err := tx.GetContext(ctx, &sub, `SELECT subscription_id FROM webhook_deliveries WHERE delivery_id = ?`, id); err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_subscriptions SET disabled_at = ?, disabled_reason = ? WHERE subscription_id = ?`,
			a.At.UTC(), a.Error, sub); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'failed', last_error = 'not sent: the subscription was disabled'
			WHERE subscription_id = ? AND status = 'pending'`, sub)
		return err
	})
	if err != nil {
		return fmt.Errorf("record the attempt at webhook delivery %d: %w", id, err)
	}
	return nil
}

// WebhookDeliveries are the last limit deliveries of subscription id,
// newest first.
func (s *Store) WebhookDeliveries(ctx context.Context, id int64, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	if err := s.reader.SelectContext(ctx, &out, `SELECT delivery_id, subscription_id, kind, message_id, created_at, status, attempts,
		next_attempt_at, last_attempt_at, last_status_code, last_error FROM webhook_deliveries
		WHERE subscription_id = ? ORDER BY delivery_id DESC LIMIT ?`, id, limit); err != nil {
		return nil, fmt.Errorf("deliveries of webhook %d: %w", id, err)
	}
	return out, nil
}

// pruneDeliveries drops the deliveries done (delivered or failed) before
// cutoff; changes still to be delivered are kept by prune.
func pruneDeliveries(ctx context.Context, tx *sqlx.Tx, cutoff time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE status != 'pending' AND created_at < ?`, cutoff); err != nil {
		return fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return nil
}

// PendingDeliveries counts the webhook deliveries still to be made: due
// now or waiting for a retry.
func (s *Store) PendingDeliveries(ctx context.Context) (int, error) {
	var n int
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`); err != nil {
		return 0, fmt.Errorf("pending webhook deliveries: %w", err)
	}
	return n, nil
}
