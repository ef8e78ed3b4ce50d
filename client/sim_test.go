package client_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/domain"
)

// TestAgainstSimulator calls all nine endpoints of the real simulator over
// loopback and checks that what comes back is sane.
func TestAgainstSimulator(t *testing.T) {
	srv := httptest.NewServer(sim.New(sim.Options{Seed: 1}))
	defer srv.Close()
	c, err := client.New(client.Config{BaseURL: srv.URL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	known := map[string]bool{domain.StatusPending: true, domain.StatusLive: true, domain.StatusComplete: true, domain.StatusCanceled: true, domain.StatusLiveForTesting: true}

	all, _, err := c.AllSubsamples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("event/all is empty")
	}
	inAll := make(map[int64]bool, len(all))
	for _, s := range all {
		inAll[s.SubsampleID] = true
		if s.SubsampleID <= 0 || s.EventID <= 0 || !known[s.SubsampleStatus] || s.Country.Code == "" ||
			s.FieldStartDate.IsZero() || s.FieldEndDate.Before(s.FieldStartDate.Time) || s.FieldStartDate.Location() != time.UTC {
			t.Errorf("insane subsample summary %+v", s)
		}
	}

	live, _, err := c.LiveSubsamples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) == 0 {
		t.Fatal("live-details is empty")
	}
	for _, s := range live {
		if s.SubsampleStatus != domain.StatusLive && s.SubsampleStatus != domain.StatusLiveForTesting {
			t.Errorf("subsample %d has status %q in live-details", s.SubsampleID, s.SubsampleStatus)
		}
		if !inAll[s.SubsampleID] {
			t.Errorf("live subsample %d is missing from event/all", s.SubsampleID)
		}
		if s.EventID <= 0 || s.EventName == "" || len(s.Countries) == 0 || len(s.Locales) == 0 || len(s.Categories) == 0 ||
			s.ResearchTypeID <= 0 || s.TargetedCurrency == "" || s.TargetedCPI < 0 || s.FieldStartDate.IsZero() {
			t.Errorf("insane live subsample %+v", s)
		}
		for _, l := range s.Locales {
			// The testing link may be empty, as providers leave it.
			if l.Name == "" || !strings.HasPrefix(l.LiveEntryLink, "http") || l.TestingEntryLink != "" && !strings.HasPrefix(l.TestingEntryLink, "http") {
				t.Errorf("subsample %d: insane locale %+v", s.SubsampleID, l)
			}
		}
	}

	for _, s := range live[:min(3, len(live))] {
		quotas, err := c.Quotas(ctx, s.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		totals := 0
		for _, q := range quotas {
			if q.IsTotal() {
				totals++
			}
			if q.RemainingExclusive < 0 || q.RemainingShared < 0 || q.AchievedInterviews < 0 || !known[q.SubsampleStatus] {
				t.Errorf("subsample %d: insane quota %+v", s.SubsampleID, q)
			}
		}
		if totals != 1 {
			t.Errorf("subsample %d has %d total quotas among %d, want 1", s.SubsampleID, totals, len(quotas))
		}
		if _, err := c.EligibilityRules(ctx, s.SubsampleID); err != nil {
			t.Fatal(err)
		}
	}

	locale := live[0].Locales[0].Name
	questions, _, err := c.Questions(ctx, locale)
	if err != nil {
		t.Fatal(err)
	}
	if len(questions) == 0 {
		t.Fatalf("locale %s has no questions", locale)
	}
	answered := 0
	for _, q := range questions[:min(5, len(questions))] {
		if q.ID == domain.AgeRangeQuestionID {
			continue
		}
		answers, _, err := c.Answers(ctx, locale, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(answers) == 0 {
			t.Errorf("question %d (%s) of %s has no answers", q.ID, q.Name, locale)
		}
		answered++
	}
	if answered == 0 {
		t.Errorf("no question of %s other than the age range among the first five", locale)
	}

	countries, _, err := c.Countries(ctx)
	if err != nil || len(countries) == 0 {
		t.Errorf("countries: %d, %v", len(countries), err)
	}
	locales, _, err := c.Locales(ctx)
	if err != nil || len(locales) == 0 {
		t.Errorf("locales: %d, %v", len(locales), err)
	}
	statuses, _, err := c.SurveyStatuses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hasTesting := false
	for _, s := range statuses {
		hasTesting = hasTesting || (s.ID == 6 && s.StatusName == domain.StatusLiveForTesting)
	}
	if !hasTesting {
		t.Errorf("survey-statuses %+v lack 6 %q", statuses, domain.StatusLiveForTesting)
	}
	t.Logf("%d subsamples, %d live, %d questions in %s, %d countries, %d locales",
		len(all), len(live), len(questions), locale, len(countries), len(locales))
}
