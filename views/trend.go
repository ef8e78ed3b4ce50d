package views

import (
	"strconv"
	"strings"
	"time"
)

// TrendPoint is one stored count of a quota: when a refresh saw it and the
// count it saw. When is At as the page shows it.
type TrendPoint struct {
	At    time.Time
	When  string
	Value int64
}

// TrendProjection is where a quota's count is projected to go (its
// pace, rules.Pace): from Start (the last reading, the count held until
// then) to Value at End. When is End as the page shows it.
type TrendProjection struct {
	Start, End time.Time
	Value      int64
	When       string
}

// plotArea is where a chart draws its line, in viewBox units.
type plotArea struct{ Left, Right, Top, Bottom float64 }

// The charts' fixed geometry, in viewBox units. The trend's plot area
// leaves room for the value labels on the left and the time labels below
// (its viewBox is 600 by 170); the sparkline of a quota cell has no labels
// (160 by 40) and says its figures in its title.
var (
	trendArea = plotArea{Left: 56, Right: 590, Top: 12, Bottom: 136}
	sparkArea = plotArea{Left: 3, Right: 157, Top: 4, Bottom: 36}
)

// trendChart is a trend placed in the chart: the polyline's points and the
// axis labels.
type trendChart struct {
	Points     string // "x,y x,y ..." for <polyline points>
	Dots       []trendDot
	MinLabel   string
	MaxLabel   string
	FirstLabel string
	LastLabel  string
	Summary    string // what the chart says, for its <title>
	// Projection is the polyline of the projection (the count held until
	// it was last read, then the pace's line), "" without one;
	// ProjectionLabel its end.
	Projection               string
	ProjectionLabel          string
	ProjectionX, ProjectionY string
	MinY, MaxY, Base         string // y of the min and max value lines, and of the time axis
}

// trendDot is one point of the polyline with its tooltip.
type trendDot struct {
	X, Y, Label string
}

// newTrendChart scales points (oldest first) to the chart: time on x, in
// proportion to when each point was seen, and the value on y between the
// smallest and the largest value. A flat series is drawn halfway up. A
// projection, when given, widens both axes to its end, but never to more
// than twice the time the points span past the last reading: a fill far
// away is drawn to the edge, at the count it reaches there.
//
// What names the quota in the chart's summary ("the total quota").
func newTrendChart(points []TrendPoint, proj *TrendProjection, area plotArea, what string) trendChart {
	var c trendChart
	if len(points) == 0 {
		return c
	}
	first, last := points[0], points[len(points)-1]
	lo, hi := first.Value, first.Value
	for _, p := range points {
		lo, hi = min(lo, p.Value), max(hi, p.Value)
	}
	end := last.At
	var endValue int64
	if proj != nil && proj.End.After(proj.Start) && !proj.Start.Before(last.At) {
		end = proj.End
		endValue = proj.Value
		if limit := proj.Start.Add(2 * max(proj.Start.Sub(first.At), time.Hour)); end.After(limit) {
			share := float64(limit.Sub(proj.Start)) / float64(proj.End.Sub(proj.Start))
			end, endValue = limit, last.Value+int64(share*float64(proj.Value-last.Value))
		}
		hi = max(hi, endValue)
	}
	span := end.Sub(first.At)
	xOf := func(t time.Time) float64 {
		if span <= 0 {
			return area.Left
		}
		return area.Left + float64(t.Sub(first.At))/float64(span)*(area.Right-area.Left)
	}
	yOf := func(v int64) float64 {
		if hi == lo {
			return (area.Top + area.Bottom) / 2
		}
		return area.Bottom - float64(v-lo)/float64(hi-lo)*(area.Bottom-area.Top)
	}
	coords := make([]string, len(points))
	for i, p := range points {
		x, y := coord(xOf(p.At)), coord(yOf(p.Value))
		coords[i] = x + "," + y
		c.Dots = append(c.Dots, trendDot{X: x, Y: y, Label: p.When + ": " + Itoa(p.Value)})
	}
	c.Points = strings.Join(coords, " ")
	if end.After(last.At) {
		startX := coord(xOf(proj.Start))
		c.ProjectionX, c.ProjectionY = coord(xOf(end)), coord(yOf(endValue))
		c.Projection = coords[len(coords)-1] + " " + startX + "," + coord(yOf(last.Value)) + " " + c.ProjectionX + "," + c.ProjectionY
		c.ProjectionLabel = "fills " + proj.When
		if end.Before(proj.End) {
			c.ProjectionLabel = Itoa(endValue) + " by then; fills " + proj.When
		}
	}
	c.MinLabel, c.MaxLabel = Itoa(lo), Itoa(hi)
	c.FirstLabel, c.LastLabel = first.When, last.When
	if c.Projection != "" {
		c.LastLabel = ""
	}
	c.MinY, c.MaxY, c.Base = coord(yOf(lo)), coord(yOf(hi)), coord(area.Bottom)
	c.Summary = "Achieved completes of " + what + " went from " + Itoa(first.Value) + " (" + first.When +
		") to " + Itoa(last.Value) + " (" + last.When + ") over " + Itoa(len(points)) + " readings."
	if c.Projection != "" {
		c.Summary += " At its pace it reaches " + Itoa(proj.Value) + " " + proj.When + " (dashed)."
	}
	return c
}

// coord writes a coordinate with one decimal.
func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
