package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/restore"
	"github.com/kmeta/kmeta/zkread"
)

// The acceptance of kmeta history and kmeta restore on real Kafka: one
// cluster per world, started once, its cases as subtests in order (each
// builds on the one before), the whole test's duration logged.

// restoreDoc is what the tests read of kmeta restore -o json.
type restoreDoc struct {
	Outcome string `json:"outcome"`
	Plan    struct {
		Refused string `json:"refused"`
		Actions []struct {
			Action string `json:"action"`
			Entity string `json:"entity"`
		} `json:"actions"`
		NotRestored []struct {
			Entity     string           `json:"entity"`
			Difference string           `json:"difference"`
			Command    *restore.Command `json:"command"`
		} `json:"notRestored"`
	} `json:"plan"`
	Commands []struct {
		Line     string `json:"command"`
		Runnable bool   `json:"runnable"`
	} `json:"commands"`
	Validated []report.ActionResult `json:"validated"`
	Applied   []report.ActionResult `json:"applied"`
	Left      []json.RawMessage     `json:"left"`
	ReadBack  bool                  `json:"readBack"`
}

func (d restoreDoc) actions() []string {
	var out []string
	for _, a := range d.Plan.Actions {
		out = append(out, a.Action+" "+a.Entity)
	}
	sort.Strings(out)
	return out
}

func runRestore(t *testing.T, args ...string) (int, restoreDoc, string) {
	t.Helper()
	r := kmeta(append([]string{"restore", "-o", "json"}, args...)...)
	var d restoreDoc
	if r.stdout != "" {
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatalf("restore %v: exit %d, %v\n%s\n%s", args, r.code, err, r.stdout, r.stderr)
		}
	}
	return r.code, d, r.stderr
}

// changeKey is a change as the tests compare them: record, entity,
// action, and the fields before → after.
func changeKey(c historyChange) string {
	var fs []string
	for k, v := range c.Before {
		a, ok := c.After[k]
		if !ok {
			a = "-"
		}
		fs = append(fs, k+":"+v+"→"+a)
	}
	for k, v := range c.After {
		if _, ok := c.Before[k]; !ok {
			fs = append(fs, k+":-→"+v)
		}
	}
	sort.Strings(fs)
	if c.Action != "changed" {
		fs = nil // a created or deleted entity: its fields are all of it
	}
	return strings.TrimSpace(c.Record + " " + c.Entity + " " + c.Action + " " + strings.Join(fs, " "))
}

// The changes both worlds make, with Kafka's own tools, after the rich
// set (PopulateRich) and a third ACL on orders.v1: a topic's retention,
// the three ACLs of orders.v1 removed by one filter naming the resource
// only (any principal, host, operation), alice's producer quota, and a
// topic deleted.
func historyChanges(h *historySteps, bs string) {
	h.step("retention", h.alter("orders.v1", "--add-config retention.ms=3600000"))
	h.step("acls", "kafka-acls "+bs+" --remove --force --topic orders.v1")
	h.step("quota", "kafka-configs "+bs+" --alter --entity-type users --entity-name alice --add-config producer_byte_rate=2048")
	h.step("delete", "kafka-topics "+bs+" --delete --topic payments_v2.eu")
}

// wantChanges are the changes historyChanges makes, by window.
var wantChanges = map[string][]string{
	"retention": {"config TOPIC orders.v1 changed retention.ms:86400000→3600000"},
	"acls": {
		"acl TOPIC:LITERAL:orders.v1 User:alice@* DESCRIBE ALLOW deleted",
		"acl TOPIC:LITERAL:orders.v1 User:alice@* READ ALLOW deleted",
		"acl TOPIC:LITERAL:orders.v1 User:bob@* DESCRIBE ALLOW deleted",
	},
	"quota":  {`quota user="alice" changed producer_byte_rate:1048576→2048`},
	"delete": {"topic payments_v2.eu deleted", "config TOPIC payments_v2.eu deleted"},
}

// zkPendingDeletion is the change ZooKeeper's history has besides
// wantChanges: the topic marked for deletion before it is deleted.
const zkPendingDeletion = "topic payments_v2.eu changed pendingDeletion:-→true"

// restoreActions is what restore plans to undo historyChanges.
var restoreActions = []string{
	"alter-configs config TOPIC orders.v1",
	`alter-quotas quota user="alice"`,
	"create-acl acl TOPIC:LITERAL:orders.v1 User:alice@* DESCRIBE ALLOW",
	"create-acl acl TOPIC:LITERAL:orders.v1 User:alice@* READ ALLOW",
	"create-acl acl TOPIC:LITERAL:orders.v1 User:bob@* DESCRIBE ALLOW",
	"create-topic topic payments_v2.eu",
}

// TestHistoryRestoreKafka44 is the KRaft acceptance on one combined Kafka
// 4.4.0 node with SASL, SCRAM users, the authorizer and the rich metadata
// set: after historyChanges, `kmeta history` of the controller's log dir
// lists exactly those changes, each at the offset and batch time `kmeta
// log dump` shows for its record, the time inside the wall-clock window
// of the change; `restore --dry-run`, a restore from another cluster's
// log and one without confirmation send nothing (the log shows no record
// but NoOps); `restore --to kraft:DIR@offset=BEFORE kafka://...` undoes
// them, reads back nothing left, and `diff kraft:DIR@offset=BEFORE
// kafka://...` shows only the re-created topic's id; the history of the
// restore lists its own changes.
func TestHistoryRestoreKafka44(t *testing.T) {
	kafkatest.Concurrently(t) // its own cluster: shares nothing
	began := time.Now()
	defer func() { t.Logf("TestHistoryRestoreKafka44 took %s", time.Since(began).Round(time.Second)) }()
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{SASL: true, SCRAMUsers: true, Authorizer: true,
		Props: map[string]string{"super.users": "User:" + kafkatest.AdminUser + ";User:ANONYMOUS;User:" + kafkatest.SCRAM512User}})
	populateLive(t, c, 1)
	bs := "--bootstrap-server " + c.BootstrapServers()
	h := newHistorySteps(t, d, bs)
	h.step("setup", "kafka-acls "+bs+" --add --allow-principal User:bob --operation Describe --topic orders.v1")
	dir := c.MetadataLogDir(kafkatest.FirstBrokerID)
	logEnd := func() int64 {
		t.Helper()
		res, err := metalog.LoadImage(dir, metalog.ImageOptions{AtOffset: -1})
		if err != nil {
			t.Fatal(err)
		}
		return res.EndOffset - 1
	}
	before := logEnd()
	historyChanges(h, bs)
	live := "kafka://" + c.BootstrapFor(kafkatest.ClientSCRAM512)
	props := c.ClientProperties(t, kafkatest.ClientSCRAM512)
	point := fmt.Sprintf("kraft:%s@offset=%d", dir, before)
	t.Logf("setup done in %s; the point is offset %d", time.Since(began).Round(time.Second), before)

	t.Run("history", func(t *testing.T) {
		changes := historyJSON(t, "kraft:"+dir, "--since", strconv.FormatInt(before+1, 10))
		recs := dumpedSegments(t, dir)
		byOffset := map[int64]jsonRecord{}
		for _, r := range recs {
			byOffset[r.Offset] = r
		}
		var got, want []string
		for _, c := range changes {
			got = append(got, changeKey(c))
		}
		for _, ws := range wantChanges {
			want = append(want, ws...)
		}
		sort.Strings(want)
		stripped := slices.Clone(got)
		for i, g := range stripped {
			_, stripped[i], _ = strings.Cut(g, " ") // the record
		}
		sort.Strings(stripped)
		if !slices.Equal(stripped, want) {
			t.Fatalf("history since offset %d:\n%s\nwant:\n%s", before+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, c := range changes {
			r, ok := byOffset[*c.Offset]
			if !ok {
				t.Errorf("%s: log dump has no record at offset %d", changeKey(c), *c.Offset)
				continue
			}
			bt := time.UnixMilli(r.Time).UTC()
			window := ""
			for name, ws := range wantChanges {
				_, k, _ := strings.Cut(changeKey(c), " ")
				if slices.Contains(ws, k) {
					window = name
				}
			}
			win := h.windows[window]
			switch {
			case strings.ToUpper(recordSnake(c.Record)) != r.Type:
				t.Errorf("%s at offset %d: log dump's record there is %s", changeKey(c), *c.Offset, r.Type)
			case c.Time != bt.Format(time.RFC3339Nano):
				t.Errorf("%s: time %s, the batch's %s", changeKey(c), c.Time, bt.Format(time.RFC3339Nano))
			case !inKRaftWindow(bt, win):
				t.Errorf("%s: batch time %s outside the change's window [%s, %s] (less %s)", changeKey(c), bt, win[0].UTC(), win[1].UTC(), batchEarly)
			default:
				t.Logf("offset %4d %s %s", *c.Offset, c.Time, changeKey(c))
			}
		}
		// The other forms: text lines, one per change, and the html page.
		r := kmeta("history", "kraft:"+dir, "--since", strconv.FormatInt(before+1, 10), "--entity", "topic:payments_v2.eu")
		if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != exitOK || len(lines) < 2 ||
			!strings.Contains(lines[0], "RemoveTopicRecord: topic payments_v2.eu deleted: id=") {
			t.Errorf("history -o text --entity topic:payments_v2.eu: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := kmeta("history", "-o", "html", "--report-time", "2026-01-02T15:04:05Z", "kraft:"+dir); r.code != exitOK ||
			!strings.Contains(r.stdout, `id="chart-history-time"`) || !strings.Contains(r.stdout, "payments_v2.eu") {
			t.Errorf("history -o html: exit %d, %d bytes\n%s", r.code, len(r.stdout), r.stderr)
		}
	})

	// Made after the point, so restore lists them as not restored, each
	// with the command that undoes it.
	h.step("after the point", "kafka-topics "+bs+" --create --topic created.after --partitions 1 --replication-factor 1",
		"kafka-configs "+bs+" --alter --entity-type users --entity-name erin --add-config 'SCRAM-SHA-256=[iterations=4096,password=erin-secret]'")

	t.Run("dry run and refusals send nothing", func(t *testing.T) {
		end := logEnd()
		code, doc, stderr := runRestore(t, "--to", point, live, "--command-config", props, "--dry-run")
		if code != exitOK || doc.Outcome != report.RestoreWouldDo || !slices.Equal(doc.actions(), restoreActions) || len(doc.Applied) != 0 {
			t.Errorf("--dry-run: exit %d, outcome %s, actions %q, applied %v\n%s", code, doc.Outcome, doc.actions(), doc.Applied, stderr)
		}
		for _, v := range doc.Validated {
			if v.Error != "" || v.NotValidated != strings.HasSuffix(string(v.Action), "-acl") {
				t.Errorf("validate-only: %+v", v)
			}
		}
		// Every change named on stderr before anything is sent.
		for _, a := range restoreActions {
			if !strings.Contains(stderr, "kmeta: restore will send: "+a) {
				t.Errorf("--dry-run: %q not named on stderr:\n%s", a, stderr)
			}
		}
		// Another cluster's log (the fixture's) is refused.
		other := "kraft:" + filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
		code, doc, _ = runRestore(t, "--to", other, live, "--command-config", props, "--yes")
		if code != exitFindings || doc.Outcome != report.RestoreRefused || doc.Plan.Refused == "" || len(doc.Plan.Actions) != 0 {
			t.Errorf("another cluster: exit %d, outcome %s, refused %q", code, doc.Outcome, doc.Plan.Refused)
		}
		// Without --yes and without a terminal: no confirmation, no write.
		if r := kmeta("restore", "--to", point, live, "--command-config", props); r.code != exitFailure || !strings.Contains(r.stderr, "--yes") {
			t.Errorf("no --yes, no terminal: exit %d\n%s", r.code, r.stderr)
		}
		for _, r := range dumpedSegments(t, dir) {
			if r.Offset > end && r.Type != "NO_OP_RECORD" {
				t.Errorf("a record at offset %d after the dry run and refusals: %s %v", r.Offset, r.Type, r.Data)
			}
		}
	})

	var restored int64
	var undo []string // the commands that undo what restore does not
	t.Run("restore", func(t *testing.T) {
		restored = logEnd()
		code, doc, stderr := runRestore(t, "--to", point, live, "--command-config", props, "--yes")
		if code != exitOK || doc.Outcome != report.RestoreDone || !doc.ReadBack || len(doc.Left) != 0 || !slices.Equal(doc.actions(), restoreActions) {
			t.Fatalf("restore: exit %d, outcome %s, actions %q, left %s\n%s", code, doc.Outcome, doc.actions(), doc.Left, stderr)
		}
		for _, a := range doc.Applied {
			if a.Error != "" {
				t.Errorf("applied: %+v", a)
			}
		}
		var nr []string
		for _, u := range doc.Plan.NotRestored {
			nr = append(nr, u.Entity+": "+u.Difference)
			if u.Command != nil && u.Command.Runnable {
				undo = append(undo, u.Command.Line)
			}
		}
		if want := []string{"topic payments_v2.eu: its data", "topic created.after: created since the point", "scram erin SCRAM-SHA-256: added since the point"}; !slices.Equal(nr, want) {
			t.Errorf("not restored %q, want %q", nr, want)
		}
		conn := "--bootstrap-server " + c.BootstrapFor(kafkatest.ClientSCRAM512) + " --command-config " + props
		if want := []string{"kafka-topics " + conn + " --delete --topic created.after",
			"kafka-configs " + conn + " --alter --entity-type users --entity-name erin --delete-config SCRAM-SHA-256"}; !slices.Equal(undo, want) {
			t.Errorf("the commands that undo what is not restored:\n%s\nwant\n%s", strings.Join(undo, "\n"), strings.Join(want, "\n"))
		}
	})

	// Run with Kafka's tools as printed, they leave nothing but the
	// re-created topic's id to differ (below).
	var undone int64
	t.Run("not restored, undone as printed", func(t *testing.T) {
		undone = logEnd()
		sh := d.Shell(t)
		for _, l := range undo {
			sh.OK(l)
		}
	})

	t.Run("diff after restore", func(t *testing.T) {
		// The broker's image may lag the controller's log a moment.
		var got []string
		for attempt := 0; attempt < 10; attempt++ {
			got = diffChanges(t, point, live, "--command-config", props)
			if len(got) <= 1 {
				break
			}
			time.Sleep(time.Second)
		}
		// The re-created topic has a new id; nothing else differs.
		want := []string{"changed topic payments_v2.eu|id"}
		if !slices.Equal(got, want) {
			t.Errorf("diff %s %s:\n%q\nwant %q", point, live, got, want)
		}
	})

	t.Run("history of the restore", func(t *testing.T) {
		seen := map[string]bool{}
		for _, c := range historyJSON(t, "kraft:"+dir, "--since", strconv.FormatInt(restored+1, 10), "--until", strconv.FormatInt(undone, 10)) {
			if c.Kind != "partition" {
				seen[c.Record+" "+c.Entity+" "+c.Action] = true
			}
		}
		want := []string{
			"AccessControlEntryRecord acl TOPIC:LITERAL:orders.v1 User:alice@* DESCRIBE ALLOW created",
			"AccessControlEntryRecord acl TOPIC:LITERAL:orders.v1 User:alice@* READ ALLOW created",
			"AccessControlEntryRecord acl TOPIC:LITERAL:orders.v1 User:bob@* DESCRIBE ALLOW created",
			`ClientQuotaRecord quota user="alice" changed`,
			"ConfigRecord config TOPIC orders.v1 changed",
			"ConfigRecord config TOPIC payments_v2.eu created",
			"PartitionRecord topic payments_v2.eu changed",
			"TopicRecord topic payments_v2.eu created",
		}
		if got := slices.Sorted(func(yield func(string) bool) {
			for k := range seen {
				if !yield(k) {
					return
				}
			}
		}); !slices.Equal(got, want) {
			t.Errorf("history of the restore:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestHistoryRestoreZooKeeper39 is the ZooKeeper acceptance on Kafka
// 3.9.2 in ZooKeeper mode (one broker, the authorizer, the rich set
// without tokens): after historyChanges, `kmeta history` of ZooKeeper's
// data dir lists exactly those changes (and the partition states Kafka's
// controller rewrites as it deletes the topic), each at the zxid
// ZooKeeper's own shell gives (the mzxid of a config znode set, the pzxid
// of the parent of a znode deleted), its time inside the change's
// window and, for a znode set, its mtime; `restore --to zkdata:DIR@zxid=BEFORE zk://... --print` prints
// Kafka's commands, the test runs them with Kafka 3.9.2's tools, and
// `diff zkdata:DIR@zxid=BEFORE zk://...` then shows only the re-created
// topic's id.
func TestHistoryRestoreZooKeeper39(t *testing.T) {
	kafkatest.Concurrently(t) // its own cluster: shares nothing
	began := time.Now()
	defer func() { t.Logf("TestHistoryRestoreZooKeeper39 took %s", time.Since(began).Round(time.Second)) }()
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zk := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	c := kafkatest.StartZKCluster(t, d, zk, kafkatest.ZKClusterOptions{Brokers: 1, Authorizer: true})
	ctx := t.Context()
	if md, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Brokers: 1}); err != nil {
		t.Fatalf("%v\ndone: %v", err, md.Log)
	}
	bs := "--bootstrap-server " + c.BootstrapServers()
	h := newHistorySteps(t, d, bs)
	h.step("setup", "kafka-acls "+bs+" --add --allow-principal User:bob --operation Describe --topic orders.v1")
	maxZxid := func() int64 {
		t.Helper()
		tr, err := zkread.ReadDataDir(zk.DataDir, zkread.DataDirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.MaxZxid
	}
	before := maxZxid()
	historyChanges(h, bs)
	// ZooKeeper mode deletes a topic in the background: wait until it is
	// gone, its config too.
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := kmeta("image", "-o", "json", "zk://"+zk.Addr())
		var img struct {
			Topics  []struct{ Name string }
			Configs []struct{ ResourceName string }
			ZK      struct{ PendingTopicDeletions []string }
		}
		gone := st.code == exitOK && json.Unmarshal([]byte(st.stdout), &img) == nil && len(img.ZK.PendingTopicDeletions) == 0 &&
			!slices.ContainsFunc(img.Topics, func(t struct{ Name string }) bool { return t.Name == "payments_v2.eu" }) &&
			!slices.ContainsFunc(img.Configs, func(c struct{ ResourceName string }) bool { return c.ResourceName == "payments_v2.eu" })
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("payments_v2.eu not deleted after 60 s")
		}
		time.Sleep(500 * time.Millisecond)
	}
	h.windows["delete"] = [2]time.Time{h.windows["delete"][0], time.Now()}
	src := "zkdata:" + zk.DataDir
	point := fmt.Sprintf("%s@zxid=%d", src, before)
	target := "zk://" + zk.Addr()
	t.Logf("setup done in %s; the point is zxid %#x", time.Since(began).Round(time.Second), before)

	t.Run("history", func(t *testing.T) {
		changes := historyJSON(t, src, "--since", strconv.FormatInt(before+1, 10))
		var got, want []string
		for _, c := range changes {
			if c.Kind == "partition" {
				// The controller rewrites the deleted topic's partition
				// states before it removes them: nothing else moves.
				if !strings.HasPrefix(c.Entity, "partition payments_v2.eu-") {
					t.Errorf("a partition change outside the topic deleted: %s", changeKey(c))
				}
				continue
			}
			got = append(got, changeKey(c))
		}
		for _, ws := range wantChanges {
			want = append(want, ws...)
		}
		// ZooKeeper marks the topic for deletion (/admin/delete_topics)
		// before its controller deletes it; KRaft removes it at once.
		want = append(want, zkPendingDeletion)
		sort.Strings(want)
		stripped := slices.Clone(got)
		for i, g := range stripped {
			_, stripped[i], _ = strings.Cut(g, " ")
		}
		sort.Strings(stripped)
		if !slices.Equal(stripped, want) {
			t.Fatalf("history since zxid %#x:\n%s\nwant:\n%s", before+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// Each change's zxid is ZooKeeper's own: the mzxid of the znode
		// set, or the pzxid of the parent of the znode deleted.
		var deleted int64 // the topic's deletion
		for _, c := range changes {
			if _, k, _ := strings.Cut(changeKey(c), " "); k == "topic payments_v2.eu deleted" {
				deleted = *c.Zxid
			}
		}
		for _, c := range changes {
			if c.Kind == "partition" {
				continue
			}
			window := ""
			_, k, _ := strings.Cut(changeKey(c), " ")
			for name, ws := range wantChanges {
				if slices.Contains(ws, k) {
					window = name
				}
			}
			if k == zkPendingDeletion {
				// The controller deletes the mark with the topic, and its
				// stat with it: the mark is after the point, before the
				// deletion, in the deletion's window.
				win := h.windows["delete"]
				ct, err := time.Parse(time.RFC3339Nano, c.Time)
				if err != nil || *c.Zxid <= before || *c.Zxid >= deleted || ct.Before(win[0]) || ct.After(win[1]) {
					t.Errorf("%s: zxid %#x at %s (%v), want after the point %#x and before the deletion %#x, in [%s, %s]",
						changeKey(c), *c.Zxid, c.Time, err, before, deleted, win[0].UTC(), win[1].UTC())
				}
				continue
			}
			var zxid int64
			var mtime time.Time // the znode's, to the second: a set's transaction time
			how := "mzxid of " + c.Znode
			if c.Record == "delete" {
				parent := c.Znode[:strings.LastIndexByte(c.Znode, '/')]
				zxid, how = zkShellStat(t, d, zk, parent).pzxid, "pzxid of "+parent
			} else {
				st := zkShellStat(t, d, zk, c.Znode)
				zxid, mtime = st.mzxid, st.mtime
			}
			win := h.windows[window]
			ct, err := time.Parse(time.RFC3339Nano, c.Time)
			switch {
			case err != nil:
				t.Errorf("%s: time %q: %v", changeKey(c), c.Time, err)
			case *c.Zxid != zxid:
				t.Errorf("%s: zxid %#x, ZooKeeper's %s is %#x", changeKey(c), *c.Zxid, how, zxid)
			case ct.Before(win[0]) || ct.After(win[1]):
				t.Errorf("%s: time %s outside the change's window [%s, %s]", changeKey(c), ct, win[0].UTC(), win[1].UTC())
			case !mtime.IsZero() && !ct.Truncate(time.Second).Equal(mtime):
				t.Errorf("%s: time %s, ZooKeeper's mtime of %s is %s", changeKey(c), ct, c.Znode, mtime.UTC())
			default:
				t.Logf("zxid %#x (%s) %s %s %s", *c.Zxid, how, c.Time, c.Znode, changeKey(c))
			}
		}
	})

	t.Run("restore --print, run by Kafka's tools", func(t *testing.T) {
		code, doc, stderr := runRestore(t, "--to", point, target, "--print", "--print-bootstrap-server", c.BootstrapServers())
		if code != exitOK || doc.Outcome != report.RestorePrinted || !slices.Equal(doc.actions(), restoreActions) || len(doc.Commands) != len(restoreActions) {
			t.Fatalf("restore --print: exit %d, outcome %s, actions %q, %d commands\n%s", code, doc.Outcome, doc.actions(), len(doc.Commands), stderr)
		}
		sh := d.Shell(t)
		for _, cmd := range doc.Commands {
			if !cmd.Runnable {
				t.Fatalf("not runnable as printed: %s", cmd.Line)
			}
			sh.OK(cmd.Line)
			t.Logf("ran: %s", cmd.Line)
		}
	})

	t.Run("diff after restore", func(t *testing.T) {
		var got []string
		for attempt := 0; attempt < 20; attempt++ {
			got = diffChanges(t, point, target)
			if len(got) <= 1 {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		want := []string{"changed topic payments_v2.eu|id"}
		if !slices.Equal(got, want) {
			t.Errorf("diff %s %s:\n%q\nwant %q", point, target, got, want)
		}
	})
}

// diffChanges runs kmeta diff -o json and returns its findings as
// "CODE ENTITY|FIELD", sorted.
func diffChanges(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, stderr := runKmeta(t, append([]string{"diff", "-o", "json"}, args...)...)
	var rep verifyOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("diff: exit %d, %v\n%s", code, err, stderr)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Code+" "+f.Entity+"|"+f.Field)
	}
	sort.Strings(got)
	return got
}
