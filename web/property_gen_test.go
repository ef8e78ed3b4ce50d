package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// The generator of the property test (property_test.go): it reads a
// provider answer into a tree that keeps what encoding/json would lose
// (the order of keys, a key given twice, a number as it is written), and
// makes one change to one value of it, chosen with a seeded draw, written
// back as bytes (so NaN, a key twice or 10.0 reach the client as a
// provider could send them).

// jnode is one JSON value: an object (keys and kids side by side, a key
// may repeat), an array (kids) or a literal written as it is (raw).
type jnode struct {
	kind byte // '{', '[' or 0 for a literal
	keys []string
	kids []*jnode
	raw  string
}

// parseJSON reads body into a tree.
func parseJSON(body []byte) (*jnode, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	n, err := parseValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the value: %v", err)
	}
	return n, nil
}

func parseValue(d *json.Decoder) (*jnode, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &jnode{kind: byte(tok)}
		for d.More() {
			if n.kind == '{' {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			kid, err := parseValue(d)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		_, err := d.Token() // the closing delimiter
		return n, err
	case json.Number:
		return &jnode{raw: tok.String()}, nil
	case string:
		return lit(tok), nil
	case bool:
		return &jnode{raw: strconv.FormatBool(tok)}, nil
	default:
		return &jnode{raw: "null"}, nil
	}
}

// lit is a JSON string literal holding s.
func lit(s string) *jnode {
	b, _ := json.Marshal(s)
	return &jnode{raw: string(b)}
}

func (n *jnode) write(b *bytes.Buffer) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			n.kids[i].write(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.raw)
	}
}

func (n *jnode) bytes() []byte {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

func (n *jnode) clone() *jnode {
	c := &jnode{kind: n.kind, keys: append([]string(nil), n.keys...), raw: n.raw}
	for _, k := range n.kids {
		c.kids = append(c.kids, k.clone())
	}
	return c
}

// str is the string a literal holds, and whether it is a string.
func (n *jnode) str() (string, bool) {
	if n.kind != 0 || !strings.HasPrefix(n.raw, `"`) {
		return "", false
	}
	var s string
	return s, json.Unmarshal([]byte(n.raw), &s) == nil
}

func (n *jnode) isNumber() bool {
	return n.kind == 0 && n.raw != "" && (n.raw[0] == '-' || n.raw[0] >= '0' && n.raw[0] <= '9')
}

// site is a value of the tree: the indices of the kids leading to it from
// the root. Its parent is the node at path[:len(path)-1].
type site []int

// sites lists every value of the tree but the root, depth first.
func (n *jnode) sites() []site {
	var out []site
	var walk func(n *jnode, at site)
	walk = func(n *jnode, at site) {
		for i, k := range n.kids {
			s := append(append(site(nil), at...), i)
			out = append(out, s)
			walk(k, s)
		}
	}
	walk(n, nil)
	return out
}

func (n *jnode) at(s site) *jnode {
	for _, i := range s {
		n = n.kids[i]
	}
	return n
}

// describe names a site as a reader would: [2].locales[0].name.
func (n *jnode) describe(s site) string {
	var b strings.Builder
	for _, i := range s {
		if n.kind == '{' {
			b.WriteString("." + n.keys[i])
		} else {
			fmt.Fprintf(&b, "[%d]", i)
		}
		n = n.kids[i]
	}
	return strings.TrimPrefix(b.String(), ".")
}

// change is one way of changing the value at a site: its name, and what
// it does to the value's parent (kid i of parent is the value).
type change struct {
	name  string
	apply func(parent *jnode, i int)
}

// replaceWith is the change that puts raw in place of the value.
func replaceWith(name, raw string) change {
	return change{name, func(p *jnode, i int) { p.kids[i] = &jnode{raw: raw} }}
}

var (
	isoDate   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$`)
	localeish = regexp.MustCompile(`^[A-Za-z]{2,3}[-_][A-Za-z]{2}$`)
)

// changesOf lists the changes that make sense for the value at kid i of
// parent: for every value null, the wrong type, and as a member removed
// or given twice, as an element given twice; then by kind, the changes of
// numbers, strings (dates, links, locales among them), objects and arrays
// the task lists.
func changesOf(parent *jnode, i int) []change {
	v := parent.kids[i]
	cs := []change{replaceWith("null", "null")}
	if parent.kind == '{' {
		key := parent.keys[i]
		cs = append(cs,
			change{"key removed", func(p *jnode, i int) {
				p.keys = append(p.keys[:i:i], p.keys[i+1:]...)
				p.kids = append(p.kids[:i:i], p.kids[i+1:]...)
			}},
			change{"key given again after, with another value", func(p *jnode, i int) {
				p.keys = append(p.keys, key)
				p.kids = append(p.kids, another(p.kids[i]))
			}},
			change{"key given again before, with another value", func(p *jnode, i int) {
				p.keys = append([]string{key}, p.keys...)
				p.kids = append([]*jnode{another(p.kids[i])}, p.kids...)
			}},
			change{"key in other letter case", func(p *jnode, i int) {
				p.keys[i] = swapCase(p.keys[i])
			}},
		)
	} else {
		cs = append(cs,
			change{"element given twice", func(p *jnode, i int) {
				p.kids = append(p.kids[:i+1:i+1], append([]*jnode{p.kids[i].clone()}, p.kids[i+1:]...)...)
			}},
			change{"element removed", func(p *jnode, i int) {
				p.kids = append(p.kids[:i:i], p.kids[i+1:]...)
			}},
		)
	}
	switch {
	case v.kind == '{':
		cs = append(cs,
			replaceWith("object as an array", "[]"),
			replaceWith("object empty", "{}"),
			change{"extra key", func(p *jnode, i int) {
				p.kids[i].keys = append(p.kids[i].keys, "unexpectedField")
				p.kids[i].kids = append(p.kids[i].kids, lit("surprise"))
			}},
		)
	case v.kind == '[':
		cs = append(cs, replaceWith("array as an object", "{}"), replaceWith("array empty", "[]"), replaceWith("array as a string", `"[]"`))
	case v.isNumber():
		cs = append(cs,
			replaceWith("number as a string", strconv.Quote(v.raw)),
			change{"sign flipped", func(p *jnode, i int) {
				if r := p.kids[i].raw; strings.HasPrefix(r, "-") {
					p.kids[i] = &jnode{raw: r[1:]}
				} else {
					p.kids[i] = &jnode{raw: "-" + r}
				}
			}},
			replaceWith("zero", "0"),
			replaceWith("max int64", "9223372036854775807"),
			replaceWith("min int64", "-9223372036854775808"),
			replaceWith("past int64", "9223372036854775808"),
			replaceWith("huge float", "1e308"),
			replaceWith("past float64", "1e400"),
			change{"fraction .0", func(p *jnode, i int) {
				if r := p.kids[i].raw; !strings.ContainsAny(r, ".eE") {
					p.kids[i] = &jnode{raw: r + ".0"}
				}
			}},
			change{"fraction .5", func(p *jnode, i int) {
				if r := p.kids[i].raw; !strings.ContainsAny(r, ".eE") {
					p.kids[i] = &jnode{raw: r + ".5"}
				} else {
					p.kids[i] = &jnode{raw: "10.5"}
				}
			}},
			replaceWith("NaN literal", "NaN"),
			replaceWith("Infinity literal", "Infinity"),
			replaceWith("-Infinity literal", "-Infinity"),
		)
	case v.raw == "true" || v.raw == "false":
		cs = append(cs, replaceWith("bool as a string", strconv.Quote(v.raw)), replaceWith("bool as a number", "1"),
			change{"bool flipped", func(p *jnode, i int) {
				p.kids[i] = &jnode{raw: strconv.FormatBool(p.kids[i].raw != "true")}
			}})
	default:
		s, ok := v.str()
		if !ok {
			break
		}
		cs = append(cs,
			replaceWith("string as a number", "1"),
			replaceWith("string empty", `""`),
			change{"string huge", func(p *jnode, i int) { p.kids[i] = lit(strings.Repeat("x", 200_000)) }},
			change{"string with control characters", func(p *jnode, i int) { p.kids[i] = lit(s + "\x00\r\n\t\u202e") }},
		)
		switch {
		case isoDate.MatchString(s):
			cs = append(cs,
				replaceWith("date only", strconv.Quote(s[:min(10, len(s))])),
				replaceWith("date far future", `"9999-12-31T23:59:59Z"`),
				replaceWith("date far past", `"0001-01-01T00:00:00Z"`),
				replaceWith("date before every start", `"2000-01-01T00:00:00Z"`),
				replaceWith("date with no zone", `"2030-06-01T12:00:00"`),
				replaceWith("date as a Unix time", "1893456000"),
				replaceWith("date not a date", `"2030-02-30T25:61:00Z"`),
			)
		case strings.HasPrefix(s, "http"):
			cs = append(cs,
				replaceWith("link with a fragment", strconv.Quote(s+"#frag")),
				replaceWith("link with user info", strconv.Quote(strings.Replace(s, "://", "://user:pw@", 1))),
				replaceWith("link with its id filled", strconv.Quote(strings.Replace(s, "id=", "id=12345", 1))),
				replaceWith("link on another host", strconv.Quote(strings.Replace(s, "://", "://evil.test/", 1))),
				replaceWith("link relative", strconv.Quote("/start?"+s[strings.IndexByte(s, '?')+1:])),
				replaceWith("link with javascript scheme", `"javascript:alert(1)"`),
			)
		case localeish.MatchString(s):
			cs = append(cs,
				replaceWith("locale in upper case", strconv.Quote(strings.ToUpper(s))),
				replaceWith("locale with an underscore", strconv.Quote(strings.ReplaceAll(s, "-", "_"))),
				replaceWith("locale padded", strconv.Quote(" "+s+" ")),
				replaceWith("locale unknown", `"xx-yy"`),
			)
		}
	}
	return cs
}

// another is a value of the same kind as n but different: the value a
// key given twice carries the second time.
func another(n *jnode) *jnode {
	switch {
	case n.kind == '{':
		return &jnode{kind: '{'}
	case n.kind == '[':
		return &jnode{kind: '['}
	case n.isNumber():
		if f, err := strconv.ParseFloat(n.raw, 64); err == nil {
			return &jnode{raw: strconv.FormatFloat(f+7, 'f', -1, 64)}
		}
		return &jnode{raw: "7"}
	case n.raw == "true":
		return &jnode{raw: "false"}
	case n.raw == "false":
		return &jnode{raw: "true"}
	}
	if s, ok := n.str(); ok {
		return lit(s + "-other")
	}
	return &jnode{raw: "1"}
}

// swapCase turns the key's first letter to the other case: Id for id.
func swapCase(k string) string {
	if k == "" {
		return k
	}
	first := k[:1]
	if up := strings.ToUpper(first); up != first {
		return up + k[1:]
	}
	return strings.ToLower(first) + k[1:]
}

// mutation is one change to one provider answer: which answer (the
// request path), which value of it and how.
type mutation struct {
	endpoint string // a name for the answer: quotas, event/all, ...
	path     string // the request path whose answer is changed
	where    string // the value, as describe names it
	how      string // the change's name
	body     []byte // the changed answer
	// subsample is the subsample whose data the change is in: the path's
	// for quotas and eligibility rules, the element's subsampleId for the
	// event lists; 0 for the library and reference data, which every
	// subsample may read.
	subsample int64
	// named are the subsamples an event list's element names once its
	// subsampleId itself is changed (another id, or a second one beside
	// it): the element may then be about any of them, and each may decide
	// otherwise, as the changed one may (never by a new send, which is
	// held of every subsample).
	named []int64
}

func (m mutation) String() string { return m.path + " " + m.where + ": " + m.how }

// answer is a provider answer the generator may change.
type answer struct {
	endpoint, path string
	body           []byte
	subsample      int64 // for quotas and eligibility rules
}

// decidedOn are the endpoints whose answers a subsample's state and its
// panelists' sends are decided on.
var decidedOn = map[string]bool{"event/all": true, "live-details": true, "quotas": true, "eligibility-rules": true}

// mutate draws an answer, a value of it and a change that applies to
// that value, and makes the change.
func mutate(rng *rand.Rand, answers []answer) mutation {
	// Draw the endpoint first, then one of its answers, so that the
	// answers an endpoint has many of (quotas, answers) do not crowd out
	// those it has one of. The endpoints a send is decided on are drawn
	// three times as often as the library and the reference data.
	var endpoints []string
	byEndpoint := map[string][]answer{}
	for _, a := range answers {
		if byEndpoint[a.endpoint] == nil {
			endpoints = append(endpoints, a.endpoint)
			if decidedOn[a.endpoint] {
				endpoints = append(endpoints, a.endpoint, a.endpoint)
			}
		}
		byEndpoint[a.endpoint] = append(byEndpoint[a.endpoint], a)
	}
	for {
		list := byEndpoint[endpoints[rng.IntN(len(endpoints))]]
		a := list[rng.IntN(len(list))]
		root, err := parseJSON(a.body)
		if err != nil {
			panic(fmt.Sprintf("the simulator's answer to %s is not JSON: %v", a.path, err))
		}
		sites := root.sites()
		if len(sites) == 0 {
			continue
		}
		s := sites[rng.IntN(len(sites))]
		parent, i := root.at(s[:len(s)-1]), s[len(s)-1]
		cs := changesOf(parent, i)
		c := cs[rng.IntN(len(cs))]
		m := mutation{endpoint: a.endpoint, path: a.path, where: root.describe(s), how: c.name, subsample: a.subsample}
		if a.endpoint == "event/all" || a.endpoint == "live-details" {
			m.subsample = elementSubsample(root.kids[s[0]])
		}
		c.apply(parent, i)
		if (a.endpoint == "event/all" || a.endpoint == "live-details") && len(s) == 2 &&
			parent.kind == '{' && strings.EqualFold(parent.keys[i], "subsampleId") {
			m.named = elementSubsamples(root.kids[s[0]])
		}
		m.body = root.bytes()
		return m
	}
}

// elementSubsamples are the ids every subsampleId key of an element of an
// event list gives, in any case of the key, that read as whole numbers.
func elementSubsamples(e *jnode) []int64 {
	var ids []int64
	for i, k := range e.keys {
		if id, err := strconv.ParseInt(e.kids[i].raw, 10, 64); err == nil && strings.EqualFold(k, "subsampleId") {
			ids = append(ids, id)
		}
	}
	return ids
}

// elementSubsample is the subsampleId of an element of an event list.
func elementSubsample(e *jnode) int64 {
	for i, k := range e.keys {
		if k == "subsampleId" {
			id, _ := strconv.ParseInt(e.kids[i].raw, 10, 64)
			return id
		}
	}
	return 0
}
