package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/roll"
	"github.com/kmeta/kmeta/zkdeps"
)

// The real-Kafka proof of the online migration commands (issue 21): a
// ZooKeeper-mode cluster driven through Kafka's own migration using only
// the files, dirs and steps `kmeta migrate stage` and `rollback` print,
// with `kmeta migrate status` asked at every step.

// walkStatus is what the walk reads of migrate status -o json.
type walkStatus struct {
	Phase     string `json:"phase"`
	Healthy   bool   `json:"healthy"`
	Agree     *bool  `json:"agree"`
	NextPhase string `json:"nextPhase"`
	ZooKeeper struct {
		ControllerID         int32 `json:"controllerId"`
		KRaftControllerEpoch int32 `json:"kraftControllerEpoch"`
	} `json:"zookeeper"`
	KRaft *struct {
		State           string `json:"state"`
		MetadataVersion string `json:"metadataVersion"`
	} `json:"kraft"`
	Brokers []struct {
		ID          int32  `json:"id"`
		InZooKeeper bool   `json:"inZooKeeper"`
		KRaft       string `json:"kraft"`
		Cause       string `json:"cause"`
	} `json:"brokers"`
	WaitingFor []string      `json:"waitingFor"`
	Findings   []walkFinding `json:"findings"`
}

type walkFinding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Entity   string `json:"entity"`
	Message  string `json:"message"`
}

func (s walkStatus) String() string {
	var bs []string
	for _, b := range s.Brokers {
		bs = append(bs, fmt.Sprintf("%d:zk=%v,kraft=%s", b.ID, b.InZooKeeper, b.KRaft))
	}
	state := "-"
	if s.KRaft != nil {
		state = s.KRaft.State
	}
	return fmt.Sprintf("%s healthy=%v state=%s brokers=[%s] waiting=%q findings=%s", s.Phase, s.Healthy, state,
		strings.Join(bs, " "), s.WaitingFor, codes(s.Findings))
}

func codes(fs []walkFinding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity+":"+f.Code+"("+f.Entity+")")
	}
	return "[" + strings.Join(out, " ") + "]"
}

// walkStage is what the walk reads of migrate stage/rollback -o json.
type walkStage struct {
	Phase   string                `json:"phase"`
	Current string                `json:"current"`
	Ready   bool                  `json:"ready"`
	Refused bool                  `json:"refused"`
	Checks  []walkFinding         `json:"checks"`
	Steps   []kafkatest.StageStep `json:"steps"`
	Nodes   []struct {
		ID     int32  `json:"id"`
		Role   string `json:"role"`
		Config string `json:"config"`
	} `json:"nodes"`
}

func (s walkStage) hasCheck(code string) bool {
	return slices.ContainsFunc(s.Checks, func(f walkFinding) bool { return f.Code == code })
}

// onlineWalk is one cluster under migration and what the test knows of
// it: every node's current file, the staged outputs, the traffic.
type onlineWalk struct {
	t      *testing.T
	d      *kafkatest.Distribution
	zk     *kafkatest.ZooKeeper
	c      *kafkatest.Cluster
	zkSrc  string
	runner *kafkatest.StageRunner
	// controllers is --controllers; metaDirs is --metadata-dir.
	controllers string
	ctrlIDs     []int
	metaDirs    string
	// zkFiles are the brokers' ZooKeeper-mode files (copies taken before
	// any restart); current is the file each node runs now.
	zkFiles map[int]string
	current map[int]string
	// started: the controllers were started (a KRaft source exists).
	started bool
	// live: the release answers --bootstrap-controller (KIP-919, 3.7+).
	live      bool
	quotaBugs bool
	traffic   *kafkatest.Traffic
	data      *kafkatest.Data
	// before are the rich set's records as read back before the
	// migration (ProduceData's and PopulateRich's own).
	before []kafkatest.Message
	rich   *kafkatest.RichMetadata
	// timeline records each status check, for the log.
	timeline []string
	// phaseSeen are the phases a status has said (the runbook's
	// transcript shows each once, in text).
	phaseSeen map[string]bool
	// dirSeen is when a status from the sources status --watch reads
	// (ZooKeeper and the first controller's log dir) first said each
	// phase. The live quorum says PreKRaft as soon as a controller runs
	// without the migration flag; the log has it only once that
	// controller's registration is replicated, seconds later on a loaded
	// machine: the watch is timed against what it can see.
	dirSeen map[string]time.Time
	// commandConfig is the client settings to ask the controllers of a
	// secured cluster with (status's --command-config with
	// --bootstrap-controller, stage's --controller-command-config).
	commandConfig string
	// brokerConfig is the client settings to ask its brokers with
	// (stage's --command-config): the gates of a controller roll ask the
	// quorum through the brokers below metadata.version 3.7-IV0.
	brokerConfig string
	// acls is what the cluster's ACLs deny and allow DeniedUser.
	acls *aclProbe
}

type walkOptions struct {
	version     string
	controllers int
	// rich: SASL, AclAuthorizer, the rich metadata set with ACLs and a
	// token (3.6+: tokens migrate from 3.6, SCRAM and ACLs from 3.5).
	rich, tokens bool
	// brokerProps apply to the ZooKeeper-mode brokers' files.
	brokerProps map[string]string
	// security is the brokers' secured shape (kafkatest.SecuritySSL,
	// SecuritySASLSSL; "" for the PLAINTEXT inter-broker listener).
	security string
	// zk and chroot: a ZooKeeper the test shares between clusters, and
	// this cluster's chroot in it (default: a ZooKeeper of its own,
	// /kafka).
	zk     *kafkatest.ZooKeeper
	chroot string
	// tls are the certificates the secured shapes share (made by the
	// cluster when nil).
	tls *kafkatest.TLSFiles
	// quotaBugs: the release's own migration writes client quotas wrong
	// (sanitized entity names kept, KAFKA-16222; default entities turned
	// into the entity named "", KAFKA-16411; fixed in 3.7.1), so verify in
	// dual-write must report exactly such quota differences, nothing else.
	quotaBugs bool
}

func startOnlineWalk(t *testing.T, ctx context.Context, o walkOptions) *onlineWalk {
	t.Helper()
	d := kafkatest.Dist(t, o.version)
	zks := o.zk
	if zks == nil {
		zks = kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	}
	chroot := o.chroot
	if chroot == "" {
		chroot = "/kafka"
	}
	c := kafkatest.StartZKCluster(t, d, zks, kafkatest.ZKClusterOptions{Brokers: 3, Chroot: chroot, SASL: o.rich, Authorizer: o.rich, Props: o.brokerProps,
		Security: o.security, TLS: o.tls})
	w := &onlineWalk{t: t, d: d, zk: zks, c: c, zkSrc: "zk://" + zks.Connect(chroot), zkFiles: map[int]string{}, current: map[int]string{},
		live: o.version >= "3.7", quotaBugs: o.quotaBugs, phaseSeen: map[string]bool{}, dirSeen: map[string]time.Time{}}
	if o.security != "" {
		w.commandConfig = c.ControllerClientProperties(t)
		w.brokerConfig = c.BrokerClientProperties(t)
	}
	if o.rich {
		md, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: o.tokens, RollSafe: true})
		if err != nil {
			t.Fatalf("%v\ndone: %v", err, md.Log)
		}
		w.rich = md
		if w.data, err = kafkatest.ProduceData(ctx, c, kafkatest.DataOptions{Group: "kmeta-walk"}); err != nil {
			t.Fatal(err)
		}
		if w.before, err = kafkatest.ConsumeAll(ctx, c, w.data.Topics, len(w.data.Produced)); err != nil {
			t.Fatal(err)
		}
	}
	zkDir := t.TempDir()
	for _, id := range c.Brokers() {
		b, err := os.ReadFile(c.Node(id).Config)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(zkDir, fmt.Sprintf("zk-server-%d.properties", id))
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		w.zkFiles[id], w.current[id] = f, f
	}
	ports, err := kafkatest.FreePorts(o.controllers)
	if err != nil {
		t.Fatal(err)
	}
	var cs []string
	for i, p := range ports {
		id := kafkatest.FirstControllerID + i
		w.ctrlIDs = append(w.ctrlIDs, id)
		cs = append(cs, fmt.Sprintf("%d@127.0.0.1:%d", id, p))
	}
	w.controllers = strings.Join(cs, ",")
	w.metaDirs = filepath.Join(c.Dir, "kraft-{id}", "metadata")
	t.Cleanup(func() { t.Logf("timeline:\n%s", strings.Join(w.timeline, "\n")) })
	// The runner follows kmeta's gates (roll check, roll wait, roll
	// plan) and waits for nothing of its own.
	w.runner = &kafkatest.StageRunner{Cluster: c, ReadProps: javaprops.Read, Logf: t.Logf, Wait: w.waitStep,
		Kmeta: func(ctx context.Context, args []string) (string, int) {
			var out, errb bytes.Buffer
			code := run(ctx, append([]string{"kmeta"}, args...), &out, &errb)
			if tr := transcriptOf(t); tr != nil {
				tr.command(args, code, out.String())
			}
			w.timeline = append(w.timeline, fmt.Sprintf("kmeta %s: exit %d", strings.Join(args[:min(4, len(args))], " "), code))
			return out.String() + errb.String(), code
		}}
	tr, err := kafkatest.StartTraffic(ctx, t, c, kafkatest.TrafficOptions{Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	w.traffic = tr
	if o.security != "" {
		w.acls = setUpACLProbe(t, ctx, c)
	}
	w.advance(ctx, "before the migration")
	return w
}

func (w *onlineWalk) advance(ctx context.Context, when string) {
	w.t.Helper()
	if err := w.traffic.Advance(ctx, 30, 90*time.Second); err != nil {
		w.t.Fatalf("%s: %v", when, err)
	}
}

// metaDir is controller id's metadata log dir.
func (w *onlineWalk) metaDir(id int) string {
	return strings.ReplaceAll(w.metaDirs, "{id}", strconv.Itoa(id))
}

// kraftSources are the KRaft sources status is asked with: a
// controller's metadata log dir (read-only, no lock taken) and, on 3.7+,
// the live quorum.
func (w *onlineWalk) kraftSources() [][]string {
	if !w.started {
		return [][]string{nil}
	}
	srcs := [][]string{{"--kraft", "kraft:" + w.metaDir(w.ctrlIDs[0])}}
	if w.live {
		live := []string{"--bootstrap-controller", w.c.BootstrapControllers()}
		if w.commandConfig != "" {
			live = append(live, "--command-config", w.commandConfig)
		}
		srcs = append(srcs, live)
	}
	return srcs
}

func (w *onlineWalk) configArgs(files map[int]string) []string {
	var args []string
	for _, id := range slices.Sorted(maps.Keys(files)) {
		args = append(args, "--config", fmt.Sprintf("%d=%s", id, files[id]))
	}
	return args
}

// status runs migrate status with one KRaft source (nil: ZooKeeper alone).
func (w *onlineWalk) status(src []string) (int, walkStatus) {
	w.t.Helper()
	args := append([]string{"migrate", "status", "-o", "json", "--zk", w.zkSrc}, src...)
	args = append(args, w.configArgs(w.current)...)
	code, out, stderr := runKmeta(w.t, args...)
	var s walkStatus
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		w.t.Fatalf("migrate status %v: exit %d, not JSON (%v): %s\nstderr: %s", src, code, err, out, stderr)
	}
	if _, ok := w.dirSeen[s.Phase]; !ok && w.dirSeen != nil && len(src) > 0 && src[0] == "--kraft" {
		w.dirSeen[s.Phase] = time.Now()
	}
	if !w.phaseSeen[s.Phase] && w.phaseSeen != nil {
		w.phaseSeen[s.Phase] = true
		if transcriptOf(w.t) != nil {
			// The runbook's view of each phase, in text.
			runKmeta(w.t, slices.Delete(slices.Clone(args), 2, 4)...)
		}
	}
	return code, s
}

// expectPhase asks status from every KRaft source and checks the phase
// is one of want. It returns the log-dir source's answer.
func (w *onlineWalk) expectPhase(when string, want ...string) walkStatus {
	w.t.Helper()
	var first walkStatus
	for i, src := range w.kraftSources() {
		code, s := w.status(src)
		if i == 0 {
			first = s
		}
		line := fmt.Sprintf("%-44s %-26s exit %d: %s", when, sourceName(src), code, s)
		w.timeline = append(w.timeline, line)
		if !slices.Contains(want, s.Phase) {
			w.t.Errorf("status at %q from %s: phase %s, want %v (exit %d): %s", when, sourceName(src), s.Phase, want, code, s)
		}
		if (code == exitOK) != s.Healthy {
			w.t.Errorf("status at %q from %s: exit %d but healthy=%v", when, sourceName(src), code, s.Healthy)
		}
	}
	return first
}

func sourceName(src []string) string {
	if len(src) == 0 {
		return "zk alone"
	}
	if strings.HasPrefix(src[1], "kraft:") {
		return "zk + kraft:DIR"
	}
	return "zk + --bootstrap-controller"
}

// stage runs migrate stage PHASE with the KRaft log-dir source and every
// node's current file (or files, when given), into a fresh --out dir.
func (w *onlineWalk) stage(phase string, wantExit int, files map[int]string, extra ...string) (walkStage, string) {
	w.t.Helper()
	out := filepath.Join(w.t.TempDir(), "stage-"+phase)
	if files == nil {
		files = w.current
	}
	args := []string{"migrate", "stage", phase, "-o", "json", "--zk", w.zkSrc, "--out", out}
	if w.started {
		args = append(args, w.kraftSources()[0]...)
	}
	if phase == "KRaftMigration" {
		args = append(args, "--controllers", w.controllers, "--metadata-dir", w.metaDirs)
	}
	if w.commandConfig != "" {
		// The controllers' roll gates (kmeta roll check and wait) reach
		// the secured controller listener (--bootstrap-controller) or,
		// below 3.7-IV0, the brokers' with these client settings, as an
		// operator passes them.
		args = append(args, "--command-config", w.brokerConfig, "--controller-command-config", w.commandConfig)
	}
	args = append(append(args, w.configArgs(files)...), extra...)
	code, stdout, stderr := runKmeta(w.t, args...)
	var s walkStage
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		w.t.Fatalf("migrate stage %s: exit %d, not JSON (%v): %s\nstderr: %s", phase, code, err, stdout, stderr)
	}
	if code != wantExit {
		w.t.Fatalf("migrate stage %s: exit %d, want %d; checks %s\nsteps %v\nstderr: %s", phase, code, wantExit, codes(s.Checks), s.Steps, stderr)
	}
	if code != exitOK {
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			w.t.Errorf("migrate stage %s refused but wrote %d entries into --out", phase, len(ents))
		}
	}
	w.timeline = append(w.timeline, fmt.Sprintf("stage %-20s exit %d (current %s): checks %s", phase, code, s.Current, codes(s.Checks)))
	if code == exitOK && transcriptOf(w.t) != nil {
		// What the runbook shows (docs/runbooks/online-migration.md): the
		// same stage as an operator reads it, in text, with --dry-run.
		text := slices.Clone(args)
		text = slices.Delete(text, 3, 5) // -o json
		text = slices.Insert(text, 3, "--dry-run")
		text[slices.Index(text, "--out")+1] = out + "-dry-run"
		if code, stdout, stderr := runKmeta(w.t, text...); code != exitOK {
			w.t.Errorf("migrate stage %s --dry-run: exit %d\n%s%s", phase, code, stdout, stderr)
		}
	}
	return s, out
}

// stageMigration stages KRaftMigration, telling kmeta the brokers'
// release (the harness's files leave inter.broker.protocol.version to it).
func (w *onlineWalk) stageMigration() (walkStage, string) {
	w.t.Helper()
	release := strings.Join(strings.Split(w.d.Version, ".")[:2], ".")
	return w.stage("KRaftMigration", exitOK, nil, "--metadata-version", release)
}

// rollback runs migrate rollback with the brokers' ZooKeeper-mode files
// and the controllers' current files.
func (w *onlineWalk) rollback(wantExit int) (walkStage, string) {
	w.t.Helper()
	out := filepath.Join(w.t.TempDir(), "rollback")
	files := map[int]string{}
	for id, f := range w.current {
		files[id] = f
	}
	for id, f := range w.zkFiles {
		files[id] = f
	}
	args := []string{"migrate", "rollback", "-o", "json", "--zk", w.zkSrc, "--out", out}
	if w.started {
		args = append(args, w.kraftSources()[0]...)
	}
	args = append(args, w.configArgs(files)...)
	code, stdout, stderr := runKmeta(w.t, args...)
	var s walkStage
	if code != wantExit {
		// Not fatal: the walk goes on without it.
		w.t.Errorf("migrate rollback: exit %d, want %d: %s\nstderr: %s", code, wantExit, stdout, stderr)
		return s, out
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		w.t.Fatalf("migrate rollback: exit %d, not JSON (%v): %s\nstderr: %s", code, err, stdout, stderr)
	}
	w.timeline = append(w.timeline, fmt.Sprintf("rollback from %-13s exit %d: checks %s, %d steps", s.Current, code, codes(s.Checks), len(s.Steps)))
	if transcriptOf(w.t) != nil {
		// The runbook's view of the way back from here, in text.
		text := slices.Delete(slices.Clone(args), 2, 4)
		text = slices.Insert(text, 2, "--dry-run")
		runKmeta(w.t, text...)
	}
	return s, out
}

// apply performs the steps as printed; after is called after each one.
func (w *onlineWalk) apply(ctx context.Context, out string, steps []kafkatest.StageStep, after func(kafkatest.StageStep) error) {
	w.t.Helper()
	if len(steps) == 0 {
		return
	}
	w.runner.AfterStep = func(_ context.Context, s kafkatest.StageStep) error {
		switch s.Action {
		case "start", "restart":
			w.current[s.Node] = filepath.Join(out, s.Config)
			if !w.started && slices.Contains(w.ctrlIDs, s.Node) {
				w.started = true
			}
		case "delete-metadata-dir":
			w.started = false
			delete(w.current, s.Node)
		}
		if after != nil {
			return after(s)
		}
		return nil
	}
	if err := w.runner.Run(ctx, out, steps); err != nil {
		w.t.Fatal(err)
	}
}

var saysPhase = regexp.MustCompile(`status says (\w+)`)

// waitStep is the runner's "wait": poll status (the controller's log dir
// when controllers run) until it names the phase the step names.
func (w *onlineWalk) waitStep(ctx context.Context, s kafkatest.StageStep) error {
	m := saysPhase.FindStringSubmatch(s.What)
	if m == nil {
		return fmt.Errorf("wait step names no phase status would say: %q", s.What)
	}
	want := m[1]
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	var last walkStatus
	var code int
	for {
		code, last = w.status(w.kraftSources()[0])
		// PreKRaft is reached when no controller runs with the migration
		// flag (the step prints the phase row's condition): a controller
		// restarted last re-registers without it a moment after its roll
		// wait, and status waits for it until then.
		flagged := want == "PreKRaft" && slices.ContainsFunc(last.WaitingFor, func(s string) bool { return strings.Contains(s, "without the migration flag") })
		if last.Phase == want && !flagged {
			w.t.Logf("wait: status says %s after %s (exit %d)", want, time.Since(start).Round(100*time.Millisecond), code)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("status still says %s after 3 min, want %s: %s", last.Phase, want, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// verifyDualWrite runs kmeta verify --zk --kraft kraft:DIR until it is
// clean (dual-write lags a commit a little; leaders move under traffic).
func (w *onlineWalk) verifyDualWrite(when string) {
	w.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		code, v, stderr := runVerify(w.t, "--zk", w.zkSrc, "--kraft", "kraft:"+w.metaDir(w.ctrlIDs[0]))
		diffs := differences(v)
		if code == exitOK && len(diffs) == 0 && !w.quotaBugs {
			w.timeline = append(w.timeline, fmt.Sprintf("verify %s: equal", when))
			return
		}
		if w.quotaBugs && code == exitFindings && len(diffs) > 0 && !slices.ContainsFunc(diffs, func(f model.Finding) bool { return f.Class != "quotas" }) {
			w.timeline = append(w.timeline, fmt.Sprintf("verify %s: only the release's quota bugs (%d quota differences)", when, len(diffs)))
			return
		}
		if time.Now().After(deadline) {
			w.t.Errorf("verify %s: exit %d (%s), differences:%s\nstderr: %s", when, code, v.Result, showFindings(differences(v)), stderr)
			return
		}
		time.Sleep(time.Second)
	}
}

// finish stops the traffic and checks every acknowledged record was
// consumed and, with the rich set, every record ProduceData wrote reads
// back.
func (w *onlineWalk) finish(ctx context.Context) {
	w.t.Helper()
	res, err := w.traffic.Stop(ctx, 90*time.Second)
	if err != nil {
		w.t.Fatal(err)
	}
	if p := res.Problems(); len(p) > 0 {
		w.t.Errorf("traffic: %s; %d problems:\n%s", res, len(p), strings.Join(p[:min(len(p), 20)], "\n"))
	}
	// Every roll followed kmeta's gates: an acks=all producer was never
	// refused for an ISR under min.insync.replicas, and no record failed.
	// A walk that restarts brokers on files kmeta did not stage runs no
	// gates (runner.Kmeta nil: the stuck states): there a refusal is
	// Kafka's answer to an ungated restart, logged, and no record may
	// fail all the same.
	n := res.NotEnoughReplicas()
	if gated := w.runner.Kmeta != nil; (gated && n > 0) || len(res.Failed) > 0 {
		w.t.Errorf("traffic: %d NOT_ENOUGH_REPLICAS answers (first seen %v), %d failed records: %s\n%s", n, res.ProbeFirst, len(res.Failed), res,
			strings.Join(res.Failed[:min(len(res.Failed), 10)], "\n"))
	} else if n > 0 {
		w.t.Logf("traffic: %d NOT_ENOUGH_REPLICAS answers to ungated restarts (first seen %v)", n, res.ProbeFirst)
	}
	w.t.Logf("gates: %d run, %d roll checks refused before one passed", w.runner.Gates, w.runner.Refusals)
	w.t.Logf("traffic over %s: %s; committed %v = end %v", res.Duration.Round(time.Second), res, res.Committed, res.End)
	if w.data != nil {
		got, err := kafkatest.ConsumeAll(ctx, w.c, w.data.Topics, len(w.before))
		if err != nil {
			w.t.Fatal(err)
		}
		if diff := kafkatest.DiffMessages(w.before, got); len(diff) > 0 {
			w.t.Errorf("the rich set's records after the walk differ:\n%s", strings.Join(diff[:min(len(diff), 20)], "\n"))
		}
	}
}

// lintMigrated lints the migrated cluster from a controller's metadata
// log with every broker's file (--config), finding by finding: the rich
// set's topics as Kafka's tools create them (orders.v1, compacted RF 2;
// payments_v2.eu RF 2 with min ISR 2; user_events RF 3 with the brokers'
// min ISR, 1) and Kafka's own topics (RF 3, min ISR 1). Leaders the rolls moved off their preferred replica are
// put back first with the preferred-leader-imbalance fix, run as printed.
func (w *onlineWalk) lintMigrated(ctx context.Context) {
	t := w.t
	t.Helper()
	args := []string{"lint", "-o", "json"}
	for _, id := range w.c.Brokers() {
		args = append(args, "--config", fmt.Sprintf("%d=%s", id, w.current[id]))
	}
	args = append(args, "kraft:"+w.metaDir(w.ctrlIDs[0]))
	want := []string{
		// payments_v2.eu (min ISR 2) has three replicas here (the walk's
		// rich set is RollSafe, so that the gated rolls may proceed).
		"replication-factor-below-3 topic orders.v1", "replication-factor-below-3 topic compacted",
		"min-isr-one topic user_events",
		// Kafka's own topics, RF 3: __consumer_offsets with the brokers'
		// min ISR (their files set none: 1), __transaction_state with the
		// min ISR Kafka gives it from transaction.state.log.min.isr (the
		// harness's brokers set 1).
		"min-isr-one topic __consumer_offsets", "min-isr-one topic __transaction_state",
	}
	slices.Sort(want)
	sh := w.d.Shell(t)
	deadline := time.Now().Add(2 * time.Minute)
	for elected := false; ; {
		_, out, stderr := runKmeta(t, args...)
		var d effLintDoc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("lint of the migrated cluster: %v\n%s\n%s", err, out, stderr)
		}
		got := d.keys()
		if os.Getenv("KMETA_LINT_DISCOVER") == "1" {
			t.Logf("DISCOVER migrated:\n  %s", strings.Join(got, "\n  "))
		}
		if slices.Equal(got, want) {
			for _, r := range d.Rules {
				if r.Assumes != "" {
					t.Errorf("lint of the migrated cluster with every broker's file: %s assumes %q", r.Code, r.Assumes)
				}
			}
			return
		}
		for _, f := range d.Findings {
			if f.Code == "preferred-leader-imbalance" && !elected {
				sh.OK(strings.ReplaceAll(f.Fix, "BOOTSTRAP", w.c.BootstrapServers()))
				elected = true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("lint of the migrated cluster: findings\n  %s\nwant exactly\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		time.Sleep(2 * time.Second)
	}
}

func (w *onlineWalk) brokerFiles() map[int]string {
	out := map[int]string{}
	for _, id := range w.c.Brokers() {
		out[id] = w.current[id]
	}
	return out
}

// TestOnlineMigrationWalkKafka is the acceptance walk of issue 21 on real
// Kafka 3.9.2: ZooKeeper and three ZooKeeper-mode brokers (SASL,
// AclAuthorizer) with the rich metadata set and its records, a producer
// and a consumer group running throughout, three new KRaft controllers.
// The cluster goes ZooKeeper → KRaftMigration → KRaftDualWriting →
// KRaftPostMigration → PreKRaft → KRaft using only what `kmeta migrate
// stage` writes and prints (its formatted dirs, its files byte for byte,
// its steps in order, ZooKeeper's CLI for nothing: stage never needs it).
// At each phase the next stage is first refused while its conditions do
// not hold, then passes; status names the phase at every step from
// ZooKeeper plus the controller's log dir and plus the live quorum;
// rollback is offered up to KRaftPostMigration and refused from PreKRaft
// on; verify is clean during dual-write; at the end every acknowledged
// record was consumed, the group committed to the end, every record of
// the rich set reads back and lint finds nothing critical on the KRaft
// side.
func TestOnlineMigrationWalkKafka(t *testing.T) {
	kafkatest.Concurrently(t, 145*time.Second) // make test, 2026-12-06
	recordTranscript(t, "online-migration")
	walkAll(t, walkOptions{version: kafkatest.Kafka39, controllers: 3, rich: true, tokens: true})
}

func walkAll(t *testing.T, o walkOptions) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	w := startOnlineWalk(t, ctx, o)
	setup := time.Since(start)
	// migrate status --watch follows the whole walk (its reads fail and
	// are retried until the controllers' log dir exists).
	watch := w.startWatch(ctx)

	// ZooKeeper.
	w.expectPhase("start", "ZooKeeper")
	if s, _ := w.stage("KRaftDualWriting", exitFindings, nil); !s.hasCheck("stage-out-of-order") {
		t.Errorf("stage KRaftDualWriting from ZooKeeper: checks %s, want stage-out-of-order", codes(s.Checks))
	}
	partial := map[int]string{1: w.zkFiles[1], 2: w.zkFiles[2]}
	if s, _ := w.stage("KRaftMigration", exitFindings, partial); !s.hasCheck("node-config-missing") {
		t.Errorf("stage KRaftMigration without broker 3's file: checks %s, want node-config-missing", codes(s.Checks))
	}

	// The harness's brokers leave inter.broker.protocol.version to their
	// release, which no file says: kmeta must be told.
	if s, _ := w.stage("KRaftMigration", exitFindings, nil); !s.hasCheck("ibp-not-set") {
		t.Errorf("stage KRaftMigration with no IBP in any file: checks %s, want ibp-not-set", codes(s.Checks))
	}

	// KRaftMigration.
	s, out := w.stageMigration()
	if o.security != "" {
		secureWalkChecks(t, s)
	}
	var actions []string
	for _, st := range s.Steps {
		actions = append(actions, st.Action)
	}
	t.Logf("stage KRaftMigration steps: %v", actions)
	brokersRolled := 0
	w.apply(ctx, out, s.Steps, func(st kafkatest.StageStep) error {
		switch {
		case st.Action == "wait" && brokersRolled == 0:
			// Controllers up, no broker rolled: the copy cannot start.
			w.expectPhase("controllers up", "KRaftMigration")
			if s, _ := w.stage("KRaftDualWriting", exitFindings, nil); !s.hasCheck("phase-not-reached") {
				t.Errorf("stage KRaftDualWriting before the brokers rolled: checks %s, want phase-not-reached", codes(s.Checks))
			}
			if s, _ := w.stage("KRaftPostMigration", exitFindings, nil); !s.hasCheck("stage-out-of-order") {
				t.Errorf("stage KRaftPostMigration in KRaftMigration: checks %s, want stage-out-of-order", codes(s.Checks))
			}
			w.rollback(exitOK)
		case st.Action == "restart":
			brokersRolled++
			if brokersRolled < len(w.c.Brokers()) {
				w.expectPhase(fmt.Sprintf("%d broker(s) in migration mode", brokersRolled), "KRaftMigration")
			}
		}
		return nil
	})
	w.expectPhase("migration done", "KRaftDualWriting")
	w.advance(ctx, "in dual-write")
	w.verifyDualWrite("in dual-write")
	// A broker stopped mid-dual-write (after kmeta's roll check said it
	// may be): the watch names it, then sees it back.
	w.stopAndWatch(ctx, watch, 2)
	if w.acls != nil {
		w.acls.check(t, ctx, "in dual-write")
	}

	// KRaftDualWriting: a checkpoint.
	s, out = w.stage("KRaftDualWriting", exitOK, nil)
	w.apply(ctx, out, s.Steps, nil)
	if r, _ := w.rollback(exitOK); len(r.Steps) == 0 {
		t.Errorf("rollback from KRaftDualWriting printed no step")
	}

	// KRaftPostMigration.
	if s, _ := w.stage("PreKRaft", exitFindings, nil); !s.hasCheck("stage-out-of-order") {
		t.Errorf("stage PreKRaft in KRaftDualWriting: checks %s, want stage-out-of-order", codes(s.Checks))
	}
	s, out = w.stage("KRaftPostMigration", exitOK, nil)
	rolled := 0
	w.apply(ctx, out, s.Steps, func(st kafkatest.StageStep) error {
		if st.Action != "restart" {
			return nil
		}
		rolled++
		if rolled == 1 {
			w.expectPhase("1 broker a KRaft broker", "KRaftDualWriting")
			if s, _ := w.stage("PreKRaft", exitFindings, nil); !s.hasCheck("broker-still-zookeeper") && !s.hasCheck("stage-out-of-order") {
				t.Errorf("stage PreKRaft with ZooKeeper-mode brokers left: checks %s, want broker-still-zookeeper", codes(s.Checks))
			}
		}
		return nil
	})
	w.expectPhase("brokers are KRaft brokers", "KRaftPostMigration")
	w.advance(ctx, "in KRaftPostMigration")
	w.verifyDualWrite("in KRaftPostMigration")
	if s, _ := w.stage("KRaft", exitFindings, nil); !s.hasCheck("stage-out-of-order") {
		t.Errorf("stage KRaft in KRaftPostMigration: checks %s, want stage-out-of-order", codes(s.Checks))
	}
	if r, _ := w.rollback(exitOK); len(r.Steps) == 0 {
		t.Errorf("rollback from KRaftPostMigration printed no step")
	}

	// PreKRaft.
	s, out = w.stage("PreKRaft", exitOK, nil)
	w.apply(ctx, out, s.Steps, func(st kafkatest.StageStep) error {
		if st.Action == "restart" {
			w.expectPhase("controller "+strconv.Itoa(st.Node)+" finalized", "KRaftPostMigration", "PreKRaft")
		}
		return nil
	})
	w.expectPhase("controllers finalized", "PreKRaft")
	w.advance(ctx, "in PreKRaft")
	if r, _ := w.rollback(exitFindings); !r.hasCheck("no-rollback") {
		t.Errorf("rollback from PreKRaft: checks %s, want no-rollback", codes(r.Checks))
	}

	// KRaft.
	s, out = w.stage("KRaft", exitOK, nil)
	w.apply(ctx, out, s.Steps, nil)
	w.expectPhase("end", "KRaft")
	if r, _ := w.rollback(exitFindings); !r.hasCheck("no-rollback") {
		t.Errorf("rollback from KRaft: checks %s, want no-rollback", codes(r.Checks))
	}
	w.advance(ctx, "in KRaft")
	w.checkWatch(watch, "KRaft")
	if w.acls != nil {
		w.acls.check(t, ctx, "in KRaft")
	}
	w.finish(ctx)
	code, lint, stderr := runKmeta(t, "lint", "--fail-on", "critical", "kraft:"+w.metaDir(w.ctrlIDs[0]))
	if code != exitOK {
		t.Errorf("lint of the migrated cluster: exit %d:\n%s\n%s", code, lint, stderr)
	}
	if o.rich {
		w.lintMigrated(ctx)
	}
	// ZooKeeper let go (issue 34): nothing but Kafka used the ensemble and
	// Kafka no longer does, so zk dependents says it may stop, listing
	// what it could not check (cons is not whitelisted here; and, stage
	// KRaft having deleted /migration, that KRaft holds what ZooKeeper
	// still keeps, which kmeta verify proves).
	code, out, stderr = runKmeta(t, "zk", "dependents", "-o", "json", "--zk-admin-port", "0", w.zkSrc)
	var deps zkdeps.Result
	if err := json.Unmarshal([]byte(out), &deps); code != exitOK || err != nil || !deps.SafeToStop || len(deps.Dependents) != 0 ||
		len(deps.Findings) != 0 || len(deps.Kafka) != 0 || len(deps.NotChecked) != 3 || !strings.Contains(deps.NotChecked[0], "4lw.commands.whitelist") ||
		!strings.HasPrefix(deps.NotChecked[2], "that KRaft holds the cluster's metadata kept here (") ||
		!strings.Contains(deps.NotChecked[2], ": kmeta verify --zk zk://") ||
		!strings.HasSuffix(deps.NotChecked[2], " --kraft kraft:DIR (DIR: a controller's metadata.log.dir)") {
		t.Errorf("zk dependents after the walk: exit %d, %v, %+v\n%s", code, err, deps, stderr)
	}
	t.Logf("walk on Kafka %s: setup %s, walk %s", o.version, setup.Round(time.Second), (time.Since(start) - setup).Round(time.Second))
}

// TestOnlineStuckStatesKafka: the stuck states of field notes §1, each
// made on a real Kafka 3.9.2 cluster (ZooKeeper, three ZooKeeper-mode
// brokers, traffic throughout) and named with its cause by migrate status
// (finding codes matched in its JSON) and refused by the next stage:
// a /migration left by an earlier attempt, a null /migration (both made
// with ZooKeeper's own CLI, in the shape Kafka writes), a combined-mode
// node's file, a controller formatted by Kafka's storage tool and started
// without the migration flag (it initialises a new KRaft cluster), and,
// with kmeta's controller up, a broker given its migration-mode file but
// not restarted, a broker restarted without the migration flag, and a
// broker restarted with an IBP other than the controllers' level.
func TestOnlineStuckStatesKafka(t *testing.T) {
	kafkatest.Concurrently(t, 135*time.Second) // make test, 2026-12-06
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	w := startOnlineWalk(t, ctx, walkOptions{version: kafkatest.Kafka39, controllers: 1})
	// The stuck states restart brokers on files kmeta did not stage: no
	// gates, the harness's own wait for full ISRs.
	w.runner.Kmeta = nil
	ctrl := w.ctrlIDs[0]
	zkcli := func(args ...string) string {
		t.Helper()
		out, stderr, err := w.d.Run(ctx, w.d.Tools.ZooKeeperShell, append([]string{"-server", strings.TrimPrefix(w.zkSrc, "zk://")}, args...)...)
		if err != nil {
			t.Fatalf("zookeeper-shell %v: %v\n%s%s", args, err, out, stderr)
		}
		return string(out)
	}
	release := []string{"--metadata-version", "3.9"}

	// stuck checks status names code (on entity, when given) and exits 1,
	// and that stage phase is refused naming it too (or, with refusal,
	// that code).
	stuck := func(what, code, entity, phase, refusal string) {
		t.Helper()
		for i, src := range w.kraftSources() {
			if i > 0 {
				// The live quorum reports no ZkMigrationState and no
				// broker registrations: logged, not required.
				c, s := w.status(src)
				w.timeline = append(w.timeline, fmt.Sprintf("%-36s %-26s exit %d: %s", what, sourceName(src), c, s))
				continue
			}
			// The stuck state is Kafka's to reach (a controller started
			// without the flag writes ZkMigrationState NONE once it leads
			// its quorum, seconds after its start on a loaded machine):
			// status is asked again until it shows, for up to a minute.
			found := func(c int, s walkStatus) bool {
				return c == exitFindings && slices.ContainsFunc(s.Findings, func(f walkFinding) bool {
					return f.Code == code && (entity == "" || f.Entity == entity)
				})
			}
			c, s := w.status(src)
			for deadline := time.Now().Add(time.Minute); !found(c, s) && time.Now().Before(deadline); c, s = w.status(src) {
				time.Sleep(time.Second)
			}
			w.timeline = append(w.timeline, fmt.Sprintf("%-36s %-26s exit %d: %s", what, sourceName(src), c, s))
			if !found(c, s) {
				t.Errorf("%s: status from %s: exit %d, want 1 with %s on %q: %s", what, sourceName(src), c, code, entity, s)
			}
		}
		if refusal == "" {
			refusal = code
		}
		var extra []string
		if phase == "KRaftMigration" {
			extra = release
		}
		if s, _ := w.stage(phase, exitFindings, nil, extra...); !s.hasCheck(refusal) {
			t.Errorf("%s: stage %s refused with %s, want %s", what, phase, codes(s.Checks), refusal)
		}
	}

	// A /migration left by an earlier attempt, then a null one.
	zkcli("create", "/migration", `{"version":0,"kraft_metadata_offset":189,"kraft_controller_id":3001,"kraft_metadata_epoch":3,"kraft_controller_epoch":4}`)
	stuck("stale /migration", "stale-migration-znode", "", "KRaftMigration", "")
	zkcli("delete", "/migration")
	zkcli("create", "/migration")
	stuck("null /migration", "migration-znode-null", "", "KRaftMigration", "")
	zkcli("delete", "/migration")
	w.expectPhase("znodes removed", "ZooKeeper")

	// A combined-mode node's file.
	combined := filepath.Join(t.TempDir(), "combined.properties")
	b, err := os.ReadFile(w.zkFiles[1])
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, []byte(fmt.Sprintf("process.roles=broker,controller\nnode.id=%d\n", ctrl))...)
	if err := os.WriteFile(combined, b, 0o600); err != nil {
		t.Fatal(err)
	}
	w.current[ctrl] = combined
	stuck("combined-mode node", "combined-mode-node", fmt.Sprintf("node %d", ctrl), "KRaftMigration", "")
	delete(w.current, ctrl)

	// A controller formatted by Kafka's storage tool and started without
	// the migration flag.
	meta, err := w.c.Admin(t).BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(strings.Split(w.controllers, "@")[1], ":")
	n := w.c.AddNode(ctrl, "controller", map[string]string{
		"process.roles": "controller", "node.id": strconv.Itoa(ctrl), "controller.quorum.voters": w.controllers,
		"controller.listener.names": "CONTROLLER", "listeners": "CONTROLLER://127.0.0.1:" + port,
		"listener.security.protocol.map": "CONTROLLER:PLAINTEXT", "log.dirs": w.metaDir(ctrl),
	})
	n.ControllerPort, _ = strconv.Atoi(port)
	w.c.ClusterID = meta.Cluster
	w.c.FormatNode(ctrl, "--release-version", "3.9")
	w.c.StartNode(ctrl)
	w.started = true
	stuck("controller without migration", "controller-formatted-without-migration", "", "KRaftDualWriting", "")
	w.c.StopNode(ctrl)
	if err := os.RemoveAll(w.metaDir(ctrl)); err != nil {
		t.Fatal(err)
	}
	w.started = false
	w.expectPhase("that controller removed", "ZooKeeper")

	// kmeta's controller up; the brokers not rolled as staged.
	s, out := w.stageMigration()
	wait := slices.IndexFunc(s.Steps, func(st kafkatest.StageStep) bool { return st.Action == "wait" })
	w.apply(ctx, out, s.Steps[:wait+1], nil)
	w.current[1] = filepath.Join(out, "server-1.properties")
	stuck("broker 1 not restarted", "broker-not-registered", "broker 1", "KRaftDualWriting", "phase-not-reached")
	w.current[1] = w.zkFiles[1]

	edited := func(id int, change func(map[string]string)) string {
		t.Helper()
		p, err := javaprops.Read(filepath.Join(out, fmt.Sprintf("server-%d.properties", id)))
		if err != nil {
			t.Fatal(err)
		}
		change(p)
		name := fmt.Sprintf("server-%d.edited.properties", id)
		if err := os.WriteFile(filepath.Join(out, name), javaprops.Format("edited by the test", p), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	// Broker 2 restarted, but on its old file: Kafka 3.9 refuses to
	// start a broker with the controller settings and no migration flag
	// ("controller.listener.names must be empty when not running in KRaft
	// mode"), so the flag can only be missing this way. Kafka's own
	// startup config dump is the oracle.
	zk2 := filepath.Join(out, "server-2.zookeeper.properties")
	if b, err := os.ReadFile(w.zkFiles[2]); err != nil || os.WriteFile(zk2, b, 0o600) != nil {
		t.Fatal(err)
	}
	f3 := edited(3, func(p map[string]string) { p["inter.broker.protocol.version"] = "3.8" })
	w.apply(ctx, out, []kafkatest.StageStep{
		{Step: 1, Action: "restart", Node: 2, Config: filepath.Base(zk2)},
		{Step: 2, Action: "restart", Node: 3, Config: f3},
	}, nil)
	if lb, err := os.ReadFile(w.c.Node(2).LogPath()); err != nil || !strings.Contains(string(lb[strings.LastIndex(string(lb), "==== kafkatest: starting"):]), "zookeeper.metadata.migration.enable = false") {
		t.Errorf("broker 2's last start does not log zookeeper.metadata.migration.enable = false (%v)", err)
	}
	stuck("broker 2 without the migration flag", "broker-migration-flag-missing", "broker 2", "KRaftDualWriting", "phase-not-reached")
	stuck("broker 3 on IBP 3.8", "ibp-mismatch", "broker 3", "KRaftDualWriting", "phase-not-reached")
	// Kafka's side of broker 3's refusal: the controller answers its
	// registration with UNSUPPORTED_VERSION.
	const refused = "Unable to register broker 3 because the controller returned error UNSUPPORTED_VERSION"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		lb, _ := os.ReadFile(w.c.Node(3).LogPath())
		if strings.Contains(string(lb), refused) {
			w.timeline = append(w.timeline, "broker 3's log: "+refused)
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("broker 3 on IBP 3.8: its log never says %q", refused)
			break
		}
	}
	w.advance(ctx, "stuck")
	w.finish(ctx)
}

// walkWatch is a migrate status --watch running beside the walk.
type walkWatch struct {
	interval time.Duration
	mu       sync.Mutex
	events   []online.WatchEvent
	cancel   context.CancelFunc
	done     chan int
}

// startWatch runs kmeta migrate status --watch (the controller's log dir
// as the KRaft source, -o json: one event a line) until checkWatch.
func (w *onlineWalk) startWatch(ctx context.Context) *walkWatch {
	w.t.Helper()
	ww := &walkWatch{interval: 2 * time.Second, done: make(chan int, 1)}
	wctx, cancel := context.WithCancel(ctx)
	ww.cancel = cancel
	pr, pw := io.Pipe()
	args := []string{"kmeta", "migrate", "status", "--watch", "-o", "json", "--interval", ww.interval.String(), "--grace", "10m", "--max-behind", "10m",
		"--zk", w.zkSrc, "--kraft", "kraft:" + w.metaDir(w.ctrlIDs[0])}
	if tr := transcriptOf(w.t); tr != nil {
		tr.background(args[1:])
	}
	go func() {
		var errb bytes.Buffer
		code := run(wctx, args, pw, &errb)
		pw.Close()
		ww.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev online.WatchEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				continue
			}
			ww.mu.Lock()
			ww.events = append(ww.events, ev)
			ww.mu.Unlock()
		}
	}()
	w.t.Cleanup(cancel)
	return ww
}

// wait waits until an event's change starts with prefix.
func (ww *walkWatch) wait(prefix string, timeout time.Duration) (online.WatchEvent, bool) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ww.mu.Lock()
		for _, ev := range ww.events {
			for _, ch := range ev.Changes {
				if strings.HasPrefix(ch, prefix) {
					ww.mu.Unlock()
					return ev, true
				}
			}
		}
		ww.mu.Unlock()
	}
	return online.WatchEvent{}, false
}

// stopAndWatch stops broker id as an operator would (kmeta roll check
// first, from ZooKeeper), waits for the watch to name it, starts it again
// and waits for kmeta roll wait.
func (w *onlineWalk) stopAndWatch(ctx context.Context, ww *walkWatch, id int) {
	w.t.Helper()
	src := append([]string{w.zkSrc}, w.configArgs(w.current)...)
	g := roll.GatesFor(int32(id), roll.Source{Words: src})
	w.runner.AfterStep = nil
	if err := w.runner.Run(ctx, "", []kafkatest.StageStep{{Step: 1, Action: "roll-check", Node: id, Args: g.CheckArgs}, {Step: 2, Action: "stop", Node: id}}); err != nil {
		w.t.Fatal(err)
	}
	if ev, ok := ww.wait(fmt.Sprintf("broker %d out", id), time.Minute); !ok {
		w.t.Errorf("migrate status --watch did not name broker %d, stopped mid-dual-write", id)
	} else {
		w.timeline = append(w.timeline, "watch: "+ev.Line())
	}
	if err := w.runner.Run(ctx, "", []kafkatest.StageStep{{Step: 3, Action: "start", Node: id, Config: w.current[id]}, {Step: 4, Action: "roll-wait", Node: id, Args: g.WaitArgs}}); err != nil {
		w.t.Fatal(err)
	}
	if ev, ok := ww.wait(fmt.Sprintf("broker %d back", id), time.Minute); !ok {
		w.t.Errorf("migrate status --watch did not see broker %d back", id)
	} else {
		w.timeline = append(w.timeline, "watch: "+ev.Line())
	}
}

// checkWatch stops the watch and checks it printed every phase change
// from KRaftMigration to last, in order, each within two intervals of the
// walk's first status from the same sources (dirSeen) saying it.
func (w *onlineWalk) checkWatch(ww *walkWatch, last string) {
	w.t.Helper()
	// A phase is printed within two intervals of the walk seeing it.
	time.Sleep(2 * ww.interval)
	ww.cancel()
	<-ww.done
	ww.mu.Lock()
	defer ww.mu.Unlock()
	var phases []string
	for _, ev := range ww.events {
		w.timeline = append(w.timeline, "watch: "+ev.Line())
		for _, ch := range ev.Changes {
			if rest, ok := strings.CutPrefix(ch, "phase "); ok {
				_, to, _ := strings.Cut(rest, " → ")
				phases = append(phases, to)
				seen, ok := w.dirSeen[to]
				if !ok {
					continue
				}
				w.timeline = append(w.timeline, fmt.Sprintf("watch printed %s %s after the walk's status from the same sources said it", to, ev.Time.Sub(seen).Round(100*time.Millisecond)))
				if to == "PreKRaft" && !w.live {
					// The watch reads ZooKeeper and the log only, and
					// below 3.7-IV0 the log registers no controller (no
					// migration flags): it tells PreKRaft once the state
					// is POST_MIGRATION, after the walk's status, which
					// reads the controllers' new files, said it.
					continue
				}
				if d := ev.Time.Sub(seen); d > 2*ww.interval {
					w.t.Errorf("migrate status --watch printed %s %s after the walk's status said it (more than two intervals of %s)", to, d.Round(100*time.Millisecond), ww.interval)
				}
			}
		}
	}
	want := []string{"KRaftDualWriting", "KRaftPostMigration", "PreKRaft", "KRaft"}
	if last != "KRaft" {
		want = want[:slices.Index(want, last)+1]
	}
	if !slices.Equal(phases, want) {
		w.t.Errorf("migrate status --watch printed the phase changes %v, want %v", phases, want)
	}
}
