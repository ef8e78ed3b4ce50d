package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// Paged lists (/live, /changes, /routing) number their pages from 1. A
// page number is a whole number from 1, however large: a page past the
// last shows the last page, numbered as such ("Page 3 of 3"), as does a
// number too large for an int64. No page number makes an offset that
// overflows (pageOffset), so none wraps around to another page.

// pageLinks numbers the pages of a list of total items, size a page, and
// links to the neighbours of page: path with the query's name, value
// pairs and the page ("" at either end).
func pageLinks(path string, query []string, page, total, size int) (pages int, prev, next string) {
	pages = pageCount(total, size)
	if page > 1 {
		prev = withQuery(path, append(query, "page", strconv.Itoa(page-1))...)
	}
	if page < pages {
		next = withQuery(path, append(query, "page", strconv.Itoa(page+1))...)
	}
	return pages, prev, next
}

// pageCount is how many pages total items make, size a page: at least one,
// the empty list's.
func pageCount(total, size int) int {
	return max(1, (total+size-1)/size)
}

// errNotAPage is the error of a page number that is not a whole number
// from 1.
var errNotAPage = errors.New("not a whole number from 1")

// parsePageNumber reads a list's page number (the query's page, its value
// as queryValue gives it): "" is the first page; a number too large for an
// int is the largest, which pageOf shows as the last page.
func parsePageNumber(raw string) (int, error) {
	if raw == "" {
		return 1, nil
	}
	page, err := strconv.Atoi(raw)
	if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(raw, "-") {
		return math.MaxInt, nil
	}
	if err != nil || page < 1 {
		return 0, fmt.Errorf("page %q is %w", raw, errNotAPage)
	}
	return page, nil
}

// pageParam reads the page number of a page's query (parsePageNumber); a
// bad one is a 400 that says so.
func pageParam(q url.Values) (int, error) {
	page, err := parsePageNumber(filterValue(q, "page"))
	if err != nil {
		return 0, echo.NewHTTPError(http.StatusBadRequest, capitalise(err.Error())+".")
	}
	return page, nil
}

// pageOffset is how many items come before page, size a page: (page-1) ×
// size, or the largest int where that would overflow. Such an offset is
// past any list, whose last page pageOf then shows.
func pageOffset(page, size int) int {
	if page < 1 || size < 1 {
		return 0
	}
	if page-1 > math.MaxInt/size {
		return math.MaxInt
	}
	return (page - 1) * size
}

// pageOf reads page number page of a list, size a page, through read
// (limit rows after offset, and how many there are in all), and returns
// its rows, the total and the page it shows: the last when page is past
// it, read again then.
func pageOf[T any](page, size int, read func(limit, offset int) ([]T, int, error)) (rows []T, total, shown int, err error) {
	if rows, total, err = read(size, pageOffset(page, size)); err != nil {
		return nil, 0, 0, err
	}
	if last := pageCount(total, size); page > last {
		rows, total, err = read(size, pageOffset(last, size))
		return rows, total, last, err
	}
	return rows, total, page, nil
}
