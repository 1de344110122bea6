package metalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// truncateOracleJava opens each partition dir given as an argument the way
// a Kafka 4.4.0 controller opens its metadata log at startup:
// KafkaRaftLog.createLog, which loads the log (UnifiedLog.create), lists
// the snapshots and calls truncateToLatestSnapshot. It prints one line per
// dir: the log's start and end offsets and its latest snapshot id.
const truncateOracleJava = `
import java.io.File;
import java.util.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.raft.MetadataLogConfig;
import org.apache.kafka.raft.internals.KafkaRaftLog;
import org.apache.kafka.server.util.KafkaScheduler;

public class TruncateOracle {
    public static void main(String[] args) throws Exception {
        KafkaScheduler sch = new KafkaScheduler(1, true);
        sch.startup();
        TopicPartition tp = new TopicPartition("__cluster_metadata", 0);
        MetadataLogConfig cfg = new MetadataLogConfig(new AbstractConfig(MetadataLogConfig.CONFIG_DEF, Map.of(), false));
        for (String a : args) {
            KafkaRaftLog log = KafkaRaftLog.createLog(tp, Uuid.METADATA_TOPIC_ID, new File(a), Time.SYSTEM, sch, cfg, 1);
            String snap = log.latestSnapshotId().map(id -> id.offset() + "-" + id.epoch()).orElse("none");
            System.out.println("start " + log.startOffset() + " end " + log.endOffset().offset() + " snapshot " + snap);
            log.close();
        }
        sch.shutdown();
    }
}
`

// TestTruncationMatchesKafkaRaftLog: the 3.9.2 fixture (one leader epoch,
// 1, from offset 0; the log ends at offset 169) with its snapshot 90-1
// renamed, opened by Kafka 4.4.0's own KafkaRaftLog.createLog, whose
// truncateToLatestSnapshot discards the log for a snapshot of a greater
// epoch than the log's latest, or of the same epoch ending past the log
// end offset. kmeta's replay plan must agree in each case: Kafka's log
// start is where kmeta's replay starts, no segment is replayed exactly
// when Kafka emptied the log (with the log-behind-snapshot warning when
// the same epoch decided), and the image ends where Kafka's log ends.
// Kafka: 500-1 and 170-1 (past the end) truncate, 169-1 (at the end) and
// the fixture's own 90-1 do not. (A snapshot renamed to a newer epoch is
// no case here: its batches still carry epoch 1, which kmeta's snapshot
// check refuses.)
func TestTruncationMatchesKafkaRaftLog(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	type want struct{ start, end int64 }
	cases := []struct {
		snap  SnapshotID
		kafka want // what Kafka 4.4.0 does, checked below as well
	}{
		{SnapshotID{EndOffset: 500, Epoch: 1}, want{500, 500}},
		{SnapshotID{EndOffset: 170, Epoch: 1}, want{170, 170}},
		{SnapshotID{EndOffset: 169, Epoch: 1}, want{0, 169}},
		{SnapshotID{EndOffset: 90, Epoch: 1}, want{0, 169}},
	}
	var dirs []string
	for _, c := range cases {
		dir := fstree.Copy(t, "../testdata/kraft/3.9.2/metadata")
		pd := filepath.Join(dir, MetadataPartitionDir)
		snap := filepath.Join(pd, c.snap.FileName())
		if c.snap != (SnapshotID{EndOffset: 90, Epoch: 1}) {
			must(t, os.Rename(filepath.Join(pd, "00000000000000000090-0000000001.checkpoint"), snap))
		}
		// kmeta first: Kafka deletes the segments it discards.
		for _, oldest := range []bool{false, true} {
			res, err := LoadImage(dir, ImageOptions{AtOffset: -1, Oldest: oldest})
			must(t, err)
			p := res.Plan
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, fmt.Sprintf("%s %s %s", w.Code, w.Where, w.Message))
			}
			truncated := c.kafka.start > 0
			var wantWarns []string
			if truncated {
				wantWarns = []string{fmt.Sprintf("%s %s the snapshot ends at offset %d, past the log's end (offset 169) at the log's latest leader epoch: Kafka discards the log and restarts it at the snapshot, and so does replay",
					WarnLogBehindSnapshot, model.At(snap, -1, c.snap.EndOffset), c.snap.EndOffset)}
			}
			// Replay starts at Kafka's log start: at the snapshot when
			// Kafka kept none of the log, else at the snapshot (newest;
			// the log start, offset 0, for history) and the segments.
			start := c.snap.EndOffset
			if oldest && !truncated {
				start = 0
			}
			if p.Truncated != truncated || (len(p.Segments) == 0) != truncated || p.StartOffset != start ||
				res.Image.Provenance.Offset != c.kafka.end-1 || !slices.Equal(warns, wantWarns) {
				t.Errorf("snapshot %s, oldest %v: kmeta truncated %v, %d segments, starts at %d, image at offset %d, warnings\n%s\nwant truncated %v, start %d, image at offset %d, warnings\n%s",
					c.snap.FileName(), oldest, p.Truncated, len(p.Segments), p.StartOffset, res.Image.Provenance.Offset, strings.Join(warns, "\n"),
					truncated, start, c.kafka.end-1, strings.Join(wantWarns, "\n"))
			}
		}
		dirs = append(dirs, pd)
	}
	src := filepath.Join(t.TempDir(), "TruncateOracle.java")
	must(t, os.WriteFile(src, []byte(truncateOracleJava), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, stderr, err := d.Run(ctx, src, dirs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("Kafka 4.4.0's KafkaRaftLog.createLog, for %d dirs:\n%s", len(dirs), out)
	var got, wantLines []string
	got = strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, c := range cases {
		wantLines = append(wantLines, fmt.Sprintf("start %d end %d snapshot %d-%d", c.kafka.start, c.kafka.end, c.snap.EndOffset, c.snap.Epoch))
	}
	if !slices.Equal(got, wantLines) {
		t.Errorf("Kafka 4.4.0's KafkaRaftLog:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
}
