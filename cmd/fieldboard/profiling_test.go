package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestProfilingCommand: `fieldboard profiling` prints the ranking of the
// hand-made world (checkstest): its one sendable subsample asks the
// gender question in a hard table, with 5 completes left at 2 USD, and
// one panelist of the US has no profile. A country filter keeps only its
// rows; a bad country is a usage error; data past --stale-after leaves no
// sendable subsample and no row.
func TestProfilingCommand(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	if r, err := st.ImportPanel(ctx, slices.Values([]domain.PanelMember{{PanelistID: "P-bare", Country: "US"}})); err != nil || r.BadLines > 0 {
		t.Fatalf("panel: %v %+v", err, r)
	}
	st.Close()

	header := "questionId,question,country,code,subsamples,remainingCompletes,panelistsWithoutAnswer,panelists,stake,currency,unpricedSubsamples,unpricedCompletes\n"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"every country", []string{"--stale-after", "0"}, header + "43,,US,,10,5,1,10,2.00,USD,0,0\n"},
		{"its country", []string{"--stale-after", "0", "--country", "us"}, header + "43,,US,,10,5,1,10,2.00,USD,0,0\n"},
		{"another country", []string{"--stale-after", "0", "--country", "FR"}, header},
		{"data too old to decide on", nil, header},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(ctx, append([]string{"profiling", "--db", db}, tt.args...), &out, &errOut); err != nil {
				t.Fatalf("profiling: %v\n%s", err, errOut.String())
			}
			if out.String() != tt.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"profiling", "--db", db, "--country", "USA"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "--country") {
		t.Errorf("--country USA: error %v, want a usage error naming --country", err)
	}
}
