package handlers

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDocument is the OpenAPI 3.1 description of every /api/v1 route,
// written by hand beside the handlers and JSON shapes it describes. The
// web tests fail when a registered API route is missing from it (or it
// names one that is not registered), when it does not validate, and when
// a real answer does not match it: change it with the routes.
//
//go:embed openapi.json
var openAPIDocument []byte

// APIOpenAPI answers GET /api/v1/openapi.json with the description of the
// API, itself included.
func (h *Handler) APIOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}
