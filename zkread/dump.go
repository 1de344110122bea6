package zkread

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// DumpFormat names the JSON document WriteDump produces.
const (
	DumpFormat  = "kmeta-zk-dump"
	DumpVersion = 1
)

// dumpHeader is the dump file's fields before "znodes". Field names are a
// stable interface; see doc.go ("Dump file").
type dumpHeader struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	Source   string          `json:"source"`
	Chroot   string          `json:"chroot"`
	MaxZxid  int64           `json:"maxZxid"`
	Changed  bool            `json:"changed"`
	Warnings []string        `json:"warnings"`
	Findings []model.Finding `json:"findings,omitempty"`
}

type dumpZnode struct {
	// Path is the znode's path; when the name is not valid UTF-8 (JSON
	// cannot hold it) the invalid bytes show as U+FFFD here and PathRaw
	// holds the exact bytes, standard base64.
	Path    string `json:"path"`
	PathRaw string `json:"pathRaw,omitempty"`
	Stat    Stat   `json:"stat"`
	// Data is the raw data, standard base64; null for a null znode.
	Data *string `json:"data"`
	// Text is the data as a string when it is valid UTF-8 (informational;
	// readers use Data).
	Text *string `json:"text,omitempty"`
	// Decoded is the data as JSON when it is a JSON value in valid UTF-8
	// (informational).
	Decoded json.RawMessage `json:"decoded,omitempty"`
	ACL     []ACL           `json:"acl,omitempty"`
}

// WriteDump writes t as a dump document, znodes sorted by path. It writes
// znode by znode, so memory stays that of the tree. The output is valid
// UTF-8 whatever the znodes hold.
func WriteDump(w io.Writer, t *Tree) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	h := dumpHeader{Format: DumpFormat, Version: DumpVersion, Source: strings.ToValidUTF8(t.Source, "\uFFFD"), Chroot: strings.ToValidUTF8(t.Chroot, "\uFFFD"),
		MaxZxid: t.MaxZxid, Changed: t.Changed, Warnings: append([]string{}, t.Warnings...), Findings: t.Findings}
	hb, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	// The header object without its closing brace, then "znodes".
	bw.Write(bytes.TrimSuffix(hb, []byte("\n}")))
	bw.WriteString(",\n  \"znodes\": [")
	i := 0
	err = t.sorted(func(p string, n *Node) error {
		z := dumpZnode{Path: p, Stat: n.Stat, ACL: n.ACL}
		if !utf8.ValidString(p) {
			z.Path = strings.ToValidUTF8(p, "\uFFFD")
			z.PathRaw = base64.StdEncoding.EncodeToString([]byte(p))
		}
		if n.Data != nil {
			s := base64.StdEncoding.EncodeToString(n.Data)
			z.Data = &s
			if isText(n.Data) {
				txt := string(n.Data)
				z.Text = &txt
				// json.Compact copies string bytes as they are: only valid
				// UTF-8 may go into the output verbatim.
				if json.Valid(n.Data) {
					var buf bytes.Buffer
					if json.Compact(&buf, n.Data) == nil {
						z.Decoded = buf.Bytes()
					}
				}
			}
		}
		zb, err := json.MarshalIndent(z, "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		i++
		bw.WriteString("\n    ")
		bw.Write(zb)
		return nil
	})
	if err != nil {
		return err
	}
	if i > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

func isText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// WriteDumpFile writes the dump atomically: a temp file in the same
// directory, fsynced, then renamed. An existing file is refused unless
// overwrite.
func WriteDumpFile(path string, t *Tree, overwrite bool) (err error) {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("zkread: %s exists (refusing to overwrite)", path)
		}
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".kmeta-zkdump-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = WriteDump(f, t); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ReadDump reads a dump document back into a Tree, znode by znode (the
// document is never held whole). Children lists are rebuilt from the
// paths; every znode's parent must be in the dump. Errors name the dump
// and the byte offset in it. Tree.NodeOrigin says nothing: a znode of a dump is
// found by its path, and half a million map entries would cost a fifth of
// the tree's memory.
//
// maxBuffer is ZooKeeper's jute.maxbuffer (<= 0: the default): a znode
// whose data is longer than a data dir read would accept
// (zkfile.LengthLimit) is refused, with its path and size, so a dump
// never passes what the data dir it was taken from could not hold.
func ReadDump(r io.Reader, name string, maxBuffer int) (*Tree, error) {
	dec := json.NewDecoder(&utf8Reader{r: bufio.NewReaderSize(r, 256<<10), name: name})
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%w: %s: offset %d: %s", ErrDump, name, off, fmt.Sprintf(format, args...))
	}
	var h dumpHeader
	t := NewTree()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fail(dec.InputOffset(), "not a JSON object (%v)", err)
	}
	sawZnodes := false
	// Keys whose absence or null would silently change the answer (a
	// missing maxZxid reads as 0, a missing chroot as none).
	var maxZxid *int64
	var chroot *string
	// ACL lists repeat across znodes: keep one copy of each.
	acls := map[string][]ACL{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(dec.InputOffset(), "%v", err)
		}
		key, _ := tok.(string)
		var dst any
		switch key {
		case "format":
			dst = &h.Format
		case "version":
			dst = &h.Version
		case "source":
			dst = &h.Source
		case "chroot":
			dst = &chroot
		case "maxZxid":
			dst = &maxZxid
		case "changed":
			dst = &h.Changed
		case "warnings":
			dst = &h.Warnings
		case "findings":
			dst = &h.Findings
		case "znodes":
			if h.Format != DumpFormat {
				return nil, fail(dec.InputOffset(), "format %q, want %q", h.Format, DumpFormat)
			}
			if h.Version != DumpVersion {
				return nil, fail(dec.InputOffset(), "version %d is not supported (want %d)", h.Version, DumpVersion)
			}
			if maxZxid == nil {
				return nil, fail(dec.InputOffset(), "znodes come before maxZxid (or it is null): not a dump kmeta wrote")
			}
			if err := readDumpZnodes(dec, t, *maxZxid, acls, zkfile.LengthLimit(maxBuffer), fail); err != nil {
				return nil, err
			}
			sawZnodes = true
			continue
		default:
			dst = &json.RawMessage{}
		}
		if err := dec.Decode(dst); err != nil {
			return nil, fail(dec.InputOffset(), "%q: %v", key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(dec.InputOffset(), "%v", err)
	}
	if h.Format != DumpFormat {
		return nil, fail(dec.InputOffset(), "format %q, want %q", h.Format, DumpFormat)
	}
	if h.Version != DumpVersion {
		return nil, fail(dec.InputOffset(), "version %d is not supported (want %d)", h.Version, DumpVersion)
	}
	if !sawZnodes || t.nodes["/"] == nil {
		return nil, fail(dec.InputOffset(), "no root znode \"/\"")
	}
	if maxZxid == nil || chroot == nil {
		return nil, fail(dec.InputOffset(), "the header lacks maxZxid or chroot (or holds null): not a dump kmeta wrote")
	}
	h.MaxZxid, h.Chroot = *maxZxid, *chroot
	t.Source, t.Chroot, t.MaxZxid, t.Changed = "zkdump:"+name, h.Chroot, h.MaxZxid, h.Changed
	if strings.HasPrefix(h.Source, "zk://") {
		t.Origin = h.Source
	}
	t.Warnings = h.Warnings
	t.Findings = h.Findings
	if len(t.Findings) != len(t.Warnings) {
		// A dump written before typed warnings: keep the text, untyped.
		t.Findings = nil
	}
	paths := t.Paths()
	for _, p := range paths {
		if p == "/" {
			continue
		}
		i := strings.LastIndexByte(p, '/')
		parent := p[:i]
		if parent == "" {
			parent = "/"
		}
		pn := t.nodes[parent]
		if pn == nil {
			return nil, fmt.Errorf("%w: %s: znode %s has no parent in the dump", ErrDump, name, model.Shown(p))
		}
		pn.Children = append(pn.Children, p[i+1:])
	}
	// The stat is ZooKeeper's account of the children too: a znode whose
	// numChildren disagrees with the children the dump holds lost (or
	// gained) znodes after it was written, unless the read the dump was
	// written from saw the tree change (a live read: a znode deleted
	// between its parent's listing and its own read, children that moved
	// between a znode's stat and its listing), which its warnings record
	// and which makes the answer partial when it is read back.
	if !h.Changed && !sawTreeChange(h.Findings, h.Warnings) {
		for _, p := range paths {
			n := t.nodes[p]
			if int64(len(n.Children)) != int64(n.Stat.NumChildren) {
				return nil, fmt.Errorf("%w: %s: znode %s: %d child(ren) in the dump, its stat says numChildren %d", ErrDump, name, model.Shown(p), len(n.Children), n.Stat.NumChildren)
			}
		}
	}
	return t, nil
}

// sawTreeChange says whether a dump's warnings record that its live read
// saw the tree change (model.WarnTreeChanged), so that a znode's stat may
// count children that were not read, or miss some that were. A dump
// written before typed findings holds the warnings' text only.
func sawTreeChange(findings []model.Finding, warnings []string) bool {
	if len(findings) == len(warnings) {
		return slices.ContainsFunc(findings, func(f model.Finding) bool { return f.Code == model.WarnTreeChanged })
	}
	return slices.ContainsFunc(warnings, func(w string) bool {
		return strings.Contains(w, " disappeared while reading") || strings.Contains(w, "changed while it was read")
	})
}

func readDumpZnodes(dec *json.Decoder, t *Tree, maxZxid int64, acls map[string][]ACL, limit int, fail func(int64, string, ...any) error) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fail(dec.InputOffset(), "znodes is not an array")
	}
	var z struct {
		Path    string    `json:"path"`
		PathRaw *string   `json:"pathRaw"`
		Stat    *dumpStat `json:"stat"`
		Data    *string   `json:"data"`
		ACL     []ACL     `json:"acl"`
	}
	for i := 0; dec.More(); i++ {
		off := dec.InputOffset()
		z.Path, z.PathRaw, z.Stat, z.Data, z.ACL = "", nil, nil, nil, nil
		if err := dec.Decode(&z); err != nil {
			return fail(off, "znode %d: %v", i, err)
		}
		if z.Stat == nil {
			return fail(off, "znode %d (%s): no stat", i, strconv.Quote(z.Path))
		}
		st, missing := z.Stat.stat()
		if missing != "" {
			return fail(off, "znode %d (%s): stat.%s is missing or null", i, strconv.Quote(z.Path), missing)
		}

		path := z.Path
		if z.PathRaw != nil {
			b, err := base64.StdEncoding.DecodeString(*z.PathRaw)
			if err != nil {
				return fail(off, "znode %d: pathRaw: %v", i, err)
			}
			path = string(b)
		}
		if !validZnodePath(path) {
			return fail(off, "znode %d: invalid path %s", i, strconv.Quote(path))
		}
		// maxZxid is the highest zxid the read saw: no znode is newer.
		if top := max(st.Czxid, st.Mzxid, st.Pzxid); top > maxZxid {
			return fail(off, "znode %s: zxid %#x is above the dump's maxZxid %#x", model.Shown(path), top, maxZxid)
		}
		if _, dup := t.nodes[path]; dup {
			return fail(off, "znode %s appears twice", model.Shown(path))
		}
		n := &Node{Stat: st, Children: []string{}}
		if z.ACL != nil {
			k := fmt.Sprint(z.ACL)
			if a, ok := acls[k]; ok {
				n.ACL = a
			} else {
				acls[k] = z.ACL
				n.ACL = z.ACL
			}
		}
		// The stat's dataLength first: a redacted value is shorter than
		// the data it stands for, and the check comes before decoding.
		if size := max(int64(n.Stat.DataLength), dumpDataLen(z.Data)); size > int64(limit) {
			return fail(off, "znode %s: %d bytes of data, more than jute.maxbuffer lets ZooKeeper read (%d)", model.Shown(path), size, limit)
		}
		if z.Data != nil {
			b, err := base64.StdEncoding.DecodeString(*z.Data)
			if err != nil {
				return fail(off, "znode %s: data: %v", model.Shown(path), err)
			}
			n.Data = b
		}
		// The stat is ZooKeeper's own account of the data: a dump whose
		// data disagrees with it was edited or damaged, unless kmeta
		// redacted a secret in it (zk dump without --show-secrets).
		if int64(len(n.Data)) != int64(n.Stat.DataLength) && !bytes.Contains(n.Data, []byte("[redacted sha256:")) {
			return fail(off, "znode %s: %d byte(s) of data, its stat says dataLength %d", model.Shown(path), len(n.Data), n.Stat.DataLength)
		}
		t.nodes[path] = n
	}
	if _, err := dec.Token(); err != nil {
		return fail(dec.InputOffset(), "%v", err)
	}
	return nil
}

// dumpDataLen is the decoded length of a dump's base64 data (0 for
// none), padding counted out, without decoding it.
func dumpDataLen(b64 *string) int64 {
	if b64 == nil {
		return 0
	}
	s := *b64
	n := int64(base64.StdEncoding.DecodedLen(len(s)))
	for i := 0; i < 2 && strings.HasSuffix(s, "="); i++ {
		s, n = s[:len(s)-1], n-1
	}
	return n
}

// ReadDumpFile opens and reads a dump file (a regular file: a device or a
// FIFO is refused rather than read without end). maxBuffer: see ReadDump.
func ReadDumpFile(path string, maxBuffer int) (*Tree, error) {
	f, _, err := zkfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDump(f, path, maxBuffer)
}

// validZnodePath is the part of ZooKeeper's PathUtils.validatePath that
// bytes can break: absolute, no empty segment, no trailing '/', no NUL.
func validZnodePath(p string) bool {
	if p == "/" {
		return true
	}
	return len(p) > 1 && p[0] == '/' && p[len(p)-1] != '/' && !strings.Contains(p, "//") && !strings.ContainsRune(p, 0)
}

// dumpStat is a stat as a dump holds it: every field must be there and
// not null (encoding/json would silently read a null or absent number as
// 0).
type dumpStat struct {
	Czxid          *int64 `json:"czxid"`
	Mzxid          *int64 `json:"mzxid"`
	Pzxid          *int64 `json:"pzxid"`
	Ctime          *int64 `json:"ctime"`
	Mtime          *int64 `json:"mtime"`
	Version        *int32 `json:"version"`
	Cversion       *int32 `json:"cversion"`
	Aversion       *int32 `json:"aversion"`
	EphemeralOwner *int64 `json:"ephemeralOwner"`
	DataLength     *int32 `json:"dataLength"`
	NumChildren    *int32 `json:"numChildren"`
}

// stat returns the Stat, or the name of the first field missing.
func (d *dumpStat) stat() (Stat, string) {
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"czxid", d.Czxid != nil}, {"mzxid", d.Mzxid != nil}, {"pzxid", d.Pzxid != nil}, {"ctime", d.Ctime != nil},
		{"mtime", d.Mtime != nil}, {"version", d.Version != nil}, {"cversion", d.Cversion != nil}, {"aversion", d.Aversion != nil},
		{"ephemeralOwner", d.EphemeralOwner != nil}, {"dataLength", d.DataLength != nil}, {"numChildren", d.NumChildren != nil},
	} {
		if !f.ok {
			return Stat{}, f.name
		}
	}
	return Stat{Czxid: *d.Czxid, Mzxid: *d.Mzxid, Pzxid: *d.Pzxid, Ctime: *d.Ctime, Mtime: *d.Mtime, Version: *d.Version,
		Cversion: *d.Cversion, Aversion: *d.Aversion, EphemeralOwner: *d.EphemeralOwner, DataLength: *d.DataLength,
		NumChildren: *d.NumChildren}, ""
}

// utf8Reader fails at the first byte that is not UTF-8: encoding/json
// would silently turn it into U+FFFD and change a name or a value.
type utf8Reader struct {
	r     io.Reader
	carry []byte // an incomplete sequence at the end of the last read
	off   int64
	name  string
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if len(p) <= utf8.UTFMax {
		return 0, fmt.Errorf("utf8Reader: read buffer of %d bytes", len(p))
	}
	n := copy(p, u.carry)
	m, err := u.r.Read(p[n:])
	n += m
	// Hold back a trailing incomplete sequence for the next read.
	end := n
	for i := 1; i < utf8.UTFMax && i <= n; i++ {
		if c := p[n-i]; c >= 0xC0 {
			if !utf8.FullRune(p[n-i : n]) {
				end = n - i
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	if err == io.EOF {
		end = n // at the end an incomplete sequence is invalid
	}
	if !utf8.Valid(p[:end]) {
		for i := 0; i < end; {
			r, size := utf8.DecodeRune(p[i:end])
			if r == utf8.RuneError && size <= 1 {
				return 0, fmt.Errorf("%w: %s: offset %d: not UTF-8", ErrDump, u.name, u.off+int64(i))
			}
			i += size
		}
	}
	u.carry = append(u.carry[:0], p[end:n]...)
	u.off += int64(end)
	return end, err
}
