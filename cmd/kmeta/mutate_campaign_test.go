package main

// The issue-8 reliability campaign: mutants of every file kind kmeta reads
// (internal/testkit/mutate), run through the BUILT binary as a user runs it, through
// every command that reads that kind and every output format.
//
// Invariants checked on every run: no panic (no "panic:"/"goroutine " on
// stderr, exit code 0..2, no signal), no hang (timeout per run), JSON output
// valid UTF-8 JSON (JSON lines for log dump), every input byte-identical and
// no file added afterwards, and no secret of the fixtures (SCRAM salts and
// keys in base64 and hex) anywhere in stdout or stderr.
//
// The verdict rule, per command and format, against the same command on the
// unmutated copy (paths normalised to ROOT; originals and mutants live at
// paths of one length so padded tables compare):
//   - rejected: a non-zero exit that is not the original's answer, placed:
//     stderr names a file of the input and a non-negative position
//     (position/offset/byte/line/zxid N) or a znode; for log check, every
//     error finding of its JSON report has a file and a position, offset or
//     line >= 0;
//   - unchanged: the same exit code, the same stdout (paths normalised) and no
//     warning the original did not have;
//   - warned: exit 0 (or 1, which the exit-code contract gives a result
//     resting on partial input; not for log check, whose exit 1 is judged as a
//     rejection) with a warning the original did not have: a "kmeta:
//     warning:" line, or for log check a warning-severity finding;
//   - valid-other: another answer, exit 0, no new warning, for a mutant that
//     mutate's validator judges another valid input (see internal/testkit/mutate's doc);
//   - anything else is a VIOLATION.
//
// KMETA_MUTANTS (default 300 per kind), KMETA_MUTATE_SEED (default 1),
// KMETA_MUTATE_WORKERS (default 2), KMETA_MUTATE_FORMATS (default: json and,
// in turn, text or table; "text,table,json" for all three), KMETA_MUTATE_KINDS
// (default all),
// KMETA_MUTATE_REPORT_ONLY=1 (report, do not fail), KMETA_MUTATE_ONLY=kind#N
// (run one mutant, keep its directory and print every run),
// KMETA_MUTATE_OUT=FILE (every violating run as a JSON line).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kmeta/kmeta/internal/testkit/mutate"
	"github.com/kmeta/kmeta/internal/testkit/peakrss"
	"github.com/kmeta/kmeta/model"
)

const campTimeout = 20 * time.Second

type campBase struct {
	kind    mutate.Kind
	name    string
	src     string            // dir under testdata copied as the input tree
	exclude []string          // paths under src left out
	add     map[string]string // extra files: tree path -> testdata path
	target  string            // the mutated file, a tree path
	ctx     mutate.Context
	family  string // kraft, zkdata, zkdump
	files   map[string][]byte
	orig    map[string]campRun // per command+format key
}

var campBases = []*campBase{
	{kind: mutate.Segment, name: "4.4.0-seg0", src: "kraft/4.4.0/metadata", exclude: []string{"__cluster_metadata-0/00000000000000000099-0000000001.checkpoint"}, target: "__cluster_metadata-0/00000000000000000000.log", family: "kraft"},
	{kind: mutate.Segment, name: "4.4.0-seg86", src: "kraft/4.4.0/metadata", exclude: []string{"__cluster_metadata-0/00000000000000000099-0000000001.checkpoint"}, target: "__cluster_metadata-0/00000000000000000086.log", ctx: mutate.Context{LastFile: true}, family: "kraft"},
	{kind: mutate.Segment, name: "3.9.2-seg87", src: "kraft/3.9.2/metadata", exclude: []string{"__cluster_metadata-0/00000000000000000090-0000000001.checkpoint"}, target: "__cluster_metadata-0/00000000000000000087.log", ctx: mutate.Context{LastFile: true}, family: "kraft"},
	{kind: mutate.Snapshot, name: "4.4.0-snap99", src: "kraft/4.4.0/metadata", target: "__cluster_metadata-0/00000000000000000099-0000000001.checkpoint", family: "kraft"},
	{kind: mutate.Snapshot, name: "3.9.2-snap90", src: "kraft/3.9.2/metadata", target: "__cluster_metadata-0/00000000000000000090-0000000001.checkpoint", family: "kraft"},
	{kind: mutate.Bootstrap, name: "3.9.2-bootstrap-scram", src: "kraft/bootstrap/3.9.2/3.9-IV0-scram/metadata", target: "bootstrap.checkpoint", family: "kraft"},
	{kind: mutate.Bootstrap, name: "4.4.0-bootstrap-scram", src: "kraft/bootstrap/4.4.0/4.4-IV2-scram/metadata", target: "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint", family: "kraft"},
	{kind: mutate.QuorumState, name: "4.4.0-quorum", src: "kraft/4.4.0/metadata", target: "__cluster_metadata-0/quorum-state", family: "kraft"},
	{kind: mutate.QuorumState, name: "3.9.2-quorum", src: "kraft/3.9.2/metadata", target: "__cluster_metadata-0/quorum-state", family: "kraft"},
	{kind: mutate.MetaProperties, name: "4.4.0-meta", src: "kraft/4.4.0/metadata", target: "meta.properties", family: "kraft"},
	{kind: mutate.MetaProperties, name: "3.9.2-meta", src: "kraft/3.9.2/metadata", target: "meta.properties", family: "kraft"},
	{kind: mutate.ZKSnapshot, name: "zk-snapshot.10c", src: "zk/datadir", target: "version-2/snapshot.10c", family: "zkdata"},
	{kind: mutate.ZKSnapshotPacked, name: "zk-snapshot.10c.gz", src: "zk/datadir", exclude: []string{"version-2/snapshot.10c"}, add: map[string]string{"version-2/snapshot.10c.gz": "zk/compressed/snapshot.10c.gz"}, target: "version-2/snapshot.10c.gz", family: "zkdata"},
	{kind: mutate.ZKSnapshotPacked, name: "zk-snapshot.10c.snappy", src: "zk/datadir", exclude: []string{"version-2/snapshot.10c"}, add: map[string]string{"version-2/snapshot.10c.snappy": "zk/compressed/snapshot.10c.snappy"}, target: "version-2/snapshot.10c.snappy", family: "zkdata"},
	{kind: mutate.ZKTxnLog, name: "zk-log.98", src: "zk/datadir", exclude: []string{"version-2/snapshot.e8", "version-2/snapshot.10c"}, target: "version-2/log.98", family: "zkdata"},
	{kind: mutate.ZKTxnLog, name: "zk-log.ea", src: "zk/datadir", exclude: []string{"version-2/snapshot.e8", "version-2/snapshot.10c"}, target: "version-2/log.ea", ctx: mutate.Context{LastFile: true}, family: "zkdata"},
	{kind: mutate.Dump, name: "zk-dump", src: "", add: map[string]string{"dump.json": "zk/dump.json"}, target: "dump.json", family: "zkdump"},
}

// campCommands are the commands that read each family; ROOT is the input
// tree's absolute path.
var campCommands = map[string][][]string{
	"kraft": {
		{"image", "kraft:ROOT"},
		{"log", "dump", "ROOT"},
		{"log", "check", "ROOT"},
		{"log", "stats", "ROOT"},
		{"features", "describe", "kraft:ROOT"},
		{"history", "kraft:ROOT"},
	},
	"zkdata": {
		{"image", "zkdata:ROOT"},
		{"zk", "dump", "zkdata:ROOT"},
		{"zk", "image", "zkdata:ROOT"},
		{"features", "describe", "zkdata:ROOT"},
		{"history", "zkdata:ROOT"},
	},
	"zkdump": {
		{"image", "zkdump:ROOT/dump.json"},
		{"zk", "dump", "zkdump:ROOT/dump.json"},
		{"zk", "image", "zkdump:ROOT/dump.json"},
		{"features", "describe", "zkdump:ROOT/dump.json"},
	},
}

func cmdName(c []string) string { return strings.Join(c[:len(c)-1], " ") }

type campRun struct {
	args           []string
	code           int
	stdout, stderr string // normalised: the tree's path replaced by ROOT
	timedOut       bool
	signal         string
	dur            time.Duration
}

// campBinary builds the binary as `make build` does, into the test's temp
// dir (removed afterwards).
func campBinary(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "kmeta")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// campRunKmeta runs the binary once; a run that times out is run once more,
// so that a machine stalled by other work is not taken for a hang (a real
// hang repeats).
func campRunKmeta(bin, root string, args []string) campRun {
	r := campRunOnce(bin, root, args)
	if r.timedOut {
		r = campRunOnce(bin, root, args)
	}
	return r
}

func campRunOnce(bin, root string, args []string) campRun {
	full := make([]string, len(args))
	for i, a := range args {
		full[i] = strings.ReplaceAll(a, "ROOT", root)
	}
	r, _ := campExec(bin, full)
	r.args = args
	if root != "" {
		r.stdout = strings.ReplaceAll(r.stdout, root, "ROOT")
		r.stderr = strings.ReplaceAll(r.stderr, root, "ROOT")
	}
	return r
}

// campExec runs the binary once (no retry: the bounds of these runs are
// the point) and returns the run and its own peak RSS in bytes (VmHWM
// sampled while it runs: a child's ru_maxrss carries the test process's
// own, see peakrss).
func campExec(bin string, args []string) (campRun, int64) {
	ctx, cancel := context.WithTimeout(context.Background(), campTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// Wide enough that tables never wrap a cell: fitting the terminal is not
	// what the campaigns check, and a wrapped path cannot be normalised.
	cmd.Env = append(os.Environ(), "COLUMNS=500", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Start()
	var rss *peakrss.Watch
	if err == nil {
		rss = peakrss.Start(cmd.Process.Pid)
		err = cmd.Wait()
	}
	r := campRun{args: args, dur: time.Since(start), stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if st := ee.ProcessState.String(); strings.HasPrefix(st, "signal:") {
			r.signal = st
		}
	default:
		r.code, r.signal = -1, err.Error()
	}
	r.timedOut = ctx.Err() != nil
	var peak int64
	if rss != nil {
		peak = rss.Done() * 1024
	}
	return r, peak
}

// readBase loads a base's tree into memory.
func (b *campBase) load(t *testing.T) {
	td := filepath.Join("..", "..", "testdata")
	b.files = map[string][]byte{}
	if b.src != "" {
		src := filepath.Join(td, b.src)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			rel = filepath.ToSlash(rel)
			if slices.Contains(b.exclude, rel) {
				return nil
			}
			data, err := os.ReadFile(p)
			b.files[rel] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for rel, from := range b.add {
		data, err := os.ReadFile(filepath.Join(td, from))
		if err != nil {
			t.Fatal(err)
		}
		b.files[rel] = data
	}
	if b.files[b.target] == nil {
		t.Fatalf("%s: no target %s", b.name, b.target)
	}
}

func campWriteTree(root string, files map[string][]byte, target string, data []byte) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	for rel, d := range files {
		if rel == target {
			d = data
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, d, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// campHashes is every file's SHA-256 (and so the set of files).
func campHashes(root string) map[string]string {
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			s := sha256.Sum256(b)
			rel, _ := filepath.Rel(root, p)
			m[rel] = hex.EncodeToString(s[:])
		}
		return nil
	})
	return m
}

// campSecrets lists the fixtures' secrets in every spelling a leak could
// take: SCRAM salts, stored and server keys as base64 (std and url, padded
// and not), hex (both cases), and raw when printable; and the raw base64 data
// of each SCRAM znode.
func campSecrets(t *testing.T, bin string) []string {
	set := map[string]bool{}
	addBytes := func(raw []byte) {
		if len(raw) < 8 {
			return
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			set[enc.EncodeToString(raw)] = true
		}
		h := hex.EncodeToString(raw)
		set[h], set[strings.ToUpper(h)] = true, true
		if utf8.Valid(raw) && !bytes.ContainsAny(raw, "\x00\n") && len(raw) >= 12 {
			set[string(raw)] = true
		}
	}
	addB64 := func(s string) {
		if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
			addBytes(raw)
		}
	}
	// ZooKeeper: /config/users/* of the dump (written with --show-secrets).
	var dump struct {
		Znodes []struct {
			Path string
			Data *string
			Text string
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "zk", "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dump); err != nil {
		t.Fatal(err)
	}
	zk := 0
	re := regexp.MustCompile(`(salt|stored_key|server_key)=([A-Za-z0-9+/=]+)`)
	for _, z := range dump.Znodes {
		if !strings.HasPrefix(z.Path, "/config/users/") || z.Data == nil {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(z.Text, -1) {
			addB64(m[2])
			zk++
		}
		if strings.Contains(z.Text, "salt=") {
			set[*z.Data] = true
		}
	}
	// KRaft: UserScramCredentialRecords, read with --show-secrets.
	kr := 0
	for _, dir := range []string{"kraft/4.4.0/metadata", "kraft/3.9.2/metadata", "kraft/bootstrap/3.9.2/3.9-IV0-scram/metadata", "kraft/bootstrap/4.4.0/4.4-IV2-scram/metadata"} {
		r := campRunKmeta(bin, "", []string{"log", "dump", "--show-secrets", "-o", "json", filepath.Join("..", "..", "testdata", dir)})
		for _, line := range strings.Split(r.stdout, "\n") {
			if !strings.Contains(line, "USER_SCRAM_CREDENTIAL_RECORD") {
				continue
			}
			var rec struct {
				Data map[string]any
			}
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			for _, k := range []string{"salt", "saltedPassword", "storedKey", "serverKey"} {
				if s, ok := rec.Data[k].(string); ok {
					addB64(s)
					kr++
				}
			}
		}
	}
	if zk < 12 || kr < 6 {
		t.Fatalf("secrets: found %d in the ZooKeeper fixture, %d in the KRaft fixtures; expected the SCRAM credentials of both", zk, kr)
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// campPlaced: does a rejection say where? log check's JSON findings must
// each carry a file and a byte position (>= 0) or a line; other commands'
// stderr must name a file of the input and a non-negative position, or (for
// ZooKeeper sources) the znode.
func campPlaced(r campRun, format string, files map[string][]byte) bool {
	names := func(s string) bool {
		for rel := range files {
			if strings.Contains(s, filepath.Base(rel)) {
				return true
			}
		}
		return false
	}
	if r.args[0] == "log" && r.args[1] == "check" && r.code == 1 {
		if format != "json" {
			return names(r.stdout)
		}
		var rep struct {
			Findings []model.Finding
		}
		if json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.Findings) == 0 {
			return false
		}
		for _, f := range rep.Findings {
			if f.Severity != model.SevError {
				continue
			}
			w := f.Where
			if w == nil || w.File == "" || (w.Position < 0 && w.Offset < 0 && w.Line < 1) {
				return false
			}
		}
		return true
	}
	if campZnodeRe.MatchString(r.stderr) {
		return true
	}
	if !names(r.stderr) {
		return false
	}
	for _, m := range campPosRe.FindAllStringSubmatch(r.stderr, -1) {
		if !strings.HasPrefix(m[2], "-") {
			return true
		}
	}
	return false
}

var (
	campCheckWarnRe = regexp.MustCompile(`(?m)^(\| )?warning\s|"severity": ?"warning"`)
	campZnodeRe     = regexp.MustCompile(`znode "?/`)
	campWarnRe      = regexp.MustCompile(`(?m)^kmeta: warning: .*$`)
	campPosRe       = regexp.MustCompile(`(?i)\b(position|pos|offset|byte|line|zxid)[ =:]*(-?0x[0-9a-f]+|-?[0-9]+)`)
)

// campNewWarnings lists the warnings of a mutant's run that the original's
// run did not have: "kmeta: warning:" lines on stderr, and for log check the
// warning-severity findings of its report (stdout).
func campNewWarnings(orig, mut campRun) []string {
	have := map[string]bool{}
	for _, w := range campWarnRe.FindAllString(orig.stderr, -1) {
		have[w] = true
	}
	var out []string
	for _, w := range campWarnRe.FindAllString(mut.stderr, -1) {
		if !have[w] {
			out = append(out, w)
		}
	}
	if mut.args[0] == "log" && mut.args[1] == "check" {
		if n := campCheckWarnRe.FindAllString(mut.stdout, -1); len(n) > len(campCheckWarnRe.FindAllString(orig.stdout, -1)) {
			out = append(out, n[0])
		}
	}
	return out
}

// campHard checks the invariants that hold for every run.
func campHard(r campRun, format string, secrets []string) []string {
	var v []string
	switch {
	case r.timedOut:
		v = append(v, "hang")
	case r.signal != "":
		v = append(v, "signal")
	case r.code < 0 || r.code > 2:
		v = append(v, "exit-code")
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		v = append(v, "panic")
	}
	if format == "json" && (r.code == 0 || r.code == 1 || strings.TrimSpace(r.stdout) != "") {
		if !utf8.ValidString(r.stdout) {
			v = append(v, "json-invalid-utf8")
		} else if r.args[0] == "log" && r.args[1] == "dump" || r.args[0] == "history" { // JSON lines
			for _, l := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
				if l != "" && !json.Valid([]byte(l)) {
					v = append(v, "json-lines-invalid")
					break
				}
			}
		} else if !json.Valid([]byte(r.stdout)) {
			v = append(v, "json-invalid")
		}
	}
	for _, s := range secrets {
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
			v = append(v, "secret-leak")
			break
		}
	}
	return v
}

type campVerdict string

const (
	vRejected  campVerdict = "rejected"
	vUnchanged campVerdict = "unchanged"
	vWarned    campVerdict = "warned"
	vValid     campVerdict = "valid-other"
	vViolation campVerdict = "VIOLATION"
)

// campClassify applies the campVerdict rule; it returns the campVerdict and, for a
// violation, its class.
func campClassify(orig, mut campRun, format string, m mutate.Mutant, files map[string][]byte) (campVerdict, string) {
	nw := campNewWarnings(orig, mut)
	if mut.code == orig.code && mut.stdout == orig.stdout && len(nw) == 0 {
		return vUnchanged, ""
	}
	// A new warning explains the answer: exit 0, or exit 1 where the
	// exit-code contract makes a result resting on partial input "found
	// something" (issue 7). log check's exit 1 is its verdict on damage,
	// judged by its findings below.
	check := mut.args[0] == "log" && mut.args[1] == "check"
	if len(nw) > 0 && (mut.code == 0 || (mut.code == 1 && !check)) {
		return vWarned, ""
	}
	if mut.code != 0 {
		if !campPlaced(mut, format, files) {
			return vViolation, "rejected-unplaced"
		}
		return vRejected, ""
	}
	if m.Preserving {
		return vValid, ""
	}
	if orig.code != 0 {
		return vViolation, "silent-exit-0"
	}
	return vViolation, "silent-different-answer"
}

type campExample struct {
	mutant  string
	args    string
	code    int
	stderr1 string
	class   string
}

type campCell struct {
	mutants  int
	rejValid int // rejected although mutate's validator calls it valid
	counts   map[campVerdict]int
	examples map[string][]campExample // violation class -> first examples
	classes  map[string]int
}

func campEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func TestMutateCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutation campaign takes minutes; run without -short (make mutate)")
	}
	// It needs no JVM and keeps its two workers busy for minutes: beside
	// the real-Kafka tests, which mostly wait, it costs make test little
	// wall time (kafkatest.Concurrently says why they run side by side).
	t.Parallel()
	start := time.Now()
	bin := campBinary(t)
	secrets := campSecrets(t, bin)
	n := campEnvInt("KMETA_MUTANTS", 300)
	seed := uint64(campEnvInt("KMETA_MUTATE_SEED", 1))
	workers := campEnvInt("KMETA_MUTATE_WORKERS", 2)
	// Every mutant runs every command in json (the format the verdict is read
	// from) and, by default, in one of text and table in turn, so that each
	// printer sees half the mutants; KMETA_MUTATE_FORMATS=text,table,json runs
	// the full cross product (half again as long).
	allFormats := []string{"text", "table", "json"}
	fixedFormats := os.Getenv("KMETA_MUTATE_FORMATS")
	formatsFor := func(index int) []string {
		if fixedFormats != "" {
			return strings.Split(fixedFormats, ",")
		}
		return []string{allFormats[index%2], "json"}
	}
	reportOnly := os.Getenv("KMETA_MUTATE_REPORT_ONLY") == "1"
	only := os.Getenv("KMETA_MUTATE_ONLY")
	kinds := mutate.Kinds
	if k := os.Getenv("KMETA_MUTATE_KINDS"); k != "" {
		kinds = nil
		for _, s := range strings.Split(k, ",") {
			kinds = append(kinds, mutate.Kind(s))
		}
	}
	// Originals and mutants live at paths of one length (orig-NN, work-NN):
	// table printers pad columns to the longest cell, so a path of another
	// length would change the table after the path is normalised.
	scratch := t.TempDir()
	if only != "" {
		scratch, _ = os.MkdirTemp("", "kmeta-mutant-") // kept for the user
	}
	// KMETA_MUTATE_OUT=FILE: every violating run as a JSON line, for analysis.
	var outLog *os.File
	var outMu sync.Mutex
	if p := os.Getenv("KMETA_MUTATE_OUT"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		outLog = f
	}
	t.Logf("built and secrets listed in %s", time.Since(start).Round(time.Millisecond))

	// The originals: every command and format on each unmutated base.
	byKind := map[mutate.Kind][]*campBase{}
	for bi, b := range campBases {
		b.load(t)
		byKind[b.kind] = append(byKind[b.kind], b)
		root := filepath.Join(scratch, fmt.Sprintf("orig-%02d", bi))
		if err := campWriteTree(root, b.files, "", nil); err != nil {
			t.Fatal(err)
		}
		b.orig = map[string]campRun{}
		for _, c := range campCommands[b.family] {
			for _, f := range allFormats {
				args := append(append(slices.Clone(c[:len(c)-1]), "-o", f), c[len(c)-1])
				r := campRunKmeta(bin, root, args)
				if hv := campHard(r, f, secrets); len(hv) > 0 {
					report := t.Errorf
					if reportOnly {
						report = t.Logf
					}
					report("original %s: %s: %v\n%s", b.name, strings.Join(args, " "), hv, campFirstLine(r.stderr))
				}
				b.orig[cmdName(c)+" "+f] = r
			}
		}
	}

	t.Logf("originals run in %s", time.Since(start).Round(time.Millisecond))
	type job struct {
		kind  mutate.Kind
		index int
	}
	type outcome struct {
		kind     mutate.Kind
		base     *campBase
		m        mutate.Mutant
		perCmd   map[string]campVerdict
		examples map[string]campExample
		classes  map[string]string
		slowest  campRun
		err      error
	}
	var jobs []job
	if only != "" {
		k, i, _ := strings.Cut(only, "#")
		idx, _ := strconv.Atoi(i)
		jobs = []job{{mutate.Kind(k), idx}}
	} else {
		for _, k := range kinds {
			if len(byKind[k]) == 0 {
				t.Fatalf("unknown kind %q", k)
			}
			for i := 0; i < n; i++ {
				jobs = append(jobs, job{k, i})
			}
		}
	}
	jobc := make(chan job)
	outc := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			root := filepath.Join(scratch, fmt.Sprintf("work-%02d", w))
			for j := range jobc {
				bases := byKind[j.kind]
				b := bases[j.index%len(bases)]
				o := outcome{kind: j.kind, base: b, perCmd: map[string]campVerdict{}, examples: map[string]campExample{}, classes: map[string]string{}}
				m, err := mutate.Make(j.kind, b.files[b.target], b.ctx, seed, j.index)
				o.m = m
				if err == nil {
					err = campWriteTree(root, b.files, b.target, m.Data)
				}
				if err != nil {
					o.err = err
					outc <- o
					continue
				}
				before := campHashes(root)
				for _, c := range campCommands[b.family] {
					name := cmdName(c)
					for _, f := range formatsFor(j.index) {
						args := append(append(slices.Clone(c[:len(c)-1]), "-o", f), c[len(c)-1])
						r := campRunKmeta(bin, root, args)
						if r.dur > o.slowest.dur {
							o.slowest = r
						}
						orig := b.orig[name+" "+f]
						v, class := campClassify(orig, r, f, m, b.files)
						if hv := campHard(r, f, secrets); len(hv) > 0 {
							v, class = vViolation, strings.Join(hv, "+")
						}
						if only != "" {
							t.Logf("%s -o %s: exit %d (original %d) -> %s %s\nstdout: %.600s\nstderr: %.1200s", name, f, r.code, orig.code, v, class, r.stdout, r.stderr)
						}
						// The json run decides the campCell unless another format violates.
						if prev, ok := o.perCmd[name]; !ok || v == vViolation || (f == "json" && prev != vViolation) {
							o.perCmd[name] = v
						}
						if v == vViolation {
							if outLog != nil {
								line, _ := json.Marshal(map[string]any{"kind": m.Kind, "index": m.Index, "seed": m.Seed, "op": m.Op, "desc": m.Desc, "base": b.name,
									"command": name, "format": f, "class": class, "exit": r.code, "origExit": orig.code, "stderr": campFirstLine(r.stderr)})
								outMu.Lock()
								outLog.Write(append(line, '\n'))
								outMu.Unlock()
							}
							if _, ok := o.examples[name]; !ok {
								o.classes[name] = class
								o.examples[name] = campExample{mutant: m.String(), args: strings.Join(args, " "), code: r.code, stderr1: campFirstLine(r.stderr), class: class}
							}
						}
					}
				}
				if after := campHashes(root); !campMapsEqual(before, after) {
					for name := range o.perCmd {
						o.perCmd[name] = vViolation
						o.classes[name] = "input-modified"
						o.examples[name] = campExample{mutant: m.String(), args: name, class: "input-modified"}
					}
				}
				if only != "" {
					t.Logf("mutant %s kept in %s (target %s); why: %s", m, root, b.target, m.Why)
				}
				outc <- o
			}
		}(w)
	}
	go func() {
		for _, j := range jobs {
			jobc <- j
		}
		close(jobc)
		wg.Wait()
		close(outc)
	}()

	cells := map[string]*campCell{} // kind|command
	var errs []string
	var slow []string
	for o := range outc {
		if o.slowest.dur > 2*time.Second {
			slow = append(slow, fmt.Sprintf("%s: %s: kmeta %s", o.slowest.dur.Round(time.Millisecond), o.m, strings.Join(o.slowest.args, " ")))
		}
		if o.err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", o.kind, o.err))
			continue
		}
		for name, v := range o.perCmd {
			key := string(o.kind) + "|" + name
			c := cells[key]
			if c == nil {
				c = &campCell{counts: map[campVerdict]int{}, examples: map[string][]campExample{}, classes: map[string]int{}}
				cells[key] = c
			}
			c.mutants++
			c.counts[v]++
			if v == vRejected && o.m.Preserving {
				c.rejValid++
			}
			if v == vViolation {
				cl := o.classes[name]
				c.classes[cl]++
				if len(c.examples[cl]) < 3 {
					c.examples[cl] = append(c.examples[cl], o.examples[name])
				}
			}
		}
	}
	for _, e := range errs {
		t.Errorf("mutant: %s", e)
	}

	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "|")
		kb, _, _ := strings.Cut(b, "|")
		if d := slices.Index(mutate.Kinds, mutate.Kind(ka)) - slices.Index(mutate.Kinds, mutate.Kind(kb)); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var tb strings.Builder
	fmt.Fprintf(&tb, "seed %d, %d mutants per kind, formats %s, %d secrets watched, %s\n", seed, n, campOr(fixedFormats, "json + text/table in turn"), len(secrets), time.Since(start).Round(time.Second))
	fmt.Fprintf(&tb, "%-19s %-18s %7s %8s %9s %6s %11s %10s  %s\n", "kind", "command", "mutants", "rejected", "unchanged", "warned", "valid-other", "VIOLATIONS", "(valid inputs rejected)")
	total := 0
	for _, k := range keys {
		c := cells[k]
		kind, name, _ := strings.Cut(k, "|")
		fmt.Fprintf(&tb, "%-19s %-18s %7d %8d %9d %6d %11d %10d  %d\n", kind, name, c.mutants, c.counts[vRejected], c.counts[vUnchanged], c.counts[vWarned], c.counts[vValid], c.counts[vViolation], c.rejValid)
		total += c.counts[vViolation]
	}
	t.Log("\n" + tb.String())
	if len(slow) > 0 {
		slices.Sort(slow)
		t.Logf("%d mutants had a run over 2s (resource bombs are the zk/metalog engineers' issue-8 part, listed, not counted):\n%s", len(slow), strings.Join(slow, "\n"))
	}
	if total > 0 {
		var ex strings.Builder
		for _, k := range keys {
			c := cells[k]
			cls := make([]string, 0, len(c.classes))
			for cl := range c.classes {
				cls = append(cls, cl)
			}
			slices.Sort(cls)
			for _, cl := range cls {
				fmt.Fprintf(&ex, "\n%s — %s: %d\n", k, cl, c.classes[cl])
				for _, e := range c.examples[cl] {
					fmt.Fprintf(&ex, "    %s\n      $ kmeta %s -> exit %d: %s\n", e.mutant, e.args, e.code, e.stderr1)
				}
			}
		}
		t.Log("violations (reproduce one with KMETA_MUTATE_ONLY='kind#index'):" + ex.String())
		if reportOnly {
			t.Logf("%d violations (KMETA_MUTATE_REPORT_ONLY=1: not failing)", total)
		} else {
			t.Errorf("%d violations of issue 8's invariants", total)
		}
	}
}

func campFirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}

func campMapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func campOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// The verdict rule itself: each class is reachable, so the campaign can fail.
func TestMutateCampaignClassifier(t *testing.T) {
	files := map[string][]byte{"__cluster_metadata-0/00000000000000000086.log": nil}
	orig := campRun{args: []string{"image", "-o", "json", "kraft:ROOT"}, stdout: `{"a":1}`, stderr: "kmeta: warning: chroot /x detected\n"}
	damage := mutate.Mutant{}
	valid := mutate.Mutant{Preserving: true}
	for _, tc := range []struct {
		name  string
		mut   campRun
		m     mutate.Mutant
		want  campVerdict
		class string
	}{
		{"same answer", orig, damage, vUnchanged, ""},
		{"rejected and placed", campRun{args: orig.args, code: 1, stderr: "kmeta: ROOT/__cluster_metadata-0/00000000000000000086.log: position 61, offset 87: crc"}, damage, vRejected, ""},
		{"rejected without a position", campRun{args: orig.args, code: 2, stderr: "kmeta: 1 record could not be decoded"}, damage, vViolation, "rejected-unplaced"},
		{"rejected at position -1", campRun{args: orig.args, code: 2, stderr: "kmeta: 00000000000000000086.log: position -1: bad"}, damage, vViolation, "rejected-unplaced"},
		{"rejected, naming a znode", campRun{args: orig.args, code: 2, stderr: "kmeta: znode /brokers/ids/1: malformed"}, damage, vRejected, ""},
		{"rejected, naming a quoted znode", campRun{args: orig.args, code: 2, stderr: `kmeta: dump.json: znode "/brokers/ids/2" appears twice`}, damage, vRejected, ""},
		{"warned", campRun{args: orig.args, stdout: `{"a":2}`, stderr: orig.stderr + "kmeta: warning: replay stopped\n"}, damage, vWarned, ""},
		{"exit 1 with a new warning", campRun{args: orig.args, code: 1, stdout: `{"a":2}`, stderr: orig.stderr + "kmeta: warning: unusable-file: ROOT/quorum-state: bad\n"}, damage, vWarned, ""},
		{"old warning only", campRun{args: orig.args, stdout: `{"a":2}`, stderr: orig.stderr}, damage, vViolation, "silent-different-answer"},
		{"another valid input", campRun{args: orig.args, stdout: `{"a":2}`, stderr: orig.stderr}, valid, vValid, ""},
	} {
		v, class := campClassify(orig, tc.mut, "json", tc.m, files)
		if v != tc.want || class != tc.class {
			t.Errorf("%s: %s %q, want %s %q", tc.name, v, class, tc.want, tc.class)
		}
	}
	check := campRun{args: []string{"log", "check", "-o", "json", "ROOT"}, stdout: `{"findings":[]}`}
	unplaced := campRun{args: check.args, code: 1, stdout: `{"findings":[{"code":"bad-properties","severity":"error","where":{"file":"ROOT/meta.properties","position":-1,"offset":-1}}]}`}
	if v, class := campClassify(check, unplaced, "json", damage, files); v != vViolation || class != "rejected-unplaced" {
		t.Errorf("log check finding at position -1: %s %q", v, class)
	}
	torn := campRun{args: check.args, stdout: `{"findings":[{"severity": "warning","kind":"torn-tail"}]}`}
	if v, _ := campClassify(check, torn, "json", damage, files); v != vWarned {
		t.Errorf("log check warning finding: %s", v)
	}
	secret := campRun{args: orig.args, code: 2, stderr: "kmeta: bad salt=c2VjcmV0c2VjcmV0c2VjcmV0"}
	if hv := campHard(secret, "text", []string{"c2VjcmV0c2VjcmV0c2VjcmV0"}); !slices.Contains(hv, "secret-leak") {
		t.Errorf("secret not caught: %v", hv)
	}
	if hv := campHard(campRun{args: orig.args, code: 2, stderr: "panic: boom\n\ngoroutine 1 [running]:"}, "json", nil); !slices.Contains(hv, "panic") {
		t.Errorf("panic not caught: %v", hv)
	}
	if hv := campHard(campRun{args: []string{"log", "dump", "-o", "json", "ROOT"}, stdout: "{}\n{\n"}, "json", nil); !slices.Contains(hv, "json-lines-invalid") {
		t.Errorf("invalid JSON lines not caught: %v", hv)
	}
}
