package metalog

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// propsOracleJava reads each file with Kafka's own readers and prints one
// line per file: "ok" or "error <exception>". meta.properties goes
// through PropertiesUtils.readPropertiesFile and MetaProperties.Builder
// (what a broker or controller does at start), quorum-state through
// FileQuorumStateStore.readElectionState (what the raft client does).
const propsOracleJava = `
import java.io.File;
import java.util.Properties;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.apache.kafka.raft.FileQuorumStateStore;

public class PropsOracle {
    public static void main(String[] args) {
        for (int i = 0; i + 1 < args.length; i += 2) {
            try {
                if (args[i].equals("meta")) {
                    Properties p = PropertiesUtils.readPropertiesFile(args[i + 1]);
                    new MetaProperties.Builder(p).build();
                } else {
                    new FileQuorumStateStore(new File(args[i + 1])).readElectionState();
                }
                System.out.println("ok");
            } catch (Throwable e) {
                System.out.println("error " + e.toString().replace('\n', ' '));
            }
        }
    }
}
`

// propsCases are meta.properties and quorum-state files around the rules
// Kafka enforces. Kafka's verdict on each is asked live, not assumed.
var propsCases = []struct {
	kind, name, text string
}{
	{"meta", "v1", "version=1\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "v1 short cluster id", "version=1\nnode.id=1\ncluster.id=abc\n"},
	{"meta", "v1 NUL in cluster id", "version=1\nnode.id=1\ncluster.id=AAAA\\u0000AAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "node.id with a trailing blank", "version=1\nnode.id=1 \ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "node.id not a number", "version=1\nnode.id=x\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "node.id overflows int32", "version=1\nnode.id=4294967296\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "v1 without node.id", "version=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "v1 without cluster.id", "version=1\nnode.id=1\n"},
	{"meta", "v0 without broker.id", "version=0\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "v0 broker.id", "broker.id=2\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "v0 broker.id not a number", "broker.id=two\n"},
	{"meta", "version 2", "version=2\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "version with blanks", "version= 1 \nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"},
	{"meta", "bad directory.id", "version=1\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\ndirectory.id=xyz\n"},
	{"meta", "continued cluster id", "version=1\nnode.id=1\ncluster.id=AAAAAAAAAAA\\\n   AAAAAAAAAAAQ\n"},
	{"quorum", "v1", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "v0", `{"clusterId":"","leaderId":3000,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":3000}],"data_version":0}` + "\n"},
	{"quorum", "missing leaderId", `{"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "missing votedDirectoryId", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"data_version":1}` + "\n"},
	{"quorum", "invalid votedDirectoryId", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"xx","data_version":1}` + "\n"},
	{"quorum", "null votedDirectoryId", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":null,"data_version":1}` + "\n"},
	{"quorum", "v0 missing clusterId", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}` + "\n"},
	{"quorum", "v0 null clusterId", `{"clusterId":null,"leaderId":3000,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":null,"data_version":0}` + "\n"},
	{"quorum", "leaderId as a string", `{"leaderId":"3000","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "leaderId fractional", `{"leaderId":3000.5,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "leaderId overflows int32", `{"leaderId":30000000000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "negative leaderEpoch", `{"leaderId":3000,"leaderEpoch":-1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}` + "\n"},
	{"quorum", "data_version 2", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":2}` + "\n"},
	{"quorum", "no data_version", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}` + "\n"},
	{"quorum", "trailing text after the object", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1} x` + "\n"},
	{"quorum", "truncated", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAA`},
	{"quorum", "empty", ""},
}

// TestPropsMatchKafkaReaders requires kmeta's meta.properties and
// quorum-state readers to accept exactly what Kafka 4.4.0's readers
// accept. A cluster.id that is not a UUID is accepted by both (Kafka takes
// any string); kmeta flags it as a warning, checked separately.
func TestPropsMatchKafkaReaders(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	dir := t.TempDir()
	lines := runFileOracle(t, d, dir, "PropsOracle", propsOracleJava, propsCases)
	for i, c := range propsCases {
		p := filepath.Join(dir, fmt.Sprintf("case%02d", i))
		var err error
		if c.kind == "meta" {
			_, err = ReadMetaProperties(p)
		} else {
			_, err = ReadQuorumState(p)
		}
		kafkaOK := lines[i] == "ok"
		if kafkaOK != (err == nil) {
			t.Errorf("%s %q: Kafka says %q, kmeta says %v", c.kind, c.name, lines[i], err)
		}
	}
}
