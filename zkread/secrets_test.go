package zkread

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// TestMalformedZnodeErrorsCarryNoSecret: errors and lenient warnings about
// secret-bearing znodes name the znode, the field and where the data was
// read (file and offset), never the value: an unknown SCRAM mechanism
// (the whole credential used to be quoted), a credential whose field
// names are key material, a broker config whose JSON breaks right after a
// password.
func TestMalformedZnodeErrorsCarryNoSecret(t *testing.T) {
	for _, c := range []struct {
		name, path, field string
		mutate            func([]byte) []byte
	}{
		{"unknown SCRAM mechanism", "/config/users/alice", "SCRAM-SHA-1", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"SCRAM-SHA-256"`), []byte(`"SCRAM-SHA-1"`), 1)
		}},
		{"SCRAM field names of key material", "/config/users/alice", "SCRAM-SHA-256", func(b []byte) []byte {
			var v struct {
				Version int               `json:"version"`
				Config  map[string]string `json:"config"`
			}
			json.Unmarshal(b, &v)
			salt, _, _ := strings.Cut(strings.TrimPrefix(v.Config["SCRAM-SHA-256"], "salt="), ",")
			v.Config["SCRAM-SHA-256"] = salt + "=1," + salt + "=2," + v.Config["SCRAM-SHA-256"]
			out, _ := json.Marshal(v)
			return out
		}},
		{"broken JSON after a password", "/config/users/alice", "quota config", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"config":{`), []byte(`"config":{"x":"hunter2"hunter2,`), 1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, _ := fixtureImage(t)
			secrets := append(fixtureSecrets(t, tr, ""), "hunter2")
			origin, ok := tr.NodeOrigin(c.path)
			if !ok || origin.File == "" {
				t.Fatalf("no origin for %s", c.path)
			}
			tr.SetData(c.path, c.mutate(tr.Get(c.path).Data))
			_, err := Decode(tr, DecodeOptions{})
			var ze *ZnodeError
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &ze) || ze.Path != c.path || ze.File != origin.File || ze.Offset != origin.Offset {
				t.Fatalf("strict: %v", err)
			}
			img, lerr := Decode(tr, DecodeOptions{Lenient: true})
			if !errors.Is(lerr, ErrMalformed) || img == nil {
				t.Fatalf("lenient: %v", lerr)
			}
			var warned []string
			for _, w := range img.Warnings {
				if w.Code == model.WarnLenientDecode {
					warned = append(warned, w.Message)
					if w.Where == nil || w.Where.Znode != c.path || w.Where.File != origin.File || w.Where.Position != origin.Offset {
						t.Errorf("warning location %+v", w.Where)
					}
				}
			}
			if len(warned) != 1 || !img.IsPartial() {
				t.Errorf("lenient-decode warnings %q", warned)
			}
			for _, msg := range append([]string{err.Error(), lerr.Error()}, warned...) {
				if l := leaked(msg, secrets); len(l) > 0 {
					t.Errorf("message holds secret %q: %s", l[0], msg)
				}
				for _, want := range []string{c.path, c.field, filepath.Base(origin.File), "offset"} {
					if !strings.Contains(msg, want) {
						t.Errorf("message lacks %q: %s", want, msg)
					}
				}
			}
			// Nor may the printers, redacted, show it.
			if l := leaked(printAll(t, img, false), secrets); len(l) > 0 {
				t.Errorf("redacted image holds %q", l[0])
			}
		})
	}
}

// TestZnodeOrigins: an offline read records where each znode's data was
// read: a snapshot node record starts with the znode's absolute path, a
// log entry is the one that last wrote it.
func TestZnodeOrigins(t *testing.T) {
	tr, _ := fixtureImage(t)
	files := map[string][]byte{}
	checked := 0
	for _, p := range tr.Paths() {
		o, ok := tr.NodeOrigin(p)
		if !ok {
			t.Fatalf("no origin for %s", p)
		}
		b, ok := files[o.File]
		if !ok {
			var err error
			if b, err = os.ReadFile(o.File); err != nil {
				t.Fatal(err)
			}
			files[o.File] = b
		}
		if !strings.HasPrefix(filepath.Base(o.File), "snapshot.") {
			continue
		}
		abs := fixtureChroot + p
		if p == "/" {
			abs = fixtureChroot
		}
		n := int(binary.BigEndian.Uint32(b[o.Offset:]))
		if got := string(b[o.Offset+4 : o.Offset+4+int64(n)]); got != abs {
			t.Errorf("%s: the record at %s offset %d is %q", p, o.File, o.Offset, got)
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("checked %d snapshot origins", checked)
	}
}

// TestRedactedDumpRoundTrip: a dump redacted as `kmeta zk dump` writes it
// reads back with the same SCRAM fingerprints and iterations as the tree
// read directly, and the printers show the same fingerprints in text and
// JSON. Every other decoded field is equal too.
func TestRedactedDumpRoundTrip(t *testing.T) {
	tr, direct := fixtureImage(t)
	red := &Tree{nodes: map[string]*Node{}, Source: tr.Source, Chroot: tr.Chroot, MaxZxid: tr.MaxZxid}
	for p, n := range tr.Map() {
		c := *n
		c.Data = model.RedactRawZnode(p, n.Data)
		red.nodes[p] = &c
	}
	var buf bytes.Buffer
	if err := WriteDump(&buf, red); err != nil {
		t.Fatal(err)
	}
	if l := leaked(buf.String(), fixtureSecrets(t, tr, "")); len(l) > 0 {
		t.Fatalf("redacted dump holds %q", l[0])
	}
	back, err := ReadDump(&buf, "d.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(back, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := direct.Redacted()
	if len(want.SCRAM) < 4 {
		t.Fatalf("fixture has %d SCRAM credentials", len(want.SCRAM))
	}
	if d := cmp.Diff(want.SCRAM, img.Redacted().SCRAM); d != "" {
		t.Errorf("SCRAM from the redacted dump differs (-direct +dump):\n%s", d)
	}
	img.Provenance, want.Provenance = model.Provenance{}, model.Provenance{}
	img.SCRAM, want.SCRAM = nil, nil
	if d := cmp.Diff(want, img.Redacted()); d != "" {
		t.Errorf("image from the redacted dump differs (-direct +dump):\n%s", d)
	}
	var text, js bytes.Buffer
	back2, _ := Decode(back, DecodeOptions{})
	printer.WriteImage(&text, printer.Text, back2, printer.ImageOptions{})
	printer.WriteImage(&js, printer.JSON, back2, printer.ImageOptions{})
	for _, c := range direct.Redacted().SCRAM {
		fp := strings.TrimPrefix(c.Fingerprint, "sha256:")
		if !strings.Contains(text.String(), fp) || !strings.Contains(js.String(), fp) {
			t.Errorf("fingerprint %s of %s not in both text and JSON", c.Fingerprint, c.User)
		}
	}
}

// TestDumpNonUTF8: znode names and data that are not valid UTF-8 give a
// dump that is valid UTF-8 and valid JSON, and that reads back as the same
// tree (pathRaw keeps the exact name).
func TestDumpNonUTF8(t *testing.T) {
	tr := NewTree()
	tr.Source, tr.Chroot = "zkdata:/x\xff", "/c\xfe"
	tr.nodes["/"] = &Node{Children: []string{"a\xffb", "ok"}}
	tr.nodes["/a\xffb"] = &Node{Data: []byte(`{"k\xff":"v"}`), Children: []string{"\xc0"}}
	tr.nodes["/a\xffb/\xc0"] = &Node{Data: []byte("\xff\xfe"), Children: []string{}}
	tr.nodes["/ok"] = &Node{Data: []byte(`{"k":"v"}`), Children: []string{}}
	for _, n := range tr.Map() {
		// as ZooKeeper's stat says
		n.Stat.DataLength, n.Stat.NumChildren = int32(len(n.Data)), int32(len(n.Children))
	}
	var buf bytes.Buffer
	if err := WriteDump(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(buf.Bytes()) || !json.Valid(buf.Bytes()) {
		t.Fatalf("dump is not valid UTF-8 JSON:\n%s", buf.Bytes())
	}
	if !strings.Contains(buf.String(), `"pathRaw"`) || !strings.Contains(buf.String(), `"decoded": {`) {
		t.Errorf("dump lacks pathRaw or the decoded form of valid data:\n%s", buf.Bytes())
	}
	back, err := ReadDump(&buf, "d", 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr.Map(), back.Map()); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}
