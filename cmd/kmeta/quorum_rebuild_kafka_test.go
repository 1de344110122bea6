package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestQuorumRebuildKafka is the disaster drill on real Kafka 4.4.0: 3
// dedicated controllers (a static quorum: the harness formats a dynamic
// one only with --standalone, for a single controller), 3 brokers, the
// rich metadata set and messages. The brokers stop, two controllers are
// killed (kill -9) and their metadata dirs deleted, the survivor stops;
// kmeta quorum rebuild writes three new controller dirs from the
// survivor's copy, which replace the controllers' dirs. Real controllers
// start on them, the brokers rejoin without being reformatted, and then:
// kmeta diff of a new controller's dir against the survivor's copy
// at the loss shows no difference but what the restart moves (the
// brokers' epochs, incarnations, fencing and controlled shutdown, and the
// partitions' leaders, ISR, ELR and epochs re-elected with them), every message is consumed back, and a new topic can be
// created. One cluster start, one restart on the rebuilt quorum.
func TestQuorumRebuildKafka(t *testing.T) {
	kafkatest.SkipIfUnitOnly(t)
	d := kafkatest.Dist(t, "4.4.0")
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{Controllers: 3, Brokers: 3, SASL: true, Authorizer: true})
	defer c.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	rich, err := kafkatest.PopulateRich(ctx, c, c.Admin(t), kafkatest.RichOptions{ACLs: true, Tokens: true})
	if err != nil {
		t.Fatalf("%v\ndone: %v", err, rich.Log)
	}
	data, err := kafkatest.ProduceData(ctx, c, kafkatest.DataOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := kafkatest.ConsumeAll(ctx, c, data.Topics, len(data.Produced))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := c.DescribeQuorum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The survivor is the leader: it holds every committed record.
	survivor := int(qs.LeaderID)
	var lost []int
	for _, id := range c.Controllers() {
		if id != survivor {
			lost = append(lost, id)
		}
	}
	survivorDir := c.MetadataLogDir(survivor)
	if code, out, errs := runKmeta(t, "image", "-o", "json", survivorDir); code != exitOK || !strings.Contains(out, `"topics"`) {
		t.Fatalf("kmeta image of %s before the loss: exit %d: %s", survivorDir, code, errs)
	}

	// The loss: brokers stop (they need the quorum for a controlled
	// shutdown), two controllers die and lose their disks, the survivor
	// stops.
	for _, b := range c.Brokers() {
		c.StopNode(b)
	}
	for _, id := range lost {
		c.KillNode(id)
	}
	c.StopNode(survivor)
	beforeCopy := filepath.Join(t.TempDir(), "before")
	fstree.CopyTo(t, survivorDir, beforeCopy)
	for _, id := range lost {
		if err := os.RemoveAll(c.MetadataLogDir(id)); err != nil {
			t.Fatal(err)
		}
	}

	out := filepath.Join(t.TempDir(), "rebuilt")
	code, stdout, stderr := runKmeta(t, "quorum", "rebuild", "--from", survivorDir, "--controllers", c.QuorumVoters(), "--out", out)
	if code != exitOK {
		t.Fatalf("quorum rebuild: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("quorum rebuild:\n%s", stdout)
	if !strings.Contains(stdout, "Brokers: nothing to change") {
		t.Errorf("same cluster id and voters: brokers should need nothing:\n%s", stdout)
	}
	for _, id := range c.Controllers() {
		dir := c.MetadataLogDir(id)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(out, "controller-"+strconv.Itoa(id)), dir); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	c.StartNodes(c.Controllers()...)
	c.StartNodes(c.Brokers()...)
	c.WaitBrokers(t, 2*time.Minute, c.Brokers()...)
	t.Logf("rebuilt quorum and brokers up in %s", time.Since(start).Round(time.Second))

	// The metadata: kmeta diff of the running leader's dir against the
	// copy before the loss.
	code, diffOut, diffErr := runKmeta(t, "diff", beforeCopy, c.MetadataLogDir(survivor))
	t.Logf("kmeta diff (exit %d):\n%s%s", code, diffOut, diffErr)
	// What a restart legitimately moves, and nothing else: the brokers
	// stopped in a controlled way before the loss (fenced, their
	// partitions leaderless with ELR), and re-registered after it (a new
	// epoch and incarnation, unfenced, leaders re-elected).
	moves := map[string]bool{
		"brokers/epoch": true, "brokers/fenced": true, "brokers/inControlledShutdown": true, "brokers/incarnationId": true,
		"runtime/leader": true, "runtime/leaderEpoch": true, "runtime/partitionEpoch": true, "runtime/isr": true,
		"runtime/elr": true, "runtime/lastKnownElr": true,
	}
	rows := 0
	for _, ln := range strings.Split(diffOut, "\n") {
		f := strings.Fields(ln)
		if len(f) < 6 || f[2] != "changed" && f[2] != "added" && f[2] != "removed" {
			continue
		}
		rows++
		if !moves[f[0]+"/"+f[5]] {
			t.Errorf("a difference a restart does not explain: %s", ln)
		}
	}
	if code != exitOK && rows == 0 {
		t.Errorf("kmeta diff exit %d with no difference row: %s", code, diffErr)
	}
	after, err := kafkatest.ConsumeAll(ctx, c, data.Topics, len(before))
	if err != nil {
		t.Fatal(err)
	}
	if dd := kafkatest.DiffMessages(before, after); len(dd) > 0 {
		t.Fatalf("%d records differ after the rebuild, e.g.:\n%s", len(dd), strings.Join(dd[:min(10, len(dd))], "\n"))
	}
	t.Logf("all %d records read back", len(after))
	if _, err := c.Admin(t).CreateTopic(ctx, 3, 3, nil, "after.rebuild"); err != nil {
		t.Fatalf("creating a topic on the rebuilt quorum: %v", err)
	}
}
