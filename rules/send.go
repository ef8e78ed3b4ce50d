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

// RulesNotRead says why a subsample's eligibility rules cannot be checked,
// from the state of their last read (nil: never read; problem: why the
// last read failed); "" when they were read. No panelist is eligible
// then: nothing confirms it.
func RulesNotRead(read *bool, problem string) string {
	switch {
	case read == nil:
		return "Eligibility rules not read yet."
	case !*read:
		return "Eligibility rules could not be read at the last refresh (" + problem + ")."
	}
	return ""
}

// QuotasNotRead is RulesNotRead for a subsample's quotas: quotas kept from
// before a failed read are not matched, and the quota verdict is unknown.
func QuotasNotRead(read *bool, problem string) string {
	switch {
	case read == nil:
		return "Quotas not read yet: whether the panelist fits a cell is unknown."
	case !*read:
		return "Quotas could not be read at the last refresh (" + problem + "): whether the panelist fits a cell is unknown."
	}
	return ""
}
