package checks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// linkJudges are the subsamples whose survey link is to be judged after
// returns (judgeLink): one judgement is scheduled at a time per
// subsample, and every return recorded before it starts is seen by it,
// so a burst of returns costs one judgement, and none is missed.
type linkJudges struct {
	mu        sync.Mutex
	scheduled map[int64]bool
	wg        sync.WaitGroup
}

// linkJudgeTimeout bounds one judgement.
const linkJudgeTimeout = 30 * time.Second

// judgeLink schedules a judgement of subsampleID's survey link
// (flagLinkSuspect) after a return other than a complete was recorded,
// Returns.JudgeLinksAfter later, in the background: the respondent's
// answer never waits for it. A judgement already scheduled and not begun
// will see this return too (it reads the run when it begins, and is
// unscheduled first), so none is scheduled again. A failure is logged
// (with Returns.Logger); the next return judges again.
func (s *Service) judgeLink(subsampleID int64) {
	j := &s.links
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.scheduled[subsampleID] {
		return
	}
	if j.scheduled == nil {
		j.scheduled = map[int64]bool{}
	}
	j.scheduled[subsampleID] = true
	j.wg.Add(1)
	time.AfterFunc(s.Returns.JudgeLinksAfter, func() {
		defer j.wg.Done()
		j.mu.Lock()
		delete(j.scheduled, subsampleID)
		j.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), linkJudgeTimeout)
		defer cancel()
		if err := s.flagLinkSuspect(ctx, subsampleID); err != nil && s.Returns.Logger != nil {
			s.Returns.Logger.Warn("survey link not judged", "subsample", subsampleID, "err", err)
		}
	})
}

// SettleLinks waits until the survey links being judged after returns
// are judged: serve calls it on the way out, and tests before they read
// the feed.
func (s *Service) SettleLinks() { s.links.wg.Wait() }

// flagLinkSuspect says in the change feed, once a run, that subsampleID's
// survey link may be broken (domain.ChangeLinkSuspect) when its run of
// returns without a complete is one its conversion, on the current
// snapshot, makes unlikely (rules.LinkSuspect).
func (s *Service) flagLinkSuspect(ctx context.Context, subsampleID int64) error {
	d, err := s.Current(ctx)
	if err != nil {
		return fmt.Errorf("judge subsample %d's survey link: %w", subsampleID, err)
	}
	conversion, source := d.linkConversion(subsampleID)
	run, err := s.Store.ReturnRun(ctx, subsampleID, rules.LinkSuspectRun(conversion, source))
	if err != nil {
		return fmt.Errorf("judge subsample %d's survey link: %w", subsampleID, err)
	}
	suspect := rules.LinkSuspect(subsampleID, run.Returns, conversion, source)
	if !suspect.Suspect {
		return nil
	}
	c := domain.Change{At: s.Now(), Kind: domain.ChangeLinkSuspect, SubsampleID: subsampleID, After: suspect.Why}
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
