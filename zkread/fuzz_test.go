package zkread

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeZnode puts arbitrary bytes at each znode kind the decoder reads
// (seeded with the fixture's real data): no panic, and any error is a
// located ErrMalformed.
func FuzzDecodeZnode(f *testing.F) {
	paths := []string{"/cluster/id", "/controller", "/controller_epoch", "/brokers/ids/1", "/brokers/topics/t",
		"/brokers/topics/t/partitions/0/state", "/config/topics/t", "/config/brokers/<default>", "/config/users/u",
		"/config/users/u/clients/c", "/config/ips/1.2.3.4", "/kafka-acl/Topic/t", "/kafka-acl-extended/prefixed/Group/g",
		"/latest_producer_id_block", "/delegation_token/tokens/x", "/feature", "/migration", "/admin/reassign_partitions",
		"/admin/preferred_replica_election"}
	if tr, err := ReadDataDir(fixtureDir+"/datadir", DataDirOptions{Chroot: fixtureChroot}); err == nil {
		for i, p := range tr.Paths() {
			if d := tr.Get(p).Data; len(d) > 0 {
				f.Add(uint8(i), d)
			}
		}
	}
	f.Add(uint8(4), []byte(`{"version":3,"partitions":{"0":[1]},"topic_id":"vKw_XjiOThejrhgwsgciOw","adding_replicas":{"0":[2]}}`))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		p := paths[int(which)%len(paths)]
		tr := tree(map[string]string{p: string(data), "/brokers/topics/t": `{"partitions":{"0":[1]}}`}, nil, nil)
		if p == "/brokers/topics/t" {
			tr.nodes[p].Data = data
		}
		_, err := Decode(tr, DecodeOptions{})
		var ze *ZnodeError
		if err != nil && (!errors.Is(err, ErrMalformed) || !errors.As(err, &ze)) {
			t.Fatalf("%s: error is not a located ErrMalformed: %v", p, err)
		}
		img, err := Decode(tr, DecodeOptions{Lenient: true})
		if img == nil {
			t.Fatalf("lenient decode returned no image: %v", err)
		}
	})
}

// FuzzReadDump: any input is a dump or an ErrDump error, never a panic;
// a dump that reads is written back as valid UTF-8 JSON that reads as
// the same tree.
func FuzzReadDump(f *testing.F) {
	if b, err := os.ReadFile(fixtureDump); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"format":"kmeta-zk-dump","version":1,"znodes":[{"path":"/","stat":{},"data":null},{"path":"/a","pathRaw":"L2H/","stat":{},"data":"eyJrIjoxfQ=="}]}`))
	f.Add([]byte(`{"format":"kmeta-zk-dump","version":1,"warnings":["w"],"findings":[{"code":"x","severity":"warning","message":"w"}],"znodes":[{"path":"/","stat":{"version":3},"data":"","acl":[{"perms":31,"scheme":"world","id":"anyone"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ReadDump(bytes.NewReader(b), "fuzz", 0)
		if err != nil {
			if !errors.Is(err, ErrDump) {
				t.Fatalf("error is not ErrDump: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteDump(&out, tr); err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(out.Bytes()) || !json.Valid(out.Bytes()) {
			t.Fatalf("written dump is not valid UTF-8 JSON: %q", out.Bytes())
		}
		back, err := ReadDump(&out, "again", 0)
		if err != nil {
			t.Fatalf("written dump does not read back: %v", err)
		}
		if d := cmp.Diff(tr.Map(), back.Map()); d != "" {
			t.Fatalf("round trip differs:\n%s", d)
		}
	})
}
