package metalog

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// javaValuesJava prints what Java reads, for the cases where a verdict
// (propsOracleJava's ok/error) is not enough: for "props FILE" the keys
// and values java.util.Properties.load(InputStream) reads (as meta.properties
// is read), each as its Unicode code points; for "quorum FILE" the leader
// id and epoch of Kafka's FileQuorumStateStore.readElectionState, or the
// error.
const javaValuesJava = `
import java.io.*;
import java.util.*;
import org.apache.kafka.raft.ElectionState;
import org.apache.kafka.raft.FileQuorumStateStore;

public class JavaValues {
    static String cps(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(b.length() > 0 ? " " : "").append(Integer.toHexString(c)));
        return b.toString();
    }
    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i += 2) {
            try {
                if (args[i].equals("props")) {
                    Properties p = new Properties();
                    try (InputStream in = new FileInputStream(args[i + 1])) { p.load(in); }
                    TreeMap<String, String> m = new TreeMap<>();
                    for (String k : p.stringPropertyNames()) m.put(cps(k), cps(p.getProperty(k)));
                    StringBuilder b = new StringBuilder("ok");
                    for (Map.Entry<String, String> e : m.entrySet()) b.append(" [").append(e.getKey()).append("=").append(e.getValue()).append("]");
                    System.out.println(b);
                } else {
                    ElectionState st = new FileQuorumStateStore(new File(args[i + 1])).readElectionState().get();
                    System.out.println("ok leaderId=" + st.leaderIdOrSentinel() + " epoch=" + st.epoch());
                }
            } catch (Throwable e) {
                System.out.println("error " + e.toString().replace('\n', ' '));
            }
        }
    }
}
`

// codePoints renders a string as javaValuesJava does.
func codePoints(s string) string {
	var b []string
	for _, r := range s {
		b = append(b, fmt.Sprintf("%x", r))
	}
	return strings.Join(b, " ")
}

// javaLine is javaValuesJava's line for a properties file that reads as
// m: each key and value as code points, in the order of the keys so
// written (Java's TreeMap of them).
func javaLine(m map[string]string) string {
	keys := make(map[string]string, len(m))
	for k := range m {
		keys[codePoints(k)] = k
	}
	b := []string{"ok"}
	for _, ck := range slices.Sorted(maps.Keys(keys)) {
		b = append(b, "["+ck+"="+codePoints(m[keys[ck]])+"]")
	}
	return strings.Join(b, " ")
}

// formatCases are files javaprops.Format writes, with comments that hold
// line ends (a bare \r ends a comment line in Java: written as is, the
// rest of the comment would be read as a property) and keys and values
// with what must be escaped.
var formatCases = []struct {
	name, comment string
	props         map[string]string
}{
	{"bare CR in the comment", "from /tmp/a\rb=c", map[string]string{"k": "v"}},
	{"CRLF and a trailing backslash in the comment", "one\r\ntwo \\", map[string]string{"k": "v"}},
	{"separators and blanks", "c", map[string]string{" a=b:c#!": " #x\\y\n\t\f", "!k": "!v\\"}},
	{"beyond Latin-1", "é你", map[string]string{"k\u00e9": "é你\U0001F600"}},
	{"empty key and value", "", map[string]string{"": ""}},
}

// javaValueCases: surrogate pairs written as \uXXXX\uXXXX, which Java's
// Properties.load turns into one code point, and quorum-state files with a
// repeated key, which Kafka's reader (Jackson's readTree) takes with the
// last value.
var javaValueCases = []struct {
	kind, name, text string
}{
	{"props", "surrogate pair", `k=a\uD83D\uDE00b` + "\n"},
	{"props", "surrogate pair in a key", `\uD83C\uDF10=x` + "\n"},
	{"props", "two pairs and BMP", `k=\u4F60\uD83C\uDF10\u597D\uD83D\uDE00` + "\n"},
	{"quorum", "repeated leaderEpoch", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1,"leaderEpoch":7}` + "\n"},
	{"quorum", "repeated leaderId, first invalid", `{"leaderId":"x","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1,"leaderId":3001}` + "\n"},
	{"quorum", "repeated leaderId, last invalid", `{"leaderId":3001,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1,"leaderId":"x"}` + "\n"},
	{"quorum", "repeated data_version", `{"leaderId":3000,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"clusterId":"","currentVoters":[{"voterId":3000}],"data_version":1,"data_version":0}` + "\n"},
	// Not a repetition: Kafka's converter takes a null currentVoters, and
	// readElectionState then fails on it.
	{"quorum", "v0 empty currentVoters", `{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}` + "\n"},
	{"quorum", "v0 null currentVoters", `{"clusterId":"","leaderId":3000,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":null,"data_version":0}` + "\n"},
}

// TestQuorumStateRepeatedKey: a repeated key is read with the last value,
// as Kafka does, and reported in Problem with the repeated key's position;
// a file without repetition has no Problem.
func TestQuorumStateRepeatedKey(t *testing.T) {
	in := `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1,"leaderEpoch":7}`
	qs, err := ParseQuorumState([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if qs.LeaderEpoch != 7 {
		t.Errorf("leaderEpoch %d, want the last value 7", qs.LeaderEpoch)
	}
	var pe *PropsError
	if !errors.As(qs.Problem, &pe) || pe.Position != int64(strings.LastIndex(in, `"leaderEpoch"`)) || !errors.Is(qs.Problem, ErrProperties) {
		t.Errorf("Problem = %#v, want the position %d of the second leaderEpoch", qs.Problem, strings.LastIndex(in, `"leaderEpoch"`))
	}
	if qs.LeaderEpochPos != int64(strings.LastIndex(in, "7")) {
		t.Errorf("LeaderEpochPos %d, want the value that is used, at %d", qs.LeaderEpochPos, strings.LastIndex(in, "7"))
	}
	qs, err = ParseQuorumState([]byte(`{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`))
	if err != nil || qs.Problem != nil {
		t.Errorf("plain file: %v, Problem %v", err, qs.Problem)
	}
}
