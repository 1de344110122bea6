package features

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestEveryLossIsACheck: every Requirement kind (the Req* constants of
// requirements.go) but feature-dependency, which Check refuses as such,
// has its lossy-… check: Check names the loss of any requirement the
// target misses, and a code without a check would panic there.
func TestEveryLossIsACheck(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "requirements.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		vs, ok := x.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range vs.Names {
			if !strings.HasPrefix(id.Name, "Req") || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok {
				continue
			}
			kind := strings.Trim(lit.Value, `"`)
			n++
			_, has := checks.Lookup(KindLossPrefix + kind)
			if has == (kind == ReqFeatureDependency) {
				t.Errorf("requirement %s: lossy check declared %v", kind, has)
			}
		}
		return true
	})
	if n < 10 {
		t.Fatalf("found %d requirement kinds: the test no longer sees them", n)
	}
}
