package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// world is everything the simulator serves, as generated at New. It is
// never modified afterwards: what changes with time is derived from it on
// each request (see evolve.go), so the handler needs no locks.
type world struct {
	created   time.Time
	countries []*country
	locales   []*locale // all known locales
	library   *library  // questions of the first Options.Locales locales
	subs      []*subsample
	byID      map[int64]*subsample
	// entryTokens maps the p token of every entry link to its subsample,
	// for the simulated survey (Options.ReturnURL); nil while it is off.
	entryTokens map[string]*subsample

	countriesBody, localesBody, statusesBody []byte
}

// event is a survey project: one or more subsamples in different countries.
type event struct {
	id         int64
	name       string
	rtype      researchType
	categories []category // the first is the primary one
}

// subsample is one target of an event as generated. Its status, quotas and
// live-details presence at a later time follow from these fields and the
// minutes elapsed since the world was created.
type subsample struct {
	id         int64
	event      *event
	name       string
	country    *country
	locales    []*locale // locales of the country that have a library
	billing    string
	start, end time.Time
	loi, ir    float64 // commissioned length of interview and incidence
	cpi        float64 // live details' targetedCPI, in the country's currency; 0 when it gives none

	base    status
	goLive  int64   // minutes after creation when a Pending subsample goes Live; 0 for never
	rate    float64 // completes per minute while live
	closeAt int64   // minutes of fieldwork after which the total quota is full; -1 for never
	// pendingUntil is the minute a Live subsample goes live, Pending
	// before it (Options.BusyDay); 0 for one live from the creation.
	pendingUntil int64
	// linger is how many minutes a subsample whose total quota filled
	// stays Live, paused, before it turns Complete (Options.BusyDay).
	linger    int64
	allocated bool // the supplier has an allocation > 0: listed in live-details while live
	// quotasSayComplete makes the quotas' subsampleStatus Complete while the
	// event lists say otherwise: a provider whose sources disagree.
	quotasSayComplete bool

	quotas []quotaBase // quotas[0] is the total quota
	rules  rules

	// detail is the encoded live-details entry, for subsamples that are or
	// become live. summaryHead and summaryTail are the encoded event/all
	// entry around its status value, the one part of it that changes.
	detail                   []byte
	summaryHead, summaryTail []byte
}

// generator holds what generating a world needs besides the world itself.
type generator struct {
	opts       Options
	rng        *rand.Rand
	w          *world
	categories []category
	rtypes     []researchType
	managers   []string
	audiences  []string
	clients    []string
	markets    []*country // countries whose locales have a library
	nextTable  int64
	nextQuota  int64
	eventsMade int // events generated so far
}

// newWorld generates the world for opts, which have their defaults applied.
func newWorld(opts Options) *world {
	created := opts.Now()
	cs := countries()
	ls := buildLocales(cs)
	w := &world{
		created:   created,
		countries: cs,
		locales:   ls,
		byID:      make(map[int64]*subsample, opts.Subsamples),
	}
	if opts.ReturnURL != "" {
		w.entryTokens = make(map[string]*subsample)
	}
	seed := uint64(opts.Seed)
	libLocales := ls[:opts.Locales]
	w.library = newLibrary(rand.New(rand.NewPCG(seed, 0x11b7a7)), cs, libLocales, opts.QuestionsPerLocale, opts.AnswersPerQuestion, opts.FormulaNames)
	w.countriesBody = mustJSON(cs)
	w.localesBody = mustJSON(ls)
	w.statusesBody = mustJSON(surveyStatuses())

	g := &generator{
		opts:       opts,
		rng:        rand.New(rand.NewPCG(seed, 0x3f1e1d)),
		w:          w,
		categories: categoryTree(),
		rtypes:     researchTypes(),
		managers:   projectManagers(),
		audiences:  audiences(),
		clients:    clientNames(),
		nextTable:  410000,
		nextQuota:  5200000,
	}
	seen := make(map[*country]bool)
	for _, l := range libLocales {
		if !seen[l.country] {
			seen[l.country] = true
			g.markets = append(g.markets, l.country)
		}
	}
	g.events()
	if opts.BusyDay {
		w.busyDay()
	}
	return w
}

// events generates events of 1 to 4 subsamples (2.4 on average) until the
// world holds Options.Subsamples subsamples. Event and subsample ids grow
// with creation, with the gaps left by other suppliers' projects.
func (g *generator) events() {
	eventID, subID := int64(30000), int64(200000)
	for len(g.w.subs) < g.opts.Subsamples {
		eventID += 1 + g.rng.Int64N(4)
		n := 1 + g.rng.IntN(4)
		if g.rng.IntN(10) < 3 {
			n = 2 + g.rng.IntN(2)
		}
		n = min(n, len(g.markets), g.opts.Subsamples-len(g.w.subs))
		ev := g.event(eventID)
		phase := g.pickStatus()
		for _, c := range g.pickCountries(n) {
			subID += 1 + g.rng.Int64N(3)
			st := phase
			if g.rng.IntN(10) < 3 {
				st = g.pickStatus()
			}
			ss := g.subsample(subID, ev, c, st)
			g.w.subs = append(g.w.subs, ss)
			g.w.byID[ss.id] = ss
		}
		subID += g.rng.Int64N(12)
	}
}

func (g *generator) pickStatus() status {
	ws := statusWeights()
	n := g.rng.IntN(100)
	for _, x := range ws {
		if n < x.w {
			return x.s
		}
		n -= x.w
	}
	return statusComplete
}

// pickCountries returns n distinct markets, the big ones more often.
func (g *generator) pickCountries(n int) []*country {
	total := 0
	for _, c := range g.markets {
		total += c.weight
	}
	picked := make([]*country, 0, n)
	taken := make(map[*country]bool, n)
	for len(picked) < n {
		k := g.rng.IntN(total)
		for _, c := range g.markets {
			if k < c.weight {
				if !taken[c] {
					taken[c] = true
					picked = append(picked, c)
				}
				break
			}
			k -= c.weight
		}
	}
	return picked
}

func (g *generator) event(id int64) *event {
	rt := g.pickResearchType()
	ev := &event{id: id, rtype: rt}
	primary := g.categories[g.rng.IntN(len(g.categories))]
	ev.categories = []category{primary}
	if g.rng.IntN(4) == 0 {
		if other := g.categories[g.rng.IntN(len(g.categories))]; other.id != primary.id {
			ev.categories = append(ev.categories, other)
		}
	}
	label := rt.labels[g.rng.IntN(len(rt.labels))]
	client := g.clients[g.rng.IntN(len(g.clients))]
	switch rt.id {
	case 2:
		ev.name = fmt.Sprintf("%s %s %s W%d", client, primary.name, label, 2+g.rng.IntN(30))
	default:
		ev.name = fmt.Sprintf("%s %s %s %d", client, primary.name, label, g.w.created.Year()-g.rng.IntN(2))
	}
	if g.opts.FormulaNames && g.eventsMade%2 == 0 {
		ev.name = formulaPrefixes[g.eventsMade/2%len(formulaPrefixes)] + ev.name
	}
	g.eventsMade++
	return ev
}

// formulaPrefixes begin the names of Options.FormulaNames: each makes a
// spreadsheet run a formula, or split the cell, unless the CSV writer
// neutralises it.
var formulaPrefixes = []string{
	"=HYPERLINK(\"https://evil.test\";\"x\") ", "+1+", "-2+", "@SUM(1) ",
	"\tTab ", "\rCR ", "＝1＋1 ", "＋1 ", "－1 ", "＠x ", "x;=1+1; ",
}

func (g *generator) pickResearchType() researchType {
	n := g.rng.IntN(100)
	for _, rt := range g.rtypes {
		if n < rt.weight {
			return rt
		}
		n -= rt.weight
	}
	return g.rtypes[0]
}

// subsample generates one subsample of ev in c with status st at creation.
func (g *generator) subsample(id int64, ev *event, c *country, st status) *subsample {
	ss := &subsample{
		id:        id,
		event:     ev,
		name:      fmt.Sprintf("%s - %s %s", ev.name, c.Code, g.audiences[g.rng.IntN(len(g.audiences))]),
		country:   c,
		billing:   c.entity,
		base:      st,
		closeAt:   -1,
		allocated: true,
		loi:       float64(5 + g.rng.IntN(41)),
		ir:        float64(5 + g.rng.IntN(86)),
	}
	if g.rng.IntN(10) == 0 {
		ss.billing = ""
	}
	for _, l := range g.w.locales[:g.opts.Locales] {
		if l.country == c {
			ss.locales = append(ss.locales, l)
		}
	}
	if st == statusPending && g.rng.IntN(4) == 0 {
		ss.goLive = 3 + g.rng.Int64N(88)
	}
	g.fieldDates(ss)
	if st == statusLive && g.rng.IntN(25) == 0 {
		ss.allocated = false // allocation withdrawn: listed by event/all only
	}
	// One subsample in forty has sources that disagree on its status; by
	// id, so that no random draw of the world moves.
	ss.quotasSayComplete = id%40 == 3
	g.quotas(ss)
	g.rules(ss)
	if st.isLive() || ss.goLive > 0 {
		ss.detail = g.detail(ss)
	}
	ss.summaryHead, ss.summaryTail = encodeSummary(ss)
	return ss
}

// fieldDates sets the field period: past for closed subsamples, around now
// for live ones, ahead for most pending ones. Times are wall clock in the
// zone of Options.Now, with the milliseconds the provider's system leaves.
func (g *generator) fieldDates(ss *subsample) {
	now := g.w.created
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	var startDay, length int
	switch ss.base {
	case statusLive, statusLiveForTesting:
		startDay = -g.rng.IntN(40)
		length = -startDay + 2 + g.rng.IntN(44)
	case statusPending:
		startDay = g.rng.IntN(15) - 1
		if ss.goLive > 0 { // about to go live: field starts today or has started
			startDay = -g.rng.IntN(3)
		}
		length = 7 + g.rng.IntN(34)
	case statusComplete:
		startDay = -20 - g.rng.IntN(160)
		length = 5 + g.rng.IntN(36)
	default:
		startDay = -5 - g.rng.IntN(115)
		length = 7 + g.rng.IntN(34)
	}
	ss.start = day.AddDate(0, 0, startDay).Add(time.Duration(7*3600+g.rng.IntN(11*3600))*time.Second + time.Duration(g.rng.IntN(1000))*time.Millisecond)
	end := day.AddDate(0, 0, startDay+length)
	if g.rng.IntN(2) == 0 {
		ss.end = end.Add(23*time.Hour + 59*time.Minute)
	} else {
		ss.end = end.Add(time.Duration(9*3600+g.rng.IntN(9*3600))*time.Second + time.Duration(g.rng.IntN(1000))*time.Millisecond)
	}
}
