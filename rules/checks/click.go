package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

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
	p, err := s.ReadPanelist(ctx, inv.PanelistID)
	if err != nil {
		return Routed{RoutingDecision: domain.RoutingDecision{At: s.now(), PanelistID: inv.PanelistID, Intended: inv.SubsampleID, Outcome: domain.RoutedNone}},
			fmt.Errorf("route a click: %w", err)
	}
	return p.route(ctx, inv), nil
}

// RouteToken is Route for the invitation token carries, opened at now
// (invite.Open) with the routing key it names, read with the panelist's
// rows in one statement (store.PanelistRowsWithKey): a click reads the
// database once. A token Open refuses is invite.ErrInvalid, refused
// before any decision is read; only a failed read answers otherwise.
func (s *Service) RouteToken(ctx context.Context, token string, now time.Time) (Routed, error) {
	keyID, panelistID, err := invite.Peek(token)
	if err != nil {
		return Routed{}, err
	}
	read := func() (store.PanelistRows, error) { return s.Store.PanelistRowsWithKey(ctx, panelistID, keyID, now) }
	rows, err := read()
	if err != nil {
		return Routed{}, fmt.Errorf("route a click: %w", err)
	}
	// The token is opened before anything is decided: one Open refuses
	// costs no decisions read and answers as any refused token does.
	inv, err := invite.Open(rows.Keys, token, now)
	if err != nil {
		return Routed{}, err
	}
	p, err := s.readPanelist(ctx, rows, read)
	if err != nil {
		return Routed{}, fmt.Errorf("route a click: %w", err)
	}
	return p.route(ctx, inv), nil
}

// route is Route's decision, on the panelist p read. The send it makes
// is counted under our caps in the decision (capTaker): a survey whose cap
// has no place left is passed over, said so when it is the invited one.
func (p *Panelist) route(ctx context.Context, inv invite.Invitation) Routed {
	out := Routed{RoutingDecision: domain.RoutingDecision{At: p.s.now(), PanelistID: inv.PanelistID, Intended: inv.SubsampleID, Outcome: domain.RoutedNone}}
	if !p.rows.OnPanel {
		out.Reason = "The panelist is not on the panel, so no survey can be chosen for them."
		return out
	}
	d, profile := p.d, p.rows.Profile
	caps := &capTaker{s: p.s, ctx: ctx, ours: d.ours, now: out.At}
	if why := caps.panelist(inv.PanelistID, true); why != "" {
		out.Reason = why + " No survey would take the panelist now."
		return out
	}
	places := d.byCountry[p.rows.Member.Country]
	intended, why := int32(-1), ""
	if inv.SubsampleID != 0 {
		if i, ok := d.targetOf[inv.SubsampleID]; ok {
			intended = int32(i)
			places = append([]int32{intended}, places...)
		} else {
			why = fmt.Sprintf("Subsample %d is not live now.", inv.SubsampleID)
		}
	}
	// Only the invited subsample's refusal is said: without one, no
	// exclusion's sentence is built.
	p.eachOf(places, intended >= 0, func(i int, now time.Time, pc PanelistCheck) bool {
		if !pc.Send() {
			if int32(i) == intended && why == "" {
				if pc.Quota == rules.QuotaFull {
					pc.QuotaWhy = d.targets[i].explainQuota(profile, now, nil) // the router reads no library: ids
				}
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
		if capped := caps.subsample(pc.SubsampleID, true); capped != "" {
			if int32(i) == intended && why == "" {
				why = fmt.Sprintf("Subsample %d would not take the panelist now: %s", inv.SubsampleID, capped)
			}
			return true
		}
		out.Chosen, out.Link, out.Cells = pc.SubsampleID, link, d.targets[i].cellsText(profile, now)
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
	if out.Chosen == 0 {
		caps.giveBack() // the panelist's place: nobody was sent
		out.Reason = strings.TrimSpace(why + " No survey would take the panelist now.")
	}
	return out
}

// formatCells writes quota ids as the routing log keeps them: "12,13".
func formatCells(ids []int64) string {
	if len(ids) == 0 {
		return ""
	}
	var buf [128]byte
	b := buf[:0]
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(b)
}

// parseCells reads quota ids as formatCells writes them; what is not a
// whole number is left out (the routing log holds only formatCells').
func parseCells(cells string) []int64 {
	var ids []int64
	for part := range strings.SplitSeq(cells, ",") {
		if id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// whyNotSent says, in one sentence, the first reason the panelist is not
// sent to pc's subsample (PanelistCheck.Send is false); a quota verdict
// full with a QuotaWhy, by its first sentence (a cell closed by the
// field's comes first).
func whyNotSent(pc PanelistCheck) string {
	switch {
	case pc.Capped != "":
		return pc.Capped
	case pc.Verdict.State != rules.Sendable:
		return strings.TrimSpace(fmt.Sprintf("it is %s. %s", strings.ToLower(pc.Verdict.State.Label()), strings.Join(pc.Verdict.Reasons, " ")))
	case !pc.Panel.Fits:
		return pc.Panel.Reason
	case pc.RulesUnread != "":
		return pc.RulesUnread
	case !pc.Eligibility.Eligible && len(pc.Eligibility.Exclusions) > 0:
		return pc.Eligibility.Exclusions[0].Reason
	case pc.Quota == rules.QuotaFull && len(pc.QuotaWhy) > 0:
		return pc.QuotaWhy[0]
	case pc.Quota == rules.QuotaFull:
		return "the panelist falls in a full quota cell."
	case pc.Quota == rules.QuotaOffTarget:
		return "the panelist's profile falls in no cell of a table of hard quotas."
	}
	return "nothing on file says the panelist fits an open quota cell."
}
