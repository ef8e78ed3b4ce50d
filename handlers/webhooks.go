package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
)

// Subscriber makes webhook subscriptions: web adapts web/webhooks to it
// (the address guard, the kinds, the country, a new secret).
type Subscriber interface {
	NewSubscription(ctx context.Context, url, events, country string) (store.WebhookSubscription, error)
	NewTestMessageID() string
}

// webhookDeliveriesShown is how many recent deliveries the page shows of
// each subscription.
const webhookDeliveriesShown = 10

// Webhooks answers GET /webhooks: the subscriptions, each with its recent
// deliveries (status, attempts, the answer's status code), and the form
// to add one.
func (h *Handler) Webhooks(c echo.Context) error {
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksView{})
}

// renderWebhooks renders the page with v's message or new secret.
func (h *Handler) renderWebhooks(c echo.Context, status int, v views.WebhooksView) error {
	ctx := c.Request().Context()
	subs, err := h.Store.Webhooks(ctx)
	if err != nil {
		return err
	}
	v.Page = h.page("Webhooks", "webhooks")
	for _, s := range subs {
		deliveries, err := h.Store.WebhookDeliveries(ctx, s.ID, webhookDeliveriesShown)
		if err != nil {
			return err
		}
		v.Subscriptions = append(v.Subscriptions, views.WebhookView{Subscription: s, Deliveries: deliveries})
	}
	return Render(c, status, views.WebhooksPage(v))
}

// AddWebhook answers POST /webhooks: the subscription is checked (an
// inside address, an unknown kind or country is refused with why, the
// form keeping what was typed) and stored, and its secret shown once. The
// kinds come as the page's ticked boxes, one events value each, or as one
// comma list (a script's), or both.
func (h *Handler) AddWebhook(c echo.Context) error {
	ctx := c.Request().Context()
	params, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read: "+err.Error())
	}
	form := views.WebhookForm{URL: params.Get("url"), Events: strings.Join(params["events"], ","), Country: params.Get("country")}
	sub, err := h.Subscriber.NewSubscription(ctx, form.URL, form.Events, form.Country)
	if err != nil { // the form keeps what was typed, to correct
		return h.renderWebhooks(c, http.StatusUnprocessableEntity, views.WebhooksView{Err: "Not added: " + err.Error() + ".", Form: form})
	}
	id, err := h.Store.AddWebhook(ctx, sub)
	if err != nil {
		return err
	}
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksView{NewID: id, NewSecret: sub.Secret})
}

// RemoveWebhook answers POST /webhooks/{id}/remove.
func (h *Handler) RemoveWebhook(c echo.Context) error {
	id, err := parseID("Subscription id", c.Param("id"))
	if err != nil {
		return err
	}
	if err := h.Store.RemoveWebhook(c.Request().Context(), id); err != nil {
		return webhookNotFound(err, id)
	}
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksView{Message: fmt.Sprintf("Subscription %d removed.", id)})
}

// TestWebhook answers POST /webhooks/{id}/test: a webhook.test event is
// queued for the subscription, sent by the worker like any other; a
// disabled subscription is a 409, as nothing is sent to it.
func (h *Handler) TestWebhook(c echo.Context) error {
	id, err := parseID("Subscription id", c.Param("id"))
	if err != nil {
		return err
	}
	_, err = h.Store.QueueWebhookTest(c.Request().Context(), id, h.Subscriber.NewTestMessageID(), h.Now())
	if errors.Is(err, store.ErrWebhookDisabled) {
		return h.renderWebhooks(c, http.StatusConflict, views.WebhooksView{Err: fmt.Sprintf(
			"No test event: subscription %d is disabled (why is shown below), and nothing is sent to it. Remove it and add it again to resume.", id)})
	}
	if err != nil {
		return webhookNotFound(err, id)
	}
	return h.renderWebhooks(c, http.StatusOK, views.WebhooksView{Message: fmt.Sprintf("A webhook.test event is queued for subscription %d; its delivery shows below within seconds.", id)})
}

// webhookNotFound turns an unknown subscription into a 404 that says so.
func webhookNotFound(err error, id int64) error {
	if errors.Is(err, store.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Subscription %d does not exist.", id))
	}
	return err
}
