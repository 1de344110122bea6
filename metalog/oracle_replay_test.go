package metalog

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/kafkatest"
	"github.com/kmeta/kmeta/metalog/internal/wire"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// replayOracleJava replays a segment with Kafka's own MetadataBatchLoader
// and MetadataDelta (kafka-metadata jar) and prints the resulting image's
// features, brokers and partitions in the line format of imageFacts. It is
// run with the JVM's single-file source launcher, so no build step is
// needed. A record Kafka's delta refuses goes to the fault handler and is
// skipped, as on a broker.
const replayOracleJava = `
import java.io.File;
import java.util.*;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.*;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.image.*;
import org.apache.kafka.image.loader.MetadataBatchLoader;
import org.apache.kafka.metadata.*;
import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.server.common.ApiMessageAndVersion;

public class ReplayOracle {
    static MetadataImage last = MetadataImage.EMPTY;

    public static void main(String[] args) throws Exception {
        MetadataBatchLoader loader = new MetadataBatchLoader(new LogContext(), Time.SYSTEM,
            (msg, e) -> { System.err.println("fault: " + msg + ": " + e); return null; },
            (delta, image, manifest) -> { last = image; }, SupportedConfigChecker.TRUE);
        try (FileRecords fr = FileRecords.open(new File(args[0]))) {
            for (RecordBatch b : fr.batches()) {
                if (b.isControlBatch()) continue;
                List<ApiMessageAndVersion> recs = new ArrayList<>();
                for (org.apache.kafka.common.record.internal.Record r : b) {
                    recs.add(MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(r.value()), r.valueSize()));
                }
                loader.loadBatch(Batch.data(b.baseOffset(), b.partitionLeaderEpoch(), b.maxTimestamp(), b.sizeInBytes(), recs), LeaderAndEpoch.UNKNOWN);
                loader.maybeFlushBatches(LeaderAndEpoch.UNKNOWN, true);
            }
        }
        MetadataImage img = last;
        for (Map.Entry<String, Short> e : new TreeMap<>(img.features().finalizedVersions()).entrySet()) {
            if (!e.getKey().equals("metadata.version")) System.out.println("feature " + e.getKey() + " " + e.getValue());
        }
        System.out.println("metadata.version " + img.features().metadataVersion().map(v -> "" + v.featureLevel()).orElse("none"));
        for (BrokerRegistration br : new TreeMap<>(img.cluster().brokers()).values()) {
            System.out.println("broker " + br.id() + " epoch=" + br.epoch() + " fenced=" + br.fenced() + " inControlledShutdown=" + br.inControlledShutdown());
        }
        for (TopicImage t : new TreeMap<>(img.topics().topicsByName()).values()) {
            System.out.println("topic " + t.name() + " " + t.id());
            for (Map.Entry<Integer, PartitionRegistration> e : new TreeMap<>(t.partitions()).entrySet()) {
                PartitionRegistration p = e.getValue();
                StringBuilder dirs = new StringBuilder("[");
                for (int i = 0; i < p.directories.length; i++) dirs.append(i > 0 ? ", " : "").append(p.directories[i]);
                dirs.append("]");
                System.out.println("partition " + t.name() + " " + e.getKey() + " leader=" + p.leader + " leaderEpoch=" + p.leaderEpoch +
                    " partitionEpoch=" + p.partitionEpoch + " replicas=" + Arrays.toString(p.replicas) + " isr=" + Arrays.toString(p.isr) +
                    " elr=" + Arrays.toString(p.elr) + " lastKnownElr=" + Arrays.toString(p.lastKnownElr) + " directories=" + dirs);
            }
        }
        // The rest of the image, one sorted line per item.
        TreeSet<String> rest = new TreeSet<>();
        for (ConfigurationImage c : img.configs().resourceData().values()) {
            for (Map.Entry<String, String> e : c.data().entrySet()) {
                rest.add("config " + c.resource().type().id() + " " + c.resource().name() + " " + e.getKey() + "=" + e.getValue());
            }
        }
        for (Map.Entry<org.apache.kafka.common.quota.ClientQuotaEntity, ClientQuotaImage> q : img.clientQuotas().entities().entrySet()) {
            TreeMap<String, String> ent = new TreeMap<>();
            for (Map.Entry<String, String> e : q.getKey().entries().entrySet()) ent.put(e.getKey(), e.getValue() == null ? "<default>" : "'" + e.getValue() + "'");
            for (Map.Entry<String, Double> v : q.getValue().quotas().entrySet()) rest.add("quota " + ent + " " + v.getKey() + "=" + v.getValue());
        }
        for (org.apache.kafka.metadata.authorizer.StandardAcl a : img.acls().acls().values()) {
            rest.add("acl " + a.resourceType().code() + " " + a.resourceName() + " " + a.patternType().code() + " " + a.principal() + " " +
                a.host() + " " + a.operation().code() + " " + a.permissionType().code());
        }
        for (Map.Entry<org.apache.kafka.clients.admin.ScramMechanism, Map<String, ScramCredentialData>> m : img.scram().mechanisms().entrySet()) {
            for (Map.Entry<String, ScramCredentialData> u : m.getValue().entrySet()) {
                ScramCredentialData c = u.getValue();
                Base64.Encoder b64 = Base64.getEncoder();
                rest.add("scram " + u.getKey() + " " + m.getKey().type() + " iterations=" + c.iterations() + " salt=" + b64.encodeToString(c.salt()) +
                    " storedKey=" + b64.encodeToString(c.storedKey()) + " serverKey=" + b64.encodeToString(c.serverKey()));
            }
        }
        for (DelegationTokenData d : img.delegationTokens().tokens().values()) {
            org.apache.kafka.common.security.token.delegation.TokenInformation ti = d.tokenInformation();
            rest.add("token " + ti.tokenId() + " owner=" + ti.ownerAsString() + " requester=" + ti.tokenRequesterAsString() +
                " renewers=" + new TreeSet<>(ti.renewersAsString()) + " issue=" + ti.issueTimestamp() + " max=" + ti.maxTimestamp() + " expiry=" + ti.expiryTimestamp());
        }
        for (ControllerRegistration c : img.cluster().controllers().values()) {
            rest.add("controller " + c.id() + " incarnation=" + c.incarnationId() + " zkMigrationReady=" + c.zkMigrationReady());
        }
        rest.add("producerIds next=" + img.producerIds().nextProducerId());
        for (String l : rest) System.out.println(l);
    }
}
`

// imageFacts renders the parts of an image replayOracleJava prints, in
// the same form.
func imageFacts(img *model.Image) string {
	var b strings.Builder
	ints := func(v []int32) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	var names []string
	for n := range img.Features {
		if n != "metadata.version" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "feature %s %d\n", n, img.Features[n])
	}
	if mv, ok := img.Features["metadata.version"]; ok {
		fmt.Fprintf(&b, "metadata.version %d\n", mv)
	} else {
		b.WriteString("metadata.version none\n")
	}
	var ids []int
	for id := range img.Brokers {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		br := img.Brokers[int32(id)]
		fmt.Fprintf(&b, "broker %d epoch=%d fenced=%t inControlledShutdown=%t\n", id, br.Epoch, br.Fenced, br.InControlledShutdown)
	}
	names = names[:0]
	for n := range img.Topics {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := img.Topics[n]
		fmt.Fprintf(&b, "topic %s %s\n", n, t.ID)
		var ps []int
		for p := range t.Partitions {
			ps = append(ps, int(p))
		}
		sort.Ints(ps)
		for _, pid := range ps {
			p := t.Partitions[int32(pid)]
			dirs := make([]string, len(p.Directories))
			for i, d := range p.Directories {
				dirs[i] = d.String()
			}
			fmt.Fprintf(&b, "partition %s %d leader=%d leaderEpoch=%d partitionEpoch=%d replicas=%s isr=%s elr=%s lastKnownElr=%s directories=[%s]\n",
				n, pid, p.Leader, p.LeaderEpoch, p.PartitionEpoch, ints(p.Replicas), ints(p.ISR), ints(p.ELR), ints(p.LastKnownELR), strings.Join(dirs, ", "))
		}
	}
	// The rest, one line per item, sorted as the oracle sorts them.
	var rest []string
	for res, kv := range img.Configs {
		for k, v := range kv {
			rest = append(rest, fmt.Sprintf("config %d %s %s=%s", res.Type, res.Name, k, v))
		}
	}
	for _, q := range img.ClientQuotas {
		var ent []string
		for _, e := range q.Entity {
			name := "<default>"
			if e.Name != nil {
				name = "'" + *e.Name + "'"
			}
			ent = append(ent, e.Type+"="+name)
		}
		sort.Strings(ent)
		for k, v := range q.Values {
			rest = append(rest, fmt.Sprintf("quota {%s} %s=%s", strings.Join(ent, ", "), k, wire.AppendJavaDouble(nil, v)))
		}
	}
	for _, a := range img.ACLs {
		rest = append(rest, fmt.Sprintf("acl %d %s %d %s %s %d %d", a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.PermissionType))
	}
	b64 := base64.StdEncoding.EncodeToString
	for _, c := range img.SCRAM {
		rest = append(rest, fmt.Sprintf("scram %s %d iterations=%d salt=%s storedKey=%s serverKey=%s", c.User, c.Mechanism, c.Iterations, b64(c.Salt), b64(c.StoredKey), b64(c.ServerKey)))
	}
	for _, tk := range img.DelegationTokens {
		renewers := append([]string(nil), tk.Renewers...)
		sort.Strings(renewers)
		rest = append(rest, fmt.Sprintf("token %s owner=%s requester=%s renewers=[%s] issue=%d max=%d expiry=%d", tk.TokenID, tk.Owner, tk.Requester, strings.Join(renewers, ", "), tk.IssueTimestamp, tk.MaxTimestamp, tk.ExpirationTimestamp))
	}
	for _, c := range img.Controllers {
		rest = append(rest, fmt.Sprintf("controller %d incarnation=%s zkMigrationReady=%t", c.ID, c.IncarnationID, c.ZkMigrationReady))
	}
	next := int64(-1)
	if img.ProducerIDs != nil {
		next = img.ProducerIDs.NextProducerID
	}
	rest = append(rest, fmt.Sprintf("producerIds next=%d", next))
	sort.Strings(rest)
	for _, l := range rest {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// replayEdgeCases is a log whose records Kafka's MetadataDelta treats
// specially: stale broker epochs, ClearElrRecord, kraft.version and
// metadata.version 0 feature records, directories that do not match the
// replicas, records for unknown topics or partitions.
func replayEdgeCases() [][]records.Metadata {
	t1, t2 := model.UUID{1, 1}, model.UUID{2, 2}
	d1, d2 := model.UUID{7, 1}, model.UUID{7, 2}
	// RegisterBrokerRecord's defaults are not Kafka's zero values
	// everywhere; start from them.
	reg := func(id int32, epoch int64, fenced bool) *records.RegisterBrokerRecord {
		r := &records.RegisterBrokerRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.Fenced, r.IncarnationId = id, epoch, fenced, model.UUID{9, byte(id)}
		r.LogDirs = []model.UUID{d1}
		return r
	}
	change := func(id int32, epoch int64, fenced, ics int8) *records.BrokerRegistrationChangeRecord {
		r := &records.BrokerRegistrationChangeRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.Fenced, r.InControlledShutdown = id, epoch, fenced, ics
		return r
	}
	part := func(topic model.UUID, id int32, replicas []int32, dirs []model.UUID, elr, lkelr []int32) *records.PartitionRecord {
		r := &records.PartitionRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader, r.LeaderEpoch, r.PartitionEpoch = topic, id, replicas, replicas[:1], replicas[0], 3, 5
		r.Directories, r.EligibleLeaderReplicas, r.LastKnownElr = dirs, elr, lkelr
		return r
	}
	pchange := func(topic model.UUID, id int32) *records.PartitionChangeRecord {
		r := &records.PartitionChangeRecord{}
		r.SetDefaults()
		r.TopicId, r.PartitionId = topic, id
		return r
	}
	grow := pchange(t1, 1)
	grow.Replicas = []int32{1, 2, 3}
	return [][]records.Metadata{
		{
			&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25},
			&records.FeatureLevelRecord{Name: "group.version", FeatureLevel: 1},
			&records.FeatureLevelRecord{Name: "transaction.version", FeatureLevel: 2},
			reg(1, 10, true), reg(2, 20, false), reg(3, 30, false), reg(4, 40, false),
		},
		{
			// Stale epochs: Kafka refuses these.
			&records.UnfenceBrokerRecord{Id: 1, Epoch: 9},
			&records.FenceBrokerRecord{Id: 2, Epoch: 19},
			change(3, 29, 1, 1),
			// Current epochs.
			&records.FenceBrokerRecord{Id: 4, Epoch: 40},
			change(2, 20, 0, 1),
			// Unknown brokers.
			&records.FenceBrokerRecord{Id: 9, Epoch: 1},
			// No epoch check for unregistration.
			&records.UnregisterBrokerRecord{BrokerId: 3, BrokerEpoch: 12345},
		},
		{
			&records.TopicRecord{Name: "a", TopicId: t1},
			part(t1, 0, []int32{1, 2}, []model.UUID{d1, d2}, []int32{2}, nil),
			part(t1, 1, []int32{1, 2}, []model.UUID{d1, d2}, nil, []int32{2}),
			part(t1, 2, []int32{1, 2}, []model.UUID{d1, d2}, []int32{}, []int32{}),
			// Directories of the wrong length: Kafka refuses the record.
			part(t1, 3, []int32{1, 2}, []model.UUID{d1}, nil, nil),
			// Unknown topic.
			part(t2, 0, []int32{1}, nil, nil, nil),
			&records.TopicRecord{Name: "b", TopicId: t2},
			part(t2, 0, []int32{2, 1}, nil, []int32{1}, []int32{1}),
			// Unknown partition.
			pchange(t2, 7),
		},
		{
			// A replica change without directories keeps the directories
			// that are not all "migrating".
			grow,
			&records.ClearElrRecord{TopicName: "b"},
			&records.ClearElrRecord{TopicName: "no-such-topic"},
		},
		{
			&records.ClearElrRecord{},
			// kraft.version is not a finalized feature of the image, and a
			// metadata.version of 0 does not exist.
			&records.FeatureLevelRecord{Name: "kraft.version", FeatureLevel: 1},
			&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 0},
			&records.FeatureLevelRecord{Name: "group.version", FeatureLevel: 0},
		},
	}
}

// TestReplayMatchesKafkaMetadataDelta replays the same log with kmeta and
// with Kafka 4.4.0's MetadataBatchLoader and requires the same image.
func TestReplayMatchesKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	writeLog(t, dir, 1, replayEdgeCases()...)
	compareWithKafkaReplay(t, d, dir)
}

// compareWithKafkaReplay replays dir's single segment with Kafka's own
// loader (replayOracleJava) and with LoadImage, and requires the same
// image facts. It returns how many lines agreed.
func compareWithKafkaReplay(t *testing.T, d *kafkatest.Distribution, dir string) int {
	t.Helper()
	src := filepath.Join(t.TempDir(), "ReplayOracle.java")
	if err := os.WriteFile(src, []byte(replayOracleJava), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, stderr, err := d.Run(ctx, src, filepath.Join(dir, SegmentFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(stderr) > 0 {
		t.Logf("Kafka's loader faults:\n%s", stderr)
	}
	res, err := LoadImage(dir, ImageOptions{AtOffset: -1})
	if err != nil {
		t.Fatal(err)
	}
	want, got := string(out), imageFacts(res.Image)
	if want != got {
		t.Errorf("image differs from Kafka's MetadataDelta\n--- kafka\n%s--- kmeta\n%s", want, got)
	}
	return strings.Count(want, "\n")
}

// TestReplayFixturesMatchKafkaMetadataDelta replays the real cluster logs
// (every segment, from offset 0, no snapshot) through Kafka 4.4.0's own
// loader and through kmeta, and requires the same features, brokers and
// partitions (leaders, epochs, ISR, ELR, directories, ...).
func TestReplayFixturesMatchKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Latest4} {
		t.Run(v, func(t *testing.T) {
			ld, err := OpenLogDir(filepath.Join("..", "testdata", "kraft", v, "metadata"))
			if err != nil {
				t.Fatal(err)
			}
			// One file holding every segment in order: a log is just its
			// batches, so both replays see exactly the same records.
			dir := t.TempDir()
			var all []byte
			for _, s := range ld.Segments {
				b, err := os.ReadFile(s.Path)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, b...)
			}
			if err := os.WriteFile(filepath.Join(dir, SegmentFileName(0)), all, 0o644); err != nil {
				t.Fatal(err)
			}
			n := compareWithKafkaReplay(t, d, dir)
			t.Logf("%d segments, %d lines of image facts agree", len(ld.Segments), n)
		})
	}
}

// bigBatchLog is a log whose data batches are large enough for replay to
// share their decoding with a second goroutine (applyAhead, in rounds of
// aheadWindow records): topics created, changed, removed and created again
// within one batch, partition changes right after the records that create
// their partitions, refused records, and metadata transactions (committed
// and aborted) across the points where a round is split and where one
// round ends and the next begins.
func bigBatchLog() [][]records.Metadata {
	d1, d2 := model.UUID{7, 1}, model.UUID{7, 2}
	reg := func(id int32) *records.RegisterBrokerRecord {
		r := &records.RegisterBrokerRecord{}
		r.SetDefaults()
		r.BrokerId, r.BrokerEpoch, r.IncarnationId, r.LogDirs = id, int64(10*id), model.UUID{9, byte(id)}, []model.UUID{d1}
		return r
	}
	var big []records.Metadata
	add := func(m ...records.Metadata) { big = append(big, m...) }
	for k := range 24 {
		id := model.UUID{0xa, byte(k)}
		add(&records.TopicRecord{Name: fmt.Sprintf("t%02d", k), TopicId: id})
		for p := range int32(60) {
			r := &records.PartitionRecord{}
			r.SetDefaults()
			reps := []int32{1 + p%3, 1 + (p+1)%3}
			r.TopicId, r.PartitionId, r.Replicas, r.Isr, r.Leader = id, p, reps, reps, reps[0]
			r.LeaderEpoch, r.PartitionEpoch, r.Directories = p%5, p%7, []model.UUID{d1, d2}
			switch p % 4 {
			case 1:
				r.EligibleLeaderReplicas, r.LastKnownElr = []int32{reps[1]}, []int32{}
			case 2:
				r.Directories = nil
			}
			add(r)
			if p%3 == 0 {
				c := &records.PartitionChangeRecord{}
				c.SetDefaults()
				c.TopicId, c.PartitionId, c.Isr = id, p, reps[:1]
				if p%2 == 0 {
					c.Leader = reps[1]
				}
				add(c)
			}
		}
		switch k {
		case 3:
			add(&records.RemoveTopicRecord{TopicId: id})
		case 4:
			add(&records.ClearElrRecord{TopicName: "t04"})
		case 5:
			c := &records.PartitionChangeRecord{}
			c.SetDefaults()
			c.TopicId, c.PartitionId = id, 999 // unknown partition: refused
			add(c)
		}
	}
	// Metadata transactions: committed across the split of the first
	// round (aheadWindow/3); committed from the end of the first round to
	// the third, so that records it holds were decoded by the decoders the
	// second round uses again; aborted at the end of the batch. (Kafka's
	// MetadataBatchLoader applies an aborted transaction after all when
	// more records follow its Abort in the same batch, which kmeta does
	// not; Kafka's controller ends a batch with the Abort.)
	begin := func() records.Metadata { return &records.BeginTransactionRecord{Name: ptr("txn")} }
	for _, tx := range []struct {
		at, n int
		end   records.Metadata
	}{
		{len(big) - 40, 40, &records.AbortTransactionRecord{Reason: ptr("aborted")}},
		{aheadWindow - 30, aheadWindow + 60, &records.EndTransactionRecord{}},
		{aheadWindow/3 - 10, 25, &records.EndTransactionRecord{}},
	} {
		big = slices.Insert(big, tx.at+tx.n, tx.end)
		big = slices.Insert(big, tx.at, begin())
	}
	return [][]records.Metadata{
		{&records.FeatureLevelRecord{Name: "metadata.version", FeatureLevel: 25}, reg(1), reg(2), reg(3)},
		big,
		{&records.TopicRecord{Name: "t03", TopicId: model.UUID{0xb, 3}}},
		big[:aheadMin+1],
	}
}

// TestReplayLargeBatchesMatchKafkaMetadataDelta: replay of batches that
// are decoded on two goroutines gives Kafka 4.4.0's image.
func TestReplayLargeBatchesMatchKafkaMetadataDelta(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	writeLog(t, dir, 1, bigBatchLog()...)
	n := compareWithKafkaReplay(t, d, dir)
	t.Logf("%d lines of image facts agree", n)
}
