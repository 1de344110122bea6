package main

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/internal/testkit/fakekafka"
)

// §3 and §4 of issue 29 on kafka://: one hung address does not break a
// read another address answers, and the error names the address that
// failed; one deadline per command; brokers Metadata lists but that do
// not answer cost the read nothing but warnings naming them; and the
// messages say what happened.
func TestHostileLiveDeadline(t *testing.T) {
	good := fakekafka.Broker(t, fakekafka.Cluster{Topics: 2})
	hung1, hung2, hung3 := fakekafka.Silent(t), fakekafka.Silent(t), fakekafka.Silent(t)
	closed := fakekafka.Closed(t)
	dead := fakekafka.Broker(t, fakekafka.Cluster{Topics: 1, Peers: map[int32]string{2: hung1.Addr, 3: hung2.Addr, 4: hung3.Addr, 5: closed}})
	for _, tc := range []struct {
		name  string
		args  []string
		bound time.Duration
		code  int
		says  []string
		not   []string
	}{
		{"hung address first", []string{"image", "kafka://" + hung1.Addr + "," + good.Addr, "--kafka-timeout", "5s"}, 2 * time.Second, exitOK, nil, []string{good.Addr + " did not answer"}},
		{"hung address last", []string{"image", "kafka://" + good.Addr + "," + hung1.Addr, "--kafka-timeout", "5s"}, 2 * time.Second, exitOK, nil, nil},
		{"brokers listed that do not answer", []string{"image", "kafka://" + dead.Addr, "--kafka-timeout", "2s"}, 2500 * time.Millisecond, exitOK,
			[]string{"broker 2: unreachable: " + hung1.Addr, "broker 3: unreachable: " + hung2.Addr, "broker 4: unreachable: " + hung3.Addr, "broker 5: connection refused by " + closed},
			[]string{dead.Addr + " did not answer"}},
		{"two hung controllers", []string{"image", "--bootstrap-controller", hung1.Addr + "," + hung2.Addr, "--kafka-timeout", "1500ms"}, 2 * time.Second, exitFailure,
			[]string{hung1.Addr + " did not answer within 1.5s", hung2.Addr + " did not answer within 1.5s"}, nil},
		{"three hung brokers", []string{"quorum", "describe", "--bootstrap-server", hung1.Addr + "," + hung2.Addr + "," + hung3.Addr, "--kafka-timeout", "1s"}, 1500 * time.Millisecond, exitFailure,
			[]string{hung1.Addr, hung2.Addr, hung3.Addr}, nil},
		{"lint, hung address first", []string{"lint", "kafka://" + hung1.Addr + "," + good.Addr, "--kafka-timeout", "5s"}, 2 * time.Second, exitFindings, []string{"findings at or above error"}, nil},
	} {
		start := time.Now()
		r := kmeta(tc.args...)
		took := time.Since(start)
		if r.code != tc.code || took > tc.bound {
			t.Errorf("%s: exit %d in %s, want %d within %s\nstderr %s", tc.name, r.code, took.Round(time.Millisecond), tc.code, tc.bound, r.stderr)
		}
		for _, s := range tc.says {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%s: stderr lacks %q\n%s", tc.name, s, r.stderr)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(r.stderr, s) {
				t.Errorf("%s: stderr says %q\n%s", tc.name, s, r.stderr)
			}
		}
	}
}

// §4: what a broken peer does is said as it is.
func TestHostileLiveMessages(t *testing.T) {
	closesOnMetadata := fakekafka.Broker(t, fakekafka.Cluster{Faults: map[int16]fakekafka.Fault{3: fakekafka.Hangup}})
	garbage := fakekafka.Broker(t, fakekafka.Cluster{Faults: map[int16]fakekafka.Fault{18: fakekafka.Garbage}})
	negative := fakekafka.Broker(t, fakekafka.Cluster{Faults: map[int16]fakekafka.Fault{18: fakekafka.NegativeSize}})
	oldMetadata := fakekafka.Broker(t, fakekafka.Cluster{Edit: func(resp kmsg.Response) {
		if r, ok := resp.(*kmsg.ApiVersionsResponse); ok {
			var keep []kmsg.ApiVersionsResponseApiKey
			for _, k := range r.ApiKeys {
				switch k.ApiKey {
				case 75: // no DescribeTopicPartitions: Metadata lists the topics
				case 3:
					k.MaxVersion = 9
					keep = append(keep, k)
				default:
					keep = append(keep, k)
				}
			}
			r.ApiKeys = keep
		}
	}})
	for _, tc := range []struct {
		name      string
		addr      string
		says, not string
	}{
		{"closed after ApiVersions", closesOnMetadata.Addr, "closed the connection instead of answering, after it had answered ApiVersions", "authentication failed"},
		{"an HTTP answer", garbage.Addr, "not a Kafka answer: " + garbage.Addr + " answered bytes that are no Kafka answer (an HTTP answer)", "response size"},
		{"a negative size", negative.Addr, "not a Kafka answer: " + negative.Addr + " answered bytes that are no Kafka answer", "invalid negative response size"},
		{"Metadata v9 only", oldMetadata.Addr, "does not answer Metadata v10, which kmeta needs; Kafka 2.8 or newer has it", "0.8"},
	} {
		r := kmeta("image", "kafka://"+tc.addr, "--kafka-timeout", "5s")
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.says) || strings.Contains(r.stderr, tc.not) {
			t.Errorf("%s: exit %d\nstderr %s", tc.name, r.code, r.stderr)
		}
	}
}
