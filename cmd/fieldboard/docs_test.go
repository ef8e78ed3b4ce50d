package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fieldboard/web"
)

// TestDocumentsNameWhatExists reads README.md, docs/*.md and
// bench/README.md and fails on each name in them that the code does not
// back: a file, a route, a flag or a test. The rules, chosen to catch a
// renamed or removed thing without flagging prose:
//
//   - Links. A Markdown link or image whose target is neither a URL (it
//     has a scheme, such as https:) nor an #anchor alone must name a file
//     or folder of the repository, relative to the document; an #anchor
//     after the path is dropped.
//   - Repository paths. A code span of one word holding a slash, that
//     begins with an entry of the repository's root (`web/server.go`,
//     `store/migrations/sqlite`, `bench/results.json`), must name a file or
//     folder. A trailing Go identifier is dropped (`views/formats.Writer`
//     is views/formats), as is a trailing `/...`. Paths under testoutput/,
//     which the tests make, are not checked.
//   - Routes. A code span that begins with a slash, or with GET, POST,
//     PUT, PATCH or DELETE and a slash, and a table cell that begins with
//     a slash, names a route: the path up to a space, ?, [ or #. It must
//     match a route of web.Server's Routes (a :param matches any one
//     segment, a * the rest), with that method when one is given; a path
//     ending in / names the routes under it. Not ours, so not checked: the
//     provider's API under /supplier/, the profiles --pprof serves under
//     /debug/pprof/ on an address of their own, and the machine's own
//     folders (/etc/, /var/, /run/, /tmp/, /usr/, /dev/, /proc/, /home/,
//     /opt/, /srv/).
//   - Flags. A --flag in a code span, or on a line of a fenced code block
//     that runs fieldboard (the line begins with fieldboard, bin/fieldboard
//     or ./bin/fieldboard, after any VAR=value assignments), must be
//     defined by a command or subcommand of fieldboard, as its --help
//     lists them; --help itself always is. Another program's flags go
//     outside code spans, or in a fenced block on a line of its own.
//   - Tests. A word Test..., Fuzz... or Benchmark... with a capital after
//     the prefix must be a function some _test.go file of the module
//     defines (any build tag); one followed by ... or … names a prefix.
func TestDocumentsNameWhatExists(t *testing.T) {
	t.Parallel()
	root := moduleDir(t)
	checker := docChecker{
		root:   root,
		routes: serverRoutes(t),
		flags:  definedFlags(t),
		tests:  definedTests(t, root),
	}
	docs := documents(t, root)
	if len(docs) < 3 {
		t.Fatalf("only %d documents found under %s: want README.md, docs/*.md and bench/README.md", len(docs), root)
	}
	for _, doc := range docs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range checker.check(doc, string(text)) {
			t.Error(problem)
		}
	}
}

// documents are the Markdown files the rules hold for, from root.
func documents(t *testing.T, root string) []string {
	docs := []string{"README.md", filepath.Join("bench", "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, rel)
	}
	return docs
}

// route is one method and path of the server.
type route struct{ method, path string }

// serverRoutes are the routes of web.Server, as Routes registers them.
func serverRoutes(t *testing.T) []route {
	s := &web.Server{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := s.Routes()
	defer s.Close()
	var routes []route
	for _, r := range e.Routes() {
		routes = append(routes, route{r.Method, r.Path})
	}
	if len(routes) < 20 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	return routes
}

var helpFlagLine = regexp.MustCompile(`(?m)^\s+-([a-z0-9][a-z0-9-]*)`)

// definedFlags are the flags of every command and subcommand, as their
// --help lists them.
func definedFlags(t *testing.T) map[string]bool {
	flags := map[string]bool{"help": true}
	help := func(args ...string) string {
		var out bytes.Buffer
		run(context.Background(), append(args, "--help"), &out, &out)
		for _, m := range helpFlagLine.FindAllStringSubmatch(out.String(), -1) {
			flags[m[1]] = true
		}
		return out.String()
	}
	for _, c := range commands() {
		usage := help(c.name)
		for _, sub := range subcommands(c.name, usage) {
			help(c.name, sub)
		}
	}
	for _, want := range []string{"db", "upstream", "password-stdin", "url", "grace"} {
		if !flags[want] {
			t.Fatalf("--%s not found in the commands' help: the help's form changed, and this test reads it", want)
		}
	}
	return flags
}

// subcommands reads the subcommands a command's usage names, as in
// "Usage: fieldboard user add|passwd|list --db PATH ...".
func subcommands(name, usage string) []string {
	var subs []string
	for _, line := range strings.Split(usage, "\n") {
		_, rest, ok := strings.Cut(line, "fieldboard "+name+" ")
		if !ok {
			continue
		}
		word, _, _ := strings.Cut(rest, " ")
		if word == "" || strings.HasPrefix(word, "-") || strings.HasPrefix(word, "[") {
			continue
		}
		subs = append(subs, strings.Split(word, "|")...)
	}
	return subs
}

var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w*)\(`)

// definedTests are the test, fuzz and benchmark functions of every
// _test.go file under root, whatever its build tags.
func definedTests(t *testing.T, root string) map[string]bool {
	tests := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testoutput") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			tests[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !tests["TestDocumentsNameWhatExists"] {
		t.Fatal("this test's own name was not found among the tests: the walk missed the module's files")
	}
	return tests
}

// docChecker holds what the documents may name.
type docChecker struct {
	root   string
	routes []route
	flags  map[string]bool
	tests  map[string]bool
}

var (
	codeSpan      = regexp.MustCompile("`([^`]+)`")
	markdownLink  = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	flagWord      = regexp.MustCompile(`(?:^|[\s(\[|=,])--([a-z0-9][a-z0-9-]*)`)
	testName      = regexp.MustCompile(`\b((?:Test|Fuzz|Benchmark)[A-Z0-9_]\w*)(\.\.\.|…)?`)
	runsFieldbrd  = regexp.MustCompile(`^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\./)?(?:bin/)?fieldboard(?:\s|$)`)
	goIdentSuffix = regexp.MustCompile(`\.[A-Z]\w*$`)
	methodPrefix  = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) `)
	urlScheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// notOurRoutes are the prefixes of paths that are not Fieldboard's routes.
var notOurRoutes = []string{"/supplier/", "/debug/pprof", "/etc/", "/var/", "/run/", "/tmp/", "/usr/", "/dev/", "/proc/", "/home/", "/opt/", "/srv/"}

// check returns a line for each name in doc's text that nothing backs.
func (c docChecker) check(doc, text string) []string {
	var problems []string
	report := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", doc, line, fmt.Sprintf(format, args...)))
	}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		for _, name := range c.unknownTests(line) {
			report(n, "names the test %s, which no _test.go file defines", name)
		}
		if inFence {
			if runsFieldbrd.MatchString(strings.TrimSpace(line)) {
				for _, f := range c.unknownFlags(line) {
					report(n, "runs fieldboard with --%s, which no command defines", f)
				}
			}
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			if target, ok := c.linkTarget(doc, m[1]); ok && !c.exists(target) {
				report(n, "links %s, which does not exist (%s)", m[1], target)
			}
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			span := m[1]
			for _, f := range c.unknownFlags(span) {
				report(n, "names the flag --%s, which no command defines", f)
			}
			if path, ok := c.repositoryPath(span); ok && !c.exists(path) {
				report(n, "names the file %s, which does not exist", span)
			}
			if method, path, ok := routeIn(span); ok && !c.hasRoute(method, path) {
				report(n, "names the route %s, which the server does not have", strings.TrimSpace(method+" "+path))
			}
		}
		for _, cell := range tableCells(line) {
			if method, path, ok := routeIn(cell); ok && !c.hasRoute(method, path) {
				report(n, "names the route %s in a table, which the server does not have", strings.TrimSpace(method+" "+path))
			}
		}
	}
	return problems
}

// linkTarget is the repository path a link's target names, from the
// module's root, or false when it is a URL or an anchor alone.
func (c docChecker) linkTarget(doc, target string) (string, bool) {
	if strings.HasPrefix(target, "#") || urlScheme.MatchString(target) {
		return "", false
	}
	target, _, _ = strings.Cut(target, "#")
	return filepath.Join(filepath.Dir(doc), filepath.FromSlash(target)), true
}

// repositoryPath is the path a code span names when it looks like one of
// the repository's.
func (c docChecker) repositoryPath(span string) (string, bool) {
	if strings.ContainsAny(span, " \t*=<>{}$") || !strings.Contains(span, "/") || strings.Contains(span, "://") {
		return "", false
	}
	first, _, _ := strings.Cut(span, "/")
	if first == "" || first == "." || first == ".." || first == "testoutput" {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(c.root, first)); err != nil {
		return "", false
	}
	path := strings.TrimSuffix(strings.TrimSuffix(span, "/..."), "/…")
	path = goIdentSuffix.ReplaceAllString(path, "")
	return filepath.FromSlash(path), true
}

func (c docChecker) exists(path string) bool {
	_, err := os.Stat(filepath.Join(c.root, path))
	return err == nil
}

// routeIn reads the method (or "") and path a code span or table cell
// names, when it names one of ours.
func routeIn(text string) (method, path string, ok bool) {
	text = strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "`"))
	if m := methodPrefix.FindStringSubmatch(text); m != nil {
		method, text = m[1], strings.TrimSpace(text[len(m[0]):])
	}
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") {
		return "", "", false
	}
	if end := strings.IndexAny(text, " ?[#,;)`"); end >= 0 {
		text = text[:end]
	}
	for _, p := range notOurRoutes {
		if strings.HasPrefix(text, p) || text == strings.TrimSuffix(p, "/") {
			return "", "", false
		}
	}
	return method, text, true
}

// hasRoute says whether a route of the server matches path (with method,
// when one is given); a path ending in / matches the routes under it.
func (c docChecker) hasRoute(method, path string) bool {
	prefix := strings.HasSuffix(path, "/") && path != "/"
	want := strings.Split(strings.Trim(path, "/"), "/")
	return slices.ContainsFunc(c.routes, func(r route) bool {
		if method != "" && r.method != method {
			return false
		}
		return routeMatches(strings.Split(strings.Trim(r.path, "/"), "/"), want, prefix)
	})
}

// routeMatches matches the segments of a document's path against a
// route's: :param matches any one segment, a segment ending in * the
// rest.
func routeMatches(route, path []string, prefix bool) bool {
	for i, seg := range route {
		if stem, ok := strings.CutSuffix(seg, "*"); ok { // "/static*" serves everything under it
			return i == len(path) || strings.HasPrefix(path[i], stem)
		}
		if i == len(path) {
			return prefix
		}
		if seg != path[i] && !(strings.HasPrefix(seg, ":") && path[i] != "") {
			return false
		}
	}
	return len(route) == len(path)
}

// tableCells are the cells of a Markdown table's row, or none.
func tableCells(line string) []string {
	trimmed := strings.TrimSpace(line)
	if !strings.HasPrefix(trimmed, "|") {
		return nil
	}
	return strings.Split(strings.ReplaceAll(strings.Trim(trimmed, "|"), `\|`, "\x00"), "|")
}

func (c docChecker) unknownFlags(text string) []string {
	var unknown []string
	for _, m := range flagWord.FindAllStringSubmatch(text, -1) {
		if !c.flags[m[1]] {
			unknown = append(unknown, m[1])
		}
	}
	return unknown
}

func (c docChecker) unknownTests(line string) []string {
	var unknown []string
	for _, m := range testName.FindAllStringSubmatch(line, -1) {
		name, isPrefix := m[1], m[2] != ""
		known := c.tests[name]
		if isPrefix {
			for t := range c.tests {
				known = known || strings.HasPrefix(t, name)
			}
		}
		if !known {
			unknown = append(unknown, name)
		}
	}
	return unknown
}

// TestDocumentRulesCatchWhatTheyShould: each rule of
// TestDocumentsNameWhatExists flags a name nothing backs and lets pass
// the names that are backed and the prose and other systems' names it
// promises to leave alone.
func TestDocumentRulesCatchWhatTheyShould(t *testing.T) {
	t.Parallel()
	root := moduleDir(t)
	c := docChecker{root: root, routes: serverRoutes(t), flags: definedFlags(t), tests: definedTests(t, root)}
	cases := []struct {
		name, line, want string // want "" for no problem
	}{
		{"a link to a file that exists", "see [the spec](../handlers/openapi.json#paths)", ""},
		{"a link to a file that does not", "see [the spec](../handlers/nothing.json)", "links ../handlers/nothing.json"},
		{"a URL and an anchor are not files", "[site](https://example.com/x) and [below](#the-tests)", ""},
		{"a repository path that exists", "in `web/server.go` and `views/formats.Writer`", ""},
		{"a repository path that does not", "in `web/servers.go`", "names the file web/servers.go"},
		{"a path the tests make is not checked", "in `testoutput/browser/`", ""},
		{"a route with its parameters", "`GET /api/v1/panelists/P/next?limit=5` and `/subsamples/{id}/quotas.csv`", ""},
		{"a route that does not exist", "`/api/v1/panelist/P/next`", "names the route /api/v1/panelist/P/next"},
		{"a route with the wrong method", "`POST /live`", "names the route POST /live"},
		{"a route in a table cell", "| /nowhere | what |", "names the route /nowhere in a table"},
		{"static files and a prefix", "`/static/app.css` under `/api/v1/`", ""},
		{"the provider's paths and the machine's are not ours", "`/supplier/v1/event/all`, `/etc/fieldboard.env`, `/debug/pprof/cmdline`", ""},
		{"a flag a command defines", "`--upstream-header` and `--password-stdin`", ""},
		{"a flag nobody defines", "`--upstream-headers`", "names the flag --upstream-headers"},
		{"a test that exists, and a prefix", "TestDocumentsNameWhatExists and TestDocuments...", ""},
		{"a test that does not", "TestNothingLikeThis", "names the test TestNothingLikeThis"},
		{"prose is not a test", "Testing, Tests and Benchmarks", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			problems := c.check("docs/example.md", tc.line+"\n")
			switch {
			case tc.want == "" && len(problems) > 0:
				t.Errorf("%q: %q, want no problem", tc.line, problems)
			case tc.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.want)):
				t.Errorf("%q: %q, want one problem saying %q", tc.line, problems, tc.want)
			}
		})
	}
	fenced := "```sh\nfieldboard serve --no-such-flag\ncreateuser --pwprompt fieldboard\n```\n"
	if problems := c.check("docs/example.md", fenced); len(problems) != 1 || !strings.Contains(problems[0], "--no-such-flag") {
		t.Errorf("a fenced block: %q, want only fieldboard's unknown flag", problems)
	}
}
