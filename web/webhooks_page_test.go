package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/webhooks"
	"fieldboard/web/webhooks/dnstest"
)

// TestWebhooksPage: a subscription added on the page shows its secret
// once and never again; an inside address is refused unless allowed, a
// port outside 1 to 65535 always, saying which ports are; a
// test event is queued and listed with its status; removal takes it off.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer receiver.Close()
	form := func(a *app, path string, values url.Values) (*http.Response, string) {
		t.Helper()
		return a.postRaw(t, path, "application/x-www-form-urlencoded", strings.NewReader(values.Encode()), nil)
	}

	guarded := newApp(t)
	resp, body := form(guarded, "/webhooks", url.Values{"url": {receiver.URL + "/hook"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Not added: the URL") || strings.Contains(body, "whsec_") {
		t.Errorf("an inside address without --allow-private-webhooks: %d, want 422 saying why and no secret", resp.StatusCode)
	}

	a := newAppWith(t, func(s *web.Server) { s.AllowPrivateWebhooks = true })
	resp, body = form(a, "/webhooks", url.Values{"url": {receiver.URL + "/hook"}, "events": {"subsample.paused, subsample.closed"}, "country": {"fr"}})
	secret := regexp.MustCompile(`whsec_[A-Za-z0-9+/=]+`).FindString(body)
	if resp.StatusCode != 200 || secret == "" || !strings.Contains(body, "subsample.paused, subsample.closed") || !strings.Contains(body, "FR only") {
		t.Fatalf("add: %d, secret %q\n%s", resp.StatusCode, secret, body)
	}
	_, page := a.do(t, "GET", "/webhooks", nil)
	if strings.Contains(page, secret) || strings.Contains(page, "whsec_") {
		t.Error("the page shows the secret after it was added")
	}
	if !strings.Contains(page, receiver.URL+"/hook") || !strings.Contains(page, "No delivery yet.") {
		t.Errorf("the page does not list the subscription:\n%s", page)
	}
	id := regexp.MustCompile(`data-testid="webhook" data-id="(\d+)"`).FindStringSubmatch(page)
	if id == nil {
		t.Fatal("no subscription on the page")
	}
	for _, bad := range []url.Values{{"url": {"ftp://x"}}, {"url": {receiver.URL}, "events": {"subsample.moved"}}, {"url": {receiver.URL}, "country": {"France"}}} {
		if resp, body := form(a, "/webhooks", bad); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Not added") {
			t.Errorf("add %v: %d, want 422 saying why", bad, resp.StatusCode)
		}
	}
	// A port no server listens on is refused, saying which ports are.
	for _, port := range []string{"0", "99999"} {
		bad := url.Values{"url": {"http://127.0.0.1:" + port + "/hook"}}
		resp, body := form(a, "/webhooks", bad)
		refusal := regexp.MustCompile(`role="alert">([^<]*)<`).FindStringSubmatch(body)
		if want := "Not added: the URL: the port must be from 1 to 65535, not " + port + "."; resp.StatusCode != http.StatusUnprocessableEntity ||
			refusal == nil || refusal[1] != want || strings.Contains(body, "whsec_") {
			t.Errorf("add %v: %d, refusal %q; want 422 and %q", bad, resp.StatusCode, refusal, want)
		}
	}
	// A refusal keeps what was typed in the form, to correct: the kinds
	// ticked stay ticked.
	typed := url.Values{"url": {receiver.URL + "/hook?a=1&b=2"}, "events": {"subsample.paused", "subsample.moved"}, "country": {"fr"}}
	if resp, body := form(a, "/webhooks", typed); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(body, `name="url" required size="40" placeholder="https://hooks.example.com/fieldboard" value="`+receiver.URL+`/hook?a=1&amp;b=2"`) ||
		!strings.Contains(body, `&#34;subsample.moved&#34; is none of`) ||
		!strings.Contains(body, `value="subsample.paused" checked`) || strings.Contains(body, `value="subsample.closed" checked`) || !strings.Contains(body, `value="fr"`) {
		t.Errorf("a refused subscription: %d; the form does not keep what was typed\n%s", resp.StatusCode, body)
	}
	// The form offers every kind of the change feed as a box to tick, in
	// words and as the code the deliveries carry.
	kinds := regexp.MustCompile(`(?s)data-testid="webhook-kinds">(.*?)</fieldset>`).FindStringSubmatch(page)
	if kinds == nil {
		t.Fatal("the form does not list the kinds it takes")
	}
	for _, k := range domain.ChangeKinds {
		if !strings.Contains(kinds[1], `<input type="checkbox" name="events" value="`+string(k)+`">`) || !strings.Contains(kinds[1], "<code>"+string(k)+"</code>") {
			t.Errorf("the form offers no box for %s", k)
		}
	}
	if !strings.Contains(kinds[1], "paused <code>subsample.paused</code>") {
		t.Errorf("the kinds are not said in words:\n%s", kinds[1])
	}
	// The boxes post one events value each; a script's comma list, or
	// both at once, are taken too.
	for _, events := range [][]string{{"quota.closed", "subsample.at_risk"}, {"quota.closed, subsample.at_risk"}, {"quota.closed", "subsample.at_risk,quota.closed"}} {
		resp, body := form(a, "/webhooks", url.Values{"url": {receiver.URL + "/boxes"}, "events": events})
		added := regexp.MustCompile(`Subscription (\d+) added`).FindStringSubmatch(body)
		if resp.StatusCode != 200 || added == nil {
			t.Fatalf("add with events %q: %d\n%s", events, resp.StatusCode, body)
		}
		_, listed := a.do(t, "GET", "/webhooks", nil)
		entry := regexp.MustCompile(`(?s)data-id="` + added[1] + `">.*?<p class="muted">\s*([^·<]*?)\s*·`).FindStringSubmatch(listed)
		if entry == nil || entry[1] != "quota.closed, subsample.at_risk" {
			t.Errorf("events %q subscribed to %q; want quota.closed, subsample.at_risk", events, entry)
		}
		if resp, _ := form(a, "/webhooks/"+added[1]+"/remove", nil); resp.StatusCode != 200 {
			t.Errorf("remove %s: %d", added[1], resp.StatusCode)
		}
	}
	// Remove asks a second time: its button is inside a fold.
	if !regexp.MustCompile(`(?s)<details class="confirm" data-testid="webhook-remove"><summary>Remove…</summary><form method="post" action="/webhooks/` + id[1] + `/remove">.*?<button type="submit">Remove subscription ` + id[1] + `</button></form></details>`).MatchString(page) {
		t.Errorf("removing subscription %s asks no confirmation:\n%s", id[1], page)
	}

	resp, page = form(a, "/webhooks/"+id[1]+"/test", nil)
	if resp.StatusCode != 200 || !strings.Contains(page, "webhook.test event is queued") || !strings.Contains(page, `data-testid="delivery" data-status="pending"`) || !strings.Contains(page, "webhook.test") {
		t.Errorf("test event: %d\n%s", resp.StatusCode, page)
	}
	if resp, _ := form(a, "/webhooks/999/test", nil); resp.StatusCode != 404 {
		t.Errorf("a test event for an unknown subscription: %d, want 404", resp.StatusCode)
	}
	// Disabled by a 410: no test event, a 409 saying why; the page offers
	// none and says how to resume.
	due, err := a.store.ClaimDeliveries(context.Background(), time.Now(), time.Minute, 1)
	if err != nil || len(due) != 1 {
		t.Fatalf("claimed %+v, %v; want the test event", due, err)
	}
	if err := a.store.RecordDeliveryAttempt(context.Background(), due[0].ID, store.DeliveryAttempt{At: time.Now(), StatusCode: 410,
		Error: "410 Gone: the receiver ended the subscription", Status: store.DeliveryFailed, Disable: true}); err != nil {
		t.Fatal(err)
	}
	resp, page = form(a, "/webhooks/"+id[1]+"/test", nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "No test event: subscription "+id[1]+" is disabled") ||
		!strings.Contains(page, "410 Gone: the receiver ended the subscription") || strings.Contains(page, "Send a test event") ||
		strings.Count(page, `data-testid="delivery"`) != 1 {
		t.Errorf("a test event for a disabled subscription: %d, want 409 saying why, and nothing queued\n%s", resp.StatusCode, page)
	}

	// An address whose path and query carry a token is shown without them.
	const token = "xoxTOKENabcdEFGHijklMNOP"
	resp, page = form(a, "/webhooks", url.Values{"url": {receiver.URL + "/services/T0SECRET/B0SECRET/" + token + "?token=" + token}})
	_, listed := a.do(t, "GET", "/webhooks", nil)
	for _, p := range []string{page, listed} {
		if resp.StatusCode != 200 || !strings.Contains(p, receiver.URL+"/services/…") || strings.Contains(p, token) || strings.Contains(p, "T0SECRET") {
			t.Errorf("a subscription whose address carries a token: %d, want it shown as %s/services/…\n%s", resp.StatusCode, receiver.URL, p)
		}
	}

	resp, page = form(a, "/webhooks/"+id[1]+"/remove", nil)
	if resp.StatusCode != 200 || !strings.Contains(page, "removed") || strings.Contains(page, `data-testid="webhook" data-id="`+id[1]+`"`) {
		t.Errorf("remove: %d, the subscription is still listed", resp.StatusCode)
	}
	if resp, _ := form(a, "/webhooks/"+id[1]+"/remove", nil); resp.StatusCode != 404 {
		t.Errorf("removing it again: %d, want 404", resp.StatusCode)
	}
}

// TestWebhookRefusalsNameNoAddress: the page refuses a host name that
// resolves to a private address, through DNS or the hosts file, or that
// does not resolve, by its name alone: neither what it resolved to nor
// the resolver that was asked ("lookup x on 10.0.0.2:53: no such host"),
// which a signed-in user could use to map the inside network. Nor do the
// deliveries it lists say what a subscription's name resolves to now, or
// which resolver failed to resolve it. (Names are resolved by a DNS
// server of the test's own on loopback.)
func TestWebhookRefusalsNameNoAddress(t *testing.T) {
	t.Parallel()
	dns := dnstest.Start(t, map[string]string{"db.inside.test": "10.1.2.3"})
	a := newAppWith(t, func(s *web.Server) { s.WebhookResolver = dns.Resolver() })
	// What a refusal must not say: an address (what a name resolved to,
	// the resolver's, as /etc/resolv.conf names it) or a lookup's words.
	leak := regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b|lookup|no such host`)
	leaked := func(page string) []string { return leak.FindAllString(page, -1) }
	for _, host := range []string{"db.inside.test", "localhost", "nowhere.inside.test"} {
		resp, page := a.postRaw(t, "/webhooks", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"url": {"http://" + host + ":8080/hook"}}.Encode()), nil)
		refusal := regexp.MustCompile(`role="alert">([^<]*)<`).FindStringSubmatch(page)
		if resp.StatusCode != http.StatusUnprocessableEntity || refusal == nil ||
			refusal[1] != "Not added: the URL: "+host+" is not a public address, or could not be resolved." || len(leaked(page)) > 0 {
			t.Errorf("adding http://%s:8080/hook: %d, refusal %q, the page says %q; want 422 naming the host alone", host, resp.StatusCode, refusal, leaked(page))
		}
	}

	ctx := context.Background()
	for _, host := range []string{"db.inside.test", "nowhere.inside.test"} { // subscribed when they resolved outside
		id, err := a.store.AddWebhook(ctx, store.WebhookSubscription{URL: "http://" + host + ":9/hook", Secret: webhooks.NewSecret(), CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.store.QueueWebhookTest(ctx, id, webhooks.NewTestMessageID(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	worker := &webhooks.Worker{Store: a.store, Logger: slog.New(slog.DiscardHandler), Guard: webhooks.Guard{Resolver: dns.Resolver()}, Timeout: time.Second}
	if n, err := worker.SendDue(ctx); n != 2 || err != nil {
		t.Fatalf("sent %d, %v; want the 2 test events attempted", n, err)
	}
	_, page := a.do(t, "GET", "/webhooks", nil)
	if n := strings.Count(page, "the host is not a public address, or could not be resolved"); n != 2 || len(leaked(page)) > 0 {
		t.Errorf("the deliveries to a name now inside and to one that no longer resolves: %d say why, the page says %q; want both, naming no address\n%s", n, leaked(page), page)
	}
}
