package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

// TestPlainWorldMovesAsItAlwaysDid walks a world without BusyDay through
// three days, six hours at a time, through the endpoints, and compares
// a digest of every subsample's status, the live list and each live
// subsample's quota counts with the one the simulator gave before
// BusyDay existed: the switch, off, changes nothing of how a world moves.
func TestPlainWorldMovesAsItAlwaysDid(t *testing.T) {
	const want = "fafedae2c141a024d2b4a3b0ab6d16b704d8a2f30503b3238d7b3ad664eb88cd" // the simulator before BusyDay
	s, clk := newSim(Options{Seed: 5, Subsamples: 120})
	h := sha256.New()
	for step := 0; step <= 12; step++ {
		for _, ss := range summaries(t, s) {
			fmt.Fprintf(h, "%d %d %s\n", step, ss.SubsampleID, ss.SubsampleStatus)
		}
		for _, d := range liveDetails(t, s) {
			fmt.Fprintf(h, "live %d %s\n", d.SubsampleID, d.SubsampleStatus)
			for _, q := range quotas(t, s, d.SubsampleID) {
				fmt.Fprintf(h, "quota %d %v %v\n", q.QuotaID, q.Remaining(), q.IsTotal())
			}
		}
		clk.Advance(6 * time.Hour)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the plain world moved differently: digest %s, want %s", got, want)
	}
}
