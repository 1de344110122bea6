package registry

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

const module = "github.com/kmeta/kmeta"

// TestRegistrySound: no code declared twice, every declaration complete
// (kebab-case code, room, title, meaning, a class or where it comes from,
// a severity of the one set, escalations above and relaxations below it
// with their conditions, at least one command).
func TestRegistrySound(t *testing.T) {
	for _, err := range Problems() {
		t.Error(err)
	}
	all := All()
	if len(all) < 200 {
		t.Fatalf("%d checks: the tables are not all read", len(all))
	}
	if !slices.IsSortedFunc(all, func(a, b *model.Check) int { return strings.Compare(a.Code, b.Code) }) {
		t.Error("All is not sorted by code")
	}
	for _, c := range all {
		if got, ok := Lookup(c.Code); !ok || got != c {
			t.Errorf("Lookup(%q) does not return its check", c.Code)
		}
	}
	if _, ok := Lookup("no-such-code"); ok {
		t.Error("Lookup of an undeclared code succeeds")
	}
}

// The registry's own checks fail: each bad declaration below is refused.
func TestRegistryRefuses(t *testing.T) {
	good := func() *model.Check {
		return &model.Check{Code: "a-code", Room: "r", Class: "c", Severity: model.SevError, Title: "t", Meaning: "m", Commands: []string{"image"}}
	}
	bad := map[string]func(c *model.Check){
		"duplicate":            nil,
		"not kebab-case":       func(c *model.Check) { c.Code = "A_Code" },
		"empty title":          func(c *model.Check) { c.Title = " " },
		"two-line title":       func(c *model.Check) { c.Title = "a\nb" },
		"no meaning":           func(c *model.Check) { c.Meaning = "" },
		"no room":              func(c *model.Check) { c.Room = "" },
		"no class":             func(c *model.Check) { c.Class = "" },
		"unknown severity":     func(c *model.Check) { c.Severity = "fatal" },
		"no severity":          func(c *model.Check) { c.Severity = "" },
		"no command":           func(c *model.Check) { c.Commands = nil },
		"escalated below":      func(c *model.Check) { c.Escalated, c.EscalatedWhen = model.SevWarning, "x" },
		"escalated, no when":   func(c *model.Check) { c.Escalated = model.SevCritical },
		"relaxed above":        func(c *model.Check) { c.Relaxed, c.RelaxedWhen = model.SevCritical, "x" },
		"relaxed, no when":     func(c *model.Check) { c.Relaxed = model.SevWarning },
		"when without a level": func(c *model.Check) { c.RelaxedWhen = "x" },
	}
	for name, spoil := range bad {
		t.Run(name, func(t *testing.T) {
			tabs := []Table{{"one", func() model.Checks { return model.Checks{good()} }}}
			if spoil == nil {
				tabs = append(tabs, Table{"two", func() model.Checks { return model.Checks{good()} }})
			} else {
				c := good()
				spoil(c)
				tabs = append(tabs, Table{"two", func() model.Checks { return model.Checks{c} }})
			}
			if errs := problems(tabs); len(errs) == 0 {
				t.Errorf("%s is accepted", name)
			}
		})
	}
	if errs := problems([]Table{{"one", func() model.Checks { return model.Checks{good()} }}}); len(errs) > 0 {
		t.Errorf("a good table is refused: %v", errs)
	}
}

// TestEveryTableCollected: a package that exports a table (a Checks
// function returning model.Checks, or model's CommonChecks) is one of
// the tables the registry reads, so a room's new table cannot be left
// out of `kmeta codes` and the tests.
func TestEveryTableCollected(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for _, tb := range Tables() {
		listed[tb.Package] = true
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	found := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Dir        string
			GoFiles    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || (fd.Name.Name != "Checks" && fd.Name.Name != "CommonChecks") ||
					fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
					continue
				}
				if ty := types(fd.Type.Results.List[0].Type); ty != "model.Checks" && ty != "Checks" {
					continue
				}
				found++
				if !listed[rel] {
					t.Errorf("%s exports a table of checks (%s) that internal/registry does not read: add it to tables", rel, fd.Name.Name)
				}
			}
		}
	}
	if found < len(Tables()) {
		t.Fatalf("found %d tables in the source, the registry reads %d: the check no longer sees them", found, len(Tables()))
	}
}

func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	}
	return ""
}
