package web

import "fieldboard/handlers"

// AnswerSlowlyWith makes the server's subsample pages and send lists ask
// checks instead of the checks service: a test's wrapper of the service
// that stalls as a slow query would (clientgone_test.go).
func (s *Server) AnswerSlowlyWith(checks interface {
	handlers.SubsampleChecks
	handlers.SendChecks
}) {
	s.slowChecks = checks
}
