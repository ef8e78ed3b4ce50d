package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// Query parameters follow one rule on every route.
//
// A value is read without the spaces around it; a value of only spaces
// is empty. A parameter left out takes its default, as its route says.
// A parameter given with an empty value (?limit=, ?country=):
//
//   - on the API (/api/v1/...) is a 400 that names it, like any other
//     value that cannot be read. A script that sends one lost a value on
//     the way; taking the default instead would answer another question
//     than the one asked (POST /api/v1/refresh?subsample= would start a
//     refresh of everything).
//   - on the dashboard's pages and their CSV downloads means the same as
//     leaving it out. Their filter forms send every field, those left
//     blank empty (?country=&status=), and a blank field is no filter.
//
// queryValue and filterValue apply the rule; handlers read the query
// through them only.

// queryValue is the value of the request's query parameter name, under
// the rule above: "" when it is left out or, on a page, empty; on the API
// an empty value is a 400 naming the parameter.
func queryValue(c echo.Context, name string) (string, error) {
	return paramValue(c.QueryParams(), name, onAPI(c))
}

// filterValue is the value of a page's query parameter name (the rule
// above; on a page it is never an error): "" when left out or empty.
func filterValue(q url.Values, name string) string {
	v, _ := paramValue(q, name, false)
	return v
}

// paramValue applies the rule to the parameter name of q, on the API or
// on a page.
func paramValue(q url.Values, name string, api bool) (string, error) {
	values, given := q[name]
	if !given || len(values) == 0 {
		return "", nil
	}
	v := strings.TrimSpace(values[0])
	if v == "" && api {
		return "", echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("the query parameter %s is empty: give it a value, or leave it out for its default", name))
	}
	return v, nil
}

// onAPI reports whether the request is for the API, whose query
// parameters may not be empty.
func onAPI(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, "/api/")
}
