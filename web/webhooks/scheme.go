// Package webhooks posts the change feed to the subscriptions' addresses,
// as the Standard Webhooks specification describes
// (https://www.standardwebhooks.com): the body, its signature, the retry
// schedule, the guard that keeps deliveries off inside addresses, and the
// worker that sends the queue the store keeps.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// secretPrefix begins every signing secret; base64 of 32 random bytes
// follows.
const secretPrefix = "whsec_"

// NewSecret makes a signing secret: whsec_ and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey is the HMAC key of a secret: its base64 part, decoded.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return nil, fmt.Errorf("the signing secret is not whsec_ and base64")
	}
	return key, nil
}

// Sign is the webhook-signature header of a message: v1, and base64 of
// HMAC-SHA256, keyed with the secret's decoded bytes, over the message
// id, the timestamp (Unix seconds) and the body, joined by dots.
func Sign(secret, messageID string, at time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(messageID + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Message is a delivery's body: the kind of event, when it happened and
// what it is.
type Message struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// TestData is a webhook.test event's data.
type TestData struct {
	SubscriptionID int64  `json:"subscriptionId"`
	Message        string `json:"message"`
}

// Body is the JSON body of delivery d: a change as the feed's API shows it
// (formats.ChangeJSON), stamped with the refresh that found it, or a test
// event stamped with when it was asked for. Every attempt sends the same.
func Body(d store.DueDelivery) ([]byte, error) {
	m := Message{Type: d.Kind, Timestamp: d.Change.At.UTC().Truncate(time.Second), Data: formats.Change(d.Change)}
	if d.Kind == domain.WebhookTest {
		m.Data = TestData{SubscriptionID: d.SubscriptionID, Message: "A test event from Fieldboard: this address receives its webhooks."}
	}
	return json.Marshal(m)
}
