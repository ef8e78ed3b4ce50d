package checks

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

// routingKeySize is the length of a routing key's secret, in bytes.
const routingKeySize = 32

// Signer signs invitations with one routing key: make one per list
// (Service.Signer), not per link.
type Signer struct {
	key       invite.Key
	now       time.Time
	ttl       time.Duration
	publicURL string
}

// Token is the token of an invitation for the panelist to subsampleID (0:
// to whatever the router chooses), valid for the signer's time to live.
func (g Signer) Token(panelistID string, subsampleID int64) string {
	return invite.Sign(g.key, invite.Invitation{PanelistID: panelistID, SubsampleID: subsampleID, Expires: g.now.Add(g.ttl)})
}

// Link is the invitation link of Token(panelistID, subsampleID).
func (g Signer) Link(panelistID string, subsampleID int64) string {
	return invite.Link(g.publicURL, g.Token(panelistID, subsampleID))
}

// Signer returns a signer of invitations valid for ttl, whose links point
// at publicURL (invite.ParsePublicURL's), with the newest routing key; the
// first key is made when there is none.
func (s *Service) Signer(ctx context.Context, publicURL string, ttl time.Duration) (Signer, error) {
	if ttl <= 0 {
		return Signer{}, fmt.Errorf("an invitation must be valid for some time, not %s", ttl)
	}
	now := s.now()
	keys, err := s.Store.RoutingKeys(ctx, now)
	if err != nil {
		return Signer{}, err
	}
	var key store.RoutingKey
	if len(keys) > 0 {
		key = keys[0]
	} else if key, err = s.Store.FirstRoutingKey(ctx, newRoutingSecret(), now); err != nil {
		return Signer{}, err
	}
	return Signer{key: invite.Key{ID: key.ID, Secret: key.Secret}, now: now, ttl: ttl, publicURL: publicURL}, nil
}

// RotateRoutingKey makes a new random routing key the one invitations are
// signed with; the keys valid until now stay valid for grace more.
func (s *Service) RotateRoutingKey(ctx context.Context, grace time.Duration) (store.RoutingKey, error) {
	if grace < 0 {
		return store.RoutingKey{}, fmt.Errorf("grace %s is negative", grace)
	}
	return s.Store.RotateRoutingKey(ctx, newRoutingSecret(), s.now(), grace)
}

// newRoutingSecret is a new routing key's secret: 32 random bytes.
func newRoutingSecret() []byte {
	secret := make([]byte, routingKeySize)
	rand.Read(secret) // never fails (crypto/rand)
	return secret
}

// OpenInvitation returns what token carries when a valid routing key
// signed it and it has not expired, else invite.ErrInvalid.
func (s *Service) OpenInvitation(ctx context.Context, token string) (invite.Invitation, error) {
	if len(token) > invite.MaxTokenLen {
		return invite.Invitation{}, invite.ErrInvalid
	}
	now := s.now()
	keys, err := s.Store.RoutingKeys(ctx, now)
	if err != nil {
		return invite.Invitation{}, err
	}
	opened := make([]invite.Key, len(keys))
	for i, k := range keys {
		opened[i] = invite.Key{ID: k.ID, Secret: k.Secret}
	}
	return invite.Open(opened, token, now)
}

// Routed is where a click on an invitation goes: the decision, for the
// record, and the entry link ("" when no survey would take the panelist).
type Routed struct {
	domain.RoutingDecision
	Link string
}

// Route decides, now, where a click on inv goes: to the invitation's
// subsample when the panelist would still be sent there
// (PanelistCheck.Send), else to the best survey they would be sent to
// (NextSurveys' first), else nowhere; with why in a sentence. It reads
// the current decisions and never waits for a refresh.
func (s *Service) Route(ctx context.Context, inv invite.Invitation) (Routed, error) {
	out := Routed{RoutingDecision: domain.RoutingDecision{At: s.now(), PanelistID: inv.PanelistID, Intended: inv.SubsampleID, Outcome: domain.RoutedNone}}
	d, err := s.Current(ctx)
	if err != nil {
		return out, err
	}
	member, err := s.Store.PanelOf(ctx, inv.PanelistID)
	if errors.Is(err, store.ErrNotFound) {
		out.Reason = "The panelist is not on the panel, so no survey can be chosen for them."
		return out, nil
	}
	if err != nil {
		return out, err
	}
	places := d.byCountry[member.Country]
	intended, why := int32(-1), ""
	if inv.SubsampleID != 0 {
		if i, ok := d.targetOf[inv.SubsampleID]; ok {
			intended = int32(i)
			places = append([]int32{intended}, places...)
		} else {
			why = fmt.Sprintf("Subsample %d is not live now.", inv.SubsampleID)
		}
	}
	err = s.eachOf(ctx, d, member, places, func(i int, pc PanelistCheck) bool {
		if !pc.Send() {
			if int32(i) == intended && why == "" {
				why = fmt.Sprintf("Subsample %d would not take the panelist now: %s", inv.SubsampleID, whyNotSent(pc))
			}
			return true
		}
		link := d.liveLink(pc, inv.PanelistID)
		if link == "" {
			if int32(i) == intended && why == "" {
				why = fmt.Sprintf("Subsample %d has no usable entry link for the panelist.", inv.SubsampleID)
			}
			return true
		}
		out.Chosen, out.Link = pc.SubsampleID, link
		switch {
		case int32(i) == intended && why == "":
			out.Outcome, out.Reason = domain.RoutedIntended, fmt.Sprintf("Sent to subsample %d, as invited.", pc.SubsampleID)
		case why != "":
			out.Outcome, out.Reason = domain.RoutedNext, why+fmt.Sprintf(" Sent to subsample %d, the best survey for the panelist now.", pc.SubsampleID)
		default:
			out.Outcome, out.Reason = domain.RoutedNext, fmt.Sprintf("Sent to subsample %d, the best survey for the panelist now.", pc.SubsampleID)
		}
		return false
	})
	if err != nil {
		return out, err
	}
	if out.Chosen == 0 {
		out.Reason = strings.TrimSpace(why + " No survey would take the panelist now.")
	}
	return out, nil
}

// whyNotSent says, in one sentence, the first reason the panelist is not
// sent to pc's subsample (PanelistCheck.Send is false).
func whyNotSent(pc PanelistCheck) string {
	switch {
	case pc.Verdict.State != rules.Sendable:
		return strings.TrimSpace(fmt.Sprintf("it is %s. %s", strings.ToLower(pc.Verdict.State.Label()), strings.Join(pc.Verdict.Reasons, " ")))
	case !pc.Panel.Fits:
		return pc.Panel.Reason
	case pc.RulesUnread != "":
		return pc.RulesUnread
	case !pc.Eligibility.Eligible && len(pc.Eligibility.Exclusions) > 0:
		return pc.Eligibility.Exclusions[0].Reason
	case pc.Quota == rules.QuotaFull:
		return "the panelist falls in a full quota cell."
	case pc.Quota == rules.QuotaOffTarget:
		return "the panelist's profile falls in no cell of a table of hard quotas."
	}
	return "nothing on file says the panelist fits an open quota cell."
}
