package metalog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// span is one batch's place in a file.
type span struct{ pos, size int64 }

func batchSpans(t testing.TB, path string) []span {
	t.Helper()
	r, err := OpenReader(path, ReaderOptions{})
	must(t, err)
	defer r.Close()
	var out []span
	for {
		b, err := r.Next()
		if err == io.EOF {
			return out
		}
		must(t, err)
		out = append(out, span{b.Position, b.Size()})
	}
}

// mutant is one way of damaging one data file: it gets the file's bytes
// and batch spans and returns the new bytes (nil: not applicable).
type mutant struct {
	class string
	file  string // relative to the fixture root
	apply func(b []byte, sp []span) []byte
}

func setBase(b []byte, s span, off int64) { binary.BigEndian.PutUint64(b[s.pos:], uint64(off)) }
func getBase(b []byte, s span) int64      { return int64(binary.BigEndian.Uint64(b[s.pos:])) }

func batchBytes(b []byte, s span) []byte { return b[s.pos : s.pos+s.size] }

// mutants builds the systematic mutations of issue 8: swapped and
// duplicated batches, offset gaps, batches after a snapshot's footer, a
// flipped (not CRC-covered) baseOffset, truncation, and bit flips in and
// outside the CRC-covered bytes. Nothing is resealed, so every mutation
// either reaches a rule or leaves the content Kafka reads unchanged.
func mutants(t testing.TB, root string) []mutant {
	var out []mutant
	d, err := OpenLogDir(root)
	must(t, err)
	for _, f := range d.DataFiles() {
		rel, _ := filepath.Rel(root, f.Path)
		sp := batchSpans(t, f.Path)
		n := len(sp)
		picks := map[int]bool{0: true, 1: true, n / 2: true, n - 2: true, n - 1: true}
		var idx []int
		for i := range picks {
			if i >= 0 && i < n {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		add := func(class string, fn func(b []byte, sp []span) []byte) {
			out = append(out, mutant{class: class, file: rel, apply: fn})
		}
		for _, i := range idx {
			i := i
			if i+1 < n {
				add("swap", func(b []byte, sp []span) []byte {
					x, y := sp[i], sp[i+1]
					o := append([]byte(nil), b[:x.pos]...)
					o = append(o, batchBytes(b, y)...)
					o = append(o, batchBytes(b, x)...)
					return append(o, b[y.pos+y.size:]...)
				})
			}
			add("duplicate", func(b []byte, sp []span) []byte {
				x := sp[i]
				o := append([]byte(nil), b[:x.pos+x.size]...)
				o = append(o, batchBytes(b, x)...)
				return append(o, b[x.pos+x.size:]...)
			})
			if i > 0 {
				add("gap", func(b []byte, sp []span) []byte {
					o := append([]byte(nil), b...)
					for _, s := range sp[i:] {
						setBase(o, s, getBase(o, s)+5)
					}
					return o
				})
			}
			add("flipped-baseOffset", func(b []byte, sp []span) []byte {
				o := append([]byte(nil), b...)
				o[sp[i].pos+7] ^= 0x08
				return o
			})
			add("truncation", func(b []byte, sp []span) []byte { return append([]byte(nil), b[:sp[i].pos+sp[i].size/2]...) })
			add("truncation", func(b []byte, sp []span) []byte { return append([]byte(nil), b[:sp[i].pos+10]...) })
			for _, at := range []int64{21, 23, 27, 57, 61, sp[i].size - 1} {
				at := at
				add("bit-flip-crc-covered", func(b []byte, sp []span) []byte {
					o := append([]byte(nil), b...)
					o[sp[i].pos+at] ^= 0x01
					return o
				})
			}
			add("bit-flip-epoch", func(b []byte, sp []span) []byte {
				o := append([]byte(nil), b...)
				o[sp[i].pos+12] ^= 0x10
				return o
			})
			add("bit-flip-magic", func(b []byte, sp []span) []byte {
				o := append([]byte(nil), b...)
				o[sp[i].pos+16] ^= 0x01
				return o
			})
			add("bit-flip-length", func(b []byte, sp []span) []byte {
				o := append([]byte(nil), b...)
				o[sp[i].pos+11] ^= 0x04
				return o
			})
		}
		if f.Kind == KindSnapshot || f.Kind == KindBootstrap {
			add("after-footer", func(b []byte, sp []span) []byte {
				// A copy of the second batch (the first holds the
				// header) appended after the footer, at the next offset.
				if len(sp) < 3 {
					return nil
				}
				extra := append([]byte(nil), batchBytes(b, sp[1])...)
				last := sp[len(sp)-1]
				lastOff := getBase(b, last) + int64(int32(binary.BigEndian.Uint32(b[last.pos+23:])))
				binary.BigEndian.PutUint64(extra, uint64(lastOff+1))
				return append(append([]byte(nil), b...), extra...)
			})
		}
	}
	return out
}

// checkDecode is log check's record decoding as far as damage goes:
// unknown types and versions are no error (log check reports them as
// record-unknown warnings, which these mutants do not make).
func checkDecode(v []byte) error {
	_, _, err := records.DecodeMetadata(v)
	if errors.Is(err, records.ErrUnknownType) || errors.Is(err, records.ErrUnknownVersion) {
		return nil
	}
	return err
}

// marked reports whether a LoadImage result says it rests on damage.
func marked(res *ImageResult) bool {
	if res.Damage != nil || res.Image.IsPartial() {
		return true
	}
	for _, w := range res.Warnings {
		if w.Code == WarnDamageNotReplayed {
			return true
		}
	}
	return false
}

// TestOneVerdictOnMutants is issue 8's "one verdict on one input" over the
// real fixtures: for every mutant, log check reports an error exactly
// when LoadImage marks its result (partial, or damage in a file it did
// not need) and names the same first damage; a mutant check accepts gives
// the original image, or, for a torn tail of the active segment, the
// original image up to the batch before the tear (with a WarnTornTail
// warning saying so). Every warning is placed in a file.
func TestOneVerdictOnMutants(t *testing.T) {
	type tally struct{ n, checkErr, partial, notReplayed, tornTail, same int }
	table := map[string]*tally{}
	for _, v := range []string{"3.9.2", "4.4.0"} {
		src := filepath.Join("..", "testdata", "kraft", v, "metadata")
		orig, err := LoadImage(src, ImageOptions{AtOffset: -1})
		must(t, err)
		if len(orig.Warnings) != 0 {
			t.Fatalf("%s: the fixture itself has warnings: %v", v, orig.Warnings)
		}
		want := imageFacts(orig.Image)
		for i, m := range mutants(t, src) {
			raw, err := os.ReadFile(filepath.Join(src, m.file))
			must(t, err)
			sp := batchSpans(t, filepath.Join(src, m.file))
			mut := m.apply(raw, sp)
			if mut == nil {
				continue
			}
			dir := fstree.Copy(t, src)
			must(t, os.WriteFile(filepath.Join(dir, m.file), mut, 0o644))
			name := fmt.Sprintf("%s #%d %s %s", v, i, m.class, m.file)
			rep, err := Check(dir, CheckOptions{Strict: true, DecodeValue: checkDecode})
			must(t, err)
			res, lerr := LoadImage(dir, ImageOptions{AtOffset: -1})
			ty := table[m.class]
			if ty == nil {
				ty = &tally{}
				table[m.class] = ty
			}
			ty.n++
			if lerr != nil {
				t.Errorf("%s: LoadImage failed instead of marking the image: %v", name, lerr)
				continue
			}
			for _, w := range res.Warnings {
				if w.Where == nil || w.Where.File == "" {
					t.Errorf("%s: warning without a file: %v", name, w)
				}
			}
			checkErr := !rep.OK()
			if checkErr != marked(res) {
				t.Errorf("%s: log check error=%v but LoadImage marked=%v\ncheck: %v\nimage warnings: %v", name, checkErr, marked(res), rep.Findings, res.Warnings)
				continue
			}
			if checkErr {
				ty.checkErr++
				if d := rep.Damage(); res.Damage == nil || d.Code != res.Damage.Code || *d.Where != *res.Damage.Where {
					t.Errorf("%s: first damage differs: check %v, image %v", name, d, res.Damage)
				}
				if res.Image.IsPartial() {
					ty.partial++
				} else {
					ty.notReplayed++
				}
				continue
			}
			got := imageFacts(res.Image)
			torn := -1
			for i, w := range res.Warnings {
				if w.Code == model.WarnTornTail {
					torn = i
				}
			}
			if torn >= 0 {
				ty.tornTail++
				// Replay holds everything before the torn batch, and at
				// least the snapshot it starts from.
				at := max(res.Warnings[torn].Where.Offset, res.Plan.StartOffset)
				cut, err := LoadImage(src, ImageOptions{AtOffset: at - 1})
				must(t, err)
				if got != imageFacts(cut.Image) {
					t.Errorf("%s: torn tail at offset %d: image differs from the original at offset %d", name, at, at-1)
				}
				continue
			}
			ty.same++
			if got != want {
				t.Errorf("%s: accepted without a warning but the image changed\n%s", name, diffLines(want, got))
			}
		}
	}
	var classes []string
	for c := range table {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	t.Logf("%-22s %5s %10s %8s %13s %10s %9s", "class", "n", "checkError", "partial", "notReplayed", "tornTail", "sameImage")
	for _, c := range classes {
		x := table[c]
		t.Logf("%-22s %5d %10d %8d %13d %10d %9d", c, x.n, x.checkErr, x.partial, x.notReplayed, x.tornTail, x.same)
	}
}

func diffLines(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	in := map[string]bool{}
	for _, l := range bs {
		in[l] = true
	}
	var out []string
	for _, l := range as {
		if !in[l] {
			out = append(out, "- "+l)
		}
	}
	in = map[string]bool{}
	for _, l := range as {
		in[l] = true
	}
	for _, l := range bs {
		if !in[l] {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 20 {
		out = append(out[:20], "...")
	}
	return strings.Join(out, "\n")
}
