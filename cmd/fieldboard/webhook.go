package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web/webhooks"
)

// runWebhook manages the subscriptions of the change feed's webhooks.
func runWebhook(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWebhookWith(ctx, nil, args, stdout, stderr)
}

// runWebhookWith is runWebhook resolving the host names of add with
// resolver (nil: the system's), for the tests.
func runWebhookWith(ctx context.Context, resolver *net.Resolver, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand("webhook", args, []string{"add", "list", "remove", "test"}, stderr)
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		fs := newFlagSet("webhook add", "Subscribes an address to the change feed and prints its signing secret, once.", stderr)
		url := fs.String("url", "", "the address changes are POSTed to (http or https, outside addresses only)")
		events := fs.String("events", "", "comma-separated kinds of change to send (subsample.sendable,quota.closed,...); empty for all")
		country := fs.String("country", "", "send only the changes of this country's subsamples (two letters); empty for all")
		allowPrivate := fs.Bool("allow-private", false, "accept a loopback, private or link-local address (the server must run with --allow-private-webhooks to send to it)")
		st, _, err := openStoreWithName(ctx, fs, args, "")
		if err != nil {
			return err
		}
		defer st.Close()
		if *url == "" {
			return errFlag("url", "give the address to send to")
		}
		s, err := webhooks.NewSubscription(ctx, webhooks.Guard{AllowPrivate: *allowPrivate, Resolver: resolver}, *url, *events, *country, time.Now())
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		id, err := st.AddWebhook(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "webhook %d added for %s; its signing secret is shown this once, keep it secret:\n%s\n", id, formats.WebhookURL(s.URL), s.Secret)
		return nil
	case "list":
		st, _, err := openStoreWithName(ctx, newFlagSet("webhook list", "Lists the webhooks (not their secrets, nor the path of their address beyond a first word) and their last deliveries.", stderr), args, "")
		if err != nil {
			return err
		}
		defer st.Close()
		subs, err := st.Webhooks(ctx)
		if err != nil {
			return err
		}
		for _, s := range subs {
			fmt.Fprintf(stdout, "%d\t%s\tevents %s\tcountry %s\t%s\n", s.ID, formats.WebhookURL(s.URL), eventsOf(s), or(s.Country, "all"), stateOf(s))
			deliveries, err := st.WebhookDeliveries(ctx, s.ID, 5)
			if err != nil {
				return err
			}
			for _, d := range deliveries {
				fmt.Fprintf(stdout, "\t%s\t%s\t%s\t%d attempts\tstatus code %d\t%s\n", d.MessageID, d.Kind, d.Status, d.Attempts, d.LastStatusCode, d.LastError)
			}
		}
		return nil
	}
	summary := map[string]string{
		"remove": "Removes webhook ID and its queued deliveries.",
		"test":   "Queues a webhook.test event for webhook ID, unless it is disabled; the server (fieldboard serve) sends it within a second, and webhook list shows the outcome.",
	}[sub]
	st, raw, err := openStoreWithName(ctx, newFlagSet("webhook "+sub, summary, stderr), args, "ID")
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("%w: %q is not a webhook id (webhook list)", errUsage, raw)
	}
	if sub == "remove" {
		err = st.RemoveWebhook(ctx, id)
	} else {
		_, err = st.QueueWebhookTest(ctx, id, webhooks.NewTestMessageID(), time.Now())
	}
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: there is no webhook %d (webhook list)", errUsage, id)
	}
	if errors.Is(err, store.ErrWebhookDisabled) {
		return fmt.Errorf("%w; nothing is sent to it: remove it and add it again to resume", err)
	}
	if err != nil {
		return err
	}
	if sub == "remove" {
		fmt.Fprintf(stdout, "webhook %d removed\n", id)
	} else {
		fmt.Fprintf(stdout, "webhook %d: a webhook.test event is queued; the server sends it\n", id)
	}
	return nil
}

func eventsOf(s store.WebhookSubscription) string {
	if len(s.Events) == 0 {
		return "all"
	}
	kinds := make([]string, len(s.Events))
	for i, k := range s.Events {
		kinds[i] = string(k)
	}
	return strings.Join(kinds, ",")
}

func stateOf(s store.WebhookSubscription) string {
	if s.DisabledAt == nil {
		return "enabled"
	}
	return fmt.Sprintf("disabled %s: %s", s.DisabledAt.UTC().Format(time.DateTime), s.DisabledReason)
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
