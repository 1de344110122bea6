package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/registry"
	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/model"
)

// TestCodesCommand: kmeta codes lists exactly the registry, explains one
// code, and refuses an unknown one as a usage error (exit 2).
func TestCodesCommand(t *testing.T) {
	r := kmeta("codes", "-o", "json")
	var all []model.Check
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &all) != nil {
		t.Fatalf("codes -o json: exit %d %s", r.code, r.stderr)
	}
	var got, want []string
	for _, c := range all {
		got = append(got, c.Code)
	}
	for _, c := range registry.All() {
		want = append(want, c.Code)
	}
	if !slices.Equal(got, want) {
		t.Errorf("codes -o json lists %d codes, the registry holds %d", len(got), len(want))
	}
	for _, f := range []string{"text", "table"} {
		if r := kmeta("codes", "-o", f); r.code != 0 || strings.Count(r.stdout, "\n") < len(want) || !strings.Contains(r.stdout, "torn-tail") {
			t.Errorf("codes -o %s: exit %d, %d lines", f, r.code, strings.Count(r.stdout, "\n"))
		}
	}
	r = kmeta("codes", "copies-diverge", "-o", "json")
	var one model.Check
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &one) != nil || one.Code != "copies-diverge" || one.Escalated != model.SevError || one.Meaning == "" {
		t.Errorf("codes copies-diverge -o json: exit %d %+v", r.code, one)
	}
	r = kmeta("codes", "copies-diverge")
	for _, w := range []string{"code: copies-diverge\n", "severity: warning; error when they diverge below a snapshot's end", "room: quorum\n", "commands: quorum survey\n"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("codes copies-diverge: no %q in\n%s", w, r.stdout)
		}
	}
	if r := kmeta("codes", "no-such-code"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `no finding code "no-such-code"`) {
		t.Errorf("codes no-such-code: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := kmeta("codes", "topic-name-ilegal"); r.code != 2 || r.stderr != "kmeta: no finding code \"topic-name-ilegal\" (did you mean topic-name-illegal?)\nRun 'kmeta codes --help' for usage.\n" {
		t.Errorf("codes topic-name-ilegal: exit %d %q", r.code, r.stderr)
	}
	if r := kmeta("codes", "a", "b"); r.code != 2 {
		t.Errorf("codes a b: exit %d", r.code)
	}
}

// TestRegistryCommandsExist: every command a check names is a command of
// the tree.
func TestRegistryCommandsExist(t *testing.T) {
	have := map[string]bool{}
	visitCommands(func(path string, cmd *cli.Command) { have[strings.TrimPrefix(path, "kmeta ")] = true })
	for _, c := range registry.All() {
		for _, name := range c.Commands {
			if !have[name] {
				t.Errorf("%s names command %q, which kmeta does not have", c.Code, name)
			}
		}
	}
}

// printed is one code a run printed: in its JSON (an object with a code
// and a severity: findings, warnings, checks) or as a warning on stderr
// (no severity).
type printed struct {
	code, severity, class string
	hasClass              bool
}

var warningLine = regexp.MustCompile(`(?m)^kmeta: warning: ([^:]+): `)

// printedCodes collects the codes of one run's output: every JSON value
// on stdout (one document, or JSON lines) and the warnings on stderr.
func printedCodes(t *testing.T, stdout, stderr string) []printed {
	t.Helper()
	var out []printed
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			code, ok1 := v["code"].(string)
			sev, ok2 := v["severity"].(string)
			if ok1 && ok2 {
				cl, has := v["class"].(string)
				out = append(out, printed{code: code, severity: sev, class: cl, hasClass: has})
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("output is not JSON: %v\n%.300s", err, stdout)
		}
		walk(v)
	}
	for _, m := range warningLine.FindAllStringSubmatch(stderr, -1) {
		out = append(out, printed{code: m[1]})
	}
	return out
}

// codesRun is one command over one input.
type codesRun struct {
	command string // the command's name, as checks name it
	args    []string
}

// TestEveryPrintedCodeRegistered runs every command over every committed
// fixture (testdata/: the KRaft logs, every bootstrap dir, the compressed
// segments, the features and migrate format dirs, the ZooKeeper data dir
// and dumps) and over damaged copies of them, in JSON, and checks every
// code printed: it is in the registry, at a severity its check allows,
// in the class its check gives (when it gives one), and printed by a
// command the check names.
func TestEveryPrintedCodeRegistered(t *testing.T) {
	start := time.Now()
	td := filepath.Join("..", "..", "testdata")
	k44, k39 := fixture44, fixture39
	snap := filepath.Join("__cluster_metadata-0", "00000000000000000099-0000000001.checkpoint")

	kraft := []string{k44, k39, filepath.Join(td, "features", "format-4.4.0"),
		filepath.Join("..", "..", "migrate", "testdata", "format-4.4.0-initial-controllers", "metadata")}
	boots, _ := filepath.Glob(filepath.Join(td, "kraft", "bootstrap", "*", "*", "metadata"))
	kraft = append(kraft, boots...)
	kraft = append(kraft,
		damaged(t, func(d string) { flipByte(d, activeSeg) }),
		damaged(t, func(d string) { truncate(d, activeSeg, 7) }),
		damaged(t, func(d string) { truncate(d, firstSeg, 7) }),
		damaged(t, func(d string) { flipByte(d, snap) }),
		damaged(t, func(d string) {
			os.WriteFile(filepath.Join(d, "__cluster_metadata-0", "quorum-state"), []byte(`{"leaderId":3000,"leaderEpo`), 0o644)
		}),
		damaged(t, func(d string) {
			os.WriteFile(filepath.Join(d, "meta.properties"), []byte("version=7\nnode.id=x\n"), 0o644)
		}),
		damaged(t, func(d string) {
			os.WriteFile(filepath.Join(d, "__cluster_metadata-0", "partition.metadata"), []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAg"), 0o644)
		}),
		damaged(t, func(d string) { os.WriteFile(filepath.Join(d, "__cluster_metadata-0", "stray.txt"), nil, 0o644) }),
	)
	compressed, _ := filepath.Glob(filepath.Join(td, "compressed", "*", "*.log"))

	zkd := filepath.Join(td, "zk", "datadir")
	zkSnap := fstree.Copy(t, zkd)
	flipByte(zkSnap, filepath.Join("version-2", "snapshot.10c"))
	cut := filepath.Join(t.TempDir(), "dump-cut.json")
	if b, err := os.ReadFile(filepath.Join(td, "zk", "dump.json")); err == nil {
		os.WriteFile(cut, b[:2000], 0o644)
	}
	zk := []string{"zkdata:" + zkd, "zkdump:" + filepath.Join(td, "zk", "dump.json"),
		"zkdump:" + filepath.Join(td, "zk", "migration", "dual-write.dump.json"), "zkdata:" + zkSnap, "zkdump:" + cut}

	work := t.TempDir()
	var runs []codesRun
	add := func(command string, args ...string) { runs = append(runs, codesRun{command, args}) }
	for _, k := range kraft {
		add("image", "image", "kraft:"+k)
		add("log dump", "log", "dump", k)
		add("log check", "log", "check", k)
		add("log stats", "log", "stats", k)
		add("features describe", "features", "describe", "kraft:"+k)
		add("features check", "features", "check", "kraft:"+k, "--to", "3.3", "--kafka", "3.9")
		add("features check", "features", "check", "kraft:"+k, "--to", "34")
		add("features check", "features", "check", "kraft:"+k, "--to", "34", "--allow-unstable")
		add("features check", "features", "check", "kraft:"+k, "--to", "3.7")
		add("lint", "lint", "kraft:"+k)
		add("quorum describe", "quorum", "describe", k)
		add("quorum survey", "quorum", "survey", k)
		add("history", "history", "kraft:"+k)
		add("roll check", "roll", "check", "kraft:"+k, "--node", "1")
		add("roll plan", "roll", "plan", "kraft:"+k, "--all-brokers")
		add("restore", "restore", "--to", "kraft:"+k+"@offset=21", "kraft:"+k, "--print")
	}
	for _, f := range compressed {
		add("log check", "log", "check", f)
	}
	add("log check", "log", "check", filepath.Join(k44, snap))
	add("quorum survey", "quorum", "survey", k44, kraft[len(kraft)-7], kraft[len(kraft)-8])
	add("diff", "diff", "kraft:"+k44+"@offset=21", "kraft:"+k44)
	add("diff", "diff", "kraft:"+k39, "kraft:"+k44)
	for _, z := range zk {
		add("image", "image", z)
		add("zk image", "zk", "image", z)
		add("zk dump", "zk", "dump", z)
		add("features check", "features", "check", z, "--to", "3.9")
		add("lint", "lint", z)
		add("migrate plan", "migrate", "plan", "--zk", z, "--controllers", "3000@localhost:9093")
		add("migrate plan", "migrate", "plan", "--zk", z, "--controllers", "3000@localhost:9093", "--metadata-version", "3.4", "--override", "drop-scram", "--override", "drop-delegation-tokens")
		add("migrate plan", "migrate", "plan", "--zk", z, "--controllers", "3000@localhost:9093", "--metadata-version", "3.3")
		add("migrate plan", "migrate", "plan", "--zk", z, "--controllers", "3000@localhost:9093", "--metadata-version", "3.6", "--quorum", "dynamic")
		add("migrate plan", "migrate", "plan", "--zk", z, "--controllers", "1@localhost:9093", "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAA",
			"--override", "ignore-migration-znode", "--override", "drop-pending-deletions", "--override", "keep-reassignments", "--override", "copy-encrypted-passwords")
		add("migrate status", "migrate", "status", "--zk", z)
		add("migrate status", "migrate", "status", "--zk", z, "--kraft", "kraft:"+k39)
		add("migrate rollback", "migrate", "rollback", "--zk", z, "--dry-run", "--out", filepath.Join(work, "rollback"))
		add("migrate stage", "migrate", "stage", "KRaftMigration", "--zk", z, "--controllers", "3000@localhost:9093", "--metadata-dir", "/var/lib/kraft", "--dry-run", "--out", filepath.Join(work, "stage"))
		add("migrate stage", "migrate", "stage", "KRaftDualWriting", "--zk", z, "--kraft", "kraft:"+k39, "--dry-run", "--out", filepath.Join(work, "stage"))
		add("verify", "verify", "--zk", z, "--kraft", "kraft:"+k44)
		add("diff", "diff", z, "zkdump:"+filepath.Join(td, "zk", "dump.json"))
		add("roll check", "roll", "check", z, "--node", "1")
		add("roll plan", "roll", "plan", z, "--all-brokers")
		add("zk dependents", "zk", "dependents", z)
		if strings.HasPrefix(z, "zkdata:") {
			add("history", "history", z)
			add("restore", "restore", "--to", z+"@zxid=0x10", z, "--print")
		}
	}
	plan := filepath.Join(work, "plan.json")
	if r := kmeta("migrate", "plan", "--zk", "zkdata:"+zkd, "--controllers", "3000@localhost:9093", "--write", plan,
		"--override", "drop-pending-deletions", "--override", "keep-reassignments", "--override", "copy-encrypted-passwords"); r.code > 1 {
		t.Fatalf("migrate plan --write: exit %d %s", r.code, r.stderr)
	}
	broker := zkModeBrokerDir(t)
	os.MkdirAll(filepath.Join(broker, "nosuchtopic-0"), 0o755)
	sp := filepath.Join(work, "server.properties")
	os.WriteFile(sp, []byte("broker.id=1\nzookeeper.connect=localhost:2181/kafka\nlisteners=PLAINTEXT://:9092\nlog.dirs=/var/lib/kafka\nauthorizer.class.name=kafka.security.authorizer.AclAuthorizer\n"), 0o644)
	add("migrate apply", "migrate", "apply", "--plan", plan, "--out", filepath.Join(work, "apply"), "--dry-run")
	add("migrate brokers", "migrate", "brokers", "--plan", plan, "--log-dirs", broker, "--dry-run")
	add("migrate brokers", "migrate", "brokers", "--plan", plan, "--log-dirs", broker, "--dry-run", "--allow-stray")
	add("migrate configs", "migrate", "configs", "--server-properties", sp, "--controllers", "3000@localhost:9093", "--role", "controller", "--node-id", "3000", "--metadata-dir", "/var/lib/kraft")
	add("migrate configs", "migrate", "configs", "--server-properties", sp, "--plan", plan)

	seen := map[string]bool{}
	for _, run := range runs {
		r := kmeta(append(run.args, "-o", "json")...)
		line := strings.Join(run.args, " ")
		if r.code > 2 {
			t.Errorf("kmeta %s: exit %d", line, r.code)
			continue
		}
		if r.code == 2 {
			continue // could not run: nothing printed but the error
		}
		for _, p := range printedCodes(t, r.stdout, r.stderr) {
			seen[p.code] = true
			c, ok := registry.Lookup(p.code)
			switch {
			case !ok:
				t.Errorf("kmeta %s prints code %q, which the registry does not hold", line, p.code)
				continue
			case p.severity != "" && !c.Allows(model.Severity(p.severity)):
				t.Errorf("kmeta %s prints %s at %s; its check allows %v", line, p.code, p.severity, c.Severities())
			case p.severity != "" && c.Class != "" && p.class != c.Class:
				t.Errorf("kmeta %s prints %s in class %q; its check's class is %q", line, p.code, p.class, c.Class)
			}
			if !slices.Contains(c.Commands, run.command) {
				t.Errorf("kmeta %s prints %s; its check does not name %q among its commands %v", line, p.code, run.command, c.Commands)
			}
		}
	}
	if len(seen) < 40 {
		t.Errorf("the runs printed %d codes: the test no longer sees them", len(seen))
	}
	if os.Getenv("KMETA_CODES_UNSEEN") != "" {
		for _, c := range registry.All() {
			if !seen[c.Code] {
				fmt.Fprintln(os.Stderr, "unseen:", c.Code)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "TestEveryPrintedCodeRegistered: %d runs, %d codes seen, %s\n", len(runs), len(seen), time.Since(start).Round(time.Millisecond))
}
