package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestUpstreamTextIsEscaped renders pages with provider text that tries to
// inject markup and script: everything from the upstream is untrusted, and
// templ's escaping must stay on everywhere it is shown.
func TestUpstreamTextIsEscaped(t *testing.T) {
	const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	page := Page{Title: hostile, Now: time.Now(), Location: time.UTC}
	row := store.SubsampleRow{SubsampleID: 1, EventID: 2, Name: hostile, EventName: hostile, Status: hostile, CountryCode: hostile, Live: true}
	live := &domain.LiveSubsample{SubsampleName: hostile, EventName: hostile, Locales: []domain.SubsampleLocale{{Name: hostile}}}
	components := map[string]func() error{}
	var buf bytes.Buffer
	components["subsample"] = func() error {
		return SubsamplePage(SubsampleView{Page: page, Row: row, Live: live,
			Verdict: rules.Verdict{State: rules.Unknown, Reasons: []string{hostile}},
			Links:   []checks.EntryLinks{{Locale: hostile, Live: "javascript:alert(3)", LiveProblem: hostile}},
			Quotas:  []QuotaView{{Quota: domain.Quota{QuotaName: hostile, TableName: hostile}, Conditions: []string{hostile}}},
			Rules:   []rules.RuleSentence{{Text: hostile, Applies: true}}, UniqueRule: hostile,
		}).Render(context.Background(), &buf)
	}
	components["live"] = func() error {
		return LiveTable(page, LiveTableView{All: 1, Matching: 1, Page: 1, Pages: 1,
			Rows: []checks.LiveRow{{LiveRow: store.LiveRow{SubsampleID: 1, Name: hostile, EventName: hostile, Countries: hostile, Categories: hostile},
				Verdict: rules.Verdict{State: rules.Paused, Reasons: []string{hostile}}}}}).Render(context.Background(), &buf)
	}
	components["lookup"] = func() error {
		return LookupSection(page, &LookupResult{PanelistID: hostile, Others: []SurveyCheck{{Name: hostile, Why: []string{hostile}}}}, hostile).Render(context.Background(), &buf)
	}
	for name, render := range components {
		buf.Reset()
		if err := render(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		html := buf.String()
		for _, bad := range []string{"<script>alert", "<img src=x", `href="javascript:`} {
			if strings.Contains(html, bad) {
				t.Errorf("%s page carries %q unescaped", name, bad)
			}
		}
		if !strings.Contains(html, "&lt;script&gt;") {
			t.Errorf("%s page does not show the hostile text escaped", name)
		}
	}
}
