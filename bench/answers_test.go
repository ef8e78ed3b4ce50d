package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"fieldboard/rules"
	"fieldboard/views/formats"
)

// What the served figures' answers must hold, checked on a sample of them
// (getter): the figure is of that answer, not of an error page or of half
// of one.

// wholePage checks that body is a whole HTML page.
func wholePage(body []byte) error {
	const doctype = "<!doctype html>"
	if !bytes.EqualFold(body[:min(len(doctype), len(body))], []byte(doctype)) || !bytes.HasSuffix(bytes.TrimSpace(body), []byte("</html>")) {
		return fmt.Errorf("not a whole page: %.80q ... %.80q", body, body[max(0, len(body)-80):])
	}
	return nil
}

var (
	liveCountLine = regexp.MustCompile(`(\d+) of (\d+) live subsamples match\.`)
	livePager     = regexp.MustCompile(`Page (\d+) of (\d+)`)
	liveRowMark   = []byte(`data-testid="live-row"`)
)

// livePages checks /live pages and remembers how many rows a page held:
// the count line says how many subsamples match and, when they take more
// than a page, the pager how many pages; the rows must agree (all of them
// on one page, else a full first page).
type livePages struct {
	mu   sync.Mutex
	rows int
}

func (l *livePages) check(_ string, body []byte) error {
	if err := wholePage(body); err != nil {
		return err
	}
	m := liveCountLine.FindSubmatch(body)
	if m == nil {
		return errors.New("no line saying how many live subsamples match")
	}
	matching, _ := strconv.Atoi(string(m[1]))
	rows := bytes.Count(body, liveRowMark)
	pages := 1
	if p := livePager.FindSubmatch(body); p != nil {
		pages, _ = strconv.Atoi(string(p[2]))
	}
	switch {
	case rows == 0:
		return fmt.Errorf("no rows, where %d subsamples match", matching)
	case pages == 1 && rows != matching:
		return fmt.Errorf("%d rows on the only page, where %d subsamples match", rows, matching)
	case pages > 1 && (rows*(pages-1) >= matching || rows*pages < matching):
		return fmt.Errorf("%d rows a page in %d pages, where %d subsamples match", rows, pages, matching)
	}
	l.mu.Lock()
	l.rows = rows
	l.mu.Unlock()
	return nil
}

// subsamplePage checks the page of subsample id: a whole page naming it,
// with its quota table (quota rows whose conditions are translated into
// words) and its rules.
func subsamplePage(id int64) func(string, []byte) error {
	return func(_ string, body []byte) error {
		if err := wholePage(body); err != nil {
			return err
		}
		for _, want := range []string{strconv.FormatInt(id, 10), `data-testid="quota-row"`, `data-testid="condition"`, `data-testid="rules"`} {
			if !bytes.Contains(body, []byte(want)) {
				return fmt.Errorf("the page of subsample %d has no %s", id, want)
			}
		}
		return nil
	}
}

// surveysAnswers checks one panelist's surveys: the panelist asked for;
// with all=true one entry for each of live subsamples, those the panelist
// may enter first, ranked by epc within a currency, each with an entry link
// for the panelist, the others not; without, a page of those they may
// enter, at most its limit (page when the path names none), in the
// router's order, with the next page's link only on a full page. It counts
// the quota verdicts it saw, to show that profiles were matched.
type surveysAnswers struct {
	live int
	page int // the server's default page of the default answer

	mu       sync.Mutex
	verdicts map[rules.QuotaVerdict]int
}

// check checks one answer: with all=true, every live subsample, those the
// panelist may enter first ranked by epc, and no next page; without, a
// page of those alone, in the router's order (within a currency, the
// higher epc first), its next link, when there is one, asking for the
// same limit after its last entry.
func (s *surveysAnswers) check(path string, body []byte) error {
	var answer formats.PanelistSurveysJSON
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("not a panelist's surveys: %w", err)
	}
	u, err := url.Parse(path)
	if err != nil {
		return fmt.Errorf("asked for %q: %w", path, err)
	}
	all, limit := u.Query().Get("all") == "true", s.page
	if raw := u.Query().Get("limit"); raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil {
			return fmt.Errorf("asked for %q: limit %w", path, err)
		}
	}
	id := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/api/v1/panelists/"), "/surveys")
	if answer.PanelistID != id {
		return fmt.Errorf("the surveys of %q, not %q", answer.PanelistID, id)
	}
	if n := len(answer.MayEnter) + len(answer.Others); all && n != s.live || !all && len(answer.Others) > 0 {
		return fmt.Errorf("%d subsamples (%d others) with all=%v, for %d live", n, len(answer.Others), all, s.live)
	}
	switch n := len(answer.MayEnter); {
	case all && answer.Next != "":
		return fmt.Errorf("a next page (%q) with all=true", answer.Next)
	case !all && n > limit:
		return fmt.Errorf("%d entries on a page of %d", n, limit)
	case !all && answer.Next != "" && n < limit:
		return fmt.Errorf("a next page (%q) after %d entries, on a page of %d", answer.Next, n, limit)
	case !all && answer.Next != "":
		want := u.EscapedPath() + "?" + url.Values{"after": {strconv.FormatInt(answer.MayEnter[n-1].SubsampleID, 10)}, "limit": {strconv.Itoa(limit)}}.Encode()
		if answer.Next != want {
			return fmt.Errorf("the next page is %q, want %q", answer.Next, want)
		}
	}
	for i, e := range answer.MayEnter {
		var prev formats.EligibilityJSON
		if i > 0 {
			prev = answer.MayEnter[i-1]
		}
		switch {
		case !e.MayEnter || e.PanelistID != id:
			return fmt.Errorf("subsample %d is among those %s may enter, with mayEnter %v for %q", e.SubsampleID, id, e.MayEnter, e.PanelistID)
		case len(e.EntryLinks) != 1 || !strings.Contains(e.EntryLinks[0].Live, id):
			return fmt.Errorf("subsample %d: entry links %+v, want one live link for %s", e.SubsampleID, e.EntryLinks, id)
		case i > 0 && all && rankedBefore(e, prev),
			i > 0 && !all && e.Currency == prev.Currency && prev.EPC != nil && e.EPC != nil && *e.EPC > *prev.EPC:
			return fmt.Errorf("subsample %d (epc %s) is ranked after subsample %d (epc %s)",
				e.SubsampleID, epcText(e), prev.SubsampleID, epcText(prev))
		}
	}
	for _, e := range answer.Others {
		if e.MayEnter || len(e.EntryLinks) > 0 {
			return fmt.Errorf("subsample %d is among the others, with mayEnter %v and %d entry links", e.SubsampleID, e.MayEnter, len(e.EntryLinks))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verdicts == nil {
		s.verdicts = map[rules.QuotaVerdict]int{}
	}
	for _, e := range append(answer.MayEnter, answer.Others...) {
		s.verdicts[e.Quota]++
	}
	return nil
}

// matched says whether the quota verdicts seen show profiles matched: some
// panelist fits a cell and some falls in a full or another cell.
func (s *surveysAnswers) matched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verdicts[rules.QuotaFits] > 0 && s.verdicts[rules.QuotaFull]+s.verdicts[rules.QuotaOffTarget] > 0
}

// rankedBefore says whether a panelist's surveys must list a before b: a
// known epc first, currencies in code order, the higher epc first within
// one.
func rankedBefore(a, b formats.EligibilityJSON) bool {
	if (a.EPC != nil) != (b.EPC != nil) {
		return a.EPC != nil
	}
	if a.EPC == nil {
		return false
	}
	if c := cmp.Compare(a.Currency, b.Currency); c != 0 {
		return c < 0
	}
	return *a.EPC > *b.EPC
}

func epcText(e formats.EligibilityJSON) string {
	if e.EPC == nil {
		return "none"
	}
	return strconv.FormatFloat(*e.EPC, 'f', -1, 64) + " " + e.Currency
}

// nextAnswers checks next-survey answers: the panelist asked for, at most
// limit surveys, each with an entry link filled for them, the higher epc
// first within a currency; and counts the surveys seen.
type nextAnswers struct {
	limit int

	mu      sync.Mutex
	surveys int
}

func (n *nextAnswers) check(path string, body []byte) error {
	var answer formats.NextSurveysJSON
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("not a next-survey answer: %w", err)
	}
	id := strings.TrimPrefix(path, "/api/v1/panelists/")
	id = id[:strings.Index(id, "/next")]
	if answer.PanelistID != id || len(answer.Surveys) > n.limit {
		return fmt.Errorf("%d surveys for %q, asked for %q, at most %d", len(answer.Surveys), answer.PanelistID, id, n.limit)
	}
	for i, sv := range answer.Surveys {
		if !strings.HasSuffix(sv.EntryLink, "id="+id) || !strings.Contains(sv.EntryLink, "SAPI=1") {
			return fmt.Errorf("subsample %d: entry link %q is not filled for %s with SAPI=1", sv.SubsampleID, sv.EntryLink, id)
		}
		if i > 0 {
			prev := answer.Surveys[i-1]
			if prev.Currency == sv.Currency && prev.EPC != nil && sv.EPC != nil && *sv.EPC > *prev.EPC {
				return fmt.Errorf("subsample %d (epc %v) after subsample %d (epc %v)", sv.SubsampleID, *sv.EPC, prev.SubsampleID, *prev.EPC)
			}
		}
	}
	n.mu.Lock()
	n.surveys += len(answer.Surveys)
	n.mu.Unlock()
	return nil
}

// seen is how many surveys the answers checked held.
func (n *nextAnswers) seen() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.surveys
}
