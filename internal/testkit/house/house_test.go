package house

import (
	"encoding/json"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/registry"
)

const module = "github.com/kmeta/kmeta"

// The floors of the house (see doc.go). Paths are relative to the module;
// a room is its path and everything below it.
var (
	ground   = []string{"controllers", "javaprops", "jsonstream", "shellword"}
	readers  = []string{"metalog", "zkread", "kafkaread"}
	judges   = []string{"verify", "features", "lint", "history", "roll", "voters", "zkdeps"}
	planners = []string{"migrate", "quorum", "restore"}
	// wiring is internal/ (the test kit apart) and cmd.
	wiring = []string{"internal", "cmd"}
)

// floors are the house bottom up: a room imports only from its own floor
// or the ones below it.
var floors = []struct {
	name  string
	rooms []string
}{
	{"the model", []string{"model"}},
	{"the ground floor", ground},
	{"the readers", readers},
	{"the judges", judges},
	{"the planners", planners},
	{"the wiring", wiring},
}

// floorOf is the floor of a module-relative package path and its room,
// or -1 for the test kit and paths outside every floor.
func floorOf(rel string) (int, string) {
	if under(rel, "internal/testkit") {
		return -1, ""
	}
	for i, f := range floors {
		if r := rootOf(rel, f.rooms); r != "" {
			return i, r
		}
	}
	return -1, ""
}

// debts are arrows the house forbids that the code still has, each with
// the work that removes it. TestImportRules skips them and fails when one
// is paid (the arrow is gone), so the list only shrinks.
var debts = map[[2]string]string{}

// under reports whether rel is root or below it.
func under(rel string, roots ...string) bool {
	for _, r := range roots {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

func rootOf(rel string, roots []string) string {
	for _, r := range roots {
		if under(rel, r) {
			return r
		}
	}
	return ""
}

// forbidden says why package from (an import path) may not import to, or ""
// when it may. It sees only product imports (not those of test files).
func forbidden(from, to string) string {
	if !strings.HasPrefix(from, module) {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(from, module), "/")
	own := strings.HasPrefix(to, module+"/")
	dep := strings.TrimPrefix(to, module+"/")
	ff, fromRoom := floorOf(rel)
	tf, toRoom := floorOf(dep)
	switch {
	case under(rel, "model") && own:
		return "the model is the hub: it imports nothing of the project"
	case rootOf(rel, ground) != "" && own && !under(dep, "model"):
		return "the ground floor (the quorum's voters, the Java properties format, ...) imports nothing of the project but the model"
	case rootOf(rel, readers) != "" && rootOf(dep, readers) != "" && rootOf(rel, readers) != rootOf(dep, readers):
		return "the readers are siblings: none imports another (what two share lives on the ground floor)"
	case rootOf(rel, planners) != "" && rootOf(dep, planners) != "" && rootOf(rel, planners) != rootOf(dep, planners):
		return "the planners are siblings: none imports another (the voters migrate and quorum share are in controllers)"
	case rootOf(rel, readers) != "" && own &&
		(under(dep, judges...) || under(dep, planners...) || under(dep, "cmd") ||
			under(dep, "internal")):
		return "a reader reads: it never imports a judge, a planner, cmd or internal/ (its own internal/ excepted)"
	case under(rel, "internal/source") && own && (under(dep, judges...) || under(dep, planners...)):
		return "internal/source is the entrance to the readers: it never imports a judge or a planner"
	case rootOf(rel, judges) != "" && own && under(dep, readers...) && !(under(rel, "zkdeps") && under(dep, "zkread")):
		return "a judge takes the model: it never imports a reader (zkdeps excepted, whose input is zkread's raw tree, znodes the model does not hold)"
	case strings.HasPrefix(to, "github.com/urfave/cli") && !under(rel, "cmd"):
		return "only cmd parses command lines (urfave/cli)"
	case own && under(dep, "internal/printer") && !under(rel, "cmd", "internal"):
		return "no library imports the printers: libraries return data, cmd prints it"
	case own && under(dep, "internal/testkit") && !under(rel, "internal/testkit"):
		return "product code never imports the test kit"
	case under(rel, "kafkaread") && own && under(dep, "internal/testkit/kafkatest"),
		under(rel, "internal/testkit/kafkatest") && own && under(dep, "kafkaread"):
		return "the live reader and the test kit's admin oracle stay independent witnesses: neither imports the other"
	case strings.HasPrefix(to, "github.com/twmb/franz-go") && !under(rel, "kafkaread", "internal/testkit"):
		return "only the live reader (kafkaread) speaks Kafka's protocol"
	case own && ff >= 0 && tf > ff:
		return fromRoom + " is on " + floors[ff].name + " and " + toRoom + " on " + floors[tf].name + ": a room never imports from a floor above its own"
	}
	return ""
}

type listed struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

func root(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

func packages(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root(t)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var ps []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		ps = append(ps, p)
	}
	if len(ps) < 10 {
		t.Fatalf("go list found %d packages; the module root is wrong", len(ps))
	}
	return ps
}

func TestImportRules(t *testing.T) {
	owed := map[[2]string]bool{}
	for _, p := range packages(t) {
		for _, imp := range p.Imports {
			why := forbidden(p.ImportPath, imp)
			if why == "" {
				continue
			}
			rel := strings.TrimPrefix(p.ImportPath, module+"/")
			_, fromRoom := floorOf(rel)
			_, toRoom := floorOf(strings.TrimPrefix(imp, module+"/"))
			if k := [2]string{fromRoom, toRoom}; debts[k] != "" {
				owed[k] = true
				continue
			}
			t.Errorf("%s imports %s: %s", p.ImportPath, imp, why)
		}
	}
	for k := range debts {
		if !owed[k] {
			t.Errorf("debt %s → %s is paid: no package of %s imports %s any more; take it off the list", k[0], k[1], k[0], k[1])
		}
	}
}

// TestEveryPackageHasAFloor: a new room is placed on a floor (floors
// above), so that the rules see it.
func TestEveryPackageHasAFloor(t *testing.T) {
	for _, p := range packages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if under(rel, "internal/testkit") {
			continue
		}
		if f, _ := floorOf(rel); f < 0 {
			t.Errorf("%s is on no floor of the house: add its room to one (house_test.go, doc.go)", p.ImportPath)
		}
	}
}

// The rules themselves can fail: each arrow below is one the house forbids.
func TestImportRulesRefuse(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	bad := [][2]string{
		{m("model"), m("metalog")},
		{m("metalog"), m("verify")},
		{m("zkread"), m("internal/source")},
		{m("zkread/zkfile"), m("migrate")},
		{m("kafkaread"), m("features")},
		{m("verify"), m("zkread")},
		{m("internal/source"), m("verify")},
		{m("features"), m("metalog/records")},
		{m("lint"), m("kafkaread")},
		{m("migrate"), m("internal/printer")},
		{m("verify"), "github.com/urfave/cli/v2"},
		{m("internal/source"), "github.com/urfave/cli/v2"},
		{m("internal/source"), m("internal/testkit/synth")},
		{m("cmd/kmeta"), m("internal/testkit/kafkatest")},
		{m("kafkaread"), m("internal/testkit/kafkatest")},
		{m("internal/testkit/kafkatest"), m("kafkaread")},
		{m("zkread"), "github.com/twmb/franz-go/pkg/kgo"},
		{m("quorum"), m("migrate")},
		{m("migrate"), m("quorum")},
		{m("migrate/online"), m("restore")},
		{m("kafkaread"), m("metalog")},
		{m("metalog"), m("zkread")},
		{m("controllers"), m("migrate")},
		{m("javaprops"), m("metalog")},
		{m("controllers"), m("javaprops")},
		{m("roll"), m("quorum")},
		{m("features"), m("migrate")},
		{m("zkdeps"), m("metalog")},
		{m("zkdeps"), m("internal/report")},
		{m("verify"), m("internal/source")},
		{m("metalog/records"), m("internal/recdef")},
	}
	for _, b := range bad {
		if forbidden(b[0], b[1]) == "" {
			t.Errorf("%s → %s is allowed; the house forbids it", b[0], b[1])
		}
	}
	good := [][2]string{
		{m("metalog"), m("metalog/internal/wire")},
		{m("metalog"), m("model")},
		{m("migrate"), m("metalog")},
		{m("migrate"), m("features")},
		{m("cmd/kmeta"), m("internal/printer")},
		{m("cmd/kmeta"), "github.com/urfave/cli/v2"},
		{m("internal/source"), m("zkread")},
		{m("kafkaread"), "github.com/twmb/franz-go/pkg/kadm"},
		{m("internal/testkit/kafkatest"), "github.com/twmb/franz-go/pkg/kgo"},
		{m("quorum"), m("controllers")},
		{m("quorum"), m("voters")},
		{m("roll"), m("voters")},
		{m("migrate/online"), m("migrate")},
		{m("migrate/online"), m("controllers")},
		{m("kafkaread"), m("javaprops")},
		{m("metalog"), m("javaprops")},
		{m("javaprops"), m("model")},
		{m("zkdeps"), m("zkread")},
		{m("history"), m("verify")},
		{m("restore"), m("verify")},
		{m("internal/report"), m("quorum")},
		{m("internal/testkit/synth"), m("metalog/records")},
	}
	for _, g := range good {
		if why := forbidden(g[0], g[1]); why != "" {
			t.Errorf("%s → %s is refused (%s); the house allows it", g[0], g[1], why)
		}
	}
}

// writeNames are franz-go's requests and kadm's calls that change a cluster.
var writeNames = regexp.MustCompile(`^(New(Ptr)?)?(UpdateFeatures|AddRaftVoter|RemoveRaftVoter|UnregisterBroker|` +
	`CreateTopics?|DeleteTopics?|CreatePartitions|AlterConfigs|IncrementalAlterConfigs|AlterTopicConfigs|AlterBrokerConfigs|` +
	`CreateACLs|DeleteACLs|AlterClientQuotas|AlterUserSCRAMs?|AlterUserSCRAMCredentials|` +
	`CreateDelegationToken|RenewDelegationToken|ExpireDelegationToken|AlterPartitionAssignments|ElectLeaders|` +
	`DeleteRecords|DeleteGroups|OffsetDelete|AlterReplicaLogDirs|Produce|ProduceSync|InitProducerID|AlterPartition)(Request)?$`)

// writesOutside returns the write calls of a product file that is not the
// live reader's one file of writes.
func writesOutside(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && writeNames.MatchString(sel.Sel.Name) {
			out = append(out, fset.Position(sel.Pos()).String()+": "+sel.Sel.Name)
		}
		return true
	})
	return out
}

func TestClusterWritesInOneFile(t *testing.T) {
	for _, p := range packages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if under(rel, "internal/testkit") {
			continue
		}
		speaksKafka := slices.ContainsFunc(p.Imports, func(s string) bool { return strings.HasPrefix(s, "github.com/twmb/franz-go") })
		if !speaksKafka {
			continue
		}
		for _, name := range p.GoFiles {
			if under(rel, "kafkaread") && name == "writes.go" {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range writesOutside(fset, f) {
				t.Errorf("%s: a request that writes to a cluster is sent only from kafkaread/writes.go", w)
			}
		}
	}
}

func TestClusterWritesRuleRefuses(t *testing.T) {
	src := `package kafkaread
func f() { _ = kmsg.NewPtrUpdateFeaturesRequest(); _ = adm.UpdateFeatures; _ = kmsg.NewPtrDescribeQuorumRequest() }`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := writesOutside(fset, f); len(got) != 2 {
		t.Fatalf("write calls found %q, want the two UpdateFeatures", got)
	}
}

// ZooKeeper's operations that change a tree (ZooDefs.OpCode): kmeta's client
// never defines them, so it cannot send them.
var zkWrites = map[int64]string{1: "create", 2: "delete", 5: "setData", 7: "setACL", 13: "check", 14: "multi",
	15: "create2", 16: "reconfig", 19: "createContainer", 20: "deleteContainer", 21: "createTTL"}

func zkOpcodes(t *testing.T, fset *token.FileSet, f *ast.File) map[string]int64 {
	t.Helper()
	ops := map[string]int64{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "op") || i >= len(vs.Values) {
					continue
				}
				tv, err := types.Eval(fset, nil, vs.Values[i].Pos(), types.ExprString(vs.Values[i]))
				if err != nil || tv.Value == nil {
					continue
				}
				if v, ok := constant.Int64Val(tv.Value); ok {
					ops[n.Name] = v
				}
			}
		}
	}
	return ops
}

func TestZooKeeperClientReadsOnly(t *testing.T) {
	dir := filepath.Join(root(t), "zkread")
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for op, v := range zkOpcodes(t, fset, f) {
			found++
			if w, ok := zkWrites[v]; ok {
				t.Errorf("%s: %s = %d is ZooKeeper's %s: kmeta reads ZooKeeper, it never writes it", filepath.Base(name), op, v, w)
			}
		}
	}
	if found < 5 {
		t.Fatalf("found %d ZooKeeper opcodes in zkread; the check no longer sees the client", found)
	}
}

// jvmStarters are the test kit's calls that fetch Kafka with Maven or start a
// JVM (Kafka, ZooKeeper, one of Kafka's tools).
// A function that takes one of the running things (a cluster, an ensemble, a
// migration, a fetched distribution) needs a JVM as much as one that starts it.
var jvmStarters = map[string]bool{"Dist": true, "Fetch": true, "SkipIfUnitOnly": true, "StartKRaft": true,
	"StartZooKeeper": true, "StartZKCluster": true, "NewCluster": true, "StartMigration": true, "KafkaImageFacts": true,
	"Cluster": true, "ZooKeeper": true, "Migration": true, "Distribution": true}

// jvmFiles returns, for one package's test files, which of them start a JVM:
// a file does when one of its functions calls a starter, directly or through
// other functions of the package's tests.
func jvmFiles(fset *token.FileSet, files map[string]*ast.File, pkgName string) map[string]bool {
	type fn struct {
		file  string
		calls []string
		jvm   bool
	}
	fns := map[string]*fn{}
	var order []string
	for name, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := name + ":" + fd.Name.Name
			if fd.Recv == nil {
				key = fd.Name.Name
			}
			x := &fn{file: name}
			ast.Inspect(fd, func(n ast.Node) bool {
				switch e := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := e.X.(*ast.Ident); ok && id.Name == "kafkatest" && jvmStarters[e.Sel.Name] {
						x.jvm = true
					}
					x.calls = append(x.calls, e.Sel.Name)
				case *ast.Ident:
					if pkgName == "kafkatest" && jvmStarters[e.Name] {
						x.jvm = true
					}
					x.calls = append(x.calls, e.Name)
				}
				return true
			})
			fns[key] = x
			order = append(order, key)
		}
	}
	// Methods are matched by name alone: a test's helper types are few.
	byName := map[string][]*fn{}
	for key, x := range fns {
		byName[key[strings.LastIndex(key, ":")+1:]] = append(byName[key[strings.LastIndex(key, ":")+1:]], x)
	}
	for changed := true; changed; {
		changed = false
		for _, key := range order {
			x := fns[key]
			if x.jvm {
				continue
			}
			for _, c := range x.calls {
				if slices.ContainsFunc(byName[c], func(y *fn) bool { return y.jvm }) {
					x.jvm, changed = true, true
					break
				}
			}
		}
	}
	out := map[string]bool{}
	for name := range files {
		out[name] = false
	}
	for _, x := range fns {
		if x.jvm {
			out[x.file] = true
		}
	}
	return out
}

func TestJVMTestFilesNamed(t *testing.T) {
	for _, p := range packages(t) {
		for _, group := range [][]string{p.TestGoFiles, p.XTestGoFiles} {
			if len(group) == 0 {
				continue
			}
			fset := token.NewFileSet()
			files := map[string]*ast.File{}
			pkgName := ""
			for _, name := range group {
				f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				files[name] = f
				pkgName = f.Name.Name
			}
			jvm := jvmFiles(fset, files, pkgName)
			for _, name := range slices.Sorted(maps.Keys(jvm)) {
				jvm := jvm[name]
				named := strings.HasSuffix(name, "_kafka_test.go")
				rel := filepath.Join(strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/"), name)
				switch {
				case jvm && !named:
					t.Errorf("%s starts a JVM: name it *_kafka_test.go (move its JVM tests to one that is)", rel)
				case named && !jvm:
					t.Errorf("%s starts no JVM: only tests that do are named *_kafka_test.go", rel)
				}
			}
		}
	}
}

func TestJVMTestFilesRuleSees(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(name, src string) *ast.File {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	files := map[string]*ast.File{
		"a_test.go":       parse("a_test.go", "package p\nfunc helper(t T) { kafkatest.Dist(t, \"4.4.0\") }"),
		"b_test.go":       parse("b_test.go", "package p\nfunc TestB(t T) { x := start(t); _ = x }\nfunc start(t T) int { helper(t); return 0 }"),
		"c_test.go":       parse("c_test.go", "package p\nfunc TestC(t T) { other() }\nfunc other() {}"),
		"d_kafka_test.go": parse("d_kafka_test.go", "package p\nfunc TestD(t T) { kafkatest.SkipIfUnitOnly(t) }"),
	}
	got := jvmFiles(fset, files, "p")
	want := map[string]bool{"a_test.go": true, "b_test.go": true, "c_test.go": false, "d_kafka_test.go": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: jvm %v, want %v", k, got[k], v)
		}
	}
}

// codeUse is a finding code a file names.
type codeUse struct {
	code, where, what string
	// family: a *Prefix constant (lossy-…), whose members start with it.
	family bool
}

// codeConst names the constants that hold finding and warning codes.
var (
	codeConst = regexp.MustCompile(`^(Code|Kind|Warn)[A-Z]`)
	kebab     = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// codeUses returns the finding codes a file names: its string constants
// named Code*, Kind* or Warn*, and the string literals a finding is made
// with (a Code field of a composite literal, an assignment to a .Code, the
// argument of a table's Must or Lookup).
func codeUses(fset *token.FileSet, f *ast.File) []codeUse {
	var out []codeUse
	str := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		return strings.Trim(lit.Value, "\"`"), true
	}
	add := func(code string, at token.Pos, what string, family bool) {
		out = append(out, codeUse{code: code, where: fset.Position(at).String(), what: what, family: family})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok != token.CONST {
				return true
			}
			for _, s := range n.Specs {
				vs := s.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !codeConst.MatchString(id.Name) || i >= len(vs.Values) {
						continue
					}
					if code, ok := str(vs.Values[i]); ok {
						add(code, id.Pos(), id.Name, strings.HasSuffix(id.Name, "Prefix"))
					}
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" {
				if code, ok := str(n.Value); ok {
					add(code, n.Pos(), "a Code field", false)
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" && i < len(n.Rhs) {
					if code, ok := str(n.Rhs[i]); ok {
						add(code, n.Pos(), "an assignment to .Code", false)
					}
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Must" || sel.Sel.Name == "Lookup") && len(n.Args) == 1 {
				if code, ok := str(n.Args[0]); ok {
					add(code, n.Pos(), sel.Sel.Name, false)
				}
			}
		}
		return true
	})
	return out
}

// TestFindingCodesOneStyle: every code a command can print is spelled
// one way (kebab-case) and declared in the one registry of checks
// (internal/registry, which reads every room's table): each Code*, Kind* and
// Warn* constant, and each code string a finding is made with.
func TestFindingCodesOneStyle(t *testing.T) {
	registered := map[string]bool{}
	for _, c := range registry.All() {
		registered[c.Code] = true
	}
	n := 0
	for _, p := range packages(t) {
		for _, name := range p.GoFiles {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range codeUses(fset, f) {
				n++
				code := u.code
				if u.family {
					code = strings.TrimSuffix(code, "-") + "-x"
				}
				if !kebab.MatchString(code) {
					t.Errorf("%s: code %q of %s is not kebab-case", u.where, u.code, u.what)
				}
				switch {
				case u.family:
					if !slices.ContainsFunc(slices.Collect(maps.Keys(registered)), func(c string) bool { return strings.HasPrefix(c, u.code) }) {
						t.Errorf("%s: no code of the family %q (%s) is in the registry of checks", u.where, u.code, u.what)
					}
				case !registered[u.code]:
					t.Errorf("%s: code %q (%s) is not in the registry of checks: declare it in its room's checks.go table", u.where, u.code, u.what)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("found %d codes; the check no longer sees them", n)
	}
}

// The rule sees the ways a code is named.
func TestFindingCodesRuleSees(t *testing.T) {
	src := `package p
const (
	CodeA = "a-code"
	KindLossPrefix = "lossy-"
	Other = "not-a-code"
)
func f() {
	_ = model.Finding{Code: "b-code"}
	x.Code = "c-code"
	_ = checks.Must("d-code")
	_, _ = checks.Lookup("e-code")
	_ = fmt.Sprint("f-not")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range codeUses(fset, f) {
		s := u.code
		if u.family {
			s += "*"
		}
		got = append(got, s)
	}
	slices.Sort(got)
	if want := []string{"a-code", "b-code", "c-code", "d-code", "e-code", "lossy-*"}; !slices.Equal(got, want) {
		t.Errorf("codes %q, want %q", got, want)
	}
}
