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
