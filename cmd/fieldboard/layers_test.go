package main

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layerRule forbids the packages under from importing what matches one of
// forbidden but none of allowed, and says why. A pattern matches a package
// path and, ending in "/...", every package under it; "std+" stands for
// anything outside the standard library and the module.
type layerRule struct {
	from      []string
	forbidden []string
	allowed   []string
	why       string
}

// layers are the arrows of the README's Layout, each in one sentence:
// cmd -> web -> handlers -> the checks service -> store, rules -> the
// domain types. Imports point down, never back up.
var layers = []layerRule{
	{[]string{"fieldboard/rules/domain"}, []string{"fieldboard/...", "std+"}, nil,
		"the domain types are the leaf: the standard library only, nothing of Fieldboard"},
	{[]string{"fieldboard/rules"}, []string{"fieldboard/...", "net/http", "database/sql", "std+"}, []string{"fieldboard/rules/domain"},
		"rules are pure, data in and decisions out: they import only the domain types"},
	{[]string{"fieldboard/rules/invite"}, []string{"fieldboard/...", "net/http", "database/sql", "std+"}, nil,
		"invitation tokens are pure, keys and time in, tokens out: the standard library only"},
	{[]string{"fieldboard/client/..."}, []string{"fieldboard/..."}, []string{"fieldboard/client/...", "fieldboard/rules/domain"},
		"the client talks to the provider in the domain's types; it neither stores nor decides"},
	{[]string{"fieldboard/store/..."}, []string{"fieldboard/...", "net/http"}, []string{"fieldboard/store/...", "fieldboard/rules/domain"},
		"the store keeps the domain's types; it decides nothing and knows no HTTP"},
	{[]string{"fieldboard/rules/checks"}, []string{"fieldboard/handlers/...", "fieldboard/views/...", "fieldboard/web/...", "fieldboard/client/...", "fieldboard/cmd/...", "github.com/labstack/echo/v4", "github.com/a-h/templ", "net/http"}, nil,
		"the checks service applies the rules to the snapshot; it knows no HTTP, pages or encodings (keep those in handlers or views/formats, with checks.Memo)"},
	{[]string{"fieldboard/views/..."}, []string{"fieldboard/handlers/...", "fieldboard/web/...", "fieldboard/cmd/..."}, nil,
		"views render what the handlers give them: they import no handlers, web or cmd"},
	{[]string{"fieldboard/handlers/..."}, []string{"fieldboard/web/...", "fieldboard/cmd/..."}, nil,
		"handlers import nothing from web: declare what you need as an interface beside the handler and let web adapt to it"},
	{[]string{"fieldboard/cmd/..."}, []string{"fieldboard/handlers/..."}, nil,
		"the command line asks the checks service and views/formats, as the handlers do; web assembles the handlers"},
}

// TestImportsPointDown reads the import of every non-test file of the
// module and fails on an arrow that points back up, naming the file, the
// import and the rule it breaks.
func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", "fieldboard/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	std := standardLibrary(t)
	root := moduleDir(t)
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		pkg, dir, files := parts[0], parts[1], strings.Fields(parts[2])
		for _, name := range files {
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, path)
			for _, spec := range f.Imports {
				imported, _ := strconv.Unquote(spec.Path.Value)
				for _, r := range layers {
					if matchesAny(pkg, r.from, std) && matchesAny(imported, r.forbidden, std) && !matchesAny(imported, r.allowed, std) {
						t.Errorf("%s imports %s: %s.", rel, imported, r.why)
					}
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d imports read: the module's files were not found", checked)
	}
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
