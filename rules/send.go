package rules

// MayEnter reports whether a panelist may be sent into a subsample now:
// the subsample is sendable, no eligibility rule excludes the panelist,
// and the panelist falls into no full quota cell and is not off target.
// An unknown quota verdict (the profile lacks an answer a cell asks) does
// not forbid: the provider's screener decides.
func MayEnter(state State, eligible bool, quota QuotaVerdict) bool {
	return state == Sendable && eligible && quota != QuotaFull && quota != QuotaOffTarget
}

// Send reports whether a panelist belongs on a subsample's send list: they
// may enter and surely fit an open quota cell (quota verdict fits), so the
// invitation is not wasted on a Quota full return.
func Send(state State, eligible bool, quota QuotaVerdict) bool {
	return MayEnter(state, eligible, quota) && quota == QuotaFits
}
