package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layerRule forbids the packages under from, but those under except,
// importing what matches one of forbidden but none of allowed, and says
// why. A pattern matches a package path and, ending in "/...", every
// package under it; "std+" stands for anything outside the standard
// library and the module.
type layerRule struct {
	from      []string
	except    []string
	forbidden []string
	allowed   []string
	why       string
}

// impure is the one home of what applies the rules to the stored
// snapshot (the checks service, and checkstest, which builds a world in a
// store for its tests): every other package under rules/ is pure.
var impure = []string{"fieldboard/rules/checks/..."}

// layers are the arrows of docs/development.md's layout, each in one
// sentence: cmd -> web -> handlers -> the checks service -> store, rules
// -> the domain types. Imports point down, never back up.
var layers = []layerRule{
	{[]string{"fieldboard/rules/domain"}, nil, []string{"fieldboard/...", "std+"}, nil,
		"the domain types are the leaf: the standard library only, nothing of Fieldboard"},
	{[]string{"fieldboard/rules/..."}, impure, []string{"fieldboard/...", "net/http", "net", "database/sql", "os", "std+"},
		[]string{"fieldboard/rules", "fieldboard/rules/domain", "fieldboard/rules/invite"},
		"every package under rules/ but rules/checks is pure, data in and decisions out, now passed in: it imports only the domain " +
			"types and other pure rules packages, never the store, the client, the network, files or the clock; what needs the " +
			"snapshot belongs in the checks service (rules/checks), the one impure package under rules/"},
	{[]string{"fieldboard/client/..."}, nil, []string{"fieldboard/..."}, []string{"fieldboard/client/...", "fieldboard/rules/domain"},
		"the client talks to the provider in the domain's types; it neither stores nor decides"},
	{[]string{"fieldboard/store/..."}, nil, []string{"fieldboard/...", "net/http"}, []string{"fieldboard/store/...", "fieldboard/rules/domain"},
		"the store keeps the domain's types; it decides nothing and knows no HTTP"},
	{[]string{"fieldboard/rules/checks"}, nil, []string{"fieldboard/handlers/...", "fieldboard/views/...", "fieldboard/web/...", "fieldboard/client/...", "fieldboard/cmd/...", "github.com/labstack/echo/v4", "github.com/a-h/templ", "net/http"}, nil,
		"the checks service applies the rules to the snapshot; it knows no HTTP, pages or encodings (keep those in handlers or views/formats, with checks.Memo)"},
	{[]string{"fieldboard/views/..."}, nil, []string{"fieldboard/handlers/...", "fieldboard/web/...", "fieldboard/cmd/..."}, nil,
		"views render what the handlers give them: they import no handlers, web or cmd"},
	{[]string{"fieldboard/handlers/..."}, nil, []string{"fieldboard/web/...", "fieldboard/cmd/..."}, nil,
		"handlers import nothing from web: declare what you need as an interface beside the handler and let web adapt to it"},
	{[]string{"fieldboard/cmd/..."}, nil, []string{"fieldboard/handlers/..."}, nil,
		"the command line asks the checks service and views/formats, as the handlers do; web assembles the handlers"},
}

// TestImportsPointDown reads the import of every non-test file of the
// module and fails on an arrow that points back up, naming the file, the
// import and the rule it breaks.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	std := standardLibrary(t)
	checked := 0
	for _, file := range moduleFiles(t, "fieldboard/...", parser.ImportsOnly) {
		for _, spec := range file.ast.Imports {
			imported, _ := strconv.Unquote(spec.Path.Value)
			for _, r := range layers {
				if matchesAny(file.pkg, r.from, std) && !matchesAny(file.pkg, r.except, std) &&
					matchesAny(imported, r.forbidden, std) && !matchesAny(imported, r.allowed, std) {
					t.Errorf("%s imports %s: %s.", file.rel, imported, r.why)
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d imports read: the module's files were not found", checked)
	}
}

// goFile is one non-test Go file of the module, parsed.
type goFile struct {
	pkg, rel string // its package's import path; its path from the module's root
	fset     *token.FileSet
	ast      *ast.File
}

// moduleFiles parses, with mode, every non-test Go file of the packages
// pattern names.
func moduleFiles(t *testing.T, pattern string, mode parser.Mode) []goFile {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	root := moduleDir(t)
	var files []goFile
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		pkg, dir, names := parts[0], parts[1], strings.Fields(parts[2])
		for _, name := range names {
			path := filepath.Join(dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, mode)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, path)
			files = append(files, goFile{pkg: pkg, rel: rel, fset: fset, ast: f})
		}
	}
	return files
}

func matchesAny(pkg string, patterns []string, std map[string]bool) bool {
	for _, p := range patterns {
		switch {
		case p == "std+":
			if !std[pkg] && pkg != "fieldboard" && !strings.HasPrefix(pkg, "fieldboard/") {
				return true
			}
		case strings.HasSuffix(p, "/..."):
			base := strings.TrimSuffix(p, "/...")
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		case pkg == p:
			return true
		}
	}
	return false
}

// standardLibrary lists the packages of the standard library.
func standardLibrary(t *testing.T) map[string]bool {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	std := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		std[p] = true
	}
	return std
}

// moduleDir is the module's root, to name files from it.
func moduleDir(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// clockCalls are the standard library's ways of reading or waiting on the
// clock, which a pure package must not call: its now is a parameter.
var clockCalls = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}

// TestPureRulesReadNoClock: every package under rules/ but the checks
// service (impure) decides with now passed in. An import of "time" is
// fine (durations, dates); a call of time.Now, time.Since and the like
// is not, so the same data decides the same way in a test, the dashboard,
// the API and the command line.
func TestPureRulesReadNoClock(t *testing.T) {
	t.Parallel()
	std := standardLibrary(t)
	read := 0
	for _, file := range moduleFiles(t, "fieldboard/rules/...", 0) {
		if matchesAny(file.pkg, impure, std) {
			continue
		}
		read++
		timeName := ""
		for _, spec := range file.ast.Imports {
			if p, _ := strconv.Unquote(spec.Path.Value); p == "time" {
				timeName = "time"
				if spec.Name != nil {
					timeName = spec.Name.Name
				}
			}
		}
		if timeName == "" {
			continue
		}
		ast.Inspect(file.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && clockCalls[sel.Sel.Name] {
				t.Errorf("%s:%d calls time.%s: every package under rules/ but rules/checks is pure, its now passed in; "+
					"read the clock in the checks service (rules/checks) or above it", file.rel, file.fset.Position(sel.Pos()).Line, sel.Sel.Name)
			}
			return true
		})
	}
	if read < 10 {
		t.Fatalf("only %d files of the pure rules packages read: were they found?", read)
	}
}
