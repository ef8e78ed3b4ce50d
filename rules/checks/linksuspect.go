package checks

import (
	"context"
	"fmt"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// flagLinkSuspect says in the change feed, once a run, that subsampleID's
// survey link may be broken (domain.ChangeLinkSuspect) when its run of
// returns without a complete, a non-complete having just been recorded at
// d's snapshot, is one its conversion makes unlikely (rules.LinkSuspect).
func (s *Service) flagLinkSuspect(ctx context.Context, d *Decisions, r Return, subsampleID int64) error {
	conversion, source := d.linkConversion(subsampleID)
	run, err := s.Store.ReturnRun(ctx, subsampleID, rules.LinkSuspectRun(conversion, source))
	if err != nil {
		return fmt.Errorf("judge subsample %d's survey link: %w", subsampleID, err)
	}
	suspect := rules.LinkSuspect(subsampleID, run.Returns, conversion, source)
	if !suspect.Suspect {
		return nil
	}
	c := domain.Change{At: r.At, Kind: domain.ChangeLinkSuspect, SubsampleID: subsampleID, After: suspect.Why}
	if _, err := s.Store.FlagLinkSuspect(ctx, c, run.Since); err != nil {
		return fmt.Errorf("judge subsample %d's survey link: %w", subsampleID, err)
	}
	return nil
}

// linkConversion is the conversion subsampleID's returns are expected to
// complete at (rules.LinkConversion), on the snapshot's quotas and live
// details; none when the snapshot does not hold the subsample.
func (d *Decisions) linkConversion(subsampleID int64) (float64, rules.EPCSource) {
	i, ok := d.byID[subsampleID]
	if !ok {
		return 0, rules.EPCNone
	}
	return rules.LinkConversion(rules.FieldConversion(d.quotasOf(subsampleID)), d.reports[i].ExpectedIR)
}
