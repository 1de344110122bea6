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
	os.WriteFile(snap, nil, 0o644)
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
		{"zk1:2181/kafka", ZooKeeper, true, "zk://zk1:2181/kafka"},
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
	for _, bad := range []string{"", "kraft:", "http://x", "no-such-path", "zk://bad host"} {
		if _, err := Parse(bad); !errors.Is(err, ErrSource) {
			t.Errorf("%q: err %v, want ErrSource", bad, err)
		}
	}
}
