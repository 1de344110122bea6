package metalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// recoveryOracleJava runs Kafka's own log layer over one segment per dir
// argument: LogSegment.recover (what log loading does after an unclean
// shutdown), with an offset-index entry for every batch so that the index's
// rule (offsets strictly increase) is applied to each one, and then the
// reads by offset the raft client makes from the segment's base offset.
// It prints "recover ok" or "recover error <exception>", then "read" and
// the batches in the order Kafka hands them to the metadata loader.
const recoveryOracleJava = `
import java.io.File;
import java.util.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.*;

public class RecoveryOracle {
    public static void main(String[] args) throws Exception {
        KafkaScheduler sch = new KafkaScheduler(1, true);
        sch.startup();
        TopicPartition tp = new TopicPartition("__cluster_metadata", 0);
        for (String a : args) {
            File dir = new File(a);
            long base = 0;
            LogSegment seg = LogSegment.open(dir, base, new LogConfig(Map.of("index.interval.bytes", "1")), Time.SYSTEM, true, 0, false, "");
            try {
                LeaderEpochFileCache cache = new LeaderEpochFileCache(tp, new LeaderEpochCheckpointFile(new File(dir, "epochs"), new LogDirFailureChannel(1)), sch);
                seg.recover(new ProducerStateManager(tp, dir, 60000, new ProducerStateManagerConfig(86400000, false), Time.SYSTEM), cache);
                System.out.println("recover ok");
            } catch (Throwable e) {
                System.out.println("recover error " + e);
            }
            StringBuilder sb = new StringBuilder("read");
            long next = base;
            for (int guard = 0; guard < 100000; guard++) {
                FetchDataInfo f = seg.read(next, Integer.MAX_VALUE);
                if (f == null) break;
                long before = next;
                for (RecordBatch b : f.records.batches()) {
                    sb.append(" ").append(b.baseOffset()).append("-").append(b.lastOffset());
                    next = b.lastOffset() + 1;
                }
                if (next <= before) break;
            }
            System.out.println(sb);
            seg.close();
        }
        sch.shutdown();
    }
}
`

// TestRecoveryMatchesKafkaLogLayer takes the 4.4.0 fixture's whole log as
// one segment, swaps two batches or repeats one, and asks Kafka 4.4.0's
// own log layer what it makes of it: recovery refuses both (the offset
// index cannot take an offset that does not increase: Kafka would not
// start), and without recovery the reads by offset hand the batches to
// the loader in file order, out of order or twice. kmeta does neither: it
// stops replay at the first batch whose offsets do not follow the batch
// Kafka read before it, and marks the image partial; on the unmutated log
// both agree there is nothing to stop for.
func TestRecoveryMatchesKafkaLogLayer(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	ld, err := OpenLogDir(filepath.Join("..", "testdata", "kraft", kafkatest.Latest4, "metadata"))
	must(t, err)
	var all []byte
	for _, s := range ld.Segments {
		b, err := os.ReadFile(s.Path)
		must(t, err)
		all = append(all, b...)
	}
	work := t.TempDir()
	cases := []string{"original", "swap", "duplicate"}
	var dirs []string
	for _, c := range cases {
		dir := filepath.Join(work, c)
		must(t, os.Mkdir(dir, 0o755))
		p := filepath.Join(dir, SegmentFileName(0))
		must(t, os.WriteFile(p, all, 0o644))
		sp := batchSpans(t, p)
		i := len(sp) / 2
		x, y := sp[i], sp[i+1]
		var out []byte
		switch c {
		case "original":
			out = all
		case "swap":
			out = append(append(append(append([]byte(nil), all[:x.pos]...), batchBytes(all, y)...), batchBytes(all, x)...), all[y.pos+y.size:]...)
		case "duplicate":
			out = append(append(append([]byte(nil), all[:x.pos+x.size]...), batchBytes(all, x)...), all[x.pos+x.size:]...)
		}
		must(t, os.WriteFile(p, out, 0o644))
		dirs = append(dirs, dir)
	}
	// Run kmeta first: the oracle writes index files into the dirs.
	type verdict struct {
		stoppedAt int64
		partial   bool
		checkOK   bool
	}
	got := map[string]verdict{}
	for i, c := range cases {
		res, err := LoadImage(dirs[i], ImageOptions{AtOffset: -1})
		must(t, err)
		rep, err := Check(dirs[i], CheckOptions{Strict: true})
		must(t, err)
		got[c] = verdict{res.StoppedAt, res.Image.IsPartial(), rep.OK()}
	}
	src := filepath.Join(work, "RecoveryOracle.java")
	must(t, os.WriteFile(src, []byte(recoveryOracleJava), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, stderr, err := d.Run(ctx, src, dirs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2*len(cases) {
		t.Fatalf("oracle output:\n%s", out)
	}
	for i, c := range cases {
		recovered := lines[2*i] == "recover ok"
		// The first batch Kafka hands over whose base offset does not
		// follow the last offset before it.
		firstOdd := int64(-1)
		prev := int64(-1)
		for _, r := range strings.Fields(lines[2*i+1])[1:] {
			a, b, _ := strings.Cut(r, "-")
			base, _ := strconv.ParseInt(a, 10, 64)
			last, _ := strconv.ParseInt(b, 10, 64)
			if prev >= 0 && base != prev+1 && firstOdd < 0 {
				firstOdd = base
			}
			prev = last
		}
		v := got[c]
		t.Logf("%s: Kafka %s; Kafka's first out-of-order batch %d; kmeta stopped at %d, partial %v, check ok %v", c, lines[2*i], firstOdd, v.stoppedAt, v.partial, v.checkOK)
		if c == "original" {
			if !recovered || firstOdd != -1 || v.partial || v.stoppedAt != -1 || !v.checkOK {
				t.Errorf("original: Kafka %q, first odd %d; kmeta %+v", lines[2*i], firstOdd, v)
			}
			continue
		}
		if recovered || !strings.Contains(lines[2*i], "InvalidOffsetException") {
			t.Errorf("%s: Kafka's recovery accepted it: %s", c, lines[2*i])
		}
		if !v.partial || v.checkOK || v.stoppedAt != firstOdd {
			t.Errorf("%s: kmeta %+v, want a partial image stopped at %d (%s)", c, v, firstOdd, fmt.Sprint(lines[2*i+1]))
		}
	}
}
