package handlers

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/views/formats"
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

// list is a filtered list of T that a page shows size rows at a time and
// a CSV in full (/changes, /routing): the handler parses its filters, then
// says here how to read, write and show them, and answerList does the
// steps they share.
type list[T any] struct {
	path string // the page's path; the CSV's is path.csv
	// name is the CSV's dataset (formats.FileName), dated by the clock:
	// the list is read from the database as the request comes, not from a
	// snapshot.
	name string
	size int
	// query holds the filters as typed, name, value pairs, for the CSV's
	// file name and link and the pages' links.
	query []string
	// read reads limit rows after offset under the filters, and how many
	// they keep in all; limit 0 reads every row.
	read func(limit, offset int) ([]T, int, error)
	csv  func(w *formats.Writer, rows []T) error
	page func(p listPage[T]) templ.Component
}

// listPage is the page of a list to show: its rows, how many rows the
// filters keep in all, its number (the last when the one asked for is past
// it) out of how many, links to its neighbours ("" at either end) and to
// the CSV of the whole list.
type listPage[T any] struct {
	Rows          []T
	Total         int
	PageNo, Pages int
	Prev, Next    string
	CSVHref       string
}

// answerList answers a list's request: its CSV, every row the filters
// keep, when the request asks for one (wantsCSV), else page number page,
// as a whole page (a list has no fragment of its own).
func answerList[T any](h *Handler, c echo.Context, page int, l list[T]) error {
	if wantsCSV(c) {
		rows, _, err := l.read(0, 0)
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName(l.name, h.Now(), l.query...), func(w *formats.Writer) error { return l.csv(w, rows) })
	}
	rows, total, page, err := pageOf(page, l.size, l.read)
	if err != nil {
		return err
	}
	p := listPage[T]{Rows: rows, Total: total, PageNo: page, CSVHref: withQuery(l.path+".csv", l.query...)}
	p.Pages, p.Prev, p.Next = pageLinks(l.path, l.query, page, total, l.size)
	return Render(c, http.StatusOK, l.page(p))
}
