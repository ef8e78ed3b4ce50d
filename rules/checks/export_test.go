package checks

import (
	"context"

	"fieldboard/rules"
)

// ProfilingCodesOf is profilingCodes, for the tests.
func ProfilingCodesOf(ctx context.Context, s *Service) (rules.ProfilingCodes, error) {
	return s.profilingCodes(ctx)
}
