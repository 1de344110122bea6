package lint

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// fixRecorder stands in for Kafka's tools on the PATH of the fixes: it
// writes its name and arguments, NUL-separated, to $FIX_LOG, and for
// kafka-reassign-partitions the plan file it is given, then a line
// between calls.
const fixRecorder = `#!/bin/sh
{ printf '%s\0' "${0##*/}" "$@"
  prev=
  for a in "$@"; do
    if [ "$prev" = --reassignment-json-file ]; then printf 'FILE %s\0' "$(cat -- "$a")"; fi
    prev=$a
  done
  printf '\n'; } >> "$FIX_LOG"
`

// TestFixesQuoteHostileNames: a damaged or hostile source may name a
// topic or a config resource as no Kafka would ("x; touch PWNED",
// "$(touch PWNED)", quotes, a backslash, "../"). Each fix that names one,
// run by sh as printed, runs nothing else, gives the tool the name as one
// word, and writes a reassignment plan holding it exactly (JSON read back)
// into a file of its own directory.
func TestFixesQuoteHostileNames(t *testing.T) {
	hostile := []string{"x; touch PWNED '", "$(touch PWNED)", "`touch PWNED`", `a"b\c`, "../../evil", "t\tx|y&"}
	img := healthy()
	for _, name := range hostile {
		addTopic(img, name, 1, 1) // replication factor 1: a reassignment, and min.insync.replicas 2 above it
		img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: name}] = map[string]string{"unclean.leader.election.enable": "true"}
	}
	res := run(t, img, Options{Bootstrap: "b:9092"})
	c := newContext(img, Options{Bootstrap: "b:9092"})
	var fixes []string
	for _, f := range res.Findings {
		if f.Fix != "" && slices.ContainsFunc(hostile, func(h string) bool { return strings.Contains(f.Entity, h) }) {
			fixes = append(fixes, f.Fix)
		}
	}
	for _, name := range hostile {
		fixes = append(fixes, c.electLeaders("unclean", name, 0), c.alterBrokerConfig(name, map[string]string{"log.cleaner.threads": "2"}, "k;j"))
	}
	if len(fixes) < 3*len(hostile) {
		t.Fatalf("%d fixes name the hostile topics, want at least %d:\n%s", len(fixes), 3*len(hostile), strings.Join(fixes, "\n"))
	}

	dir := t.TempDir()
	bin, work := filepath.Join(dir, "bin"), filepath.Join(dir, "work")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"kafka-configs", "kafka-reassign-partitions", "kafka-leader-election"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(fixRecorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "log")
	seen := map[string]bool{} // the names the tools were given
	for _, fix := range fixes {
		os.Remove(log)
		cmd := exec.Command("sh", "-c", fix)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FIX_LOG="+log)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", fix, err, out)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("%s: no tool ran: %v", fix, err)
		}
		for _, call := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			words := strings.Split(strings.TrimSuffix(call, "\x00"), "\x00")
			for i, w := range words {
				if i > 0 && slices.Contains([]string{"--entity-name", "--topic"}, words[i-1]) {
					seen[w] = true
				}
				plan, ok := strings.CutPrefix(w, "FILE ")
				if !ok {
					continue
				}
				var p struct {
					Partitions []struct{ Topic string }
				}
				if err := json.Unmarshal([]byte(plan), &p); err != nil {
					t.Errorf("%s: the plan is not JSON: %v\n%s", fix, err, plan)
				}
				for _, pp := range p.Partitions {
					seen[pp.Topic] = true
				}
			}
		}
	}
	for _, name := range hostile {
		if !seen[name] {
			t.Errorf("no tool was given %q as it is", name)
		}
	}
	// Nothing ran but the tools; the plan files stayed in work.
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(p) != bin && p != log {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	for _, f := range files {
		if !strings.HasPrefix(f, "work/kmeta-") || strings.Contains(f, "PWNED") {
			t.Errorf("a fix wrote %s", f)
		}
	}
}
