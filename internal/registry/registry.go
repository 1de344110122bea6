// Package registry is the one collector of kmeta's finding codes: every
// room declares its checks as a table of model.Check (a checks.go file,
// exported as Checks(); the model's own as model.CommonChecks()), and
// this package lists those tables, so that `kmeta codes`, the generated
// reference and the tests that no command prints an undeclared code all
// read the same data.
//
// A room that declares a table adds it to tables below; the test of this
// package fails when a package exports a table this list leaves out, when
// two tables declare one code, and when a declaration is incomplete
// (model.Check.Validate).
package registry

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/quorum"
	"github.com/kmeta/kmeta/roll"
	"github.com/kmeta/kmeta/verify"
	"github.com/kmeta/kmeta/voters"
	"github.com/kmeta/kmeta/zkdeps"
)

// Table is one room's table: the package that declares it (its import
// path below the module) and the function that returns it.
type Table struct {
	Package string
	Checks  func() model.Checks
}

// tables are every room's, from the hub up.
var tables = []Table{
	{"model", model.CommonChecks},
	{"metalog", metalog.Checks},
	{"kafkaread", kafkaread.Checks},
	{"internal/source", source.Checks},
	{"features", features.Checks},
	{"verify", verify.Checks},
	{"lint", lint.Checks},
	{"migrate", migrate.Checks},
	{"migrate/online", online.Checks},
	{"quorum", quorum.Checks},
	{"voters", voters.Checks},
	{"roll", roll.Checks},
	{"internal/report", report.Checks},
	{"zkdeps", zkdeps.Checks},
}

// Tables lists the rooms' tables.
func Tables() []Table { return slices.Clone(tables) }

// All returns every check of every room, sorted by code. The checks are
// the rooms' own: callers must not change them.
func All() []*model.Check {
	var out []*model.Check
	for _, t := range tables {
		out = append(out, t.Checks()...)
	}
	slices.SortStableFunc(out, func(a, b *model.Check) int { return cmp.Compare(a.Code, b.Code) })
	return out
}

// Lookup returns the check of a code.
func Lookup(code string) (*model.Check, bool) {
	for _, t := range tables {
		if c, ok := t.Checks().Lookup(code); ok {
			return c, true
		}
	}
	return nil, false
}

// Problems lists what is wrong with the tables: a code declared twice,
// and every declaration model.Check.Validate refuses. None means the
// registry is sound.
func Problems() []error { return problems(tables) }

func problems(tables []Table) []error {
	var errs []error
	seen := map[string]string{}
	for _, t := range tables {
		for _, c := range t.Checks() {
			if prev, dup := seen[c.Code]; dup {
				errs = append(errs, fmt.Errorf("code %q is declared by %s and by %s: a code is declared once", c.Code, prev, t.Package))
			}
			seen[c.Code] = t.Package
			if err := c.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.Package, err))
			}
		}
	}
	return errs
}
