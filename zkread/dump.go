package zkread

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DumpFormat names the JSON document WriteDump produces.
const (
	DumpFormat  = "kmeta-zk-dump"
	DumpVersion = 1
)

// dumpDoc is the dump file. Field names are a stable interface; see
// doc.go ("Dump file").
type dumpDoc struct {
	Format   string      `json:"format"`
	Version  int         `json:"version"`
	Source   string      `json:"source"`
	Chroot   string      `json:"chroot"`
	MaxZxid  int64       `json:"maxZxid"`
	Changed  bool        `json:"changed"`
	Warnings []string    `json:"warnings"`
	Znodes   []dumpZnode `json:"znodes"`
}

type dumpZnode struct {
	Path string `json:"path"`
	Stat Stat   `json:"stat"`
	// Data is the raw data, standard base64; null for a null znode.
	Data *string `json:"data"`
	// Text is the data as a string when it is valid UTF-8 (informational;
	// readers use Data).
	Text *string `json:"text,omitempty"`
	// Decoded is the data as JSON when it is a JSON value (informational).
	Decoded json.RawMessage `json:"decoded,omitempty"`
	ACL     []ACL           `json:"acl,omitempty"`
}

// WriteDump writes t as a dump document, znodes sorted by path.
func WriteDump(w io.Writer, t *Tree) error {
	doc := dumpDoc{Format: DumpFormat, Version: DumpVersion, Source: t.Source, Chroot: t.Chroot,
		MaxZxid: t.MaxZxid, Changed: t.Changed, Warnings: append([]string{}, t.Warnings...), Znodes: []dumpZnode{}}
	for _, p := range t.Paths() {
		n := t.Nodes[p]
		z := dumpZnode{Path: p, Stat: n.Stat, ACL: n.ACL}
		if n.Data != nil {
			s := base64.StdEncoding.EncodeToString(n.Data)
			z.Data = &s
			if isText(n.Data) {
				txt := string(n.Data)
				z.Text = &txt
			}
			if json.Valid(n.Data) {
				var buf bytes.Buffer
				if json.Compact(&buf, n.Data) == nil {
					z.Decoded = buf.Bytes()
				}
			}
		}
		doc.Znodes = append(doc.Znodes, z)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func isText(b []byte) bool {
	s := string(b)
	return strings.ToValidUTF8(s, "\uFFFD") == s && !strings.ContainsRune(s, 0)
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

// ReadDump reads a dump document back into a Tree. Children lists are
// rebuilt from the paths; every znode's parent must be in the dump.
func ReadDump(r io.Reader, name string) (*Tree, error) {
	var doc dumpDoc
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDump, name, err)
	}
	if doc.Format != DumpFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrDump, name, doc.Format, DumpFormat)
	}
	if doc.Version != DumpVersion {
		return nil, fmt.Errorf("%w: %s: version %d is not supported (want %d)", ErrDump, name, doc.Version, DumpVersion)
	}
	t := NewTree()
	t.Source, t.Chroot, t.MaxZxid, t.Changed = "zkdump:"+name, doc.Chroot, doc.MaxZxid, doc.Changed
	t.Warnings = doc.Warnings
	for i, z := range doc.Znodes {
		if !validZnodePath(z.Path) {
			return nil, fmt.Errorf("%w: %s: znode %d: invalid path %q", ErrDump, name, i, z.Path)
		}
		if _, dup := t.Nodes[z.Path]; dup {
			return nil, fmt.Errorf("%w: %s: znode %q appears twice", ErrDump, name, z.Path)
		}
		n := &Node{Stat: z.Stat, ACL: z.ACL, Children: []string{}}
		if z.Data != nil {
			b, err := base64.StdEncoding.DecodeString(*z.Data)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: znode %q: data: %v", ErrDump, name, z.Path, err)
			}
			n.Data = b
		}
		t.Nodes[z.Path] = n
	}
	if t.Nodes["/"] == nil {
		return nil, fmt.Errorf("%w: %s: no root znode \"/\"", ErrDump, name)
	}
	for _, p := range t.Paths() {
		if p == "/" {
			continue
		}
		i := strings.LastIndexByte(p, '/')
		parent := p[:i]
		if parent == "" {
			parent = "/"
		}
		pn := t.Nodes[parent]
		if pn == nil {
			return nil, fmt.Errorf("%w: %s: znode %q has no parent in the dump", ErrDump, name, p)
		}
		pn.Children = append(pn.Children, p[i+1:])
	}
	return t, nil
}

// ReadDumpFile opens and reads a dump file.
func ReadDumpFile(path string) (*Tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDump(f, path)
}

func validZnodePath(p string) bool {
	if p == "/" {
		return true
	}
	return len(p) > 1 && p[0] == '/' && p[len(p)-1] != '/' && !strings.Contains(p, "//")
}
