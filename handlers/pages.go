package handlers

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// pageLinks numbers the pages of a list of total items, size a page, and
// links to the neighbours of page: path with the query's name, value
// pairs and the page ("" at either end).
func pageLinks(path string, query []string, page, total, size int) (pages int, prev, next string) {
	pages = max(1, (total+size-1)/size)
	if page > 1 {
		prev = withQuery(path, append(query, "page", strconv.Itoa(page-1))...)
	}
	if page < pages {
		next = withQuery(path, append(query, "page", strconv.Itoa(page+1))...)
	}
	return pages, prev, next
}

// pageParam reads the query's page, from 1; absent is 1.
func pageParam(raw string) (int, error) {
	if raw == "" {
		return 1, nil
	}
	page, err := strconv.Atoi(raw)
	if err != nil || page < 1 {
		return 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Page %q is not a whole number from 1.", raw))
	}
	return page, nil
}
