package main

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/metalog"
)

// TestDumpVerdictIsChecks: on the same damaged input, log dump exits
// exactly as log check does (one checker saw the same batches), and when
// it fails its stderr names the first damaged file and position. Before
// this, log dump exited 0 on swapped, duplicated and shifted batches that
// log check calls damaged.
func TestDumpVerdictIsChecks(t *testing.T) {
	type span struct{ pos, size int64 }
	spans := func(p string) []span {
		r, err := metalog.OpenReader(p, metalog.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []span
		for {
			b, err := r.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, span{b.Position, b.Size()})
		}
	}
	files := []string{
		filepath.Join("__cluster_metadata-0", "00000000000000000086.log"),
		filepath.Join("__cluster_metadata-0", "00000000000000000099-0000000001.checkpoint"),
		filepath.Join("__cluster_metadata-0", "00000000000000000000.log"),
	}
	muts := map[string]func(b []byte, sp []span) []byte{
		"healthy": func(b []byte, sp []span) []byte { return b },
		"swap": func(b []byte, sp []span) []byte {
			x, y := sp[len(sp)/2-1], sp[len(sp)/2]
			o := append([]byte(nil), b[:x.pos]...)
			o = append(o, b[y.pos:y.pos+y.size]...)
			o = append(o, b[x.pos:x.pos+x.size]...)
			return append(o, b[y.pos+y.size:]...)
		},
		"duplicate": func(b []byte, sp []span) []byte {
			x := sp[len(sp)/2]
			o := append([]byte(nil), b[:x.pos+x.size]...)
			o = append(o, b[x.pos:x.pos+x.size]...)
			return append(o, b[x.pos+x.size:]...)
		},
		"gap": func(b []byte, sp []span) []byte {
			o := append([]byte(nil), b...)
			for _, s := range sp[len(sp)/2:] {
				binary.BigEndian.PutUint64(o[s.pos:], binary.BigEndian.Uint64(o[s.pos:])+3)
			}
			return o
		},
		"flipped baseOffset": func(b []byte, sp []span) []byte {
			o := append([]byte(nil), b...)
			o[sp[len(sp)/2].pos+7] ^= 0x04
			return o
		},
		"crc-covered bit flip": func(b []byte, sp []span) []byte {
			o := append([]byte(nil), b...)
			o[sp[len(sp)/2].pos+30] ^= 0x01
			return o
		},
		"truncated mid-file": func(b []byte, sp []span) []byte { return b[:sp[len(sp)/2].pos+20] },
		"torn tail":          func(b []byte, sp []span) []byte { return b[:len(b)-5] },
	}
	for _, file := range files {
		for name, mut := range muts {
			dir := copyFixture(t, "4.4.0")
			p := filepath.Join(dir, file)
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, mut(raw, spans(p)), 0o644); err != nil {
				t.Fatal(err)
			}
			check := kmeta("log", "check", dir)
			for _, format := range []string{"text", "json"} {
				dump := kmeta("log", "dump", "-o", format, dir)
				if dump.code != check.code {
					t.Errorf("%s %s (-o %s): log dump exit %d, log check exit %d\ndump stderr: %s\ncheck: %s", file, name, format, dump.code, check.code, dump.stderr, check.stdout)
					continue
				}
				if dump.code == 1 && (!strings.Contains(dump.stderr, filepath.Base(file)) || !strings.Contains(dump.stderr, "position")) {
					t.Errorf("%s %s: dump's summary does not name the file and position: %s", file, name, dump.stderr)
				}
			}
		}
	}
}
