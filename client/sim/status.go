package sim

// status is a subsample status; the values are the provider's status ids.
type status uint8

const (
	statusPending        status = 1
	statusLive           status = 3
	statusComplete       status = 4
	statusCanceled       status = 5
	statusLiveForTesting status = 6
)

// String is the status name as the event endpoints spell it.
func (s status) String() string {
	switch s {
	case statusPending:
		return "Pending"
	case statusLive:
		return "Live"
	case statusComplete:
		return "Complete"
	case statusCanceled:
		return "Canceled"
	case statusLiveForTesting:
		return "Live for testing"
	}
	return "Unknown"
}

// isLive reports whether subsamples in status s are listed by live-details.
func (s status) isLive() bool { return s == statusLive || s == statusLiveForTesting }

// statusWeights is the status mix of event/all at creation, in percent.
func statusWeights() []struct {
	s status
	w int
} {
	return []struct {
		s status
		w int
	}{
		{statusLive, 33}, {statusLiveForTesting, 5}, {statusPending, 15}, {statusComplete, 35}, {statusCanceled, 12},
	}
}
