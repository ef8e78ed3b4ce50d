package sim

import (
	"fmt"
	"strings"
	"time"
)

// timeLayout is the provider's date-time format: local wall clock with
// milliseconds and no zone.
const timeLayout = "2006-01-02T15:04:05.000"

// encodeSummary encodes the subsample's event/all entry in two parts, to be
// joined around its current status name.
func encodeSummary(ss *subsample) (head, tail []byte) {
	o := beginObject(nil)
	o.int("eventId", ss.event.id)
	o.str("billingEntity", ss.billing)
	o.int("subsampleId", ss.id)
	o.key("subsampleStatus")
	head = o.buf

	t := object{empty: false}
	t.str("subsampleName", ss.name)
	t.key("country")
	t.buf = appendCountry(t.buf, ss.country, nil)
	t.str("fieldStartDate", ss.start.Format(timeLayout))
	t.str("fieldEndDate", ss.end.Format(timeLayout))
	return head, t.end()
}

// panelFlags are the two undocumented booleans some country entries of
// live-details carry about the provider's own panel product.
type panelFlags struct{ product, isDefault bool }

func appendCountry(buf []byte, c *country, flags *panelFlags) []byte {
	o := beginObject(buf)
	o.int("id", c.ID)
	o.str("code", c.Code)
	o.str("name", c.Name)
	o.str("regionName", c.RegionName)
	if flags != nil {
		o.bool("isPanelProduct", flags.product)
		o.bool("panelProductDefault", flags.isDefault)
	}
	return o.end()
}

// detail encodes the subsample's live-details entry with every field of the
// spec, the optional ones sometimes null and sometimes absent, as the
// provider sends them.
func (g *generator) detail(ss *subsample) []byte {
	rng := g.rng
	pick := func(pctPresent, pctNull int) presence {
		switch n := rng.IntN(100); {
		case n < pctPresent:
			return present
		case n < pctPresent+pctNull:
			return null
		}
		return absent
	}
	chance := func(pct int) bool { return rng.IntN(100) < pct }
	ev := ss.event

	o := beginObject(make([]byte, 0, 2048))
	o.int("eventId", ev.id)
	o.str("eventName", ev.name)
	o.key("categories")
	o.buf = append(o.buf, '[')
	for i, c := range ev.categories {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		co := beginObject(o.buf)
		co.str("mainCategory", c.main)
		co.int("mainCategoryId", c.mainID)
		co.str("genericCategory", c.generic)
		co.int("genericCategoryId", c.genericID)
		co.str("category", c.name)
		co.int("categoryId", c.id)
		o.buf = co.end()
	}
	o.buf = append(o.buf, ']')

	o.optStr("jobBookId", pick(80, 15), fmt.Sprintf("JB%02d-%05d", g.w.created.Year()%100, 10000+rng.IntN(90000)))
	switch {
	case ss.billing != "":
		o.str("billingEntity", ss.billing)
	case chance(50):
		o.str("billingEntity", "")
	default:
		o.null("billingEntity")
	}
	primary := g.managers[rng.IntN(len(g.managers))]
	primaryP := pick(95, 5)
	o.optStr("primaryProjectManager", primaryP, primary)
	o.optStr("secondaryProjectManager", pick(60, 35), g.managers[rng.IntN(len(g.managers))])
	o.optStr("contactEmailAddress", primaryP, emailOf(primary))
	o.optInt("groupId", pick(40, 50), 1+rng.Int64N(40))

	desktop, mobile, tablet := chance(92), chance(80), chance(70)
	if !desktop && !mobile {
		desktop = true
	}
	o.bool("allowDesktop", desktop)
	o.bool("allowMobile", mobile)
	o.bool("allowTablet", tablet)
	o.int("subsampleId", ss.id)
	st := statusLive
	if ss.base == statusLiveForTesting {
		st = statusLiveForTesting
	}
	o.str("subsampleStatus", st.String())
	o.str("subsampleName", ss.name)

	o.key("countries")
	var flags *panelFlags
	if chance(30) {
		flags = &panelFlags{product: chance(50), isDefault: chance(30)}
	}
	o.buf = append(appendCountry(append(o.buf, '['), ss.country, flags), ']')

	o.key("locales")
	o.buf = append(o.buf, '[')
	for i, l := range ss.locales {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		lo := beginObject(o.buf)
		lo.str("name", l.Locale)
		lo.str("liveEntryLink", g.entryLink(ss))
		// One subsample in seven has no testing link for its first
		// locale, as providers leave it empty; its live link still sends.
		testing := g.entryLink(ss)
		if i == 0 && ss.id%7 == 3 {
			testing = ""
		}
		lo.str("testingEntryLink", testing)
		o.buf = lo.end()
	}
	o.buf = append(o.buf, ']')

	o.str("fieldStartDate", ss.start.Format(timeLayout))
	o.str("fieldEndDate", ss.end.Format(timeLayout))
	o.bool("surveyAPIcompatibility", chance(85))
	o.bool("requiresFlash", chance(2))
	o.optBool("childSurvey", pick(80, 10), chance(4))
	o.bool("collectPII", chance(5))
	o.bool("facialCoding", chance(3))
	o.optInt("sampleCategoryId", pick(70, 30), 1+rng.Int64N(6))
	o.optInt("sampleSubCategoryId", pick(50, 40), 10+rng.Int64N(50))
	o.str("researchType", ev.rtype.name)
	o.int("researchTypeId", ev.rtype.id)
	o.optInt("interviewType", pick(75, 25), 1+rng.Int64N(3))
	o.optNum("expectedClientLoi", pick(90, 10), ss.loi)
	o.optNum("expectedIncidenceRate", pick(90, 10), ss.ir)
	o.str("targetedCurrency", ss.country.currency)
	cpi := 0.0
	if !chance(5) {
		cpi = round2(0.5 + 11.5*rng.Float64())
	}
	o.num("targetedCPI", cpi)
	ss.cpi = cpi
	switch p := pick(8, 80); p {
	case present:
		start := ss.start.Add(24 * time.Hour)
		so := beginObject(nil)
		so.int("interviews", int64(25*(1+rng.IntN(4))))
		so.str("recurrence", [...]string{"Daily", "Weekly"}[rng.IntN(2)])
		so.str("startTime", start.Format(timeLayout))
		so.str("endTime", ss.end.Format(timeLayout))
		o.raw("completesAutoIncrementSchedule", so.end())
	case null:
		o.null("completesAutoIncrementSchedule")
	}
	o.optInt("feasibilityId", pick(30, 60), 1000000+rng.Int64N(9000000))
	o.optBool("automation", pick(70, 0), chance(25))
	o.optBool("marketplaceEnabled", pick(70, 10), chance(40))
	o.optBool("needRecontact", pick(88, 0), chance(8))
	if chance(30) {
		o.bool("isSampled", chance(50))
		o.bool("IsPottential", chance(20))
		o.bool("isCricital", chance(10))
		o.bool("isMatching", chance(60))
		o.bool("isNewRecruit", chance(15))
	}
	return o.end()
}

// entryLink is a respondent entry link of ss: an opaque token p, usually
// rType, and the empty id parameter last, for the supplier to fill. With
// the simulated survey on, the world remembers whose token it is.
func (g *generator) entryLink(ss *subsample) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString(g.opts.EntryURL)
	if strings.Contains(g.opts.EntryURL, "?") {
		b.WriteString("&p=")
	} else {
		b.WriteString("?p=")
	}
	token := make([]byte, 28+g.rng.IntN(9))
	for i := range token {
		token[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	b.Write(token)
	if g.w.entryTokens != nil {
		g.w.entryTokens[string(token)] = ss
	}
	if g.rng.IntN(100) < 85 {
		fmt.Fprintf(&b, "&rType=%d", 1+g.rng.IntN(4))
	}
	b.WriteString("&id=")
	return b.String()
}

// emailOf derives a coordinator's work address from their name.
func emailOf(name string) string {
	fold := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ñ", "n", "ü", "u", "ö", "o", "ä", "a", "ç", "c", "'", "")
	local := strings.ReplaceAll(strings.ToLower(fold.Replace(name)), " ", ".")
	return local + "@meridian-field.example"
}
