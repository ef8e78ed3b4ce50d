package checks

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Decisions is one version of the snapshot, read and decided: every
// subsample with its sendability verdict and entry links, and the live
// ones prepared for checking panelists (ranked by expected earnings, their
// rules compiled into one rule book, their quotas into cells). Every
// request of its version shares it: it is read-only, but for Memo.
type Decisions struct {
	version int64
	// read are the snapshot's quotas as read, while it is decided; then
	// nil, and held holds them (hold): quotasOf gives either.
	read map[int64][]domain.Quota
	held *heldQuotas
	// rules are the eligibility rules as read, while d is decided; then
	// nil, and heldRules holds them (hold): rulesOf gives either.
	rules     map[int64]domain.EligibilityRules
	heldRules *heldRules
	// links are the entry links as read of the subsamples whose prepared
	// links (SubsampleReport.Links) cannot simply be filled for a
	// panelist (withPanelist): once decided, only those.
	links map[int64][]domain.SubsampleLocale
	// entry are the provider's entry addresses links must lie under
	// (Service.EntryURLs); nil checks no host.
	entry   rules.EntryURLs
	parents domain.CategoryParents
	// topics are what every subsample seen was about, to complete history
	// records (rules.WithTopics).
	topics domain.SubsampleTopics
	// now is the clock the verdicts were decided at, and ended how many
	// of the snapshot's field ends, fieldEnds (sorted), lay before it
	// (endedBy): the verdicts hold until a field ends.
	now       time.Time
	ended     int
	fieldEnds []time.Time
	// defaultLocales are each country's default locale (upper-case
	// country, lower-case locale), from the provider's locales list.
	defaultLocales map[string]string
	// staleReason says why the snapshot is too old to decide on ("" when
	// it is not); data and locales are what it was decided from, to
	// decide it again as stale, with the rows the reports and the live
	// list hold (data without its Rows: decidedStale takes them back from
	// the reports, and the live list's rows from live).
	staleReason string
	data        store.Snapshot
	locales     []domain.Locale
	// reports are every subsample of the snapshot, by event and subsample
	// id, with their verdicts and entry links for no panelist in
	// particular.
	reports []SubsampleReport
	byID    map[int64]int   // index of a subsample in reports
	byEvent map[int64][]int // indexes of an event's subsamples
	// libraryLocales are the locales with a stored question library, with
	// when each was read; live the live list's rows. Both are read only
	// with the whole snapshot.
	libraryLocales map[string]time.Time
	live           []LiveRow
	// targets are the live subsamples prepared for panelist checks, in the
	// order a panelist's surveys are listed (rank), and book their rules.
	targets  []liveTarget
	targetOf map[int64]int // index in targets of a live subsample
	book     *rules.RuleBook
	// byCountry are the places in targets of the sendable subsamples of
	// each country (upper case), in the router's order (indexCountries).
	byCountry map[string][]int32

	// ours are the supplier's own rules of the version, compiled.
	ours *rules.OurRules

	// memo is what callers keep with this version (Memo), sendListSizes
	// the sizes of send lists (SendListSize).
	memoMu        sync.Mutex
	memo          map[string]*memo
	sendListSizes map[int64]int
}

// SubsampleReport is a subsample with its sendability verdict and its
// entry links prepared for sending.
//
// The reports a decided snapshot holds (every list's) keep of the verdict
// its state and reasons, and count its cells: its checks and its quotas'
// fills are decided only for a subsample asked alone (Service.Subsample),
// again, from the same facts.
type SubsampleReport struct {
	store.SubsampleRow
	Verdict rules.Verdict
	// OpenCells and ClosedCells count the quotas besides the total that
	// are open and closed (the verdict's Open and Closed).
	OpenCells, ClosedCells int
	Links                  []EntryLinks
	// EPC is the expected earnings per entrant of a live subsample.
	EPC rules.EPC
	// Pacing is the pace of a live subsample's total quota; nil when it
	// is not live, has no single total quota, or was read alone.
	Pacing *rules.Pacing
	// Ours are our own rules' refusals of the subsample, whatever the
	// provider's verdict (a sendable one they refuse is
	// rules.BlockedByUs); Priority the places our rules raise (or lower)
	// it in the router's order.
	Ours     []rules.OurRefusal
	Priority int
	// PausedByUs says our own pause of the subsample is in force.
	PausedByUs bool
}

// EntryLinks are one locale's entry links, prepared by rules.EntryLink. A
// link that is not a valid http(s) address is left empty with the reason.
type EntryLinks struct {
	Locale                      string
	Live, Testing               string
	LiveProblem, TestingProblem string
}

// Problem is what is wrong with the locale's links, "" when nothing is.
func (l EntryLinks) Problem() string {
	switch {
	case l.LiveProblem == "":
		return l.TestingProblem
	case l.TestingProblem == "":
		return l.LiveProblem
	}
	return l.LiveProblem + "\n" + l.TestingProblem
}

// LiveRow is one live subsample as the live list shows it, with its
// verdict and expected earnings.
type LiveRow struct {
	store.LiveRow
	Verdict rules.Verdict
	EPC     rules.EPC
	Pacing  *rules.Pacing // the total quota's pace; nil without a single total quota
	// Ours are our own rules' refusals of the subsample, whatever the
	// provider's verdict (SubsampleReport.Ours).
	Ours []rules.OurRefusal
}

// SubsampleParts is one subsample as the current snapshot holds it, with
// its verdict in full (its checks and quota fills). Quotas and Rules are
// the snapshot's: read-only.
type SubsampleParts struct {
	SubsampleReport
	Quotas   []domain.Quota
	Rules    domain.EligibilityRules
	Siblings []SubsampleReport // the other subsamples of its event
	// LibraryLocales are the locales whose question library is stored,
	// lowercase, with when each was read.
	LibraryLocales map[string]time.Time
	// Decisions are the decided snapshot they come from, for what a
	// caller keeps with its version (Memo); nil in parts made otherwise.
	Decisions *Decisions
}

// LiveRows are the live subsamples with their verdicts, as the live list
// shows them: read-only.
func (d *Decisions) LiveRows() []LiveRow { return d.live }

// decide makes the decisions of what the store read at now, its links
// checked against entry; staleReason says why it is too old to decide on,
// "" when it is not. The reports' entry links are those of same, the
// decisions of the same snapshot decided before, when it is not nil:
// links depend on neither the clock nor staleness.
func decide(data store.Snapshot, same *Decisions, entry rules.EntryURLs, parents domain.CategoryParents, topics domain.SubsampleTopics, locales []domain.Locale, staleReason string, now time.Time) *Decisions {
	d := &Decisions{version: data.Version, read: data.Quotas, rules: data.Rules, links: data.Links, entry: entry, parents: parents,
		topics: groupedBy(topics, data.Events), defaultLocales: defaultLocalesOf(locales), staleReason: staleReason, data: data, locales: locales, now: now,
		ours: rules.CompilePolicy(data.Policy)}
	d.reports = make([]SubsampleReport, len(data.Rows))
	d.byID = make(map[int64]int, len(data.Rows))
	d.byEvent = make(map[int64][]int)
	for i, row := range data.Rows {
		if row.FieldEnd != nil {
			d.fieldEnds = append(d.fieldEnds, *row.FieldEnd)
		}
		d.reports[i] = d.report(row, same)
		d.byID[row.SubsampleID] = i
		d.byEvent[row.EventID] = append(d.byEvent[row.EventID], i)
	}
	slices.SortFunc(d.fieldEnds, time.Time.Compare)
	d.ended = d.endedBy(now)
	d.shareStrings()
	d.prepareTargets()
	d.data.Rows = nil      // the reports hold them
	d.data.Events = nil    // and topics
	d.data.Countries = nil // and the reports' LiveCountries
	d.keepLinksAsRead()
	if !d.ours.Blocks("category") {
		d.data.Categories = nil // nothing decides on them again (decidedAt)
	}
	return d
}

// groupedBy is topics with, for every subsample, the events the provider
// groups it in (store.Snapshot.Events): a history record counts in the
// event its subsample is in as well as in the one it names
// (rules.WithTopics). topics is not changed: decisions decided again share
// it with those being read, and get it back already grouped, without
// events (decide drops them).
func groupedBy(topics domain.SubsampleTopics, events map[int64][]int64) domain.SubsampleTopics {
	if len(events) == 0 {
		return topics
	}
	out := make(map[int64]domain.Topics, topics.Len()+len(events))
	for id, t := range topics.All() {
		out[id] = t
	}
	for id, in := range events {
		t := out[id]
		t.EventIDs = in
		out[id] = t
	}
	return domain.TopicsOf(out)
}

// defaultLocalesOf are each country's default locale in the provider's
// locales list: upper-case country, lower-case locale.
func defaultLocalesOf(locales []domain.Locale) map[string]string {
	out := map[string]string{}
	for _, l := range locales {
		if l.CountryDefault {
			out[strings.ToUpper(l.CountryCode)] = strings.ToLower(l.Locale)
		}
	}
	return out
}

// report builds one subsample's report, its entry links prepared for no
// panelist in particular, and its verdict as the snapshot holds it: the
// state and the reasons, the cells counted.
func (d *Decisions) report(row store.SubsampleRow, same *Decisions) SubsampleReport {
	quotas := d.quotasOf(row.SubsampleID)
	v := d.verdict(row, quotas)
	r := SubsampleReport{SubsampleRow: row, Verdict: rules.Verdict{State: v.State, Reasons: v.Reasons},
		OpenCells: len(v.Open), ClosedCells: len(v.Closed)}
	if i, ok := same.indexOf(row.SubsampleID); ok {
		r.Links = same.reports[i].Links
	} else {
		r.Links = d.EntryLinks(&r, "")
	}
	if row.Live && row.CPI != nil {
		r.EPC = rules.ExpectedEarnings(*row.CPI, row.Currency, rules.FieldConversion(quotas), row.ExpectedIR)
	}
	d.applyOurs(&r)
	return r
}

// applyOurs judges r by our own rules, after the provider's: their
// refusals, the verdict they make of a sendable subsample
// (rules.WithOurRules), and the priority they give it.
func (d *Decisions) applyOurs(r *SubsampleReport) {
	if len(d.ours.Rules()) == 0 {
		return
	}
	r.Ours = d.ours.Refusals(d.policyFacts(r), d.now)
	r.Verdict = rules.WithOurRules(r.Verdict, r.Ours)
	r.Priority = d.ours.Priority(r.SubsampleID, r.EventID)
	r.PausedByUs = d.ours.Paused(r.SubsampleID)
}

// policyFacts are what our rules judge r on.
func (d *Decisions) policyFacts(r *SubsampleReport) rules.PolicyFacts {
	f := rules.PolicyFacts{SubsampleID: r.SubsampleID, EventID: r.EventID, CPI: rules.KnownCPI(r.CPI, r.Currency), Currency: r.Currency,
		EPC: r.EPC, LOI: r.ExpectedLOI, Incidence: r.ExpectedIR, ResearchType: r.ResearchType, ResearchTypeID: r.ResearchTypeID,
		Categories: d.data.Categories[r.SubsampleID], Countries: r.LiveCountries, BillingEntity: r.BillingEntity}
	if len(f.Countries) == 0 && r.CountryCode != "" {
		f.Countries = []string{r.CountryCode}
	}
	if r.Devices != store.DevicesUnknown {
		f.Devices = []string{}
		for _, d := range [...]struct {
			name string
			flag int8
		}{{"desktop", store.DeviceDesktop}, {"mobile", store.DeviceMobile}, {"tablet", store.DeviceTablet}} {
			if r.Devices&d.flag != 0 {
				f.Devices = append(f.Devices, d.name)
			}
		}
	}
	return f
}

// verdict decides a subsample's sendability in full, on its quotas: the
// state, the reasons, every rule's check and the quotas' fills.
func (d *Decisions) verdict(row store.SubsampleRow, quotas []domain.Quota) rules.Verdict {
	f := Facts(row, quotas, d.now)
	f.Stale = d.staleReason
	return rules.Sendability(f)
}

// EntryLinks prepares a subsample's entry links (rules.EntryLink), filled
// for panelistID when it is not empty. A link that is not under the
// provider's entry address (rules.EntryURLs.Under) is left empty with the
// reason, as one that is not a link at all.
func (d *Decisions) EntryLinks(r *SubsampleReport, panelistID string) []EntryLinks {
	var out []EntryLinks
	for _, l := range d.links[r.SubsampleID] {
		links := EntryLinks{Locale: l.Name}
		links.Live, links.LiveProblem = d.entryLink(l.LiveEntryLink, r.APICompatible, panelistID)
		links.Testing, links.TestingProblem = d.entryLink(l.TestingEntryLink, r.APICompatible, panelistID)
		out = append(out, links)
	}
	return out
}

// entryLink is one link prepared, or "" and what is wrong with it.
func (d *Decisions) entryLink(raw string, apiCompatible bool, panelistID string) (link, problem string) {
	link, err := rules.EntryLink(raw, apiCompatible, panelistID)
	if err == nil {
		err = d.entry.Under(link)
	}
	if err != nil {
		return "", err.Error()
	}
	return link, ""
}

// PanelistLinks are the entry links of the locale chosen for a panelist
// (rules.FitPanel), filled for them; nil when no locale was chosen.
func (d *Decisions) PanelistLinks(r *SubsampleReport, locale, panelistID string) []EntryLinks {
	for _, l := range r.Links {
		if locale != "" && strings.EqualFold(l.Locale, locale) {
			return withPanelist([]EntryLinks{l}, panelistID, func() []EntryLinks {
				for _, filled := range d.EntryLinks(r, panelistID) {
					if filled.Locale == l.Locale {
						return []EntryLinks{filled}
					}
				}
				return nil
			})
		}
	}
	return nil
}

// indexOf is the place of subsampleID in d.reports; none in nil
// decisions.
func (d *Decisions) indexOf(subsampleID int64) (int, bool) {
	if d == nil {
		return 0, false
	}
	i, ok := d.byID[subsampleID]
	return i, ok
}

// keepLinksAsRead keeps of the entry links as read only those of the
// subsamples whose prepared links withPanelist cannot fill (a link with
// a problem), for PanelistLinks to prepare again for a panelist.
func (d *Decisions) keepLinksAsRead() {
	kept := map[int64][]domain.SubsampleLocale{}
	for i := range d.reports {
		r := &d.reports[i]
		if _, ok := d.links[r.SubsampleID]; ok && !fillable(r.Links) {
			kept[r.SubsampleID] = d.links[r.SubsampleID]
		}
	}
	d.links, d.data.Links = kept, kept
}

// fillable reports whether withPanelist fills links for a panelist
// without preparing them again from the links as read: no link has a
// problem, and every one was prepared for nobody.
func fillable(links []EntryLinks) bool {
	for _, l := range links {
		if l.Problem() != "" {
			return false
		}
		if _, ok := rules.FillEntryLink(l.Live, ""); !ok {
			return false
		}
		if _, ok := rules.FillEntryLink(l.Testing, ""); l.Testing != "" && !ok {
			return false
		}
	}
	return true
}

// endedBy is how many of the snapshot's field ends lie before now: when
// it is not d.ended, a field has ended (or, on a clock set back, not yet)
// since d was decided, and d's verdicts no longer hold.
func (d *Decisions) endedBy(now time.Time) int {
	n, _ := slices.BinarySearchFunc(d.fieldEnds, now, func(end, now time.Time) int {
		if end.Before(now) {
			return -1
		}
		return 1
	})
	return n
}

// decidedAt decides d's snapshot again at now, every subsample unknown
// for why, the reason it is too old to decide on, when it is not "".
func (d *Decisions) decidedAt(why string, now time.Time) *Decisions {
	data := d.data
	if d.held != nil {
		data.Quotas = d.held.all()
	}
	if d.heldRules != nil {
		data.Rules = d.heldRules.all()
	}
	data.Rows = make([]store.SubsampleRow, len(d.reports))
	for i := range d.reports {
		data.Rows[i] = d.reports[i].SubsampleRow
	}
	again := decide(data, d, d.entry, d.parents, d.topics, d.locales, why, now)
	again.libraryLocales = d.libraryLocales
	rows := make([]store.LiveRow, len(d.live))
	for i := range d.live {
		rows[i] = d.live[i].LiveRow
	}
	for i := range again.reports {
		again.reports[i].Pacing = d.reports[i].Pacing
	}
	again.setLiveRows(rows)
	again.livePacing()
	if d.held != nil {
		again.hold()
	}
	return again
}

// setLiveRows gives the live list's rows the verdicts just decided for
// the reports, and holds once the strings a row and its report share.
func (d *Decisions) setLiveRows(rows []store.LiveRow) {
	d.live = make([]LiveRow, len(rows))
	for i, r := range rows {
		row := LiveRow{LiveRow: r, Verdict: rules.Verdict{State: rules.Unknown, Reasons: []string{"The data changed while it was read; reload the page."}}}
		if j, ok := d.byID[r.SubsampleID]; ok {
			report := &d.reports[j]
			row.Verdict, row.EPC, row.Ours = report.Verdict, report.EPC, report.Ours
			for _, s := range [...]struct {
				row    *string
				report string
			}{{&row.EventName, report.EventName}, {&row.Name, report.Name},
				{&row.Status, report.Status}, {&row.Currency, report.Currency}, {&row.ResearchType, report.ResearchType}, {&row.QuotasError, report.QuotasError}} {
				if *s.row == s.report {
					*s.row = s.report
				}
			}
		}
		d.live[i] = row
	}
}

// liveTarget is one live subsample prepared, once per version, for
// checking panelists against it.
type liveTarget struct {
	report *SubsampleReport
	target rules.Target     // its rules are Decisions.rules'
	unread string           // rules.RulesNotRead of the subsample
	cells  rules.QuotaCells // its quotas, compiled for matching profiles
	// quotasUnread says why the quotas cannot be matched ("" when they can):
	// kept quotas from before a failed read are not matched against.
	quotasUnread string
	// panel is where it takes panelists from: its countries and locales.
	panel rules.PanelTarget
	// closures are the cells the field closed, each with its quota as the
	// snapshot holds it (fieldClosed).
	closures []fieldClosure
}

// fieldClosure is a cell the field closed, with its quota as the snapshot
// holds it.
type fieldClosure struct {
	closure domain.FieldClosure
	quota   domain.Quota
}

// prepareTargets fills d.targets and d.book from the live subsamples of
// d.reports and their countries (SubsampleRow.LiveCountries).
func (d *Decisions) prepareTargets() {
	d.targets = d.targets[:0]
	var cells rules.CellCompiler // cells asking the same questions share their conditions
	for i := range d.reports {
		r := &d.reports[i]
		if !r.Live {
			continue
		}
		d.targets = append(d.targets, liveTarget{
			report:       r,
			target:       rules.Target{SubsampleID: r.SubsampleID, EventID: r.EventID},
			unread:       rules.RulesNotRead(r.RulesOK, r.RulesError),
			cells:        cells.Compile(d.quotasOf(r.SubsampleID)),
			quotasUnread: rules.QuotasNotRead(r.QuotasOK, r.QuotasError),
			panel:        panelTarget(r.LiveCountries, r.Links),
			closures:     fieldClosuresOf(d.data.FieldClosures[r.SubsampleID], d.quotasOf(r.SubsampleID)),
		})
	}
	slices.SortStableFunc(d.targets, func(a, b liveTarget) int { return rank(a.report.EPC, b.report.EPC) })
	targets := make([]rules.Target, len(d.targets))
	ruleSets := make([]domain.EligibilityRules, len(d.targets))
	d.targetOf = make(map[int64]int, len(d.targets))
	for i, t := range d.targets {
		targets[i], ruleSets[i] = t.target, d.rules[t.target.SubsampleID]
		d.targetOf[t.target.SubsampleID] = i
	}
	d.book = rules.NewRuleBook(targets, ruleSets, d.parents)
	d.indexCountries()
}

// panelTarget is where a subsample takes panelists from, for
// rules.FitPanel: its countries and its locales, each usable when its live
// entry link is (a testing link's problem does not matter to it).
func panelTarget(countries []string, links []EntryLinks) rules.PanelTarget {
	t := rules.PanelTarget{Countries: countries, Locales: make([]rules.PanelLocale, len(links))}
	for i, l := range links {
		t.Locales[i] = rules.PanelLocale{Code: strings.ToLower(l.Locale), Usable: l.Live != "" && l.LiveProblem == "", Problem: l.LiveProblem}
	}
	return t
}

// fitPanel decides a panelist's country and language for t.
func (d *Decisions) fitPanel(t *liveTarget, m domain.PanelMember) rules.PanelFit {
	return rules.FitPanel(m, t.panel, d.defaultLocales[m.Country])
}

// panelFits are the fits (fitPanel) of a country and language on every
// live subsample, by place, kept with the decisions (Memo
// "checks.panelFits") for at most maxPanelFits pairs: what a panelist's
// check against every live subsample would otherwise decide, and write
// the sentences of, again for each panelist of the pair.
type panelFits struct {
	mu sync.Mutex
	of map[[2]string]*pairFits
}

// pairFits are one pair's fits: the few distinct ones, and for each live
// subsample the place of its own among them. The places hold no pointer,
// so the collector does not scan a pair's fits of every live subsample on
// each cycle (a PanelFit holds three strings).
type pairFits struct {
	distinct []rules.PanelFit
	at       []uint16
}

// fit is the fit on the live subsample at place i.
func (f *pairFits) fit(i int) rules.PanelFit { return f.distinct[f.at[i]] }

// maxPanelFits bounds the pairs panelFits keeps (a pair's fits hold two
// bytes a live subsample and its distinct fits): a panel of more
// countries and languages has the others decided per panelist, as
// before.
const maxPanelFits = 32

// fitsOf returns m's fits on every live subsample: kept for its country
// and language, made the first time the pair is asked for; nil when
// panelFits is full, or the pair has more distinct fits than a place
// holds: fitPanel then decides each.
func (d *Decisions) fitsOf(m domain.PanelMember) *pairFits {
	pf, _ := Memo(d, "checks.panelFits", func() (*panelFits, error) {
		return &panelFits{of: map[[2]string]*pairFits{}}, nil
	})
	key := [2]string{m.Country, m.Locale}
	pf.mu.Lock()
	fits, ok := pf.of[key]
	full := len(pf.of) >= maxPanelFits
	pf.mu.Unlock()
	if ok || full {
		return fits
	}
	fits = &pairFits{at: make([]uint16, len(d.targets))}
	places := map[rules.PanelFit]uint16{}
	for i := range d.targets {
		f := d.fitPanel(&d.targets[i], m)
		place, ok := places[f]
		if !ok {
			if len(fits.distinct) > math.MaxUint16 {
				return nil
			}
			place = uint16(len(fits.distinct))
			fits.distinct = append(fits.distinct, f)
			places[f] = place
		}
		fits.at[i] = place
	}
	pf.mu.Lock()
	defer pf.mu.Unlock()
	if kept, ok := pf.of[key]; ok {
		return kept
	}
	if len(pf.of) < maxPanelFits {
		pf.of[key] = fits
	}
	return fits
}

// rank orders subsamples for a panelist: the highest expected earnings
// per entrant first within a currency (figures in different currencies
// are never compared as numbers, so currencies form groups, in code
// order), those without a figure last.
func rank(a, b rules.EPC) int {
	switch {
	case a.Known() != b.Known():
		if a.Known() {
			return -1
		}
		return 1
	case a.Currency != b.Currency:
		return strings.Compare(a.Currency, b.Currency)
	}
	return cmp.Compare(b.Value, a.Value)
}

// fieldClosuresOf pairs each closure with its quota in quotas; a
// closure of a quota no longer there closes nothing.
func fieldClosuresOf(closures []domain.FieldClosure, quotas []domain.Quota) []fieldClosure {
	var out []fieldClosure
	for _, c := range closures {
		for _, q := range quotas {
			if q.QuotaID == c.QuotaID {
				out = append(out, fieldClosure{closure: c, quota: q})
				break
			}
		}
	}
	return out
}

// quotaVerdict is a panelist's quota verdict on t: unknown while t's
// quotas are not read, full when they surely fall in a cell the field
// closed (fieldClosed).
func (t *liveTarget) quotaVerdict(p domain.Profile, now time.Time) rules.QuotaVerdict {
	if t.quotasUnread != "" {
		return rules.QuotaUnknown
	}
	if len(t.fieldClosed(p, now)) > 0 {
		return rules.QuotaFull
	}
	return t.cells.Verdict(p, now)
}

// fieldClosed are the closures of the cells the panelist surely falls in
// that hold at now (rules.FieldClosureHolds); none costs nothing when no
// cell of t is closed.
func (t *liveTarget) fieldClosed(p domain.Profile, now time.Time) []domain.FieldClosure {
	var out []domain.FieldClosure
	var in []int64
	for i, c := range t.closures {
		if !rules.FieldClosureHolds(c.closure, c.quota, now) {
			continue
		}
		if in == nil {
			in = t.cells.AppendCells(make([]int64, 0, 8), p, now)
		}
		if slices.Contains(in, t.closures[i].closure.QuotaID) {
			out = append(out, c.closure)
		}
	}
	return out
}

// notSendable says why nobody may be sent to t's subsample now, in one
// sentence that leads a refused send list and every row of a bulk check;
// "" when it is sendable.
func (t *liveTarget) notSendable() string {
	v := t.report.Verdict
	if v.State == rules.Sendable {
		return ""
	}
	return strings.TrimSpace(fmt.Sprintf("Subsample %d is %s now. %s", t.target.SubsampleID, strings.ToLower(v.State.Label()), strings.Join(v.Reasons, " ")))
}

// explainQuota says why a panelist's quota verdict on t is not fits,
// naming questions and answers in words (nil: by their ids).
func (t *liveTarget) explainQuota(p domain.Profile, now time.Time, words *rules.QuotaWords) []string {
	if t.quotasUnread != "" {
		return []string{t.quotasUnread}
	}
	var out []string
	for _, c := range t.fieldClosed(p, now) {
		out = append(out, rules.FieldClosureReason(c))
	}
	return append(out, t.cells.Explain(p, now, words)...)
}

// memo is one value Memo keeps: built once, by the first caller, while
// the others wait for it.
type memo struct {
	mu    sync.Mutex
	built bool
	value any
}

// Memo returns what build makes of d, built the first time key is asked
// for in d's version and kept with it: asked again, it costs a map lookup;
// asked at once by many, it is built once while the others wait. A build
// that fails is tried again by the next caller. What build returns must
// depend on nothing but d and key.
//
// Keys are a fixed few per caller, prefixed with what they hold
// ("formats.SurveysWriter"): a cache keyed by what a client sends keeps
// its own bound inside one memo.
func Memo[T any](d *Decisions, key string, build func() (T, error)) (T, error) {
	d.memoMu.Lock()
	if d.memo == nil {
		d.memo = map[string]*memo{}
	}
	m := d.memo[key]
	if m == nil {
		m = &memo{}
		d.memo[key] = m
	}
	d.memoMu.Unlock()

	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.value.(T); m.built && ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	m.value, m.built = v, true
	return v, nil
}
