package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/roll"
)

// The roll commands on the committed fixtures: exit codes, the JSON
// contract, and the gates roll plan prints with the source as given.
func TestRollCommandsOnFixtures(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "zk", "dump.json")
	log := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")

	// The dump's topics set min.insync.replicas where it matters; the
	// rest needs the brokers' files.
	r := kmeta("roll", "check", "--node", "2", "-o", "json", dump)
	var v roll.Verdict
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v\n%s%s", err, r.stdout, r.stderr)
	}
	if r.code != 1 || v.Safe || v.Answer != roll.Unsafe {
		t.Fatalf("check 2: exit %d answer %s\n%s", r.code, v.Answer, r.stderr)
	}
	want := []roll.TopicCount{{Topic: "compacted", Rule: roll.CodeUnderMinISR, Count: 2},
		{Topic: "orders.v1", Rule: roll.CodeTakesOffline, Count: 1}, {Topic: "user_events", Rule: roll.CodeTakesOffline, Count: 2}}
	if !reflect.DeepEqual(v.Topics, want) {
		t.Errorf("topics %+v, want %+v", v.Topics, want)
	}
	for _, b := range v.Blocking {
		if b.Topic == "" || b.Partition == nil {
			t.Errorf("a partition's block without topic and partition: %+v", b)
		}
	}

	// A controller from a log dir: no fetch times, so exit 2, named.
	r = kmeta("roll", "check", "--node", "3000", log)
	if r.code != 2 || !strings.Contains(r.stdout, "roll-cannot-tell controller 3000: the source does not report the voters' fetch times") {
		t.Errorf("check 3000: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kmeta("roll", "wait", "--node", "3000", "--timeout", "1m", log)
	if r.code != 2 || !strings.Contains(r.stdout, "could not tell whether it is back") {
		t.Errorf("wait 3000: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A node nobody names.
	if r = kmeta("roll", "check", "--node", "77", dump); r.code != 2 {
		t.Errorf("check 77: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The plan: ZooKeeper's controller (1) last, the others by the
	// partitions they lead; each step's gates name the source as given,
	// with --config.
	cfg := filepath.Join(t.TempDir(), "b 1.properties")
	if err := os.WriteFile(cfg, []byte("min.insync.replicas=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = kmeta("roll", "plan", "-o", "json", dump, "--all-brokers", "--config", "1="+cfg)
	var p report.RollPlanDoc
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || r.code != 0 {
		t.Fatalf("plan: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	var order []int32
	for _, s := range p.Steps {
		order = append(order, s.Node)
	}
	if !reflect.DeepEqual(order, []int32{3, 2, 1}) {
		t.Errorf("order %v, want [3 2 1]", order)
	}
	if got, want := p.Steps[0].Check, "kmeta roll check --node 3 "+dump+" --config '1="+cfg+"'"; got != want {
		t.Errorf("check line\n got %s\nwant %s", got, want)
	}
	if got, want := p.Steps[2].Wait, "kmeta roll wait --node 1 "+dump+" --config '1="+cfg+"'"; got != want {
		t.Errorf("wait line\n got %s\nwant %s", got, want)
	}
	if r = kmeta("roll", "plan", dump); r.code != 2 {
		t.Errorf("plan without nodes: exit %d", r.code)
	}
	if r = kmeta("roll", "plan", dump, "--nodes", "1,9"); r.code != 2 || !strings.Contains(r.stderr, "no broker or controller 9") {
		t.Errorf("plan with node 9: exit %d\n%s", r.code, r.stderr)
	}

	// roll wait on a cluster that does not answer: each read fails and is
	// tried again until the timeout, which names what it waited for.
	r = kmeta("roll", "wait", "--node", "1", "--timeout", "1500ms", "--interval", "200ms", "-o", "json", "--bootstrap-server", "127.0.0.1:1")
	var w report.RollWaitDoc
	if err := json.Unmarshal([]byte(r.stdout), &w); err != nil || r.code != 1 || !w.TimedOut || w.ReadError == "" ||
		!reflect.DeepEqual(w.Waiting, []string{"a read of kafka://127.0.0.1:1"}) {
		t.Errorf("wait on nothing: exit %d %v %+v\n%s", r.code, err, w, r.stderr)
	}
}

// quorum rebuild's printout is gated: a roll wait per new controller
// against the new quorum, then, as the brokers' settings change, their
// roll in roll's order, each step between a roll check and a roll wait
// against the brokers' addresses as the copy registers them.
func TestQuorumRebuildGates(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	r := kmeta("quorum", "rebuild", "--dry-run", "-o", "json", "--from", log, "--out", t.TempDir(),
		"--controllers", "3000@127.0.0.1:19093,3001@127.0.0.1:19094,3002@127.0.0.1:19095")
	var doc report.RebuildDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
		t.Fatalf("rebuild: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	ctl := "--bootstrap-controller 127.0.0.1:19093,127.0.0.1:19094,127.0.0.1:19095"
	if want := []string{"kmeta roll wait --node 3000 " + ctl, "kmeta roll wait --node 3001 " + ctl, "kmeta roll wait --node 3002 " + ctl}; !reflect.DeepEqual(doc.ControllerWaits, want) {
		t.Errorf("controller waits\n got %q\nwant %q", doc.ControllerWaits, want)
	}
	// The fixture's brokers, as their registrations in the copy name them.
	src := "--bootstrap-server 127.0.0.1:36657,127.0.0.1:40753,127.0.0.1:45071"
	var got, want []string
	for _, s := range doc.Roll {
		got = append(got, s.Check, s.Wait)
	}
	for _, id := range []string{"1", "2", "3"} {
		want = append(want, "kmeta roll check --node "+id+" "+src, "kmeta roll wait --node "+id+" "+src)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("brokers' roll\n got %q\nwant %q", got, want)
	}
}

// The brokers' gates after a rebuild: each broker on its listener of the
// client settings' protocol, the file named; without settings, PLAINTEXT,
// and when a broker has none, the gates say what they lack.
func TestRebuildBrokersSource(t *testing.T) {
	img := model.NewImage()
	ep := func(name string, port uint16, proto int16) model.Endpoint {
		return model.Endpoint{Name: name, Host: "b", Port: port, SecurityProtocol: proto}
	}
	img.Brokers[1] = &model.Broker{ID: 1, Endpoints: []model.Endpoint{ep("INTERNAL", 9091, 3), ep("PLAIN", 9092, 0)}}
	img.Brokers[2] = &model.Broker{ID: 2, Endpoints: []model.Endpoint{ep("INTERNAL", 9191, 3)}}
	img.Brokers[3] = &model.Broker{ID: 3}
	src, needs := brokersSource(img, "", nil)
	if want := []string{"--bootstrap-server", "b:9092,b:9191"}; !slices.Equal(src, want) ||
		needs != "the brokers have no PLAINTEXT listener (broker 2: SASL_SSL): give --command-config FILE, the client settings of the listener to reach them on, and the commands name it" {
		t.Errorf("no settings: %q, %q", src, needs)
	}
	src, needs = brokersSource(img, "/etc/c.properties", map[string]string{"security.protocol": "sasl_ssl"})
	if want := []string{"--bootstrap-server", "b:9091,b:9191", "--command-config", "/etc/c.properties"}; !slices.Equal(src, want) || needs != "" {
		t.Errorf("SASL_SSL settings: %q, %q", src, needs)
	}
	if src, _ := brokersSource(model.NewImage(), "", nil); src != nil {
		t.Errorf("no broker: %q", src)
	}
}

// A roll is about the cluster now: a point in time, in either spelling,
// is a usage error naming why, for check, wait and plan alike. Before,
// roll plan printed gates with the point (a roll wait that said a broker
// was back on a frozen past state), and --at-offset was dropped from them.
func TestRollRefusesAPointInTime(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	data := filepath.Join("..", "..", "testdata", "zk", "datadir")
	why := " is a point in the past, and a roll is about the cluster now (a check, a wait or a plan on a past state would answer for what the nodes were then): give the source without it\n"
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"plan", "kraft:" + log + "@offset=153", "--nodes", "2"},
			"kmeta: kraft:" + log + "@offset=153: @offset=153" + why + "Run 'kmeta roll plan --help' for usage.\n"},
		{[]string{"check", "--node", "2", log + "@offset=153"},
			"kmeta: " + log + "@offset=153: @offset=153" + why + "Run 'kmeta roll check --help' for usage.\n"},
		{[]string{"wait", "--node", "2", "--timeout", "1s", "zkdata:" + data + "@zxid=0x10"},
			"kmeta: zkdata:" + data + "@zxid=0x10: @zxid=0x10" + why + "Run 'kmeta roll wait --help' for usage.\n"},
		// The flags are not the roll commands' (their help does not
		// offer them, and says why).
		{[]string{"plan", "kraft:" + log, "--at-offset", "153", "--nodes", "2"},
			"kmeta: unknown flag --at-offset for kmeta roll plan\nRun 'kmeta roll plan --help' for usage.\n"},
		{[]string{"check", "--node", "1", "zkdata:" + data, "--at-zxid", "16"},
			"kmeta: unknown flag --at-zxid for kmeta roll check\nRun 'kmeta roll check --help' for usage.\n"},
	} {
		r := kmeta(append([]string{"roll"}, tc.args...)...)
		if r.code != 2 || r.stdout != "" || r.stderr != tc.stderr {
			t.Errorf("roll %v: exit %d\nstdout %q\nstderr %q\n  want %q", tc.args, r.code, r.stdout, r.stderr, tc.stderr)
		}
	}
	r := kmeta("roll", "plan", "--help")
	if !strings.Contains(r.stdout, "A point in time (SOURCE@offset=N, @zxid=N) is refused") || strings.Contains(r.stdout, "--at-offset") || strings.Contains(r.stdout, "--at-zxid") {
		t.Errorf("roll plan --help:\n%s", r.stdout)
	}
}

// badDump writes the dump from (testdata/zk/dump.json) with one partition
// state znode's data made invalid JSON, to name: a dump only --lenient
// reads.
func badDump(t *testing.T, from, name string) {
	t.Helper()
	editDump(t, from, name, map[string]*string{"/brokers/topics/compacted/partitions/0/state": ptr("{not json")}, nil)
}

// selfSignedPEM writes a self-signed certificate and its key (PEM) to
// cert and key: what --zk-tls-ca, --zk-tls-cert and --zk-tls-key load.
func selfSignedPEM(t *testing.T, cert, key string) {
	t.Helper()
	c, k := kafkatest.SignedCert(t, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kmeta test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}, nil, nil)
	kder, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// roll plan's gates read the source as the plan did: every read flag set
// is in them, as set. Before, --lenient, --jute-maxbuffer, --consistent,
// --zk-batch, --zk-connections, --zk-in-flight and
// --controller-command-config were dropped: the plan read a dump with a
// malformed znode with --lenient, and its roll check could not read it
// (exit 2). The check runs as printed: its words (CheckArgs, which
// roll's TestGatesRunAsPrinted proves are what sh passes) read the dump
// as the plan did.
func TestRollPlanGatesReadAsThePlanDid(t *testing.T) {
	dump, err := filepath.Abs(filepath.Join("..", "..", "testdata", "zk", "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	badDump(t, dump, "bad.json")
	badDump(t, dump, "-bad.json")
	selfSignedPEM(t, "cert.pem", "key.pem")
	if err := os.WriteFile("b 1.properties", []byte("min.insync.replicas=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kmeta("roll", "check", "--node", "2", "zkdump:bad.json"); r.code != 2 {
		t.Fatalf("the dump reads without --lenient: exit %d\n%s", r.code, r.stderr)
	}
	// Both --bootstrap-* flags are refused before any read (liveFlag), so
	// no plan's gates can keep one and drop the other.
	if r := kmeta("roll", "plan", "--nodes", "1", "--bootstrap-server", "127.0.0.1:1", "--bootstrap-controller", "127.0.0.1:2"); r.code != 2 || r.stdout != "" ||
		r.stderr != "kmeta: --bootstrap-server and --bootstrap-controller: give one (brokers or controllers)\nRun 'kmeta roll plan --help' for usage.\n" {
		t.Errorf("both --bootstrap-* flags: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	read := []string{"--zk-session-timeout", "4s", "--zk-tls-ca", "cert.pem", "--zk-tls-cert", "cert.pem", "--zk-tls-key", "key.pem",
		"--zk-connections", "3", "--zk-in-flight", "9", "--zk-batch", "7", "--consistent", "--lenient", "--jute-maxbuffer", "2000000",
		"--command-config", "c.properties", "--controller-command-config", "cc.properties", "--kafka-timeout", "5s",
		"--controller-quorum-fetch-timeout-ms", "3000"}
	words := strings.Join(read, " ") + " --config '1=b 1.properties'"
	for _, tc := range []struct {
		args   []string
		source string // the gates' source words, where they stand
	}{
		{[]string{"zkdump:bad.json"}, "zkdump:bad.json " + words},
		// A SOURCE that reads as a flag: after "--", as it was given.
		{[]string{"--", "-bad.json"}, words + " -- -bad.json"},
	} {
		args := slices.Concat([]string{"roll", "plan", "-o", "json", "--nodes", "2"}, read, []string{"--config", "1=b 1.properties"}, tc.args)
		r := kmeta(args...)
		var p report.RollPlanDoc
		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || len(p.Steps) != 1 {
			t.Fatalf("%q: exit %d %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
		}
		s := p.Steps[0]
		if want := "kmeta roll check --node 2 " + tc.source; s.Check != want {
			t.Errorf("check line\n got %s\nwant %s", s.Check, want)
		}
		if want := "kmeta roll wait --node 2 " + tc.source; s.Wait != want {
			t.Errorf("wait line\n got %s\nwant %s", s.Wait, want)
		}
		// The check as printed reads the dump (broker 2 is not safe to
		// stop: exit 1), as the plan did; without --lenient it exits 2.
		if r := kmeta(s.CheckArgs...); r.code != 1 || !strings.HasPrefix(r.stdout, "broker 2: NOT safe to stop now") {
			t.Errorf("%s: exit %d\n%s%s", s.Check, r.code, r.stdout, r.stderr)
		}
	}
}

// A roll answer that rests on damaged or partial input exits 1, as every
// command's does (partialResult): a "safe to stop" on a dump read past a
// malformed partition state knows nothing of that partition. Before,
// roll check said safe with exit 0, and roll plan exited 0 after
// replay-stopped and lenient-decode warnings. Each warning is said once
// (roll wait said the first read's twice).
func TestRollOnDamagedInputExits1(t *testing.T) {
	dump, err := filepath.Abs(filepath.Join("..", "..", "testdata", "zk", "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	crc := damaged(t, func(d string) { flipByte(d, activeSeg) })
	t.Chdir(t.TempDir())
	// Only the topic compacted, at min.insync.replicas 1, its partition 0's
	// state malformed: broker 2 is safe to stop as far as the rest tells.
	editDump(t, dump, "safe.json", map[string]*string{
		"/brokers/topics/compacted/partitions/0/state": ptr("{not json"),
		"/config/topics/compacted":                     ptr(`{"version":1,"config":{"min.insync.replicas":"1"}}`),
	}, func(p string) bool {
		for _, dir := range []string{"/brokers/topics/", "/config/topics/"} {
			if rest, ok := strings.CutPrefix(p, dir); ok && rest != "compacted" && !strings.HasPrefix(rest, "compacted/") {
				return false
			}
		}
		return true
	})
	warning := "kmeta: warning: lenient-decode: znode /brokers/topics/compacted/partitions/0/state: partition state: zkread: malformed znode: invalid JSON at byte 2 (kept raw)\n"
	damagedLine := "kmeta: zkdump:safe.json: the result rests on damaged or partial input (see the warnings above)\n"
	for _, tc := range []struct {
		args  []string
		first string // stdout's first line
	}{
		{[]string{"check", "--node", "2"}, "broker 2: safe to stop now (zkdump:safe.json)"},
		{[]string{"plan", "--nodes", "2"}, "Restart one node at a time, in this order: 2 (zkdump:safe.json)"},
		{[]string{"wait", "--node", "2", "--timeout", "1m"}, "broker 2 is back after TOOK (zkdump:safe.json)"},
	} {
		args := slices.Concat([]string{"roll"}, tc.args, []string{"--lenient", "zkdump:safe.json"})
		r := kmeta(args...)
		first, _, _ := strings.Cut(r.stdout, "\n")
		first = regexp.MustCompile(`after [0-9.]+m?s `).ReplaceAllString(first, "after TOOK ")
		if r.code != 1 || first != tc.first || r.stderr != warning+damagedLine {
			t.Errorf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	// A KRaft log whose replay stopped at a damaged batch.
	r := kmeta("roll", "plan", "--all-brokers", crc)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "kmeta: warning: replay-stopped: ") ||
		!strings.HasSuffix(r.stderr, "\nkmeta: "+crc+": the result rests on damaged or partial input (see the warnings above)\n") {
		t.Errorf("plan on a damaged log: exit %d\n%s", r.code, r.stderr)
	}
}

// An empty plan is no plan: it says there is nothing to roll and why,
// exit 2 (nothing was planned, as for a node the source does not know).
// Before, it printed "in this order:" with nothing after it, exit 0: a
// roll done, to a script.
func TestRollPlanNothingToRoll(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "zk", "dump.json")
	boot := filepath.Join("..", "..", "testdata", "kraft", "bootstrap", "3.9.2", "3.7-IV4", "metadata")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{dump, "--all-controllers"}, "kmeta: " + dump + ": nothing to roll: the source names no controller (a ZooKeeper-mode cluster has no KRaft quorum; a migration's controllers: ask them, --bootstrap-controller HOST:PORT)\n"},
		// A formatted dir Kafka never started on: said first (bootstrap-only).
		{[]string{boot, "--all-brokers"}, "kmeta: warning: bootstrap-only: a node that holds no metadata record yet, only what kafka-storage format wrote: the image is the bootstrap in bootstrap.checkpoint, which the first active controller writes into the log; no cluster state is in it yet (" + boot + ")\n" +
			"kmeta: " + boot + ": nothing to roll: the source names no broker (none is registered, and no partition has a replica)\n"},
	} {
		for _, o := range []string{"text", "json"} {
			r := kmeta(slices.Concat([]string{"roll", "plan", "-o", o}, tc.args)...)
			if r.code != 2 || r.stdout != "" || r.stderr != tc.stderr {
				t.Errorf("roll plan -o %s %q: exit %d\nstdout %q\nstderr %q\n  want %q", o, tc.args, r.code, r.stdout, r.stderr, tc.stderr)
			}
		}
	}
}

// roll's tables fit COLUMNS, their headings included (docs/guide/
// output.md: every line fits): the heading above the table wraps at the
// tables' width. Before, roll plan's was 99 columns wide at 60 and 80,
// roll check's 72 at 60.
func TestRollTablesFit(t *testing.T) {
	log := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	dump := filepath.Join("..", "..", "testdata", "zk", "dump.json")
	t.Setenv("COLUMNS", "60")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", "-o", "table", "--nodes", "2", log}, 0, `Restart one node at a time, in this order: 2
(kraft:../../testdata/kraft/4.4.0/metadata)

+------+------+--------+-----------------+-----------------+
| STEP | NODE | ROLES  | CHECK           | WAIT            |
+------+------+--------+-----------------+-----------------+
| 1    | 2    | broker | kmeta roll      | kmeta roll wait |
|      |      |        | check --node 2  | --node 2        |
|      |      |        | ../../testdata/ | ../../testdata/ |
|      |      |        | kraft/4.4.0/    | kraft/4.4.0/    |
|      |      |        | metadata        | metadata        |
+------+------+--------+-----------------+-----------------+
(1 column left out to fit 60 columns: WHY; widen the
terminal, set COLUMNS, or use -o json)
`},
		{[]string{"check", "-o", "table", "--node", "2", dump}, 1, `broker 2: NOT safe to stop now
(zkdump:../../testdata/zk/dump.json)

+-------------+--------------------+------------+
| TOPIC       | RULE               | PARTITIONS |
+-------------+--------------------+------------+
| compacted   | roll-under-min-isr | 2          |
| orders.v1   | roll-takes-offline | 1          |
| user_events | roll-takes-offline | 2          |
+-------------+--------------------+------------+
`},
	} {
		r := kmeta(append([]string{"roll"}, tc.args...)...)
		got := r.stdout
		if tc.args[0] == "check" {
			// The findings' table follows (its lines fit: below).
			got, _, _ = strings.Cut(got, "+\n\n+")
			got += "+\n"
		}
		if r.code != tc.code || got != tc.want {
			t.Errorf("roll %q: exit %d\n%s\nwant\n%s", tc.args, r.code, got, tc.want)
		}
		for i, ln := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(ln); n > 60 {
				t.Errorf("roll %q: line %d is %d columns: %s", tc.args, i+1, n, ln)
			}
		}
	}
}
