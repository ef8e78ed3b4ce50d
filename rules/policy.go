package rules

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fieldboard/rules/domain"
)

// The supplier's own rules (domain.PolicyRule) are applied after the
// provider's wherever a send is decided: a subsample the provider lets us
// send to may still be refused by ours (OurRules.Refusals), ranked higher
// or lower (OurRules.Priority) or capped (OurRules.Caps); a panelist may
// be held or released by hand (OurRules.HeldByHand, OurRules.Released).

// The scopes of a block (PolicyBlock).
var BlockScopes = []string{"subsample", "event", "research-type", "category", "country", "billing-entity"}

// Devices are the devices a survey may allow, as PolicyDevices lists them.
var Devices = []string{"desktop", "mobile", "tablet"}

// The units and periods of a cap (PolicyCap).
var (
	CapUnits   = []string{"sends", "entrants", "completes"}
	CapPeriods = []string{"hour", "day"}
)

// PolicyUsage is how a rule is written, for the command line, the API and
// the page (ParsePolicyRule).
const PolicyUsage = `block subsample|event|research-type|category|country|billing-entity VALUE
min-cpi AMOUNT CURRENCY
min-epc AMOUNT CURRENCY
max-loi MINUTES
min-incidence PERCENT
devices desktop|mobile|tablet[,...]
cap subsample ID sends|entrants|completes N per hour|day
cap panelist sends N per day
priority subsample|event ID +N|-N
pause subsample ID`

// The largest cap and priority a rule may set: a cap of a billion sends is
// no cap, and a priority beyond a thousand places moves nothing further.
const (
	maxCap      = 1_000_000_000
	maxPriority = 1000
	// maxBlockValue bounds what a block names: a country code, an id or
	// a name the provider gives.
	maxBlockValue = 200
)

// ParsePolicyRule reads a rule as the command line, the API and the page
// write it (PolicyUsage), words apart: "max-loi 20", "block country DE",
// "cap subsample 12 sends 50 per hour". Who set it, when and why are the
// caller's to fill. Anything else is an error that says what is wrong.
func ParsePolicyRule(words []string) (domain.PolicyRule, error) {
	if len(words) == 0 {
		return domain.PolicyRule{}, fmt.Errorf("a rule is one of:\n%s", PolicyUsage)
	}
	r := domain.PolicyRule{Kind: domain.PolicyKind(strings.ToLower(words[0]))}
	args := words[1:]
	want := func(n int, form string) error {
		if len(args) != n {
			return fmt.Errorf("%s takes %s", r.Kind, form)
		}
		return nil
	}
	var err error
	switch r.Kind {
	case domain.PolicyMinCPI, domain.PolicyMinEPC:
		if err = want(2, "an amount and a currency, as in "+string(r.Kind)+" 2.50 EUR"); err != nil {
			return r, err
		}
		if r.Amount, err = parseAmount(args[0], "amount"); err != nil {
			return r, err
		}
		r.Currency = strings.ToUpper(strings.TrimSpace(args[1]))
		if len(r.Currency) != 3 || strings.IndexFunc(r.Currency, func(c rune) bool { return c < 'A' || c > 'Z' }) >= 0 {
			return r, fmt.Errorf("currency %q is not a three-letter code such as EUR", args[1])
		}
	case domain.PolicyMaxLOI, domain.PolicyMinIncidence:
		if err = want(1, "one number, as in "+string(r.Kind)+" 20"); err != nil {
			return r, err
		}
		if r.Amount, err = parseAmount(args[0], "number"); err != nil {
			return r, err
		}
		if r.Kind == domain.PolicyMinIncidence && r.Amount > 100 {
			return r, fmt.Errorf("an incidence of %s%% is more than 100%%", args[0])
		}
	case domain.PolicyDevices:
		if err = want(1, "a list of devices, as in devices mobile,tablet"); err != nil {
			return r, err
		}
		var list []string
		for d := range strings.SplitSeq(strings.ToLower(args[0]), ",") {
			d = strings.TrimSpace(d)
			if !slices.Contains(Devices, d) {
				return r, fmt.Errorf("device %q is not one of %s", d, strings.Join(Devices, ", "))
			}
			if !slices.Contains(list, d) {
				list = append(list, d)
			}
		}
		slices.SortFunc(list, func(a, b string) int { return cmp.Compare(slices.Index(Devices, a), slices.Index(Devices, b)) })
		r.Target = strings.Join(list, ",")
	case domain.PolicyBlock:
		if err = want(2, "what to block and its value, as in block country DE"); err != nil {
			return r, err
		}
		r.Scope = strings.ToLower(args[0])
		if !slices.Contains(BlockScopes, r.Scope) {
			return r, fmt.Errorf("block %q: one may block a %s", args[0], strings.Join(BlockScopes, ", a "))
		}
		r.Target = strings.TrimSpace(args[1])
		switch r.Scope {
		case "subsample", "event":
			id, err := parseID(r.Target, r.Scope)
			if err != nil {
				return r, err
			}
			r.Target = strconv.FormatInt(id, 10) // "012" is 12
		case "country":
			r.Target = strings.ToUpper(r.Target)
		}
		if r.Target == "" {
			return r, fmt.Errorf("block %s takes a value", r.Scope)
		}
		if len(r.Target) > maxBlockValue || !utf8.ValidString(r.Target) || strings.ContainsFunc(r.Target, unicode.IsControl) {
			return r, fmt.Errorf("a block's value is at most %d bytes of text on one line", maxBlockValue)
		}
	case domain.PolicyCap:
		r.Scope = strings.ToLower(first(args))
		switch r.Scope {
		case "subsample":
			if err = want(6, "cap subsample ID sends|entrants|completes N per hour|day"); err != nil {
				return r, err
			}
			id, err := parseID(args[1], "subsample")
			if err != nil {
				return r, err
			}
			r.Target, args = strconv.FormatInt(id, 10), args[2:]
		case "panelist":
			if err = want(5, "cap panelist sends N per day"); err != nil {
				return r, err
			}
			args = args[1:]
		default:
			return r, fmt.Errorf("cap %q: one may cap a subsample or a panelist", first(args))
		}
		r.Unit, r.Per = strings.ToLower(args[0]), strings.ToLower(args[3])
		if !slices.Contains(CapUnits, r.Unit) {
			return r, fmt.Errorf("cap of %q: one may cap %s", args[0], strings.Join(CapUnits, ", "))
		}
		if r.Scope == "panelist" && (r.Unit != "sends" || r.Per != "day") {
			return r, fmt.Errorf("a panelist's cap counts sends per day")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > maxCap {
			return r, fmt.Errorf("cap %q is not a whole number from 1 to %d", args[1], maxCap)
		}
		r.Amount = float64(n)
		if strings.ToLower(args[2]) != "per" || !slices.Contains(CapPeriods, r.Per) {
			return r, fmt.Errorf("a cap counts per hour or per day, not %q", strings.Join(args[2:], " "))
		}
	case domain.PolicyPriority:
		if err = want(3, "subsample|event ID +N|-N, as in priority event 7 +2"); err != nil {
			return r, err
		}
		r.Scope = strings.ToLower(args[0])
		if r.Scope != "subsample" && r.Scope != "event" {
			return r, fmt.Errorf("priority %q: one may raise or lower a subsample or an event", args[0])
		}
		id, err := parseID(args[1], r.Scope)
		if err != nil {
			return r, err
		}
		r.Target = strconv.FormatInt(id, 10)
		n, err := strconv.Atoi(args[2])
		if err != nil || n == 0 || n < -maxPriority || n > maxPriority || (args[2][0] != '+' && args[2][0] != '-') {
			return r, fmt.Errorf("priority %q is not a signed whole number other than 0, such as +2 or -1, from -%d to +%d", args[2], maxPriority, maxPriority)
		}
		r.Amount = float64(n)
	case domain.PolicyPause:
		if err = want(2, "pause subsample ID"); err != nil {
			return r, err
		}
		if r.Scope = strings.ToLower(args[0]); r.Scope != "subsample" {
			return r, fmt.Errorf("pause %q: one may pause a subsample", args[0])
		}
		id, err := parseID(args[1], "subsample")
		if err != nil {
			return r, err
		}
		r.Target = strconv.FormatInt(id, 10)
	default:
		return r, fmt.Errorf("%q is not a rule; a rule is one of:\n%s", words[0], PolicyUsage)
	}
	return r, nil
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// parseAmount reads a number of at least 0 (a minimum, a maximum).
func parseAmount(raw, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e9 {
		return 0, fmt.Errorf("%s %q is not a number of at least 0", what, raw)
	}
	return v, nil
}

// parseID reads a subsample's or an event's id.
func parseID(raw, what string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%s id %q is not a whole number of at least 1", what, raw)
	}
	return id, nil
}

// PolicySubject names what a rule is about in words, the same for every
// rule of its key: "our maximum LOI", "our block of country DE", "our cap
// of sends per hour on subsample 12".
func PolicySubject(r domain.PolicyRule) string {
	switch r.Kind {
	case domain.PolicyMinCPI:
		return "our minimum CPI in " + r.Currency
	case domain.PolicyMinEPC:
		return "our minimum expected earnings per entrant in " + r.Currency
	case domain.PolicyMaxLOI:
		return "our maximum LOI"
	case domain.PolicyMinIncidence:
		return "our minimum incidence"
	case domain.PolicyDevices:
		return "our panel's devices"
	case domain.PolicyBlock:
		return "our block of " + strings.ReplaceAll(r.Scope, "-", " ") + " " + r.Target
	case domain.PolicyCap:
		if r.Scope == "panelist" {
			return "our cap of sends per panelist per day"
		}
		return "our cap of " + r.Unit + " per " + r.Per + " on subsample " + r.Target
	case domain.PolicyPriority:
		return "our priority of " + r.Scope + " " + r.Target
	case domain.PolicyPause:
		return "our pause of subsample " + r.Target
	}
	return "our rule " + string(r.Kind)
}

// PolicyValue is what a rule sets, in words: "20 minutes", "2.50 EUR",
// "50", "+2", "in force".
func PolicyValue(r domain.PolicyRule) string {
	switch r.Kind {
	case domain.PolicyMinCPI, domain.PolicyMinEPC:
		return formatCPI(r.Amount, r.Currency)
	case domain.PolicyMaxLOI:
		return trimNumber(r.Amount) + " minutes"
	case domain.PolicyMinIncidence:
		return trimNumber(r.Amount) + "%"
	case domain.PolicyDevices:
		return strings.ReplaceAll(r.Target, ",", ", ")
	case domain.PolicyCap:
		return trimNumber(r.Amount)
	case domain.PolicyPriority:
		return fmt.Sprintf("%+d", int(r.Amount))
	}
	return "in force"
}

// PolicyWords writes a rule as ParsePolicyRule reads it.
func PolicyWords(r domain.PolicyRule) string {
	switch r.Kind {
	case domain.PolicyMinCPI, domain.PolicyMinEPC:
		return fmt.Sprintf("%s %s %s", r.Kind, strconv.FormatFloat(r.Amount, 'f', -1, 64), r.Currency)
	case domain.PolicyMaxLOI, domain.PolicyMinIncidence:
		return fmt.Sprintf("%s %s", r.Kind, strconv.FormatFloat(r.Amount, 'f', -1, 64))
	case domain.PolicyDevices:
		return fmt.Sprintf("%s %s", r.Kind, r.Target)
	case domain.PolicyBlock, domain.PolicyPause:
		return fmt.Sprintf("%s %s %s", r.Kind, r.Scope, r.Target)
	case domain.PolicyCap:
		if r.Scope == "panelist" {
			return fmt.Sprintf("cap panelist sends %d per day", int(r.Amount))
		}
		return fmt.Sprintf("cap subsample %s %s %d per %s", r.Target, r.Unit, int(r.Amount), r.Per)
	case domain.PolicyPriority:
		return fmt.Sprintf("priority %s %s %+d", r.Scope, r.Target, int(r.Amount))
	}
	return string(r.Kind)
}

// trimNumber writes v without trailing zeros: 20, 2.5.
func trimNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// SetByWords says who set a rule and when, for the sentences that name
// it: "set by maria on 6 Dec" (the year added when it is not now's).
func SetByWords(by string, at, now time.Time) string {
	day := at.Format("2 Jan")
	if at.Year() != now.Year() {
		day = at.Format("2 Jan 2006")
	}
	return "set by " + cmp.Or(by, "someone unnamed") + " on " + day
}

// PolicyFacts are what the supplier's own rules judge a subsample on.
// Pointers are nil when the provider did not say.
type PolicyFacts struct {
	SubsampleID, EventID int64
	CPI                  *float64 // known only (KnownCPI)
	Currency             string
	EPC                  EPC
	LOI, Incidence       *float64
	ResearchType         string
	ResearchTypeID       *int64
	Categories           []domain.Category
	Countries            []string
	BillingEntity        string
	// Devices are the devices the survey allows; nil when not known.
	Devices []string
}

// OurRules are the supplier's own rules in force, ready to judge
// subsamples and panelists (CompilePolicy). A nil *OurRules holds none.
type OurRules struct {
	rules []domain.PolicyRule
	holds map[string]domain.PanelistHold
	// priority sums the priorities by "subsample ID" and "event ID".
	priority map[string]int
	// caps are the cap rules by subsample id; panelistCaps those per
	// panelist.
	caps         map[int64][]domain.PolicyRule
	panelistCaps []domain.PolicyRule
}

// CompilePolicy makes the rules of p ready to judge.
func CompilePolicy(p domain.Policy) *OurRules {
	o := &OurRules{rules: p.Rules, holds: p.Holds, priority: map[string]int{}, caps: map[int64][]domain.PolicyRule{}}
	for _, r := range p.Rules {
		switch r.Kind {
		case domain.PolicyPriority:
			o.priority[r.Scope+" "+r.Target] += int(r.Amount)
		case domain.PolicyCap:
			if r.Scope == "panelist" {
				o.panelistCaps = append(o.panelistCaps, r)
			} else if id, err := strconv.ParseInt(r.Target, 10, 64); err == nil {
				o.caps[id] = append(o.caps[id], r)
			}
		}
	}
	return o
}

// Rules are the rules in force, by id.
func (o *OurRules) Rules() []domain.PolicyRule {
	if o == nil {
		return nil
	}
	return o.rules
}

// OurRefusal is one of our rules refusing a subsample: which rule, and
// why in a sentence that names it, who set it and when.
type OurRefusal struct {
	RuleID int64
	Reason string
}

// Refusals are the sentences of each of our rules that refuses the
// subsample f, in the order the rules were made; none when ours let it
// take traffic. A rule that needs a fact the provider did not give
// refuses: when in doubt, do not send.
func (o *OurRules) Refusals(f PolicyFacts, now time.Time) []OurRefusal {
	if o == nil {
		return nil
	}
	var out []OurRefusal
	for _, r := range o.rules {
		if why := refusal(r, f, now); why != "" {
			out = append(out, OurRefusal{RuleID: r.ID, Reason: why})
		}
	}
	return out
}

// refusal is why rule r refuses f, "" when it does not.
func refusal(r domain.PolicyRule, f PolicyFacts, now time.Time) string {
	set := "(" + SetByWords(r.SetBy, r.SetAt, now) + ")"
	sub := strconv.FormatInt(f.SubsampleID, 10)
	switch r.Kind {
	case domain.PolicyMinCPI:
		if !strings.EqualFold(strings.TrimSpace(f.Currency), r.Currency) {
			return ""
		}
		if f.CPI == nil {
			return fmt.Sprintf("Our minimum CPI is %s %s; this survey's CPI is not known.", formatCPI(r.Amount, r.Currency), set)
		}
		if *f.CPI < r.Amount {
			return fmt.Sprintf("Our minimum CPI is %s %s; this survey pays %s.", formatCPI(r.Amount, r.Currency), set, formatCPI(*f.CPI, r.Currency))
		}
	case domain.PolicyMinEPC:
		if !strings.EqualFold(strings.TrimSpace(f.Currency), r.Currency) {
			return ""
		}
		if !f.EPC.Known() {
			return fmt.Sprintf("Our minimum expected earnings per entrant are %s %s; this survey's are not known.", formatCPI(r.Amount, r.Currency), set)
		}
		if f.EPC.Value < r.Amount {
			return fmt.Sprintf("Our minimum expected earnings per entrant are %s %s; this survey's are %s.", formatCPI(r.Amount, r.Currency), set, formatCPI(f.EPC.Value, r.Currency))
		}
	case domain.PolicyMaxLOI:
		if f.LOI == nil {
			return fmt.Sprintf("Our maximum LOI is %s minutes %s; this survey's length is not known.", trimNumber(r.Amount), set)
		}
		if *f.LOI > r.Amount {
			return fmt.Sprintf("Our maximum LOI is %s minutes %s; this survey is %s.", trimNumber(r.Amount), set, trimNumber(math.Round(*f.LOI*10)/10))
		}
	case domain.PolicyMinIncidence:
		if f.Incidence == nil {
			return fmt.Sprintf("Our minimum incidence is %s%% %s; this survey's is not known.", trimNumber(r.Amount), set)
		}
		if *f.Incidence < r.Amount {
			return fmt.Sprintf("Our minimum incidence is %s%% %s; this survey expects %s%%.", trimNumber(r.Amount), set, trimNumber(math.Round(*f.Incidence*10)/10))
		}
	case domain.PolicyDevices:
		ours := strings.Split(r.Target, ",")
		if f.Devices == nil {
			return fmt.Sprintf("Our panel answers on %s %s; the devices this survey allows are not known.", orList(ours), set)
		}
		for _, d := range ours {
			if slices.Contains(f.Devices, d) {
				return ""
			}
		}
		allowed := "no device"
		if len(f.Devices) > 0 {
			allowed = strings.Join(f.Devices, " and ") + " only"
		}
		return fmt.Sprintf("Our panel answers on %s %s; this survey allows %s.", orList(ours), set, allowed)
	case domain.PolicyBlock:
		if blocks(r, f) {
			return fmt.Sprintf("We block %s %s %s.", strings.ReplaceAll(r.Scope, "-", " "), r.Target, set)
		}
	case domain.PolicyPause:
		if r.Target == sub {
			why := ""
			if r.Why != "" {
				why = ": " + strings.TrimRight(r.Why, ".")
			}
			return fmt.Sprintf("We paused this subsample on our side %s%s.", set, why)
		}
	}
	return ""
}

// orList writes "mobile or tablet".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// blocks reports whether the block r names f: by id, or by name or id for
// a research type and a category (any of its three levels), by code for
// a country (any the subsample is fielded in), by name for a billing
// entity, in any case.
func blocks(r domain.PolicyRule, f PolicyFacts) bool {
	is := func(v string) bool { return v != "" && strings.EqualFold(strings.TrimSpace(v), r.Target) }
	id := func(v int64) bool { return v != 0 && strconv.FormatInt(v, 10) == r.Target }
	switch r.Scope {
	case "subsample":
		return id(f.SubsampleID)
	case "event":
		return id(f.EventID)
	case "research-type":
		return is(f.ResearchType) || (f.ResearchTypeID != nil && id(*f.ResearchTypeID))
	case "category":
		for _, c := range f.Categories {
			if is(c.Category) || is(c.GenericCategory) || is(c.MainCategory) || id(c.CategoryID) || id(c.GenericCategoryID) || id(c.MainCategoryID) {
				return true
			}
		}
	case "country":
		return slices.ContainsFunc(f.Countries, is)
	case "billing-entity":
		return is(f.BillingEntity)
	}
	return false
}

// Priority is how many places of priority our rules give the subsample
// of the event: the sum of its own and its event's.
func (o *OurRules) Priority(subsampleID, eventID int64) int {
	if o == nil || len(o.priority) == 0 {
		return 0
	}
	return o.priority["subsample "+strconv.FormatInt(subsampleID, 10)] + o.priority["event "+strconv.FormatInt(eventID, 10)]
}

// Paused reports whether our pause of the subsample is in force.
func (o *OurRules) Paused(subsampleID int64) bool {
	if o == nil {
		return false
	}
	id := strconv.FormatInt(subsampleID, 10)
	return slices.ContainsFunc(o.rules, func(r domain.PolicyRule) bool { return r.Kind == domain.PolicyPause && r.Target == id })
}

// Blocks reports whether a block of scope is in force.
func (o *OurRules) Blocks(scope string) bool {
	if o == nil {
		return false
	}
	return slices.ContainsFunc(o.rules, func(r domain.PolicyRule) bool { return r.Kind == domain.PolicyBlock && r.Scope == scope })
}

// HasCaps reports whether any cap is in force.
func (o *OurRules) HasCaps() bool { return o != nil && (len(o.caps) > 0 || len(o.panelistCaps) > 0) }

// Caps are the cap rules on the subsample.
func (o *OurRules) Caps(subsampleID int64) []domain.PolicyRule {
	if o == nil || len(o.caps) == 0 {
		return nil
	}
	return o.caps[subsampleID]
}

// PanelistCaps are the cap rules per panelist.
func (o *OurRules) PanelistCaps() []domain.PolicyRule {
	if o == nil {
		return nil
	}
	return o.panelistCaps
}

// CapWindow is the window a cap counts in at now: the hour
// ("2026-12-06T14") or the day ("2026-12-06") in loc; a panelist's cap
// counts each panelist apart. Since is when the window began.
func CapWindow(r domain.PolicyRule, panelistID string, now time.Time, loc *time.Location) (key string, since time.Time) {
	t := now.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	key, since = day.Format(time.DateOnly), day
	if r.Per == "hour" {
		since = day.Add(time.Duration(t.Hour()) * time.Hour)
		if since.Hour() != t.Hour() { // a day whose clocks moved
			since = t.Truncate(time.Hour)
		}
		key = since.Format("2006-01-02T15")
	}
	if r.Scope == "panelist" {
		key += " " + panelistID
	}
	return key, since
}

// CapReached says, in a sentence that names the cap, who set it and when,
// that it is reached: taken of Amount counted in its window.
func CapReached(r domain.PolicyRule, taken int, now time.Time) string {
	set := "(" + SetByWords(r.SetBy, r.SetAt, now) + ")"
	limit := int(r.Amount)
	if r.Scope == "panelist" {
		times := fmt.Sprintf("%d times", taken)
		if taken == 1 {
			times = "once"
		}
		return fmt.Sprintf("Our cap of %s per panelist a day %s is reached: the panelist was sent %s today.", countOf(limit, "send", "sends"), set, times)
	}
	unit := strings.TrimSuffix(r.Unit, "s")
	when, this := "an hour", "this hour"
	if r.Per == "day" {
		when, this = "a day", "today"
	}
	return fmt.Sprintf("Our cap of %s %s on subsample %s %s is reached: %d %s.", countOf(limit, unit, unit+"s"), when, r.Target, set, taken, this)
}

// HeldByHand says why the panelist is held by hand at now, "" when not.
func (o *OurRules) HeldByHand(panelistID string, now time.Time) string {
	if o == nil || len(o.holds) == 0 {
		return ""
	}
	h, ok := o.holds[panelistID]
	if !ok || h.Kind != domain.HoldByHand || (h.Until != nil && !now.Before(*h.Until)) {
		return ""
	}
	why := "Held by hand (" + SetByWords(h.SetBy, h.SetAt, now)
	if h.Until != nil {
		why += ", until " + FormatTime(*h.Until)
	}
	why += ")"
	if h.Why != "" {
		why += ": " + strings.TrimRight(h.Why, ".")
	}
	return why + "."
}

// Released is when the panelist was last released by hand from a quality
// hold, nil when never: reversals recorded before it no longer hold them.
func (o *OurRules) Released(panelistID string) *time.Time {
	if o == nil || len(o.holds) == 0 {
		return nil
	}
	if h, ok := o.holds[panelistID]; ok && h.Kind == domain.ReleaseByHand {
		return &h.SetAt
	}
	return nil
}

// Hold is the hand's word on the panelist, if any.
func (o *OurRules) Hold(panelistID string) (domain.PanelistHold, bool) {
	if o == nil {
		return domain.PanelistHold{}, false
	}
	h, ok := o.holds[panelistID]
	return h, ok
}

// HeldWhy says why the panelist of this history is held now, "" when not:
// by hand (HeldByHand), else for quality (QualityHold), counting only the
// reversals registered after their last release by hand. The one reason
// every decision adds (WithQualityHold).
func (o *OurRules) HeldWhy(panelistID string, history []domain.HistoryRecord, q QualityHoldPolicy, now time.Time) string {
	if why := o.HeldByHand(panelistID, now); why != "" {
		return why
	}
	return qualityHold(history, q, o.Released(panelistID), now)
}

// WithOurRules is the provider's verdict v with our rules' refusals: a
// subsample the provider lets us send to that ours refuse is BlockedByUs,
// with our sentences as its reasons; any other verdict is kept as it is
// (the refusals are shown apart, beside it).
func WithOurRules(v Verdict, refusals []OurRefusal) Verdict {
	if v.State != Sendable || len(refusals) == 0 {
		return v
	}
	v.State = BlockedByUs
	v.Reasons = make([]string, len(refusals))
	for i, r := range refusals {
		v.Reasons[i] = r.Reason
	}
	return v
}
