package main

// Issue 29's campaign: issue 8's (mutate_campaign_test.go) extended to the
// surfaces added since — client settings files, server.properties, a
// ZooKeeper dump with the migration's znodes, the copies quorum survey
// and rebuild read, lint exceptions, and a Kafka peer that misbehaves —
// through the BUILT binary, as a user runs it.
//
// Every run keeps: no panic (exit 0..2, no signal, no "panic:"), no hang
// past its bound (the run's --kafka-timeout for a peer, campTimeout
// otherwise), bounded memory (the process's peak RSS), no secret of the
// input in any output, no input changed, no file written on a refusal.
// And where the input is damage (a mutant internal/testkit/mutate's
// validator refuses, a peer that breaks the protocol or lies), no command
// answers it with exit 0 unless its answer is the original's (the damage
// lies where the command does not read). The counts of each surface are
// small by default, so that make test runs the campaign in about a
// minute; KMETA_HOSTILE_MUTANTS raises them (make mutate).

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/internal/testkit/fakekafka"
	"github.com/kmeta/kmeta/internal/testkit/mutate"
)

// hostMemBound is the peak RSS no run may pass: kmeta reads these inputs
// in a few tens of MiB; a peer or a file that made it allocate in
// proportion to what it claims would pass it.
const hostMemBound = 256 << 20

// peakRSS is the largest peak RSS of the campaign's runs, for the report.
var peakRSS atomic.Int64

// hostRun is one run of the binary with its peak memory.
type hostRun struct {
	campRun
	maxRSS int64
}

// hostExec runs the binary once with its peak memory.
func hostExec(bin string, args []string) hostRun {
	r, peak := campExec(bin, args)
	return hostRun{campRun: r, maxRSS: peak}
}

// hostHard checks the invariants every run keeps; secrets are the values
// no output may hold, windows of them included.
func hostHard(r hostRun, bound time.Duration, secrets []string) []string {
	var v []string
	switch {
	case r.timedOut || r.dur > bound:
		v = append(v, fmt.Sprintf("hang (%s, bound %s)", r.dur.Round(time.Millisecond), bound))
	case r.signal != "":
		v = append(v, "signal")
	case r.code < 0 || r.code > 2:
		v = append(v, "exit-code")
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		v = append(v, "panic")
	}
	for prev := peakRSS.Load(); r.maxRSS > prev && !peakRSS.CompareAndSwap(prev, r.maxRSS); prev = peakRSS.Load() {
	}
	if r.maxRSS > hostMemBound {
		v = append(v, fmt.Sprintf("memory (%d MiB)", r.maxRSS>>20))
	}
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if w := s[i : i+8]; strings.Contains(r.stdout, w) || strings.Contains(r.stderr, w) {
				v = append(v, "secret-leak "+w)
				return v
			}
		}
	}
	return v
}

// Secrets of the settings files the campaign mutates (no 8-character
// window of them occurs in kmeta's outputs or the paths it prints).
const (
	hostClientPw = "Xq7Lp2Zk9Vw4Rt"
	hostTrustPw  = "Jm3Hd8Qs6Yb1Nc"
	hostBrokerPw = "Wf5Tg0Ux4Ke7Pa"
)

const hostClientConfig = "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n" +
	`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="` + hostClientPw + `";` + "\n" +
	"ssl.truststore.password=" + hostTrustPw + "\n"

func hostBrokerProps(id int) string {
	return fmt.Sprintf("broker.id=%d\nlisteners=PLAINTEXT://127.0.0.1:%d\nzookeeper.connect=127.0.0.1:34139/kafka\nlog.dirs=/var/kafka-%d\n"+
		"inter.broker.protocol.version=3.9\nzookeeper.metadata.migration.enable=true\ncontroller.quorum.voters=3000@127.0.0.1:9093\n"+
		"controller.listener.names=CONTROLLER\nlistener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n"+
		"ssl.keystore.password=%s\n", id, 9090+id, id, hostBrokerPw)
}

const hostExceptions = `{"exceptions": [
  {"rule": "replication-factor-one", "topics": "scratch-*", "reason": "throwaway data"},
  {"rule": "broker-fenced", "reason": "broker 1 is being replaced"}
]}
`

// hostCell counts one surface's runs.
type hostCell struct {
	runs, mutants int
	violations    []string
}

func TestMutateCampaignHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutation campaign takes minutes; run without -short (make mutate)")
	}
	// Beside the real-Kafka tests, as TestMutateCampaign: no JVM, and its
	// memory bound is each child's own high-water mark.
	t.Parallel()
	start := time.Now()
	bin := campBinary(t)
	n := campEnvInt("KMETA_HOSTILE_MUTANTS", 24)
	seed := uint64(campEnvInt("KMETA_MUTATE_SEED", 1))
	workers := campEnvInt("KMETA_MUTATE_WORKERS", 2)
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	fixture := abs(fixture44)
	dual := abs(onlineDump)
	peer := fakekafka.Broker(t, fakekafka.Cluster{Topics: 2})

	var mu sync.Mutex
	cells := map[string]*hostCell{}
	record := func(surface string, mutant bool, what string, v []string) {
		mu.Lock()
		defer mu.Unlock()
		c := cells[surface]
		if c == nil {
			c = &hostCell{}
			cells[surface] = c
		}
		c.runs++
		if mutant {
			c.mutants++
		}
		if len(v) > 0 {
			c.violations = append(c.violations, what+": "+strings.Join(v, ", "))
		}
	}

	type job struct {
		surface string
		index   int
		run     func(work string) // work: a fresh dir of the worker's
	}
	var jobs []job

	// The originals the verdicts compare with.
	orig := func(args ...string) hostRun { return hostExec(bin, args) }
	soundDump := filepath.Join(t.TempDir(), "dual-write.dump.json")
	if err := os.WriteFile(soundDump, hostSoundDump(t, dual), 0o644); err != nil {
		t.Fatal(err)
	}
	statusOrig := orig("migrate", "status", "-o", "json", "--zk", "zkdump:"+soundDump)
	if statusOrig.code != 0 {
		t.Fatalf("migrate status of the dump: exit %d: %s", statusOrig.code, statusOrig.stderr)
	}
	surveyOrig := orig("quorum", "survey", "-o", "json", fixture)
	rebuildOut := filepath.Join(t.TempDir(), "out")
	controllers := "3000@127.0.0.1:9093:kXDaLQe9cgCmHgCeQ8o7kg"
	if r := orig("quorum", "rebuild", "--from", fixture, "--controllers", controllers, "--out", rebuildOut); r.code != 0 {
		t.Fatalf("rebuild of the fixture: exit %d: %s", r.code, r.stderr)
	}
	rebuildHash := hostRebuildHash(rebuildOut)

	// writeInputs writes the files of one run and returns a function that
	// says whether any of them changed (or a file was added beside them).
	writeInputs := func(dir string, files map[string][]byte) func() bool {
		os.RemoveAll(dir)
		for rel, b := range files {
			p := filepath.Join(dir, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, b, 0o644)
		}
		before := campHashes(dir)
		return func() bool { return !campMapsEqual(before, campHashes(dir)) }
	}
	mutant := func(kind mutate.Kind, orig []byte, ctx mutate.Context, i int) mutate.Mutant {
		m, err := mutate.Make(kind, orig, ctx, seed, i)
		if err != nil {
			t.Errorf("%s #%d: %v", kind, i, err)
		}
		return m
	}
	outAbsent := func(out string) bool { _, err := os.Stat(out); return os.IsNotExist(err) }

	// Client settings: every command that reads them, against a peer.
	for i := 0; i < n; i++ {
		jobs = append(jobs, job{"client-config", i, func(work string) {
			m := mutant(mutate.ClientConfig, []byte(hostClientConfig), mutate.Context{}, i)
			f := filepath.Join(work, "in", "client.properties")
			changed := writeInputs(filepath.Join(work, "in"), map[string][]byte{"client.properties": m.Data})
			for _, args := range [][]string{
				{"image", "-o", "json", "--command-config", f, "--kafka-timeout", "2s", "kafka://" + peer.Addr},
				{"quorum", "describe", "--command-config", f, "--kafka-timeout", "2s", "--bootstrap-server", peer.Addr},
				{"features", "describe", "--command-config", f, "--kafka-timeout", "2s", "kafka://" + peer.Addr},
				{"migrate", "status", "--zk", "zkdump:" + dual, "--command-config", f, "--kafka-timeout", "2s", "--bootstrap-controller", peer.Addr},
			} {
				r := hostExec(bin, args)
				record("client-config", false, m.String()+" $ "+strings.Join(args[:2], " "), hostHard(r, 4*time.Second, []string{hostClientPw, hostTrustPw}))
			}
			if changed() {
				record("client-config", true, m.String(), []string{"input-modified"})
			} else {
				record("client-config", true, "", nil)
			}
		}})
	}

	// server.properties: migrate status, stage and rollback read it as
	// --config, migrate configs as --server-properties.
	for i := 0; i < n; i++ {
		jobs = append(jobs, job{"server-properties", i, func(work string) {
			m := mutant(mutate.ServerProperties, []byte(hostBrokerProps(1)), mutate.Context{}, i)
			in := filepath.Join(work, "in")
			changed := writeInputs(in, map[string][]byte{"b1.properties": m.Data, "b2.properties": []byte(hostBrokerProps(2)), "b3.properties": []byte(hostBrokerProps(3))})
			cfg := []string{"--config", "1=" + filepath.Join(in, "b1.properties"), "--config", "2=" + filepath.Join(in, "b2.properties"), "--config", "3=" + filepath.Join(in, "b3.properties")}
			for _, c := range []struct {
				args []string
				out  string
			}{
				{append([]string{"migrate", "status", "-o", "json", "--zk", "zkdump:" + dual}, cfg...), ""},
				{append([]string{"migrate", "rollback", "--zk", "zkdump:" + dual, "--out", filepath.Join(work, "out-rollback")}, cfg...), filepath.Join(work, "out-rollback")},
				{[]string{"migrate", "configs", "--server-properties", filepath.Join(in, "b1.properties"), "--controllers", "3000@127.0.0.1:9093", "--role", "broker", "--out", filepath.Join(work, "out-configs", "server.properties")}, filepath.Join(work, "out-configs")},
			} {
				os.RemoveAll(c.out)
				r := hostExec(bin, c.args)
				v := hostHard(r, campTimeout, []string{hostBrokerPw})
				if c.out != "" && r.code != 0 && !outAbsent(c.out) {
					v = append(v, "wrote on a refusal")
				}
				record("server-properties", false, m.String()+" $ "+strings.Join(c.args[:2], " "), v)
			}
			if changed() {
				record("server-properties", true, m.String(), []string{"input-modified"})
			} else {
				record("server-properties", true, "", nil)
			}
		}})
	}

	// A ZooKeeper dump with the migration's znodes: status and rollback.
	dualData := hostSoundDump(t, dual)
	for i := 0; i < n; i++ {
		jobs = append(jobs, job{"migration-dump", i, func(work string) {
			m := mutant(mutate.Dump, dualData, mutate.Context{}, i)
			in := filepath.Join(work, "in")
			files := map[string][]byte{"dump.json": m.Data}
			for id := 1; id <= 3; id++ {
				files[fmt.Sprintf("b%d.properties", id)] = []byte(hostBrokerProps(id))
			}
			changed := writeInputs(in, files)
			dump := "zkdump:" + filepath.Join(in, "dump.json")
			r := hostExec(bin, []string{"migrate", "status", "-o", "json", "--zk", dump})
			v := hostHard(r, campTimeout, nil)
			if r.code == 0 && !m.Preserving && r.stdout != statusOrig.stdout && !hostNewWarning(statusOrig, r) {
				v = append(v, "healthy from a damaged dump ("+m.Why+")")
			}
			record("migration-dump", false, m.String()+" $ migrate status", v)
			out := filepath.Join(work, "out")
			os.RemoveAll(out)
			args := []string{"migrate", "rollback", "--zk", dump, "--out", out}
			for id := 1; id <= 3; id++ {
				args = append(args, "--config", fmt.Sprintf("%d=%s", id, filepath.Join(in, fmt.Sprintf("b%d.properties", id))))
			}
			r = hostExec(bin, args)
			v = hostHard(r, campTimeout, []string{hostBrokerPw})
			if r.code != 0 && !outAbsent(out) {
				v = append(v, "wrote on a refusal")
			}
			record("migration-dump", false, m.String()+" $ migrate rollback", v)
			if changed() {
				record("migration-dump", true, m.String(), []string{"input-modified"})
			} else {
				record("migration-dump", true, "", nil)
			}
		}})
	}

	// A copy quorum survey and rebuild read: its active segment, its
	// quorum-state, its meta.properties.
	copyFiles := map[string][]byte{}
	filepath.WalkDir(fixture, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(fixture, p)
			copyFiles[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	copyTargets := []struct {
		kind mutate.Kind
		rel  string
		ctx  mutate.Context
	}{
		{mutate.Segment, "__cluster_metadata-0/00000000000000000086.log", mutate.Context{LastFile: true}},
		{mutate.QuorumState, "__cluster_metadata-0/quorum-state", mutate.Context{}},
		{mutate.MetaProperties, "meta.properties", mutate.Context{}},
	}
	for i := 0; i < n; i++ {
		jobs = append(jobs, job{"survey-rebuild", i, func(work string) {
			tg := copyTargets[i%len(copyTargets)]
			m := mutant(tg.kind, copyFiles[tg.rel], tg.ctx, i)
			files := map[string][]byte{}
			for k, b := range copyFiles {
				files[k] = b
			}
			files[tg.rel] = m.Data
			in := filepath.Join(work, "copy")
			changed := writeInputs(in, files)
			r := hostExec(bin, []string{"quorum", "survey", "-o", "json", in})
			v := hostHard(r, campTimeout, nil)
			// A copy that ends inside its last batch is what a crash
			// leaves: survey names it (integrity torn-tail) and a rebuild
			// from it ends where Kafka's recovery would.
			torn := strings.Contains(r.stdout, `"integrity": "torn-tail"`)
			if r.code == 0 && !m.Preserving && r.stdout != strings.ReplaceAll(surveyOrig.stdout, fixture, in) && !torn {
				v = append(v, "a damaged copy surveyed as clean")
			}
			record("survey-rebuild", false, m.String()+" $ quorum survey", v)
			out := filepath.Join(work, "out")
			os.RemoveAll(out)
			r = hostExec(bin, []string{"quorum", "rebuild", "--from", in, "--controllers", controllers, "--out", out})
			v = hostHard(r, campTimeout, nil)
			switch {
			case r.code != 0 && !outAbsent(out):
				v = append(v, "wrote on a refusal")
			case r.code == 0 && !m.Preserving && !campMapsEqual(hostRebuildHash(out), rebuildHash) && !torn:
				v = append(v, "rebuilt from a damaged copy")
			}
			record("survey-rebuild", false, m.String()+" $ quorum rebuild", v)
			if changed() {
				record("survey-rebuild", true, m.String(), []string{"input-modified"})
			} else {
				record("survey-rebuild", true, "", nil)
			}
		}})
	}

	// lint --exceptions: a file the validator refuses is refused (exit 2).
	for i := 0; i < n; i++ {
		jobs = append(jobs, job{"exceptions", i, func(work string) {
			m := mutant(mutate.Exceptions, []byte(hostExceptions), mutate.Context{}, i)
			in := filepath.Join(work, "in")
			changed := writeInputs(in, map[string][]byte{"exceptions.json": m.Data})
			r := hostExec(bin, []string{"lint", "-o", "json", "--exceptions", filepath.Join(in, "exceptions.json"), "kraft:" + fixture})
			v := hostHard(r, campTimeout, nil)
			switch {
			case !m.Preserving && r.code != exitFailure:
				v = append(v, fmt.Sprintf("exceptions file accepted (exit %d): %s", r.code, m.Why))
			case m.Preserving && r.code == exitFailure:
				v = append(v, "a valid exceptions file refused: "+campFirstLine(r.stderr))
			}
			if changed() {
				v = append(v, "input-modified")
			}
			record("exceptions", false, m.String()+" $ lint", v)
			record("exceptions", true, "", nil)
		}})
	}

	// A peer that misbehaves on one request (every fault on every request
	// kmeta's reads send), and one that lies about counts or names.
	peerCommands := func(addr string) [][]string {
		return [][]string{
			{"image", "-o", "json", "--kafka-timeout", "1s", "kafka://" + addr},
			{"quorum", "describe", "-o", "json", "--kafka-timeout", "1s", "--bootstrap-server", addr},
			{"features", "describe", "-o", "json", "--kafka-timeout", "1s", "kafka://" + addr},
			{"lint", "-o", "json", "--kafka-timeout", "1s", "kafka://" + addr},
		}
	}
	addrRe := regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	norm := func(s string) string { return addrRe.ReplaceAllString(s, "ADDR") }
	peerOrig := map[string]hostRun{}
	for _, args := range peerCommands(peer.Addr) {
		peerOrig[args[0]+" "+args[1]] = hostExec(bin, args)
	}
	type fault struct {
		name    string
		cluster fakekafka.Cluster
	}
	var faults []fault
	for _, key := range []int16{18, 3, 60, 75, 46, 32, 29, 48, 50, 55} {
		for _, f := range fakekafka.Faults {
			faults = append(faults, fault{fmt.Sprintf("%s on %s", f, kmsg.NameForKey(key)), fakekafka.Cluster{Topics: 2, Faults: map[int16]fakekafka.Fault{key: f}}})
		}
	}
	faults = append(faults,
		fault{"100,000 voters", fakekafka.Cluster{Voters: 100_000}},
		fault{"a topic name no Kafka accepts", fakekafka.Cluster{Topics: 1, Edit: func(resp kmsg.Response) { renameTopics(resp, "../../etc\x00passwd") }}},
		fault{"brokers listed that do not answer", fakekafka.Cluster{Topics: 1, Peers: map[int32]string{2: fakekafka.Silent(t).Addr, 3: fakekafka.Closed(t)}}},
	)
	for i, f := range faults {
		jobs = append(jobs, job{"kafka-peer", i, func(work string) {
			b := fakekafka.Broker(t, f.cluster)
			for _, args := range peerCommands(b.Addr) {
				r := hostExec(bin, args)
				v := hostHard(r, 2500*time.Millisecond, nil)
				o := peerOrig[args[0]+" "+args[1]]
				damaged := f.name != "brokers listed that do not answer"
				if r.code == 0 && damaged && norm(r.stdout) != norm(o.stdout) && !hostNewWarning(o, r) {
					v = append(v, "exit 0 with another answer, and no warning, from a peer: "+f.name)
				}
				if r.code == 0 && !damaged && !strings.Contains(r.stderr, "did not answer") {
					v = append(v, "brokers that did not answer are not said")
				}
				record("kafka-peer", false, f.name+" $ "+strings.Join(args[:2], " "), v)
			}
			record("kafka-peer", true, "", nil)
		}})
	}

	// KMETA_HOSTILE_SURFACES=a,b runs those surfaces only.
	if only := os.Getenv("KMETA_HOSTILE_SURFACES"); only != "" {
		jobs = slices.DeleteFunc(jobs, func(j job) bool { return !slices.Contains(strings.Split(only, ","), j.surface) })
	}
	// Run the jobs on workers, each with its own dir.
	scratch := t.TempDir()
	jobc := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			work := filepath.Join(scratch, "w"+strconv.Itoa(w))
			for j := range jobc {
				os.RemoveAll(work)
				os.MkdirAll(work, 0o755)
				j.run(work)
			}
		}(w)
	}
	for _, j := range jobs {
		jobc <- j
	}
	close(jobc)
	wg.Wait()

	var tb strings.Builder
	names := make([]string, 0, len(cells))
	for k := range cells {
		names = append(names, k)
	}
	slices.Sort(names)
	fmt.Fprintf(&tb, "seed %d, %d mutants per surface, peak RSS of any run %d MiB, %s\n", seed, n, peakRSS.Load()>>20, time.Since(start).Round(time.Second))
	fmt.Fprintf(&tb, "%-18s %8s %6s %10s\n", "surface", "inputs", "runs", "VIOLATIONS")
	total := 0
	for _, k := range names {
		c := cells[k]
		fmt.Fprintf(&tb, "%-18s %8d %6d %10d\n", k, c.mutants, c.runs-c.mutants, len(c.violations))
		total += len(c.violations)
	}
	t.Log("\n" + tb.String())
	for _, k := range names {
		for i, v := range cells[k].violations {
			if i == 5 && os.Getenv("KMETA_MUTATE_REPORT_ALL") == "" {
				t.Errorf("%s: %d more", k, len(cells[k].violations)-5)
				break
			}
			t.Errorf("%s: %s", k, v)
		}
	}
	if os.Getenv("KMETA_HOSTILE_SURFACES") == "" && len(cells) < 6 {
		t.Fatalf("%d surfaces ran: the campaign no longer reaches them all", len(cells))
	}
}

// hostNewWarning: the run says what its answer rests on with a warning
// the original's run did not have (issue 8's "warned").
func hostNewWarning(orig, r hostRun) bool {
	return len(campNewWarnings(orig.campRun, r.campRun)) > 0
}

// hostSoundDump is a dump the validator accepts: the migration fixture
// was written without --show-secrets, so its SCRAM znodes' data is the
// redacted text while their stat keeps the real length; the stat is set
// to the data, so that the validator judges the mutants, not the base.
func hostSoundDump(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, z := range doc["znodes"].([]any) {
		m := z.(map[string]any)
		if d, ok := m["data"].(string); ok {
			b, err := base64.StdEncoding.DecodeString(d)
			if err != nil {
				t.Fatal(err)
			}
			m["stat"].(map[string]any)["dataLength"] = len(b)
		}
	}
	out, _ := json.Marshal(doc)
	if err := mutate.Valid(mutate.Dump, out, out, mutate.Context{}); err != nil {
		t.Fatalf("the migration dump, made sound, is refused by the validator: %v", err)
	}
	return out
}

// hostRebuildHash fingerprints what a rebuild wrote, but for the comment
// of meta.properties, which names the copy it was made from.
func hostRebuildHash(out string) map[string]string {
	h := campHashes(out)
	for rel := range h {
		if filepath.Base(rel) == "meta.properties" {
			b, _ := os.ReadFile(filepath.Join(out, rel))
			var keep []string
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(l, "#") {
					keep = append(keep, l)
				}
			}
			h[rel] = strings.Join(keep, "\n")
		}
	}
	return h
}
