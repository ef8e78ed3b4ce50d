package rules

import (
	"strconv"
	"time"

	"fieldboard/rules/domain"
)

// DefaultFieldCloseFor is how long a cell closed by the field stays closed
// for routing when the provider's counts do not move and no other time is
// set: long enough for a few reads of the provider's quotas to catch up,
// short enough that a quota full on a misjudged panelist does not close a
// cell with room for the rest of the day.
const DefaultFieldCloseFor = 30 * time.Minute

// FieldClosureHolds says whether closure c still closes quota q, the same
// cell as the snapshot has it now, for routing at now.
//
// The spec's Quota sending rule sends to a quota "when remainingExclusive
// + remainingShared is greater than 0", but the figures lag the field: a
// quota full that came back for a send judged to fall surely in the cell
// proves them wrong. The closure holds while both are true:
//
//   - now is before c.Until (at Until it has lapsed, read or no read);
//   - q's counts are those recorded at closing (c.CountsMoved): once a
//     read shows the provider's figures moved, they are decided on again.
func FieldClosureHolds(c domain.FieldClosure, q domain.Quota, now time.Time) bool {
	return now.Before(c.Until) && !c.CountsMoved(q)
}

// FieldClosureReason says, for a coordinator, why a panelist in the cell
// c closes is not sent.
func FieldClosureReason(c domain.FieldClosure) string {
	cell := "cell " + strconv.FormatInt(c.QuotaID, 10)
	if c.QuotaName != "" {
		cell += " (" + c.QuotaName + ")"
	}
	return "A quota full came back from the field at " + c.At.UTC().Format("15:04 UTC") + " for " + cell +
		", which the provider still shows open: closed for routing until its counts move, at most until " +
		c.Until.UTC().Format("15:04 UTC") + "."
}
