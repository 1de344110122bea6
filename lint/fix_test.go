package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/toolstub"
	"github.com/kmeta/kmeta/model"
)

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

	stub := toolstub.New(t, "kafka-configs", "kafka-reassign-partitions", "kafka-leader-election")
	// work is deep enough that a plan file escaping it ("../../evil")
	// still lands under root, where the walk below finds it.
	root := t.TempDir()
	work := filepath.Join(root, "a", "b", "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{} // the names the tools were given
	for _, fix := range fixes {
		out, calls, err := stub.Run(t, work, fix)
		if err != nil {
			t.Fatalf("%s: %v\n%s", fix, err, out)
		}
		if len(calls) == 0 {
			t.Fatalf("%s: no tool ran", fix)
		}
		for _, c := range calls {
			for i, w := range c.Args {
				if i == 0 {
					continue
				}
				switch c.Args[i-1] {
				case "--entity-name", "--topic":
					seen[w] = true
				case "--reassignment-json-file":
					// The plan the fix wrote: read back as the tool would.
					plan, err := os.ReadFile(filepath.Join(work, w))
					if err != nil {
						t.Fatalf("%s: %v", fix, err)
					}
					var p struct {
						Partitions []struct{ Topic string }
					}
					if err := json.Unmarshal(plan, &p); err != nil {
						t.Errorf("%s: the plan is not JSON: %v\n%s", fix, err, plan)
					}
					for _, pp := range p.Partitions {
						seen[pp.Topic] = true
					}
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
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, root+"/"))
		}
		return nil
	})
	if len(files) == 0 {
		t.Error("no plan file was written")
	}
	for _, f := range files {
		if !strings.HasPrefix(f, "a/b/work/kmeta-") || strings.Contains(f, "PWNED") {
			t.Errorf("a fix wrote %s", f)
		}
	}
}
