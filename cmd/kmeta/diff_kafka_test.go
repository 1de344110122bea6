package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest/imagefacts"
	"github.com/kmeta/kmeta/metalog"
)

// TestDiffMatchesKafkaReplay: `kmeta diff` between two offsets of the
// real fixture logs lists exactly what the records between them change.
// Kafka 4.4.0's own MetadataBatchLoader/MetadataDelta replays each log
// (every segment from offset 0) and prints its image at three batch
// boundaries (kafkatest.KafkaImageFacts); kmeta's image at each point must
// be the same, and kmeta's diff of consecutive points must name exactly
// the entities and fields whose facts differ between Kafka's two images.
func TestDiffMatchesKafkaReplay(t *testing.T) {
	kafkatest.Concurrently(t)
	d := kafkatest.Dist(t, kafkatest.Latest4)
	for _, v := range []string{kafkatest.Kafka39, kafkatest.Latest4} {
		t.Run(v, func(t *testing.T) {
			seg := kafkatest.OneSegment(t, filepath.Join("..", "..", "testdata", "kraft", v, "metadata"))
			dir := filepath.Dir(seg)
			ends := batchEnds(t, dir)
			points := []int64{ends[len(ends)/3], ends[2*len(ends)/3], ends[len(ends)-1]}
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			kafka, faults, err := kafkatest.KafkaImageFacts(ctx, d, seg, points...)
			if err != nil {
				t.Fatal(err)
			}
			if faults != "" {
				t.Logf("Kafka's loader faults:\n%s", faults)
			}
			for _, at := range points {
				res, err := metalog.LoadImage(dir, metalog.ImageOptions{AtOffset: at})
				if err != nil {
					t.Fatal(err)
				}
				if got := imagefacts.Lines(res.Image); got != kafka[at] {
					t.Errorf("offset %d: kmeta's image differs from Kafka's\n--- kafka\n%s--- kmeta\n%s", at, kafka[at], got)
				}
			}
			for i := 0; i+1 < len(points); i++ {
				a, b := points[i], points[i+1]
				want := factChanges(kafka[a], kafka[b])
				code, out, stderr := runKmeta(t, "diff", "-o", "json", fmt.Sprintf("kraft:%s@offset=%d", dir, a), fmt.Sprintf("kraft:%s@offset=%d", dir, b))
				var rep verifyOutput
				if err := json.Unmarshal([]byte(out), &rep); err != nil {
					t.Fatalf("diff: exit %d, %v\n%s\n%s", code, err, out, stderr)
				}
				var got []string
				for _, f := range rep.Findings {
					got = append(got, f.Code+" "+f.Entity+"|"+f.Field)
				}
				sort.Strings(got)
				if !slices.Equal(got, want) {
					t.Errorf("diff %d→%d:\n kmeta %q\n kafka %q", a, b, got, want)
				}
				wantCode := exitOK
				if len(want) > 0 {
					wantCode = exitFindings
				}
				if code != wantCode {
					t.Errorf("diff %d→%d: exit %d, want %d", a, b, code, wantCode)
				}
				t.Logf("diff offset %d → %d: %d changes, as Kafka's replay: %v", a, b, len(got), got)
			}
		})
	}
}

// batchEnds lists the last offset of every batch of the log in dir.
func batchEnds(t *testing.T, dir string) []int64 {
	t.Helper()
	ld, err := metalog.OpenLogDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := ld.Log(metalog.StreamOptions{TolerateTornTail: true})
	defer st.Close()
	var ends []int64
	for {
		b, err := st.Next()
		if err == io.EOF {
			return ends
		}
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, b.LastOffset())
	}
}

// fieldLevel are entities that exist, possibly empty, in every image, so
// their changes are per field.
var fieldLevel = map[string]bool{"finalized features": true, "producer-ids": true}

// factChanges is what changed between two fact listings, as diff codes:
// "added ENTITY|", "removed ENTITY|", "changed ENTITY|FIELD", and a field
// on one side only "added ENTITY|FIELD" or "removed ENTITY|FIELD". As
// kmeta reports it, a topic added or removed takes its partitions and its
// config entity with it.
func factChanges(before, after string) []string {
	parse := func(s string) map[string]map[string]string {
		m := map[string]map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if l == "" {
				continue
			}
			e, fv, _ := strings.Cut(l, "|")
			if m[e] == nil {
				m[e] = map[string]string{}
			}
			if f, v, ok := strings.Cut(fv, "="); ok {
				m[e][f] = v
			}
		}
		return m
	}
	b, a := parse(before), parse(after)
	var out []string
	whole := map[string]bool{} // topics added or removed
	diff := func(x, y map[string]map[string]string, code string) {
		for e, xf := range x {
			yf, ok := y[e]
			if !ok && !fieldLevel[e] {
				out = append(out, code+" "+e+"|")
				if t, ok := strings.CutPrefix(e, "topic "); ok {
					whole[t] = true
				}
				continue
			}
			for f, v := range xf {
				old, ok := yf[f]
				switch {
				case !ok:
					out = append(out, code+" "+e+"|"+f)
				case old != v && code == "added":
					out = append(out, "changed "+e+"|"+f)
				}
			}
		}
	}
	diff(a, b, "added")
	diff(b, a, "removed")
	kept := out[:0]
	for _, l := range out {
		code, rest, _ := strings.Cut(l, " ")
		if code != "changed" && strings.HasSuffix(rest, "|") {
			e := strings.TrimSuffix(rest, "|")
			if t, ok := strings.CutPrefix(e, "config TOPIC "); ok && whole[t] {
				continue
			}
			if p, ok := strings.CutPrefix(e, "partition "); ok {
				if i := strings.LastIndexByte(p, '-'); i > 0 && whole[p[:i]] {
					continue
				}
			}
		}
		kept = append(kept, l)
	}
	sort.Strings(kept)
	return kept
}
