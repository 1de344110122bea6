package source

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	kraftDir := filepath.Join(dir, "meta")
	os.MkdirAll(filepath.Join(kraftDir, "__cluster_metadata-0"), 0o755)
	os.WriteFile(filepath.Join(kraftDir, "__cluster_metadata-0", "00000000000000000000.log"), nil, 0o644)
	zkDir := filepath.Join(dir, "zk")
	os.MkdirAll(filepath.Join(zkDir, "version-2"), 0o755)
	snap := filepath.Join(dir, "00000000000000000100-0000000002.checkpoint")
	real, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata", "__cluster_metadata-0", "00000000000000000099-0000000001.checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(snap, real, 0o644)
	dump := filepath.Join(dir, "cluster.json")
	os.WriteFile(dump, []byte("{}"), 0o644)

	for _, tc := range []struct {
		in       string
		kind     Kind
		inferred bool
		str      string
	}{
		{"kraft:/var/lib/kafka/meta", KRaft, false, "kraft:/var/lib/kafka/meta"},
		{"zk://h1:2181,h2:2182/kafka/prod", ZooKeeper, false, "zk://h1:2181,h2:2182/kafka/prod"},
		{"zkdata:/var/lib/zookeeper", ZooKeeper, false, "zkdata:/var/lib/zookeeper"},
		{"zkdump:c.json", ZooKeeper, false, "zkdump:c.json"},
		{kraftDir, KRaft, true, "kraft:" + kraftDir},
		{snap, KRaft, true, "kraft:" + snap},
		{zkDir, ZooKeeper, true, "zkdata:" + zkDir},
		{dump, ZooKeeper, true, "zkdump:" + dump},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if s.Kind != tc.kind || s.Inferred != tc.inferred || s.String() != tc.str {
			t.Errorf("%s: got kind %v inferred %v %q, want %v %v %q", tc.in, s.Kind, s.Inferred, s.String(), tc.kind, tc.inferred, tc.str)
		}
	}
	for _, bad := range []string{"", "kraft:", "http://x", "no-such-path", "zk://bad host", "zk1:2181/kafka", "kafka://b:9092"} {
		if _, err := Parse(bad); !errors.Is(err, ErrSource) {
			t.Errorf("%q: err %v, want ErrSource", bad, err)
		}
	}
}

func TestParsePointInTime(t *testing.T) {
	dir := t.TempDir()
	at := filepath.Join(dir, "me@host")
	os.MkdirAll(filepath.Join(at, "__cluster_metadata-0"), 0o755)
	os.WriteFile(filepath.Join(at, "__cluster_metadata-0", "00000000000000000000.log"), nil, 0o644)
	for _, tc := range []struct {
		in, str string
		want    At
	}{
		{"kraft:/m@offset=1200", "kraft:/m@offset=1200", At{Offset: 1200, HasOffset: true}},
		{"kraft:/m@offset=0", "kraft:/m@offset=0", At{Offset: 0, HasOffset: true}},
		{"zkdata:/z@zxid=0x2000001f", "zkdata:/z@zxid=0x2000001f", At{Zxid: 0x2000001f}},
		{"zkdata:/z@zxid=42", "zkdata:/z@zxid=0x2a", At{Zxid: 42}},
		// '@' that is not a point in time stays part of the path.
		{at, "kraft:" + at, At{}},
		{at + "@offset=5", "kraft:" + at + "@offset=5", At{Offset: 5, HasOffset: true}},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if s.At != tc.want || s.String() != tc.str {
			t.Errorf("%s: at %+v %q, want %+v %q", tc.in, s.At, s.String(), tc.want, tc.str)
		}
	}
	for _, bad := range []string{
		"kraft:/m@offset=-1", "kraft:/m@offset=x", "kraft:/m@zxid=5",
		"zk://h:2181@zxid=5", "zkdump:/d.json@zxid=5", "zkdata:/z@offset=3", "zkdata:/z@zxid=0",
	} {
		if _, err := Parse(bad); !errors.Is(err, ErrSource) {
			t.Errorf("%s: err %v, want ErrSource", bad, err)
		}
	}
}
