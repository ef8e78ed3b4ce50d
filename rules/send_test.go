package rules

import "testing"

func TestMayEnterAndSend(t *testing.T) {
	tests := []struct {
		state          State
		eligible       bool
		quota          QuotaVerdict
		mayEnter, send bool
	}{
		{Sendable, true, QuotaFits, true, true},
		{Sendable, true, QuotaUnknown, true, false},
		{Sendable, true, QuotaFull, false, false},
		{Sendable, true, QuotaOffTarget, false, false},
		{Sendable, false, QuotaFits, false, false},
		{Paused, true, QuotaFits, false, false},
		{Testing, true, QuotaFits, false, false},
		{Unknown, true, QuotaFits, false, false},
	}
	for _, tt := range tests {
		if got := MayEnter(tt.state, tt.eligible, tt.quota); got != tt.mayEnter {
			t.Errorf("MayEnter(%s, %v, %s) = %v, want %v", tt.state, tt.eligible, tt.quota, got, tt.mayEnter)
		}
		if got := Send(tt.state, tt.eligible, tt.quota); got != tt.send {
			t.Errorf("Send(%s, %v, %s) = %v, want %v", tt.state, tt.eligible, tt.quota, got, tt.send)
		}
	}
}

func TestRulesAndQuotasNotRead(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		read          *bool
		problem       string
		rules, quotas string
	}{
		{nil, "", "Eligibility rules not read yet.", "Quotas not read yet: whether the panelist fits a cell is unknown."},
		{&no, "503", "Eligibility rules could not be read at the last refresh (503).", "Quotas could not be read at the last refresh (503): whether the panelist fits a cell is unknown."},
		{&yes, "", "", ""},
	}
	for _, tt := range tests {
		if got := RulesNotRead(tt.read, tt.problem); got != tt.rules {
			t.Errorf("RulesNotRead(%v, %q) = %q, want %q", tt.read, tt.problem, got, tt.rules)
		}
		if got := QuotasNotRead(tt.read, tt.problem); got != tt.quotas {
			t.Errorf("QuotasNotRead(%v, %q) = %q, want %q", tt.read, tt.problem, got, tt.quotas)
		}
	}
}
