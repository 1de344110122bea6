package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// TestWrongKindsNamed: a quorum-state file, JSON that is no dump, and an
// ordinary topic's partition log (its dir or a segment) are refused saying
// what they are, with or without a scheme; the metadata log and a real
// dump are still read.
func TestWrongKindsNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seg, _ := os.ReadFile(filepath.Join(kraftFixtureDir, "__cluster_metadata-0", "00000000000000000000.log"))
	qs := write("meta/quorum-state", `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"data_version":1}`)
	other := write("other.json", `{"a":1}`)
	list := write("list.json", `[1]`)
	part := write("orders-0/00000000000000000000.log", string(seg))
	pre28 := write("legacy-3/00000000000000000000.log", string(seg)) // no partition.metadata
	withID := write("ids-1/00000000000000000000.log", string(seg))
	write("ids-1/partition.metadata", "version: 0\ntopic_id: 3zkAdO6PSZ2mHFk2ZbMRsw\n")
	for _, tc := range []struct{ src, want string }{
		{qs, "a KRaft quorum-state file"},
		{"zkdump:" + qs, "a KRaft quorum-state file"},
		{other, `not a dump written by 'kmeta zk dump' (the object opened before byte position 1 has no "format": "kmeta-zk-dump" field; its first field is "a")`},
		{"zkdump:" + other, "not a dump written by 'kmeta zk dump'"},
		{"zkdump:" + list, "a dump is an object; this is an array"},
		{part, "a partition log of topic orders, not the metadata log"},
		{filepath.Dir(part), "a partition log of topic orders, not the metadata log"},
		{"kraft:" + filepath.Dir(part), "a partition log of topic orders"},
		{filepath.Dir(pre28), "a partition log of topic legacy"},
		{withID, "a partition log of topic ids"},
	} {
		spec, err := Parse(tc.src)
		if err == nil && spec.World == model.WorldKRaft && spec.Dir == nil {
			_, err = OpenKRaft(spec.Path)
		}
		if !errors.Is(err, ErrUnrecognised) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrUnrecognised saying %q", tc.src, err, tc.want)
		}
	}
	for _, ok := range []string{filepath.Join(kraftFixtureDir, "__cluster_metadata-0"), zkDumpFixture, "zkdump:" + zkDumpFixture} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
