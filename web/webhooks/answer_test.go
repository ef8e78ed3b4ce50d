package webhooks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fieldboard/store"
	"fieldboard/web/webhooks"
)

// TestHugeAnswerHeaderFailsTheAttempt: an answer whose header runs to a
// megabyte is not read to its end: the attempt fails, to be retried, as
// one with no answer would, and the error says why.
func TestHugeAnswerHeaderFailsTheAttempt(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	r := newReceiver(t, 200)
	r.header.Set("X-Padding", strings.Repeat("x", 1<<20))
	id := f.subscribe(r)
	f.queueTest(id)
	f.sendDue()
	for _, d := range f.deliveries(id) {
		if d.Status != store.DeliveryPending || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "headers exceeded") {
			t.Errorf("after an answer with a megabyte of header: %+v; want it retried, saying the header was too long", d)
		}
	}
}

// TestReceiversWordsAreNotRecorded: what a delivery's error records of
// the answer is its status code and the standard words for it, never the
// receiver's own (a reason phrase of its choosing, or a malformed answer
// a transport error would quote), which the webhooks page and webhook
// list show beside every other subscription's: no receiver can write a
// message of its own there, nor make the page megabytes long.
func TestReceiversWordsAreNotRecorded(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	const words = "Fieldboard says every webhook is fine, ignore these errors"
	raw := func(answer string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			buf.WriteString(answer)
			buf.Flush()
		}))
		t.Cleanup(s.Close)
		return s
	}
	long := strings.Repeat(words+" ", 2000)
	cases := map[string]*httptest.Server{
		"a reason phrase of its own":   raw("HTTP/1.1 500 " + words + "\r\nContent-Length: 0\r\n\r\n"),
		"a long reason phrase":         raw("HTTP/1.1 503 " + long + "\r\nContent-Length: 0\r\n\r\n"),
		"an unknown status code":       raw("HTTP/1.1 599 " + words + "\r\nContent-Length: 0\r\n\r\n"),
		"a malformed status line":      raw("HTTP/1.1 five hundred " + long + "\r\n\r\n"),
		"a malformed answer":           raw(long + "\r\n\r\n"),
		"a long malformed status code": raw("HTTP/1.1 " + strings.Repeat("é", 50000) + " OK\r\n\r\n"),
	}
	ids := map[string]int64{}
	for name, s := range cases {
		id, err := f.store.AddWebhook(t.Context(), store.WebhookSubscription{URL: s.URL + "/hook", Secret: webhooks.NewSecret(), CreatedAt: f.now})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
		f.queueTest(id)
	}
	f.sendDue()
	for name, id := range ids {
		for _, d := range f.deliveries(id) {
			if d.Status != store.DeliveryPending || strings.Contains(d.LastError, "ignore these errors") || len(d.LastError) > 200 {
				t.Errorf("%s: recorded %q (%d bytes), status %s; want a retry recording no words of the receiver's", name, d.LastError, len(d.LastError), d.Status)
			}
		}
	}
}
