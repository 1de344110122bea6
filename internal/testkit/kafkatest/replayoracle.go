package kafkatest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// imageFactsJava replays a segment file with Kafka's own
// MetadataBatchLoader and MetadataDelta (the kafka-metadata jar of
// Kafka 4.4) up to a batch boundary and prints the resulting image as
// sorted "ENTITY|FIELD=VALUE" lines, one per field, in the entity and
// field names kmeta's verify package uses. Run with the JVM's single-file
// source launcher, so no build step is needed. A record Kafka's delta
// refuses goes to the fault handler (stderr) and is skipped, as on a
// broker.
const imageFactsJava = `
import java.io.File;
import java.util.*;
import java.util.stream.*;
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

public class ImageFacts {
    static MetadataImage last = MetadataImage.EMPTY;
    static TreeSet<String> out = new TreeSet<>();

    static void fact(String entity, String field, Object value) { out.add(entity + "|" + field + "=" + value); }
    static String ints(int[] v) { return "[" + Arrays.stream(v).mapToObj(Integer::toString).collect(Collectors.joining(",")) + "]"; }
    static String strs(Collection<String> v) { return "[" + String.join(",", v) + "]"; }
    static String q(String s) { return "\"" + s + "\""; }

    public static void main(String[] args) throws Exception {
        long[] at = new long[args.length - 1];
        for (int i = 1; i < args.length; i++) at[i - 1] = Long.parseLong(args[i]);
        int next = 0;
        MetadataBatchLoader loader = new MetadataBatchLoader(new LogContext(), Time.SYSTEM,
            (msg, e) -> { System.err.println("fault: " + msg + ": " + e); return null; },
            (delta, image, manifest) -> { last = image; }, SupportedConfigChecker.TRUE);
        try (FileRecords fr = FileRecords.open(new File(args[0]))) {
            for (RecordBatch b : fr.batches()) {
                while (next < at.length && at[next] >= 0 && b.lastOffset() > at[next]) print(last, at[next++]);
                if (b.isControlBatch()) continue;
                List<ApiMessageAndVersion> recs = new ArrayList<>();
                for (org.apache.kafka.common.record.internal.Record r : b) {
                    recs.add(MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(r.value()), r.valueSize()));
                }
                loader.loadBatch(Batch.data(b.baseOffset(), b.partitionLeaderEpoch(), b.maxTimestamp(), b.sizeInBytes(), recs), LeaderAndEpoch.UNKNOWN);
                loader.maybeFlushBatches(LeaderAndEpoch.UNKNOWN, true);
            }
        }
        while (next < at.length) print(last, at[next++]);
    }

    static void print(MetadataImage img, long offset) {
        out.clear();
        for (Map.Entry<String, Short> e : img.features().finalizedVersions().entrySet()) fact("finalized features", e.getKey(), e.getValue());
        img.features().metadataVersion().ifPresent(v -> fact("finalized features", "metadata.version", v.featureLevel()));
        for (BrokerRegistration br : img.cluster().brokers().values()) {
            String e = "broker " + br.id();
            fact(e, "epoch", br.epoch());
            fact(e, "incarnationId", br.incarnationId());
            fact(e, "fenced", br.fenced());
            fact(e, "inControlledShutdown", br.inControlledShutdown());
            fact(e, "rack", br.rack().orElse(""));
            TreeSet<String> eps = new TreeSet<>();
            for (org.apache.kafka.common.Endpoint ep : br.listeners().values()) {
                eps.add(ep.listener() + "://" + ep.host() + ":" + ep.port() + "(" + ep.securityProtocol().name() + ")");
            }
            fact(e, "endpoints", strs(eps));
            fact(e, "logDirs", strs(br.directories().stream().map(Uuid::toString).collect(Collectors.toList())));
            TreeSet<String> fs = new TreeSet<>();
            for (Map.Entry<String, org.apache.kafka.metadata.VersionRange> f : br.supportedFeatures().entrySet()) {
                fs.add(f.getKey() + "[" + f.getValue().min() + "," + f.getValue().max() + "]");
            }
            fact(e, "features", strs(fs));
        }
        for (TopicImage t : img.topics().topicsByName().values()) {
            fact("topic " + t.name(), "id", t.id());
            for (Map.Entry<Integer, PartitionRegistration> pe : t.partitions().entrySet()) {
                PartitionRegistration p = pe.getValue();
                String e = "partition " + t.name() + "-" + pe.getKey();
                fact(e, "replicas", ints(p.replicas));
                fact(e, "addingReplicas", ints(p.addingReplicas));
                fact(e, "removingReplicas", ints(p.removingReplicas));
                fact(e, "directories", strs(Arrays.stream(p.directories).map(Uuid::toString).collect(Collectors.toList())));
                fact(e, "leader", p.leader);
                fact(e, "isr", ints(p.isr));
                fact(e, "elr", ints(p.elr));
                fact(e, "lastKnownElr", ints(p.lastKnownElr));
                fact(e, "leaderEpoch", p.leaderEpoch);
                fact(e, "partitionEpoch", p.partitionEpoch);
                fact(e, "leaderRecoveryState", p.leaderRecoveryState.value());
            }
        }
        for (ConfigurationImage c : img.configs().resourceData().values()) {
            String name = c.resource().name().isEmpty() ? "<default>" : c.resource().name();
            for (Map.Entry<String, String> kv : c.data().entrySet()) fact("config " + c.resource().type().name() + " " + name, kv.getKey(), kv.getValue());
        }
        for (Map.Entry<org.apache.kafka.common.quota.ClientQuotaEntity, ClientQuotaImage> qe : img.clientQuotas().entities().entrySet()) {
            TreeMap<String, String> ent = new TreeMap<>(Comparator.naturalOrder());
            for (Map.Entry<String, String> p : qe.getKey().entries().entrySet()) ent.put(p.getKey(), p.getValue() == null ? "<default>" : q(p.getValue()));
            String e = "quota " + ent.entrySet().stream().map(x -> x.getKey() + "=" + x.getValue()).collect(Collectors.joining(","));
            for (Map.Entry<String, Double> v : qe.getValue().quotas().entrySet()) fact(e, v.getKey(), v.getValue());
        }
        for (org.apache.kafka.metadata.authorizer.StandardAcl a : img.acls().acls().values()) {
            out.add("acl " + a.resourceType().name() + ":" + a.patternType().name() + ":" + a.resourceName() + " " + a.principal() + "@" + a.host() +
                " " + a.operation().name() + " " + a.permissionType().name() + "|");
        }
        Base64.Encoder b64 = Base64.getEncoder();
        for (Map.Entry<org.apache.kafka.clients.admin.ScramMechanism, Map<String, ScramCredentialData>> m : img.scram().mechanisms().entrySet()) {
            for (Map.Entry<String, ScramCredentialData> u : m.getValue().entrySet()) {
                String e = "scram " + u.getKey() + " " + m.getKey().mechanismName();
                ScramCredentialData c = u.getValue();
                fact(e, "iterations", c.iterations());
                fact(e, "credential", b64.encodeToString(c.salt()) + ":" + b64.encodeToString(c.storedKey()) + ":" + b64.encodeToString(c.serverKey()));
            }
        }
        for (DelegationTokenData d : img.delegationTokens().tokens().values()) {
            org.apache.kafka.common.security.token.delegation.TokenInformation ti = d.tokenInformation();
            String e = "token " + ti.tokenId();
            fact(e, "owner", ti.ownerAsString());
            fact(e, "requester", ti.tokenRequesterAsString());
            fact(e, "renewers", strs(new TreeSet<>(ti.renewersAsString())));
            fact(e, "issueTimestamp", ti.issueTimestamp());
            fact(e, "maxTimestamp", ti.maxTimestamp());
            fact(e, "expirationTimestamp", ti.expiryTimestamp());
        }
        for (ControllerRegistration c : img.cluster().controllers().values()) {
            String e = "controller " + c.id();
            fact(e, "incarnationId", c.incarnationId());
            fact(e, "zkMigrationReady", c.zkMigrationReady());
        }
        if (img.producerIds().nextProducerId() >= 0) fact("producer-ids", "nextProducerId", img.producerIds().nextProducerId());
        System.out.println("@@ " + offset);
        for (String l : out) System.out.println(l);
    }
}
`

// KafkaImageFacts replays segment (one .log file holding a whole metadata
// log from offset 0) once with Kafka's own loader and returns, for each
// offset in at (ascending; -1 means the end), the image made of every
// batch whose last offset is at most that offset, as sorted
// "ENTITY|FIELD=VALUE" lines; faults is what Kafka's fault handler
// reported. d must be a 4.x distribution (Latest4).
func KafkaImageFacts(ctx context.Context, d *Distribution, segment string, at ...int64) (facts map[int64]string, faults string, err error) {
	dir, err := os.MkdirTemp("", "kmeta-imagefacts-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "ImageFacts.java")
	if err := os.WriteFile(src, []byte(imageFactsJava), 0o644); err != nil {
		return nil, "", err
	}
	args := []string{segment}
	for _, a := range at {
		args = append(args, strconv.FormatInt(a, 10))
	}
	out, stderr, err := d.Run(ctx, src, args...)
	if err != nil {
		return nil, "", fmt.Errorf("kafkatest: image facts of %s at %v: %w\n%s", segment, at, err, stderr)
	}
	// Sections: "@@ <offset>" then that image's lines.
	facts = map[int64]string{}
	var cur int64 = -2
	var b strings.Builder
	flush := func() {
		if cur != -2 {
			facts[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "@@ "); ok {
			flush()
			if cur, err = strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err != nil {
				return nil, "", fmt.Errorf("kafkatest: image facts: %q", line)
			}
			continue
		}
		b.WriteString(line)
	}
	flush()
	return facts, string(stderr), nil
}

// OneSegment writes every segment of the metadata log dir metadataDir
// (its __cluster_metadata-0/*.log, in offset order) into one segment file
// 00000000000000000000.log of a new temporary directory and returns that
// file. A log is just its batches, so replaying the one file from offset 0
// (KafkaImageFacts, or kmeta's LoadImage on its directory) sees exactly
// the records of the whole log, without snapshots.
func OneSegment(t testing.TB, metadataDir string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(metadataDir, "__cluster_metadata-0", "*.log"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("kafkatest: no segments in %s (%v)", metadataDir, err)
	}
	sort.Strings(segs) // zero-padded base offsets: name order is offset order
	var all []byte
	for _, s := range segs {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	out := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(out, all, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
