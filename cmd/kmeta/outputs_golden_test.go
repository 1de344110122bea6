package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

var updateOutputs = flag.Bool("update-outputs", false, "rewrite testdata/outputs.golden from this build's outputs")

// TestOutputsUnchanged holds the results of the commands a change window
// runs — verify, migrate plan (its output and the plan file), migrate
// apply (every file it writes), lint and lint --history, and the images
// they rest on — over every committed fixture and a generated log of
// partition, broker and throttle churn, to what testdata/outputs.golden
// records: the exit code and the SHA-256 of stdout, stderr and each
// written file, per command line. Work on how fast or in how little
// memory they run must not move a byte (issue 32); a change meant to
// move one rewrites the file with -update-outputs, and the diff names
// the command lines whose output moved (scripts/outputs-diff.sh shows
// the bytes).
func TestOutputsUnchanged(t *testing.T) {
	// Every path relative to a work dir holding copies of the fixtures,
	// so that no output names where the checkout is; the work dir itself
	// (a plan names its source by absolute path) is WORK in the sums.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// The work dir's path has one length wherever the test runs: a
	// written meta.properties names the plan file by absolute path, and
	// apply prints its size.
	work := fmt.Sprintf("/tmp/kmeta-outputs-%08x", rand.Uint32())
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	for _, d := range []string{"testdata/zk", "testdata/kraft", "migrate/testdata"} {
		if err := os.CopyFS(filepath.Join(work, "fx", d), os.DirFS(filepath.Join(root, d))); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	td := filepath.Join("fx", "testdata")
	k44, k39 := filepath.Join(td, "kraft", "4.4.0", "metadata"), filepath.Join(td, "kraft", "3.9.2", "metadata")
	zkd := filepath.Join(td, "zk", "datadir")
	churn := churnLog(t, "churn")

	zks := []string{"zkdata:" + zkd, "zkdata:" + zkd + "@zxid=0x98", "zkdump:" + filepath.Join(td, "zk", "dump.json"),
		"zkdump:" + filepath.Join(td, "zk", "migration", "dual-write.dump.json")}
	krafts := []string{"kraft:" + k44, "kraft:" + k44 + "@offset=21", "kraft:" + k39, "kraft:" + churn,
		"kraft:" + filepath.Join("fx", "migrate", "testdata", "format-4.4.0-initial-controllers", "metadata")}
	boots, _ := filepath.Glob(filepath.Join(td, "kraft", "bootstrap", "*", "*", "metadata"))
	for _, b := range boots {
		krafts = append(krafts, "kraft:"+b)
	}
	const ctl = "3000@localhost:9093"
	var lines []string
	n := 0
	// one runs args (with -o json and -o text) and records each run;
	// written is the directory whose files the command writes ("" none).
	one := func(written string, args ...string) {
		for _, f := range []string{"json", "text"} {
			n++
			if written != "" {
				os.RemoveAll(written)
				if strings.HasSuffix(written, "plan") {
					os.MkdirAll(written, 0o755)
				}
			}
			a := append(append([]string{}, args...), "-o", f)
			code, out, stderr := runKmeta(t, a...)
			norm := func(s string) []byte {
				s = strings.ReplaceAll(s, work, "WORK")
				if f == "text" {
					// Column widths move with the paths a table holds.
					s = spaces.ReplaceAllString(s, " ")
				}
				return []byte(s)
			}
			if d := os.Getenv("KMETA_OUTPUTS_KEEP"); d != "" {
				// Each run's output kept, to diff against another build's.
				os.MkdirAll(d, 0o755)
				os.WriteFile(filepath.Join(d, fmt.Sprintf("%03d.out", n)), norm(out), 0o644)
				os.WriteFile(filepath.Join(d, fmt.Sprintf("%03d.err", n)), norm(stderr), 0o644)
			}
			lines = append(lines, fmt.Sprintf("%s | exit %d | stdout %s | stderr %s", strings.Join(a, " "), code, sum(norm(out)), sum(norm(stderr))))
			if written == "" {
				continue
			}
			filepath.WalkDir(written, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := filepath.Rel(written, p)
				// A plan names its source by absolute path.
				lines = append(lines, fmt.Sprintf("    wrote %s %s", rel, sum(bytes.ReplaceAll(b, []byte(work), []byte("WORK")))))
				return nil
			})
		}
	}
	for _, z := range zks {
		one("", "zk", "image", z)
		one("", "image", z)
		one("", "lint", z)
		if strings.HasPrefix(z, "zkdata:") {
			one("", "lint", "--history", z)
		}
		for _, k := range []string{"kraft:" + k44, "kraft:" + k39} {
			one("", "verify", "--zk", z, "--kraft", k)
		}
		one("", "verify", "--zk", z, "--kraft", "kraft:"+k44, "--ignore", "runtime", "--ignore", "configs")
		plan := "plan"
		one(plan, "migrate", "plan", "--zk", z, "--controllers", ctl, "--write", filepath.Join(plan, "plan.json"))
		one(plan, "migrate", "plan", "--zk", z, "--controllers", ctl, "--metadata-version", "3.4", "--override", "drop-scram",
			"--override", "drop-delegation-tokens", "--write", filepath.Join(plan, "plan.json"))
		one(plan, "migrate", "plan", "--zk", z, "--controllers", ctl, "--metadata-version", "3.6", "--quorum", "dynamic", "--write", filepath.Join(plan, "plan.json"))
		overrides := []string{"--override", "ignore-migration-znode", "--override", "drop-pending-deletions",
			"--override", "keep-reassignments", "--override", "copy-encrypted-passwords"}
		pf := "plan-ok.json"
		os.Remove(pf)
		if code, _, stderr := runKmeta(t, append([]string{"migrate", "plan", "--zk", z, "--controllers", ctl, "--write", pf}, overrides...)...); code > 1 {
			t.Fatalf("migrate plan --zk %s: exit %d: %s", z, code, stderr)
		}
		out := "apply"
		one(out, "migrate", "apply", "--plan", pf, "--out", out)
		one(out, append([]string{"migrate", "apply", "--zk", z, "--controllers", ctl, "--out", out}, overrides...)...)
	}
	for _, k := range krafts {
		one("", "image", k)
		one("", "lint", k)
		one("", "lint", "--history", k)
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join(root, "cmd", "kmeta", "testdata", "outputs.golden")
	if *updateOutputs {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d runs", golden, n)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with -update-outputs)", err)
	}
	if got == string(want) {
		t.Logf("%d runs, every output as %s records", n, golden)
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Errorf("output moved:\n  was: %s\n  now: %s", w, g)
		}
	}
}

var spaces = regexp.MustCompile(` +`)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// churnLog writes a metadata log of a small cluster's life, for lint
// --history: six brokers on three racks registered, fenced, unfenced and
// one unregistered; topics created, one removed; partition changes moving
// leaders off and back to their preferred replica, shrinking and
// restoring ISRs, reassignments started and finished; replication
// throttles set on topics and brokers and removed; brokers' own
// min.insync.replicas set and removed; batches of 1 to 20 records. It is a pure function of the seed. Returns the log dir.
func churnLog(t *testing.T, dir string) string {
	t.Helper()
	part := filepath.Join(dir, "__cluster_metadata-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.properties"),
		[]byte("version=1\ncluster.id=Y_M1NY68Tu2c3nV89agwIw\nnode.id=3000\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAQ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := metalog.CreateSegment(part, 0, metalog.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := int64(1700000000000)
	var vals [][]byte
	add := func(m records.Metadata, v int16) {
		b, err := records.EncodeMetadata(nil, m, v)
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, b)
	}
	flush := func() {
		if len(vals) == 0 {
			return
		}
		ts += 1000
		if err := w.AppendData(1, ts, vals); err != nil {
			t.Fatal(err)
		}
		vals = nil
	}
	str := func(s string) *string { return &s }
	const brokers, topics, parts = 6, 12, 8
	add(&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 21}, 0)
	for b := int32(0); b < brokers; b++ {
		rack := fmt.Sprintf("r%d", b%3)
		add(&records.RegisterBrokerRecord{BrokerId: b, IncarnationId: model.UUID{byte(b + 1), 9}, BrokerEpoch: int64(10 + b), Rack: &rack,
			EndPoints: []records.RegisterBrokerRecordBrokerEndpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: uint16(9092 + b)}},
			Features:  []records.RegisterBrokerRecordBrokerFeature{{Name: "metadata.version", MinSupportedVersion: 1, MaxSupportedVersion: 21}}}, 2)
	}
	add(&records.ConfigRecord{ResourceType: int8(model.ConfigBroker), Name: "min.insync.replicas", Value: str("2")}, 0)
	flush()
	id := func(i int) model.UUID { return model.UUID{0xd, byte(i), 1} }
	// Replicas on brokers 0-4 only: broker 5 holds none until a
	// reassignment moves one there.
	replicas := func(tp, p int) []int32 {
		return []int32{int32((tp + p) % 5), int32((tp + p + 1) % 5), int32((tp + p + 2) % 5)}
	}
	for tp := range topics {
		add(&records.TopicRecord{Name: fmt.Sprintf("churn-%02d", tp), TopicId: id(tp)}, 0)
		for p := range parts {
			r := replicas(tp, p)
			add(&records.PartitionRecord{PartitionId: int32(p), TopicId: id(tp), Replicas: r, Isr: r, Leader: r[0], LeaderEpoch: 1, PartitionEpoch: 1}, 0)
		}
		flush()
	}
	rng := rand.New(rand.NewPCG(32, 1))
	change := func(tp, p int) *records.PartitionChangeRecord {
		m := &records.PartitionChangeRecord{}
		m.SetDefaults()
		m.TopicId, m.PartitionId = id(tp), int32(p)
		return m
	}
	removed := map[int]bool{}
	for step := range 400 {
		n := 1 + rng.IntN(20)
		for range n {
			tp, p := rng.IntN(topics), rng.IntN(parts)
			if removed[tp] {
				continue
			}
			r := replicas(tp, p)
			m := change(tp, p)
			switch k := rng.IntN(10); {
			case k < 4: // leader moves off the preferred replica, or back
				m.Leader = r[rng.IntN(3)]
			case k < 7: // ISR shrinks or recovers
				if rng.IntN(2) == 0 {
					m.Isr = r[:2]
				} else {
					m.Isr = r
				}
			case k < 8: // a reassignment to broker 5 starts ...
				m.Replicas, m.AddingReplicas = append(append([]int32{}, r...), 5), []int32{5}
			case k < 9: // ... and finishes (or none was running)
				m.Replicas, m.Isr, m.AddingReplicas, m.RemovingReplicas = r, r, []int32{}, []int32{}
			default:
				m.Leader = -1
			}
			add(m, 0)
		}
		switch step % 50 {
		case 7: // throttles set on a topic and a broker ...
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: fmt.Sprintf("churn-%02d", step%topics),
				Name: "leader.replication.throttled.replicas", Value: str("*")}, 0)
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigBroker), ResourceName: fmt.Sprint(step % brokers),
				Name: "leader.replication.throttled.rate", Value: str("10485760")}, 0)
		case 31: // ... and removed
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigTopic), ResourceName: fmt.Sprintf("churn-%02d", (step-24)%topics),
				Name: "leader.replication.throttled.replicas"}, 0)
		case 13: // a broker fenced, later unfenced
			add(&records.BrokerRegistrationChangeRecord{BrokerId: int32(step % brokers), BrokerEpoch: int64(10 + step%brokers), Fenced: 1}, 0)
		case 41:
			add(&records.BrokerRegistrationChangeRecord{BrokerId: int32((step - 28) % brokers), BrokerEpoch: int64(10 + (step-28)%brokers), Fenced: -1}, 0)
		case 23:
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigBroker), Name: "leader.imbalance.per.broker.percentage", Value: str(fmt.Sprint(5 + step%20))}, 0)
		case 45: // a broker's own min.insync.replicas: a partition's leader then counts
			v := str(fmt.Sprint(1 + step/50%3))
			if step/50%4 == 3 {
				v = nil
			}
			add(&records.ConfigRecord{ResourceType: int8(model.ConfigBroker), ResourceName: fmt.Sprint(step / 50 % brokers), Name: "min.insync.replicas", Value: v}, 0)
		}
		if step == 250 { // a topic removed
			add(&records.RemoveTopicRecord{TopicId: id(3)}, 0)
			removed[3] = true
		}
		if step == 330 { // broker 5 leaves
			add(&records.UnregisterBrokerRecord{BrokerId: 5, BrokerEpoch: 15}, 0)
		}
		flush()
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}
