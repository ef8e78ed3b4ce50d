package sim

// rules are a subsample's eligibility (exclusion) rules.
type rules struct {
	surveys, researchTypes, categories, events []rule
}

// rule is one entry of an eligibility array. The provider spells the id and
// numDays keys in either case; each entry remembers its spelling so that
// the encoded answer is the same on every request.
type rule struct {
	id                      int64 // subsample, research type or event id; 0 is the placeholder
	name                    string
	main, generic, specific int64 // category levels; 0 is sent as null
	numDays                 int64
	codes                   []int64
	upperID, upperDays      bool
}

// returnCodeSets are the status lists rules exclude, common ones first.
func returnCodeSets() [][]int64 {
	return [][]int64{
		{3}, {3, 82}, {3, 82, 83}, {2, 3, 82, 83, 92, 98, 99}, {3, 98, 99}, {3, 92}, {82, 83},
	}
}

// rules draws the subsample's eligibility rules: earlier waves for
// trackers, its own research type for involved research, topic exclusions
// on its category, its own event for unique completes across countries,
// and now and then a placeholder entry with id 0 and return code 0.
func (g *generator) rules(ss *subsample) {
	rng := g.rng
	days := [...]int64{0, 30, 60, 90, 180, 365}
	sets := returnCodeSets()
	entry := func(canonUpper bool) rule {
		r := rule{numDays: days[rng.IntN(len(days))], codes: sets[rng.IntN(len(sets))]}
		r.upperID = canonUpper == (rng.IntN(100) < 65)
		r.upperDays = rng.IntN(2) == 0
		return r
	}
	placeholder := func(canonUpper bool) rule {
		r := entry(canonUpper)
		r.numDays, r.codes = 0, []int64{0}
		return r
	}
	ev := ss.event
	var rs rules

	waves := 0
	if ev.rtype.id == 2 {
		waves = 1 + rng.IntN(3)
	} else if rng.IntN(100) < 12 {
		waves = 1
	}
	for range waves {
		r := entry(true)
		if prev := len(g.w.subs); prev > 0 && rng.IntN(2) == 0 {
			r.id = g.w.subs[rng.IntN(prev)].id // an earlier subsample of this supplier
		} else {
			r.id = 150000 + rng.Int64N(50000) // an older wave
		}
		rs.surveys = append(rs.surveys, r)
	}

	switch {
	case ev.rtype.id >= 3:
		r := entry(false)
		r.id = ev.rtype.id
		if r.numDays == 0 && rng.IntN(2) == 0 {
			r.numDays = 90
		}
		rs.researchTypes = append(rs.researchTypes, r)
	case rng.IntN(100) < 10:
		r := entry(false)
		r.id = 4
		rs.researchTypes = append(rs.researchTypes, r)
	}

	primary := ev.categories[0]
	switch n := rng.IntN(100); {
	case n < 45:
		r := entry(false)
		r.specific = primary.id
		rs.categories = append(rs.categories, r)
	case n < 60:
		r := entry(false)
		r.generic = primary.genericID
		rs.categories = append(rs.categories, r)
	case n < 70:
		r := entry(false)
		r.main = primary.mainID
		rs.categories = append(rs.categories, r)
	}

	if rng.IntN(100) < 70 {
		r := entry(true)
		r.id, r.name, r.numDays = ev.id, ev.name, 0
		rs.events = append(rs.events, r)
	}
	if rng.IntN(100) < 8 && ev.id > 30010 {
		r := entry(true)
		r.id = ev.id - 1 - rng.Int64N(10)
		r.name = ev.name + " (previous wave)"
		rs.events = append(rs.events, r)
	}

	if rng.IntN(100) < 15 {
		switch rng.IntN(4) {
		case 0:
			rs.surveys = append(rs.surveys, placeholder(true))
		case 1:
			rs.researchTypes = append(rs.researchTypes, placeholder(false))
		case 2:
			rs.categories = append(rs.categories, placeholder(false))
		default:
			r := placeholder(true)
			r.name = ""
			rs.events = append(rs.events, r)
		}
	}
	ss.rules = rs
}

// encode writes the rules object with its four arrays, always present.
func (rs *rules) encode() []byte {
	o := beginObject(make([]byte, 0, 512))
	o.key("surveys")
	o.buf = appendRules(o.buf, rs.surveys, kindSurvey)
	o.key("researchTypes")
	o.buf = appendRules(o.buf, rs.researchTypes, kindResearchType)
	o.key("categories")
	o.buf = appendRules(o.buf, rs.categories, kindCategory)
	o.key("events")
	o.buf = appendRules(o.buf, rs.events, kindEvent)
	return o.end()
}

type ruleKind int

const (
	kindSurvey ruleKind = iota
	kindResearchType
	kindCategory
	kindEvent
)

func appendRules(buf []byte, rs []rule, kind ruleKind) []byte {
	buf = append(buf, '[')
	for i := range rs {
		if i > 0 {
			buf = append(buf, ',')
		}
		r := &rs[i]
		o := beginObject(buf)
		switch kind {
		case kindCategory:
			optID := func(k string, v int64) {
				if v == 0 {
					o.null(k)
				} else {
					o.int(k, v)
				}
			}
			if r.main == 0 && r.generic == 0 && r.specific == 0 {
				o.int("mainCategoryId", 0) // placeholder
			} else {
				optID("mainCategoryId", r.main)
			}
			optID("genericCategoryId", r.generic)
			optID("specificCategoryId", r.specific)
		default:
			o.int(casing("id", r.upperID), r.id)
			if kind == kindEvent {
				if r.name == "" {
					o.null("name")
				} else {
					o.str("name", r.name)
				}
			}
		}
		o.int(casing("numDays", r.upperDays), r.numDays)
		o.key("returnCodes")
		o.buf = appendInts(o.buf, r.codes)
		buf = o.end()
	}
	return append(buf, ']')
}

// casing returns key with its first letter upper-cased when upper is set:
// Id for id, NumDays for numDays.
func casing(key string, upper bool) string {
	if !upper {
		return key
	}
	return string(key[0]-'a'+'A') + key[1:]
}
