package metalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/model"
)

// TestPropsErrorsArePlaced: parse errors in meta.properties carry the line
// of the offending key, quorum-state errors the byte position of the
// offending value, and both unwrap to ErrProperties.
func TestPropsErrorsArePlaced(t *testing.T) {
	_, err := ParseMetaProperties([]byte("# c\nversion=1\n\nnode.id=x\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\n"))
	var pe *PropsError
	if !errors.As(err, &pe) || pe.Line != 4 || !errors.Is(err, ErrProperties) {
		t.Fatalf("node.id error %v, want line 4", err)
	}
	// A continued logical line is placed at its first physical line.
	mp, err := ParseMetaProperties([]byte("version=1\nnode.id=1\ncluster.id=AAAAAAAAAAA\\\n  AAAAAAAAAAAQ\ndirectory.id=x\\\n  y\n"))
	if !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("directory.id error %v (%+v), want line 5", err, mp)
	}
	q := `{"leaderId":3000,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"xx","data_version":1}`
	_, err = ParseQuorumState([]byte(q))
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Position != int64(strings.Index(q, `"xx"`)) {
		t.Fatalf("votedDirectoryId error %v, want position %d", err, strings.Index(q, `"xx"`))
	}
	_, err = ParseQuorumState([]byte(`{"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`))
	if !errors.As(err, &pe) || pe.Position != 0 || !strings.Contains(err.Error(), "leaderId") {
		t.Fatalf("missing leaderId: %v", err)
	}
}

// TestMetaPropertiesClusterIDWarning: Kafka reads any cluster.id, so a
// truncated one or one with a NUL parses, but log check warns with its
// line and the image keeps the id as written (never "").
func TestMetaPropertiesClusterIDWarning(t *testing.T) {
	root, _ := buildLogDir(t, nil, []segSpec{{0, []batchSpec{{1, 3}}}})
	must(t, os.WriteFile(filepath.Join(root, MetaPropertiesFileName), []byte("version=1\nnode.id=1\ncluster.id=J8s9MEW\\u0000\n"), 0o644))
	rep, err := Check(root, CheckOptions{})
	must(t, err)
	if len(rep.Findings) != 1 || rep.Findings[0].Code != KindBadProperties || rep.Findings[0].Severity != model.SevWarning || rep.Findings[0].Where.Line != 3 {
		t.Fatalf("findings %v", rep.Findings)
	}
	res, err := LoadImage(root, ImageOptions{AtOffset: -1})
	must(t, err)
	if res.Image.ClusterID != "J8s9MEW\x00" || res.Image.IsPartial() || !hasCode(res.Image.Warnings, KindBadProperties) {
		t.Fatalf("cluster id %q partial %v warnings %v", res.Image.ClusterID, res.Image.IsPartial(), res.Image.Warnings)
	}
}

// TestBadQuorumStateIsNotSilent: a quorum-state Kafka refuses to read
// (missing leaderId) is a located check error, and the image built next
// to it is marked partial instead of silently having no leader.
func TestBadQuorumStateIsNotSilent(t *testing.T) {
	root, part := buildLogDir(t, nil, []segSpec{{0, []batchSpec{{1, 3}}}})
	must(t, os.WriteFile(filepath.Join(part, QuorumStateFileName), []byte(`{"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`+"\n"), 0o644))
	rep, err := Check(root, CheckOptions{})
	must(t, err)
	if rep.OK() || rep.Findings[0].Code != KindBadProperties || rep.Findings[0].Where.Line != 1 || rep.Findings[0].Where.Position != 0 {
		t.Fatalf("findings %v", rep.Findings)
	}
	res, err := LoadImage(root, ImageOptions{AtOffset: -1})
	must(t, err)
	if !res.Image.IsPartial() || res.Damage == nil || res.Damage.Code != KindBadProperties {
		t.Fatalf("partial %v damage %v warnings %v", res.Image.IsPartial(), res.Damage, res.Warnings)
	}
}

// TestContinuationLinesLinear: a 1 MiB meta.properties of continuation
// lines parses in well under a second (it took 28 s when each line was
// joined by copying the whole value so far).
func TestContinuationLinesLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("version=1\nnode.id=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAQ\nx=")
	for b.Len() < maxPropsFileBytes-8 {
		b.WriteString("ab\\\n")
	}
	b.WriteString("end\n")
	start := time.Now()
	mp, err := ParseMetaProperties([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("took %v", el)
	}
	if v := mp.Props["x"]; len(v) < 500000 || !strings.HasSuffix(v, "abend") {
		t.Fatalf("value of %d bytes", len(v))
	}
}

func hasCode(fs []model.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}
