package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
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
	os.WriteFile(dump, []byte(`{"format":"kmeta-zk-dump"}`), 0o644)

	for _, tc := range []struct {
		in       string
		world    model.World
		inferred bool
		str      string
	}{
		{"kraft:/var/lib/kafka/meta", model.WorldKRaft, false, "kraft:/var/lib/kafka/meta"},
		{"zk://h1:2181,h2:2182/kafka/prod", model.WorldZooKeeper, false, "zk://h1:2181,h2:2182/kafka/prod"},
		{"zkdata:/var/lib/zookeeper", model.WorldZooKeeper, false, "zkdata:/var/lib/zookeeper"},
		{"zkdump:c.json", model.WorldZooKeeper, false, "zkdump:c.json"},
		{kraftDir, model.WorldKRaft, true, "kraft:" + kraftDir},
		{snap, model.WorldKRaft, true, "kraft:" + snap},
		{zkDir, model.WorldZooKeeper, true, "zkdata:" + zkDir},
		{dump, model.WorldZooKeeper, true, "zkdump:" + dump},
		{"kafka://b1:9092", model.WorldKafka, false, "kafka://b1:9092"},
		{"kafka://b1:9092, b2:9093,[::1]:9094", model.WorldKafka, false, "kafka://b1:9092,b2:9093,[::1]:9094"},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if s.World != tc.world || s.Inferred != tc.inferred || s.String() != tc.str {
			t.Errorf("%s: got world %v inferred %v %q, want %v %v %q", tc.in, s.World, s.Inferred, s.String(), tc.world, tc.inferred, tc.str)
		}
	}
	for _, bad := range []string{"", "kraft:", "http://x", "no-such-path", "zk://bad host", "zk1:2181/kafka",
		"kafka:", "kafka://", "kafka://b", "kafka://b:x", "kafka://b:0", "kafka://b:70000", "kafka://::1:9092",
		"kafka://b:9092/path", "kafka://u@b:9092", "kafka://b:9092,", "kafka:b:9092"} {
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
		{"zkdata:/z@zxid=0x2000001f", "zkdata:/z@zxid=0x2000001f", At{Zxid: 0x2000001f, HasZxid: true}},
		{"zkdata:/z@zxid=42", "zkdata:/z@zxid=0x2a", At{Zxid: 42, HasZxid: true}},
		// 0 is a point of either kind: the tree before any transaction.
		{"zkdata:/z@zxid=0", "zkdata:/z@zxid=0x0", At{Zxid: 0, HasZxid: true}},
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
		"zk://h:2181@zxid=5", "zkdump:/d.json@zxid=5", "zkdata:/z@offset=3",
	} {
		if _, err := Parse(bad); !errors.Is(err, ErrSource) {
			t.Errorf("%s: err %v, want ErrSource", bad, err)
		}
	}
}

// brokerDir writes a broker's partition log dir as Kafka writes one:
// meta.properties (version 0 for a ZooKeeper-mode broker, 1 for KRaft),
// the checkpoint files, and topic-partition dirs with an empty segment.
func brokerDir(t *testing.T, version int, parts ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kafka-logs")
	os.MkdirAll(dir, 0o755)
	props := "#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=1\nversion=0\ncluster.id=ToAmJGLdjtzIec30sLZozA\n"
	if version == 1 {
		props = "#\n#Tue Dec 01 09:00:00 UTC 2026\nnode.id=1\nversion=1\ncluster.id=ToAmJGLdjtzIec30sLZozA\ndirectory.id=mZ8hGtXyQmS4xTq3j6y1Ow\n"
	}
	os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644)
	for _, f := range []string{"cleaner-offset-checkpoint", "log-start-offset-checkpoint", "recovery-point-offset-checkpoint", "replication-offset-checkpoint"} {
		os.WriteFile(filepath.Join(dir, f), []byte("0\n0\n"), 0o644)
	}
	for _, p := range parts {
		os.MkdirAll(filepath.Join(dir, p), 0o755)
		os.WriteFile(filepath.Join(dir, p, "00000000000000000000.log"), nil, 0o644)
		os.WriteFile(filepath.Join(dir, p, "00000000000000000000.index"), nil, 0o644)
	}
	return dir
}

// TestInferenceSaysWhatItSaw: each refusal names the path once and says
// what was there, and unwraps to its own sentinel (and ErrSource).
func TestInferenceSaysWhatItSaw(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	random := filepath.Join(dir, "random.bin")
	os.WriteFile(random, []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2}, 0o644)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	other := filepath.Join(dir, "other")
	os.MkdirAll(filepath.Join(other, "sub"), 0o755)
	os.WriteFile(filepath.Join(other, "a.txt"), []byte("x"), 0o644)
	zkSnap := filepath.Join(dir, "snapshot.100000000")
	os.WriteFile(zkSnap, []byte{1, 2, 3}, 0o644)
	mp := filepath.Join(t.TempDir(), "meta.properties")
	os.WriteFile(mp, []byte("version=1\nnode.id=1\ncluster.id=x\n"), 0o644)
	zkBroker := brokerDir(t, 0, "orders-0", "orders-1", "__consumer_offsets-0")
	kraftBroker := brokerDir(t, 1, "orders-0")

	for _, tc := range []struct {
		in       string
		sentinel error
		want     string
	}{
		{filepath.Join(dir, "nope"), ErrNoPath, "no such file or directory"},
		{empty, ErrEmpty, "an empty directory: neither KRaft metadata"},
		{random, ErrUnrecognised, "a file kmeta does not recognise (7 bytes, binary)"},
		{text, ErrUnrecognised, "a file kmeta does not recognise (6 bytes, text)"},
		{other, ErrUnrecognised, "a directory holding neither KRaft metadata"},
		{zkSnap, ErrUnrecognised, "looks like a ZooKeeper snapshot file: give the data dir"},
		{mp, ErrUnrecognised, "a KRaft meta-properties file: give the directory holding it"},
		{zkBroker, ErrBrokerDir, "a ZooKeeper-mode broker log dir (broker.id 1, 3 partition dirs); it holds no KRaft metadata — migrate brokers converts it"},
		{kraftBroker, ErrBrokerDir, "a KRaft broker log dir (node.id 1, 1 partition dirs) without the metadata log"},
		{"zk1:2181/kafka", ErrNoPath, "a live ZooKeeper ensemble is named zk://zk1:2181/kafka"},
		{"kafka://b1:9092", ErrUnrecognised, "a live Kafka source; this command reads KRaft metadata files"},
		// An explicit kraft: scheme gets the same refusals.
		{"kraft:" + zkBroker, ErrBrokerDir, "a ZooKeeper-mode broker log dir"},
		{"kraft:" + empty, ErrEmpty, "an empty directory"},
	} {
		_, err := ParseKRaft(tc.in)
		if err == nil {
			t.Errorf("%s: accepted", tc.in)
			continue
		}
		if !errors.Is(err, tc.sentinel) || !errors.Is(err, ErrSource) {
			t.Errorf("%s: %v does not unwrap to %v and ErrSource", tc.in, err, tc.sentinel)
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.in, msg, tc.want)
		}
		path := strings.TrimPrefix(tc.in, "kraft:")
		if n := strings.Count(msg, path); n != 1 && !strings.HasPrefix(tc.in, "zk1") {
			t.Errorf("%s: the message names the path %d times: %q", tc.in, n, msg)
		}
	}
}

// TestPermissionRefusals: a path kmeta may not read says so, for stat and
// for listing. The messages are checked from the errors the OS gives; the
// chmod case runs only when not root (root reads everything).
func TestPermissionRefusals(t *testing.T) {
	p := "/var/lib/kafka/meta"
	for _, err := range []error{
		statError(p, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrPermission}),
		readDirError(p, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}),
	} {
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "permission denied") || strings.Count(err.Error(), p) != 1 {
			t.Errorf("%v", err)
		}
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: a chmod 000 dir stays readable, so only the messages were checked")
		return
	}
	dir := filepath.Join(t.TempDir(), "locked")
	os.Mkdir(dir, 0o000)
	defer os.Chmod(dir, 0o755)
	if _, err := Parse(dir); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("locked dir: %v", err)
	}
}

// TestBrokerDirRecognition: what counts as a broker's partition log dir.
func TestBrokerDirRecognition(t *testing.T) {
	b := InspectBrokerDir(brokerDir(t, 0, "t-0", "t-1"))
	if b == nil || !b.ZooKeeperMode() || b.NodeID != 1 || b.Partitions != 2 || b.ClusterID != "ToAmJGLdjtzIec30sLZozA" {
		t.Fatalf("%+v", b)
	}
	// A ZooKeeper-mode broker dir with no partitions yet is still one.
	if b := InspectBrokerDir(brokerDir(t, 0)); b == nil || b.Partitions != 0 {
		t.Errorf("no partitions: %+v", b)
	}
	// A metadata log dir is not a broker dir, even with partition dirs
	// beside it (a combined broker+controller's log dir).
	combined := brokerDir(t, 1, "t-0")
	os.MkdirAll(filepath.Join(combined, "__cluster_metadata-0"), 0o755)
	if b := InspectBrokerDir(combined); b != nil {
		t.Errorf("combined dir taken for a broker dir: %+v", b)
	}
	// A KRaft metadata log dir without partitions is not one either.
	if b := InspectBrokerDir(filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")); b != nil {
		t.Errorf("fixture metadata dir taken for a broker dir: %+v", b)
	}
}

// TestParseKRaftOpensOnce: the log dir inference opened is the one handed
// on; a ZooKeeper source is refused by the KRaft-only parser.
func TestParseKRaftOpensOnce(t *testing.T) {
	fixture := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	for _, in := range []string{fixture, "kraft:" + fixture} {
		s, err := ParseKRaft(in)
		if err != nil || s.Dir == nil || len(s.Dir.Segments) != 2 {
			t.Errorf("%s: %v %+v", in, err, s.Dir)
		}
	}
	if _, err := ParseKRaft("zkdata:" + filepath.Join("..", "..", "testdata", "zk", "datadir")); !errors.Is(err, ErrSource) {
		t.Errorf("zkdata accepted by ParseKRaft: %v", err)
	}
}

// TestLoadTypedWarnings: Load carries what the image rests on as typed
// warnings: a CRC failure where replay stopped makes it partial, a torn
// tail of the active segment does not; a point in time past the end is
// refused.
func TestLoadTypedWarnings(t *testing.T) {
	fixture := filepath.Join("..", "..", "testdata", "kraft", "4.4.0", "metadata")
	seg := filepath.Join("__cluster_metadata-0", "00000000000000000086.log")
	load := func(src string, at int64) (*model.Image, error) {
		s, err := Parse(src)
		if err != nil {
			return nil, err
		}
		if at >= 0 {
			if s, err = s.WithPoint(At{Offset: at, HasOffset: true}); err != nil {
				return nil, err
			}
		}
		r, err := Load(context.Background(), s, Options{})
		if err != nil {
			return nil, err
		}
		return r.Image, nil
	}
	codes := func(img *model.Image) []string {
		var out []string
		for _, w := range img.Warnings {
			out = append(out, w.Code)
		}
		return out
	}

	img, err := load(fixture, -1)
	if err != nil || len(img.Warnings) != 0 || img.IsPartial() {
		t.Fatalf("clean fixture: %v %v", err, img.Warnings)
	}

	crc := fstree.Copy(t, fixture)
	b, _ := os.ReadFile(filepath.Join(crc, seg))
	b[len(b)/2] ^= 0x10
	os.WriteFile(filepath.Join(crc, seg), b, 0o644)
	img, err = load(crc, -1)
	if err != nil || !img.IsPartial() || !slices.Contains(codes(img), model.WarnReplayStopped) {
		t.Errorf("CRC failure: %v partial=%v %v", err, img != nil && img.IsPartial(), img.Warnings)
	}

	torn := fstree.Copy(t, fixture)
	b, _ = os.ReadFile(filepath.Join(torn, seg))
	os.WriteFile(filepath.Join(torn, seg), b[:len(b)-7], 0o644)
	img, err = load(torn, -1)
	if err != nil || img.IsPartial() || !slices.Equal(codes(img), []string{model.WarnTornTail}) {
		t.Errorf("torn tail: %v %v", err, img.Warnings)
	} else if w := img.Warnings[0].Message; !strings.Contains(w, "never committed") {
		t.Errorf("torn tail warning does not say what was lost: %q", w)
	}

	if _, err := load(fixture, 193); err != nil {
		t.Errorf("last offset: %v", err)
	}
	for _, src := range []string{fixture + "@offset=194", fixture + "@offset=100000"} {
		if _, err := load(src, -1); !errors.Is(err, ErrPastEnd) || !strings.Contains(err.Error(), "its last offset is 193") {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestCredentialsNeverEchoed: credentials written into a source as a URL
// carries them (USER:PASSWORD@HOST) are refused as a usage error that
// says where they go instead, and neither the error nor anything it wraps
// shows the password. An '@' that is a ZooKeeper chroot's or a point in
// time's is not credentials.
func TestCredentialsNeverEchoed(t *testing.T) {
	const pw = "s3c,r/et:PW"
	for _, tc := range []struct {
		src  string
		live bool // given to --bootstrap-server
		want string
	}{
		{src: "kafka://bob:" + pw + "@h:9092", want: "--command-config"},
		{src: "kafka://h1:9092,bob:" + pw + "@h2:9092", want: "--command-config"},
		{src: "kafka://bob:" + pw + "@h:9092@offset=5", want: "--command-config"},
		{src: "kafka://bob:" + pw + "@h:9092@offset=x", want: "--command-config"},
		{src: "zk://bob:" + pw + "@h:2181/kafka", want: "KMETA_ZK_AUTH"},
		{src: "zk://bob:" + pw + "@h:2181", want: "KMETA_ZK_AUTH"},
		{src: "bob:" + pw + "@h:9092", live: true, want: "--command-config"},
		{src: "h1:9092,bob:" + pw + "@h2:9092", live: true, want: "--command-config"},
	} {
		var err error
		if tc.live {
			_, err = Live(tc.src, false)
		} else {
			_, err = Parse(tc.src)
		}
		if err == nil || !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a source error naming %s", tc.src, err, tc.want)
			continue
		}
		for _, part := range []string{pw, "s3c", "et:PW"} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("%s: the error shows the password: %v", tc.src, err)
			}
		}
	}
	for _, src := range []string{"zk://h:2181/ka@fka", "zk://h:2181/kafka@zxid=5"} {
		if _, err := Parse(src); err != nil && strings.Contains(err.Error(), "credentials") {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, _, err := zkread.ParseConnect("bob:" + pw + "@h:2181/kafka"); err == nil || strings.Contains(err.Error(), "s3c") {
		t.Errorf("zookeeper.connect with credentials: %v", err)
	}
}
