package checks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// linkJudges are the subsamples whose survey link is being judged after
// a return (judgeLink): one judgement of a subsample at a time, and one
// more when returns came back while it ran, so a burst of returns costs
// a few judgements, not one each, and none is missed.
type linkJudges struct {
	mu      sync.Mutex
	running map[int64]bool // judged now; true: judge once more after
	wg      sync.WaitGroup
}

// linkJudgeTimeout bounds one judgement.
const linkJudgeTimeout = 30 * time.Second

// judgeLink judges subsampleID's survey link (flagLinkSuspect) in the
// background, after a return other than a complete was recorded: the
// respondent's answer never waits for it. A failure is logged (with
// Returns.Logger); the next return judges again.
func (s *Service) judgeLink(subsampleID int64) {
	j := &s.links
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, busy := j.running[subsampleID]; busy {
		j.running[subsampleID] = true
		return
	}
	if j.running == nil {
		j.running = map[int64]bool{}
	}
	j.running[subsampleID] = false
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), linkJudgeTimeout)
			err := s.flagLinkSuspect(ctx, subsampleID)
			cancel()
			if err != nil && s.Returns.Logger != nil {
				s.Returns.Logger.Warn("survey link not judged", "subsample", subsampleID, "err", err)
			}
			j.mu.Lock()
			again := j.running[subsampleID]
			if !again {
				delete(j.running, subsampleID)
				j.mu.Unlock()
				return
			}
			j.running[subsampleID] = false
			j.mu.Unlock()
		}
	}()
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
