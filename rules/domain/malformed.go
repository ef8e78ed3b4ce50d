package domain

import "fmt"

// MalformedElement is an element of one of the provider's lists (event/all,
// live-details, a subsample's quotas) that could not be read: a field of the
// wrong type, or a field the decision needs that is absent. The element is
// dropped, and its subsample, when its id could be read, is decided unknown
// until a refresh reads it whole; the rest of the list is kept.
type MalformedElement struct {
	List        string // "event/all", "live-details" or "quotas"
	Index       int    // the element's position in the list, from 0 (shown from 1); -1 for the list as a whole
	SubsampleID int64  // 0 when it could not be read
	Reason      string // such as "targetedCPI is a string, not a number"
}

// The lists whose elements are read one by one.
const (
	ListEventAll    = "event/all"
	ListLiveDetails = "live-details"
	ListQuotas      = "quotas"
)

// String names the element and says what is wrong with it, such as
// "live-details element 17 (subsample 4411): targetedCPI is a string, not a
// number".
func (m MalformedElement) String() string {
	if m.Index < 0 {
		return fmt.Sprintf("%s: %s", m.List, m.Reason)
	}
	if m.SubsampleID == 0 {
		return fmt.Sprintf("%s element %d: %s", m.List, m.Index+1, m.Reason)
	}
	return fmt.Sprintf("%s element %d (subsample %d): %s", m.List, m.Index+1, m.SubsampleID, m.Reason)
}

// Sentence is the reason a coordinator reads on a subsample whose element
// was dropped.
func (m MalformedElement) Sentence() string {
	return fmt.Sprintf("The provider's %s answer for this subsample could not be read (element %d: %s); it is not decided on until a refresh reads it.",
		m.List, m.Index+1, m.Reason)
}
