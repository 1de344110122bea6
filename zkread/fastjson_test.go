package zkread

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureZnodes returns the data of the real fixture's (Kafka 3.9.2)
// topic and partition state znodes.
func fixtureZnodes(t testing.TB) (topics, states [][]byte) {
	tr, err := ReadDataDir(fixtureDir+"/datadir", DataDirOptions{Chroot: fixtureChroot})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.Paths() {
		rest, ok := strings.CutPrefix(p, "/brokers/topics/")
		if !ok || len(tr.Get(p).Data) == 0 {
			continue
		}
		switch {
		case !strings.Contains(rest, "/"):
			topics = append(topics, tr.Get(p).Data)
		case strings.HasSuffix(rest, "/state"):
			states = append(states, tr.Get(p).Data)
		}
	}
	if len(topics) == 0 || len(states) == 0 {
		t.Fatalf("fixture has %d topic and %d state znodes", len(topics), len(states))
	}
	return topics, states
}

// The fast path must serve what Kafka writes, or it speeds nothing up:
// every topic and state znode of the real fixture takes it, and decodes
// as encoding/json does.
func TestFastJSONTakesKafkasShapes(t *testing.T) {
	topics, states := fixtureZnodes(t)
	for _, d := range topics {
		if _, ok := fastTopic(d); !ok {
			t.Errorf("fast path refuses Kafka's topic znode %s", d)
		}
		checkTopicSame(t, d)
	}
	for _, d := range states {
		if _, ok := fastState(d); !ok {
			t.Errorf("fast path refuses Kafka's state znode %s", d)
		}
		if _, ok := kafkaState(d, nil); !ok {
			t.Errorf("Kafka's spelling of a state znode is not kafkaState's: %s", d)
		}
		checkStateSame(t, d)
	}
}

// kafkaState reads what it accepts as scanState does, and leaves any
// other spelling to it.
func TestKafkaStateAsScan(t *testing.T) {
	_, states := fixtureZnodes(t)
	for _, d := range []string{
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2,3]}`,
		`{"controller_epoch":-1,"leader":-1,"version":1,"leader_epoch":0,"isr":[]}`,
		`{"controller_epoch":1,"leader":1,"version":2,"leader_epoch":2,"isr":[1],"leader_recovery_state":1}`,
		`{"leader":1,"controller_epoch":1,"version":1,"leader_epoch":2,"isr":[1]}`,
		`{"controller_epoch":1, "leader":1,"version":1,"leader_epoch":2,"isr":[1]}`,
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1]} `,
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1]}x`,
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1,]}`,
		`{"controller_epoch":1.5,"leader":1,"version":1,"leader_epoch":2,"isr":[1]}`,
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1]`,
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":null}`,
	} {
		states = append(states, []byte(d))
	}
	for _, d := range states {
		k, kok := kafkaState(d, nil)
		s, sok := scanState(d, nil)
		if kok && (!sok || !cmp.Equal(k, s)) {
			t.Errorf("%s: kafkaState %+v, scanState %+v (ok %v)", d, k, s, sok)
		}
	}
}

// Shapes the fast path must leave to encoding/json (it would decode them
// differently, or encoding/json rejects them), each still decoded or
// rejected exactly as encoding/json-based decoding does.
func TestFastJSONDefersUnusual(t *testing.T) {
	topics := []string{
		`{"partitions":{"0":[1],"0":[2]}}`,                   // duplicate partition: last wins
		`{"partitions":{"0":[1]},"partitions":{"1":[2]}}`,    // duplicate key: maps merge
		`{"Partitions":{"0":[1]}}`,                           // case-insensitive field match
		`{"partitions":{"007":[1]}}`,                         // ParseInt's spelling
		`{"partitions":{"+1":[1]}}`,                          //
		`{"partitions":{"-0":[1]}}`,                          //
		`{"partitions":{"0":null}}`,                          // null replicas
		`{"partitions":null}`,                                //
		`{"partitions":{"0":[1.0]}}`,                         // a float for an int32
		`{"partitions":{"0":[1e0]}}`,                         //
		`{"partitions":{"0":[2147483648]}}`,                  // out of range
		`{"partitions":{"0":[01]}}`,                          // invalid JSON number
		`{"partitions":{"\u0030":[1]}}`,                      // escaped key
		`{"partitions":{"0":[1]},"topic_id":"a\"b"}`,         // escaped string
		`{"partitions":{"0":[1]},"topic_id":"\xff"}`,         // invalid UTF-8
		`{"partitions":{"0":[1]},"topic_id":null}`,           //
		`{"partitions":{"0":[1]},"extra":{"a":[1]}}`,         // unknown field
		`{"partitions":{"0":[1]},"version":"3"}`,             // a version that is not an int
		`{"partitions":{"0":[1]}}}`,                          // encoding/json's More() lets '}' pass
		`{"partitions":{"0":[1]}} x`,                         // trailing data
		`{"partitions":{"0":[1]}`,                            // truncated
		`{"partitions":{"0":[1,]}}`,                          //
		`{"partitions":{"0":[]},"adding_replicas":{"0":[]}}`, // accepted: empty lists
		" {\"partitions\" :\t{ \"0\" : [ 1 , 2 ] } }\n",      // accepted: whitespace
	}
	for _, d := range topics {
		checkTopicSame(t, []byte(d))
	}
	states := []string{
		`{"leader":1,"leader_epoch":0,"isr":[1],"leader":2}`,
		`{"Leader":1,"leader_epoch":0,"isr":[1]}`,
		`{"leader":1,"leader_epoch":0}`,
		`{"leader":null,"leader_epoch":0,"isr":[1]}`,
		`{"leader":1,"leader_epoch":0,"isr":null}`,
		`{"leader":-1,"leader_epoch":0,"isr":[]}`,
		`{"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":128}`,
		`{"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":-128}`,
		`{"leader":-2147483648,"leader_epoch":2147483647,"isr":[1]}`,
		`{"leader":-2147483649,"leader_epoch":0,"isr":[1]}`,
		`{"leader":-,"leader_epoch":0,"isr":[1]}`,
		`{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1.5}`,
		`{"leader":1,"leader_epoch":0,"isr":[1],"new_field":true}`,
		`[1]`, ``, `null`, `{}`,
	}
	for _, d := range states {
		checkStateSame(t, []byte(d))
	}
}

// FuzzFastJSON is the differential check: whatever the fast path accepts,
// encoding/json-based decoding accepts with the same values, and the
// decoder's entry points always return what encoding/json-based decoding
// returns (values, or the same error).
func FuzzFastJSON(f *testing.F) {
	topics, states := fixtureZnodes(f)
	for _, d := range topics {
		f.Add(false, d)
	}
	for _, d := range states {
		f.Add(true, d)
	}
	f.Add(false, []byte(`{"version":3,"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"AQAAAAcAAAAAAAAAAAAAAA","adding_replicas":{"1":[3]},"removing_replicas":{}}`))
	f.Add(true, []byte(`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2,3],"leader_recovery_state":1}`))
	f.Fuzz(func(t *testing.T, state bool, data []byte) {
		if state {
			checkStateSame(t, data)
		} else {
			checkTopicSame(t, data)
		}
	})
}

func checkTopicSame(t testing.TB, data []byte) {
	t.Helper()
	checkFastSame(t, data, "parseTopic", slowTopic, fastTopic, parseTopic)
}

func checkStateSame(t testing.TB, data []byte) {
	t.Helper()
	checkFastSame(t, data, "parseState", slowState, fastState, parseState)
}

// checkFastSame: the fast path accepts only what encoding/json (slow)
// accepts and then gives its answer, and parse (fast with slow behind it)
// gives encoding/json's answer and error for any input.
func checkFastSame[T any](t testing.TB, data []byte, name string, slow func([]byte) (T, error), fast func([]byte) (T, bool), parse func([]byte) (T, error)) {
	t.Helper()
	want, werr := slow(data)
	if got, ok := fast(data); ok {
		if werr != nil {
			t.Fatalf("%q: fast path accepts what encoding/json rejects (%v)", data, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%q: fast path differs from encoding/json:\n%s", data, d)
		}
	}
	got, gerr := parse(data)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("%q: error %v, encoding/json's %v", data, gerr, werr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%q: %s differs from encoding/json:\n%s", data, name, d)
	}
}
