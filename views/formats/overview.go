package formats

import (
	"strconv"
	"time"

	"fieldboard/rules"
)

// OverviewFigures are the overview page's figures as its CSV
// (/overview.csv, or / with format=csv) lists them, one a line: counts by
// sendability, by status and of what the last refresh changed, then each
// dataset's schedule.
type OverviewFigures struct {
	Sendability []StateFigure
	Statuses    []Figure // labelled by status
	Changes     []Figure // labelled by kind of change, as the page says it
	Datasets    []DatasetFigure
}

// Figure is a labelled count.
type Figure struct {
	Label string
	N     int
}

// StateFigure is how many live subsamples are in one sendability state.
type StateFigure struct {
	State rules.State
	N     int
}

// DatasetFigure is one dataset's line: when it was last read and is next
// due, and the last error while it is failing ("" otherwise). A dataset
// read element by element (ReadsElements: the events) gets a second line
// counting the elements dropped as unreadable, with the first's
// description.
type DatasetFigure struct {
	Label          string
	LastSuccess    *time.Time
	NextDue        time.Time
	LastError      string
	ReadsElements  bool
	MalformedCount int
	MalformedFirst string
}

// WriteOverviewCSV writes f under the header figure, name, count,
// lastRead, nextScheduled, lastError; times in UTC, RFC 3339, empty when
// never.
func WriteOverviewCSV(w *Writer, f OverviewFigures) error {
	stamp := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	if err := w.Write("figure", "name", "count", "lastRead", "nextScheduled", "lastError"); err != nil {
		return err
	}
	for _, s := range f.Sendability {
		if err := w.Write("sendability", string(s.State), strconv.Itoa(s.N), "", "", ""); err != nil {
			return err
		}
	}
	for _, s := range f.Statuses {
		if err := w.Write("status", s.Label, strconv.Itoa(s.N), "", "", ""); err != nil {
			return err
		}
	}
	for _, s := range f.Changes {
		if err := w.Write("since the previous refresh", s.Label, strconv.Itoa(s.N), "", "", ""); err != nil {
			return err
		}
	}
	for _, d := range f.Datasets {
		next := d.NextDue
		if err := w.Write("dataset", d.Label, "", stamp(d.LastSuccess), stamp(&next), d.LastError); err != nil {
			return err
		}
		if d.ReadsElements {
			if err := w.Write("unreadable elements dropped", d.Label, strconv.Itoa(d.MalformedCount), "", "", d.MalformedFirst); err != nil {
				return err
			}
		}
	}
	return nil
}
