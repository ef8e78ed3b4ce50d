package formats

import (
	"strings"
	"testing"
	"time"
)

func TestFileName(t *testing.T) {
	at := time.Date(2026, 11, 26, 20, 51, 30, 0, time.FixedZone("CET", 3600))
	for _, tt := range []struct {
		name     string
		dataset  string
		snapshot time.Time
		scope    []string
		want     string
	}{
		{"the snapshot's time in UTC, to the minute", "live-subsamples", at, nil, "live-subsamples_2026-11-26T1951Z.csv"},
		{"what the rows were narrowed to, in order", "targets", at, []string{"subsample", "200006", "limit", "50"}, "targets_subsample-200006_limit-50_2026-11-26T1951Z.csv"},
		{"no filter, no part", "events", at, []string{"status", "", "country", "FR"}, "events_country-FR_2026-11-26T1951Z.csv"},
		{"no snapshot yet", "overview", time.Time{}, nil, "overview_no-snapshot.csv"},
		{"a value that could break the header", "library", at, []string{"q", `a"b; filename=x.exe\`}, "library_q-a-b-filename-x-exe_2026-11-26T1951Z.csv"},
		{"a value of nothing but punctuation is left out", "routing", at, []string{"panelist", `"%`}, "routing_2026-11-26T1951Z.csv"},
		{"non-ASCII letters become dashes", "library", at, []string{"q", "café au lait"}, "library_q-caf-au-lait_2026-11-26T1951Z.csv"},
	} {
		if got := FileName(tt.dataset, tt.snapshot, tt.scope...); got != tt.want {
			t.Errorf("%s: FileName = %q, want %q", tt.name, got, tt.want)
		}
	}
	long := FileName("live-subsamples", at, "q", strings.Repeat("ab-", 100))
	if len(long) > 100 || strings.Contains(long, "-_") {
		t.Errorf("a long value makes %q (%d bytes); want it cut, without a trailing dash", long, len(long))
	}
}
