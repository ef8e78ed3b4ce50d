package formats

import (
	"strconv"
	"time"

	"fieldboard/rules"
	"fieldboard/store"
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
// due, and the last error while it is failing ("" otherwise); a second
// line counts the elements its refresh dropped as unreadable (every list
// is read element by element), with the first's description.
type DatasetFigure struct {
	Label          string
	LastSuccess    *time.Time
	NextDue        time.Time
	LastError      string
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
		dropped := "" // never read: not known, not 0
		if d.LastSuccess != nil {
			dropped = strconv.Itoa(d.MalformedCount)
		}
		if err := w.Write("unreadable elements dropped", d.Label, dropped, "", "", d.MalformedFirst); err != nil {
			return err
		}
	}
	return nil
}

// DroppedCost says, after "N unreadable elements dropped", what the
// elements a dataset's refresh dropped cost: the page, the CSV and
// `fieldboard refresh` say it alike.
func DroppedCost(dataset string) string {
	switch dataset {
	case store.DatasetEvents:
		return "the subsamples they are about unknown"
	case store.DatasetLibrary:
		return "those questions and answers left out, the rest of each list kept"
	case store.DatasetReference:
		return "those countries and statuses left out; a locales list missing one keeps the one read before"
	}
	return "the rest of each list kept"
}
