// Package source parses kmeta's one source syntax and loads the view a
// source names into a model.Image, so that every command that reads a
// view (image, features, verify, migrate) accepts the same strings:
//
//	kraft:/var/lib/kafka/meta            a metadata log dir, a __cluster_metadata-0
//	                                     dir, a .checkpoint, a .log or a bootstrap.checkpoint
//	zk://h1:2181,h2:2181/kafka/prod      a live ZooKeeper ensemble and its chroot
//	zkdata:/var/lib/zookeeper            a ZooKeeper data dir (holding version-2/)
//	zkdump:cluster.json                  a dump written by `kmeta zk dump`
//	kafka://b1:9092,[::1]:9092           a running cluster, read through its admin API
//	                                     (kafkaread: Options.Kafka carries the client settings)
//
// This package is the only place that parses a source string and infers
// its kind. Without a scheme the kind is inferred from what the path
// holds, and the reason is recorded for verbose output. Inference never
// resolves a host name: "zk1:2181/kafka" without zk:// is a path that is
// not there, and the refusal says to write zk://. When it refuses a path,
// it says what it saw: nothing there, no permission, an empty dir, a
// broker's partition log dir (ZooKeeper-mode brokers' dirs are named as
// such: they hold no KRaft metadata), a ZooKeeper file given instead of
// its data dir, or a file of no known kind.
//
// A path is scanned once: the log dir inference opened travels in the
// Spec to the loader.
//
// Load returns the image with its typed warnings (model.Image.Warnings):
// what the answer rests on. While the readers still report warnings as
// strings, warnings.go converts them here, in one place; readers that set
// img.Warnings themselves win.
//
// A point in time is part of the source, so that commands taking two
// sources (diff) can give each its own:
//
//	kraft:/var/lib/kafka/meta@offset=1200     replay up to and including offset 1200
//	zkdata:/var/lib/zookeeper@zxid=0x2000001f the tree as of that zxid
//
// Several data dirs of one ensemble are one source, zkdata:A,B,C: the
// newest is read, after proving the others are prefixes of its history
// (datadirs.go).
//
// A live source (kafka://, zk://) is read as it is now: a point in time on
// it is refused (ErrPoint), as on a dump. Live builds the spec of Kafka's
// own --bootstrap-server and --bootstrap-controller flags.
//
// The suffix is recognised only in exactly that form (@offset=N or
// @zxid=N, N decimal or 0x-hex), so a path that merely contains '@' keeps
// working. The --at-offset and --at-zxid flags are the same thing for a
// command's sources of their kind (Spec.WithPoint, WithPoints); a flag
// that differs from the source's own suffix is refused, never overridden.
package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// ErrSource is wrapped by every parse error.
var ErrSource = errors.New("source")

// Spec is a parsed source.
type Spec struct {
	Raw string
	// World is the world the source belongs to.
	World model.World
	// Path for KRaft sources.
	Path string
	// ZK for ZooKeeper sources.
	ZK zkread.Source
	// Inferred is set when the string had no scheme; Why says how.
	Inferred bool
	Why      string
	// At is the point in time the source string named (@offset=, @zxid=).
	At At
	// Dir is the KRaft log dir inference already opened; Load and the log
	// commands use it rather than scan the path again.
	Dir *metalog.LogDir
	// DataDirs are the data dirs of "zkdata:A,B,...", several servers of
	// one ensemble (see datadirs.go); nil for one. ZK.Path is the first.
	DataDirs []string
	// Bootstrap are a live cluster's host:port addresses (kafka://), and
	// Controllers says they are controllers (--bootstrap-controller).
	Bootstrap   []string
	Controllers bool
}

// At is a point in time in a source: a KRaft offset or a ZooKeeper zxid.
// Zero values mean "the newest state". 0 is a real point of either kind:
// offset 0 is the log's first record, zxid 0 the tree before any
// transaction (ZooKeeper's initial snapshot.0); "not given" is the Has
// fields being false, never a 0.
type At struct {
	// Offset, when HasOffset, replays a KRaft source up to and including
	// this offset.
	Offset    int64
	HasOffset bool
	// Zxid, when HasZxid, reads a ZooKeeper data dir as of this zxid.
	Zxid    int64
	HasZxid bool
}

func (a At) String() string {
	switch {
	case a.HasOffset:
		return fmt.Sprintf("@offset=%d", a.Offset)
	case a.HasZxid:
		return fmt.Sprintf("@zxid=%#x", a.Zxid)
	}
	return ""
}

// ErrPoint: a point in time that does not fit its source: of the other
// kind, on a source holding one point (a dump, a live ensemble) or several
// histories (zkdata:A,B), or a flag contradicting the source's own @.
// Its errors unwrap to ErrSource too: a usage error.
var ErrPoint = errors.New("point in time does not fit the source")

// pointError is an ErrPoint refusal, worded as the other parse errors.
type pointError struct{ msg string }

func (e *pointError) Error() string   { return ErrSource.Error() + ": " + e.msg }
func (e *pointError) Unwrap() []error { return []error{ErrPoint, ErrSource} }

func pointErrorf(format string, a ...any) error {
	return &pointError{fmt.Sprintf(format, a...)}
}

// splitAt cuts a trailing @offset=N or @zxid=N from a source string.
func splitAt(s string) (string, At, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, At{}, nil
	}
	key, val, ok := strings.Cut(s[i+1:], "=")
	if !ok || (key != "offset" && key != "zxid") {
		return s, At{}, nil
	}
	n, err := strconv.ParseInt(val, 0, 64)
	if err != nil || n < 0 {
		return "", At{}, fmt.Errorf("%w: %q: @%s wants a non-negative number (decimal or 0x-hex)", ErrSource, s, key)
	}
	if key == "offset" {
		return s[:i], At{Offset: n, HasOffset: true}, nil
	}
	return s[:i], At{Zxid: n, HasZxid: true}, nil
}

// fitPoint says why a point in time does not fit spec (nil when it does);
// how names it as the user wrote it ("@zxid", "--at-zxid").
func fitPoint(spec Spec, at At, how string) error {
	name := spec.Raw
	if (at.HasOffset || at.HasZxid) && spec.World == model.WorldKafka {
		return pointErrorf("%q: a live cluster is read as it is now; %s applies to a KRaft metadata log dir (kraft:DIR@offset=N) or a ZooKeeper data dir (zkdata:DIR@zxid=N)", name, how)
	}
	if at.HasOffset && spec.World != model.WorldKRaft {
		return pointErrorf("%q: %s applies to KRaft sources; a ZooKeeper point in time is @zxid=N (--at-zxid)", name, how)
	}
	if !at.HasZxid {
		return nil
	}
	switch {
	case spec.World != model.WorldZooKeeper:
		return pointErrorf("%q: %s applies to ZooKeeper data dirs (zkdata:); a KRaft point in time is @offset=N (--at-offset)", name, how)
	case spec.ZK.Access == zkread.AccessDump:
		return pointErrorf("%q: a dump holds one point in time, the one it was written at; %s applies to ZooKeeper data dirs (zkdata:)", name, how)
	case spec.ZK.Access != zkread.AccessDataDir:
		return pointErrorf("%q: a live ensemble is read as it is now; %s applies to ZooKeeper data dirs (zkdata:)", name, how)
	case len(spec.DataDirs) > 1:
		return pointErrorf("%q: %s names one data dir's state; give one data dir", name, how)
	}
	return nil
}

// WithPoint gives a spec the point in time a command's flags name
// (--at-offset, --at-zxid): refused when it does not fit the source, or
// when the source names a different point of its own (@offset=, @zxid=);
// the same point twice is fine.
func (s Spec) WithPoint(flags At) (Spec, error) {
	if flags.HasOffset {
		if err := fitPoint(s, At{Offset: flags.Offset, HasOffset: true}, "--at-offset"); err != nil {
			return s, err
		}
		if s.At.HasOffset && s.At.Offset != flags.Offset {
			return s, pointErrorf("%q names offset %d and --at-offset %d: give one", s.Raw, s.At.Offset, flags.Offset)
		}
		s.At.Offset, s.At.HasOffset = flags.Offset, true
	}
	if flags.HasZxid {
		if err := fitPoint(s, At{Zxid: flags.Zxid, HasZxid: true}, "--at-zxid"); err != nil {
			return s, err
		}
		if s.At.HasZxid && s.At.Zxid != flags.Zxid {
			return s, pointErrorf("%q names zxid %#x and --at-zxid %#x: give one", s.Raw, s.At.Zxid, flags.Zxid)
		}
		s.At.Zxid, s.At.HasZxid = flags.Zxid, true
	}
	return s, nil
}

// WithPoints is WithPoint for a command reading several sources (verify,
// diff): each flag applies to the sources of its kind (--at-offset to
// KRaft, --at-zxid to ZooKeeper); a flag that fits no source is refused.
func WithPoints(flags At, specs ...*Spec) error {
	kinds := map[model.World]bool{}
	for _, sp := range specs {
		kinds[sp.World] = true
		own := At{}
		switch sp.World {
		case model.WorldKafka:
			// A live cluster has no point in time: either flag is refused
			// by name.
			own = flags
		case model.WorldKRaft:
			own.Offset, own.HasOffset = flags.Offset, flags.HasOffset
		default:
			own.Zxid, own.HasZxid = flags.Zxid, flags.HasZxid
		}
		s, err := sp.WithPoint(own)
		if err != nil {
			return err
		}
		*sp = s
	}
	if flags.HasOffset && !kinds[model.WorldKRaft] {
		return pointErrorf("--at-offset applies to KRaft sources, and none is given (a ZooKeeper point in time is --at-zxid)")
	}
	if flags.HasZxid && !kinds[model.WorldZooKeeper] {
		return pointErrorf("--at-zxid applies to ZooKeeper data dirs, and none is given (a KRaft point in time is --at-offset)")
	}
	return nil
}

func (s Spec) String() string {
	if s.World == model.WorldKafka {
		return s.kafkaString()
	}
	if s.World == model.WorldKRaft {
		return "kraft:" + s.Path + s.At.String()
	}
	if len(s.DataDirs) > 1 {
		return "zkdata:" + strings.Join(s.DataDirs, ",")
	}
	return s.ZK.String() + s.At.String()
}

// Absolute is the source string with its paths absolute (a live ensemble
// has none), its point in time kept: what a file that outlives the
// working directory records (a migrate plan file).
func (s Spec) Absolute() (string, error) {
	abs := func(p string) (string, error) { return filepath.Abs(p) }
	switch {
	case s.World == model.WorldKRaft:
		p, err := abs(s.Path)
		if err != nil {
			return "", err
		}
		return "kraft:" + p + s.At.String(), nil
	case s.ZK.Access == zkread.AccessLive:
		return s.ZK.String() + s.At.String(), nil
	case s.World == model.WorldKafka:
		return s.kafkaString(), nil
	}
	dirs := s.DataDirs
	if dirs == nil {
		dirs = []string{s.ZK.Path}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		p, err := abs(d)
		if err != nil {
			return "", err
		}
		out[i] = p
	}
	z := s.ZK
	z.Path = strings.Join(out, ",")
	return z.String() + s.At.String(), nil
}

// Parse reads one source string, with its point in time if it names one.
// A string without a scheme is inferred from what the path holds.
func Parse(s string) (Spec, error) {
	if shown, ok := withCredentials(s); ok {
		return Spec{}, fmt.Errorf("%w: %q: %s", ErrSource, shown, credentialsHelp(s))
	}
	rest, at, err := splitAt(s)
	if err != nil {
		return Spec{}, err
	}
	spec, err := parse(rest)
	if err != nil {
		return Spec{}, err
	}
	spec.Raw = s
	how := "@offset"
	if at.HasZxid {
		how = "@zxid"
	}
	if err := fitPoint(spec, at, how); err != nil {
		return Spec{}, err
	}
	spec.At = at
	return spec, nil
}

// ParseKRaft is Parse for commands that read only KRaft files (the log
// commands): a ZooKeeper source is refused, and the log dir is opened (or
// the one inference opened is kept) so that the command reads it once.
func ParseKRaft(s string) (Spec, error) {
	spec, err := Parse(s)
	if err != nil {
		return spec, err
	}
	if spec.World != model.WorldKRaft {
		what := "a ZooKeeper source"
		if spec.World == model.WorldKafka {
			what = "a live Kafka source"
		}
		if spec.Inferred {
			what += " (" + spec.String() + ")"
		}
		return spec, saw(s, ErrUnrecognised, "%s; this command reads KRaft metadata files", what)
	}
	if spec.Dir == nil {
		if spec.Dir, err = OpenKRaft(spec.Path); err != nil {
			return spec, err
		}
	}
	return spec, nil
}

func parse(s string) (Spec, error) {
	if s == "" {
		return Spec{}, fmt.Errorf("%w: empty source", ErrSource)
	}
	if p, ok := strings.CutPrefix(s, "kraft:"); ok {
		if p == "" {
			return Spec{}, fmt.Errorf("%w: kraft: needs a path", ErrSource)
		}
		return Spec{Raw: s, World: model.WorldKRaft, Path: p}, nil
	}
	if rest, ok := strings.CutPrefix(s, "kafka://"); ok || s == "kafka:" {
		if !ok {
			return Spec{}, fmt.Errorf("%w: %q: a live cluster is kafka://HOST:PORT[,HOST:PORT...]", ErrSource, s)
		}
		addrs, err := parseBootstrap(rest)
		if err != nil {
			return Spec{}, fmt.Errorf("%w: %q: %w", ErrSource, s, err)
		}
		return Spec{Raw: s, World: model.WorldKafka, Bootstrap: addrs}, nil
	}
	if strings.HasPrefix(s, "zk://") || strings.HasPrefix(s, "zkdata:") || strings.HasPrefix(s, "zkdump:") {
		z, err := zkread.ParseSource(s)
		if err != nil {
			return Spec{}, fmt.Errorf("%w: %w", ErrSource, err)
		}
		spec := Spec{Raw: s, World: model.WorldZooKeeper, ZK: z}
		if z.Access == zkread.AccessDump {
			if what := notDump(z.Path); what != "" {
				return Spec{}, saw(z.Path, ErrUnrecognised, "%s", what)
			}
		}
		if z.Access == zkread.AccessDataDir {
			if spec.DataDirs = splitDataDirs(z.Path); spec.DataDirs != nil {
				spec.ZK.Path = spec.DataDirs[0]
			}
		}
		return spec, nil
	}
	if i := strings.Index(s, "://"); i >= 0 {
		return Spec{}, fmt.Errorf("%w: unknown scheme %q (want kraft:, zk://, zkdata:, zkdump: or kafka://)", ErrSource, s[:i])
	}
	return infer(s)
}

// withCredentials finds credentials written into a kafka:// or zk://
// source as a URL carries them (kafka://USER:PASSWORD@HOST:PORT), which
// no source does. shown is s with everything from the scheme to the '@'
// hidden, for the error to name it without the password (an '@' in a
// ZooKeeper chroot is the chroot's: zkread.CredentialsEnd).
func withCredentials(s string) (shown string, ok bool) {
	scheme, rest, found := strings.Cut(s, "://")
	if !found || scheme != "kafka" && scheme != "zk" {
		return "", false
	}
	if r, _, err := splitAt(rest); err == nil {
		rest = r // a point in time (@offset=N) is not credentials
	}
	at := strings.LastIndexByte(rest, '@')
	if scheme == "zk" {
		at = zkread.CredentialsEnd(rest)
	}
	if at < 0 {
		return "", false
	}
	return scheme + "://<credentials hidden>@" + s[len(scheme)+3+at+1:], true
}

// credentialsHelp says where a source's credentials go instead.
func credentialsHelp(s string) string {
	if strings.HasPrefix(s, "zk://") {
		return "a source never carries credentials: give ZooKeeper's digest login in the environment (KMETA_ZK_AUTH=USER:PASSWORD) or with --zk-auth"
	}
	return "a source never carries credentials: give Kafka's client settings (sasl.jaas.config, ssl.*) in a file with --command-config FILE, as Kafka's tools take them"
}

// parseBootstrap reads Kafka's bootstrap list, host:port[,host:port...],
// an IPv6 host in brackets ([::1]:9092), as bootstrap.servers takes it.
// Host names are not resolved here: Dial does that, and names the address
// that fails.
func parseBootstrap(list string) ([]string, error) {
	if list == "" {
		return nil, errors.New("no address (want HOST:PORT[,HOST:PORT...])")
	}
	var out []string
	if i := strings.LastIndexByte(list, '@'); i >= 0 {
		// USER:PASSWORD@HOST:PORT: shown without what precedes the '@'.
		return nil, fmt.Errorf("%q: %s", "<credentials hidden>@"+list[i+1:], credentialsHelp("kafka://"))
	}
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" {
			return nil, fmt.Errorf("%q is not HOST:PORT (an IPv6 address goes in brackets: [::1]:9092)", a)
		}
		if strings.ContainsAny(host, "/@?#") {
			return nil, fmt.Errorf("%q: a bootstrap address is HOST:PORT, without a path or user", a)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return nil, fmt.Errorf("%q: port %q is not a number from 1 to 65535", a, port)
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	return out, nil
}

// Live is the spec of Kafka's --bootstrap-server (controllers false) or
// --bootstrap-controller (true) flag: the same as kafka://ADDRS, with the
// addresses taken for controllers (KIP-919) in the second case.
func Live(list string, controllers bool) (Spec, error) {
	flag := "--bootstrap-server"
	if controllers {
		flag = "--bootstrap-controller"
	}
	addrs, err := parseBootstrap(list)
	if err != nil && strings.Contains(list, "@") {
		return Spec{}, fmt.Errorf("%w: %s: %w", ErrSource, flag, err) // the error hides the credentials
	}
	if err != nil {
		return Spec{}, fmt.Errorf("%w: %s %q: %w", ErrSource, flag, list, err)
	}
	return Spec{Raw: "kafka://" + list, World: model.WorldKafka, Bootstrap: addrs, Controllers: controllers}, nil
}

// kafkaString is a live source as kafka://ADDRS, saying when the
// addresses are controllers.
func (s Spec) kafkaString() string {
	out := "kafka://" + strings.Join(s.Bootstrap, ",")
	if s.Controllers {
		out += " (controllers)"
	}
	return out
}

// infer chooses a world for a string without a scheme from what the path
// holds, or refuses saying what it saw.
func infer(p string) (Spec, error) {
	st, err := statPath(p)
	if err != nil {
		if errors.Is(err, ErrNoPath) && looksLikeConnect(p) {
			// Never resolve a host the user did not ask to connect to.
			return Spec{}, saw(p, ErrNoPath, "no such file or directory; a live ZooKeeper ensemble is named zk://%s (kmeta does not resolve host names given without a scheme)", p)
		}
		return Spec{}, err
	}
	kraft := func(why string, d *metalog.LogDir) (Spec, error) {
		return Spec{Raw: p, World: model.WorldKRaft, Path: p, Inferred: true, Why: why, Dir: d}, nil
	}
	zk := func(access zkread.Access, why string) (Spec, error) {
		return Spec{Raw: p, World: model.WorldZooKeeper, ZK: zkread.Source{Access: access, Path: p}, Inferred: true, Why: why}, nil
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return Spec{}, notRegular(p, st)
	}
	if !st.IsDir() {
		name := filepath.Base(p)
		switch kind, _ := metalog.ClassifyName(name); kind {
		case metalog.KindSegment, metalog.KindSnapshot, metalog.KindBootstrap:
			d, err := OpenKRaft(p)
			if err != nil {
				return Spec{}, err
			}
			return kraft("a KRaft "+kind.String()+" file", d)
		}
		if strings.HasPrefix(name, "snapshot.") || strings.HasPrefix(name, "log.") {
			return Spec{}, saw(p, ErrUnrecognised, "looks like a ZooKeeper %s file: give the data dir holding version-2/ (zkdata:DIR)",
				map[bool]string{true: "snapshot", false: "transaction log"}[strings.HasPrefix(name, "snapshot.")])
		}
		if st.Size() == 0 {
			return Spec{}, saw(p, ErrEmpty, "an empty file")
		}
		switch kind, _ := metalog.ClassifyName(name); kind {
		case metalog.KindMetaProperties, metalog.KindQuorumState, metalog.KindLeaderEpochCheckpoint, metalog.KindPartitionMetadata:
			// quorum-state is JSON too: name it before taking it for a dump.
			return Spec{}, saw(p, ErrUnrecognised, "%s", describeOther(p, st))
		}
		if looksLikeDump(p) {
			if what := notDump(p); what != "" {
				return Spec{}, saw(p, ErrUnrecognised, "%s", what)
			}
			return zk(zkread.AccessDump, "a JSON file, read as a dump written by 'kmeta zk dump'")
		}
		return Spec{}, saw(p, ErrUnrecognised, "%s", describeOther(p, st))
	}
	ents, err := readDir(p)
	if err != nil {
		return Spec{}, err
	}
	if len(ents) == 0 {
		return Spec{}, saw(p, ErrEmpty, "an empty directory: neither KRaft metadata (meta.properties, %s/) nor a ZooKeeper data dir (version-2/)", metalog.MetadataPartitionDir)
	}
	if isZKDataDir(p, ents) {
		return zk(zkread.AccessDataDir, "a directory holding ZooKeeper's version-2/")
	}
	if b := inspectBrokerDir(p, ents); b != nil {
		return Spec{}, saw(p, ErrBrokerDir, "%s", b.Describe())
	}
	if topic := partitionLogOf(p, true); topic != "" {
		return Spec{}, partitionLogError(p, topic)
	}
	d, err := metalog.OpenLogDir(p)
	if err != nil {
		if errors.Is(err, metalog.ErrNotKRaft) {
			return Spec{}, saw(p, ErrUnrecognised, "%s", describeOther(p, st))
		}
		return Spec{}, err
	}
	return kraft("a directory holding KRaft metadata", d)
}

// looksLikeConnect says whether a string has the shape of a ZooKeeper
// connect string (host:port[,host:port][/chroot]).
func looksLikeConnect(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	_, _, err := zkread.ParseConnect(s)
	return err == nil
}

// Options carries the per-kind settings commands pass along. The point in
// time is the Spec's (Spec.WithPoint adds a command's flags).
type Options struct {
	// Kafka settings for a live cluster (kafka://): the client settings,
	// their file and the timeout. The addresses, and whether they are
	// controllers, are the Spec's.
	Kafka kafkaread.Config
	// ZK settings for ZooKeeper sources.
	ZK       zkread.ReadOptions
	ZKDecode zkread.DecodeOptions
	// Progress reports bytes (KRaft logs, ZooKeeper data dirs) or znodes
	// (a live ZooKeeper).
	Progress func(done, total int64)
	// Observe, on a KRaft log, is called after each replayed record that
	// took effect (metalog.Replayer.Observe), BatchDone after each batch
	// (metalog.ImageOptions); other worlds ignore them.
	Observe   func(img *model.Image, pos metalog.Position, rec records.Message)
	BatchDone func(end int64)
	// Before, on a KRaft log, is called before each record is applied
	// (metalog.Replayer.Before).
	Before func(r *metalog.Replayer, pos metalog.Position, rec records.Message)
	// Oldest, on a KRaft log, replays the longest history the files hold
	// (metalog.ImageOptions.Oldest), as a ZooKeeper history always does.
	Oldest bool
	// ZKStep, on one ZooKeeper data dir, follows its replay
	// (zkread.DataDirOptions.Step); other ZooKeeper sources are refused
	// with it, other worlds ignore it. ZKBefore goes with it
	// (zkread.DataDirOptions.Before).
	ZKStep   func(img *model.Image, s zkread.Step)
	ZKBefore func(img *model.Image, s zkread.Step)
}

// Result is a loaded view. Its image carries the typed warnings
// (Image.Warnings) saying what it rests on.
type Result struct {
	Spec  Spec
	Image *model.Image
	// DataDirs, for several data dirs, is what each held; Image is the
	// newest one's (Used).
	DataDirs []DataDir
	// tree is the newest data dir's raw tree, for ReadZKTree.
	tree *zkread.Tree
}

// collectTreeNodes is the size of a data dir's tree (znodes) from which
// Load collects it once decoded: below, it is not worth a collection.
const collectTreeNodes = 100_000

// ErrPastEnd: a point in time beyond what the source holds.
var ErrPastEnd = errors.New("point in time beyond the source")

// pastEnd makes a reader's point past the end (a data dir's zxid) this
// package's ErrPastEnd, which commands report as a usage error.
func pastEnd(err error) error {
	if errors.Is(err, zkread.ErrPastEnd) {
		return &pastEndError{err}
	}
	return err
}

// pastEndError is a reader's error that is also this package's ErrPastEnd,
// with the reader's message.
type pastEndError struct{ error }

func (e *pastEndError) Unwrap() []error { return []error{e.error, ErrPastEnd} }

// Load reads the view a spec names. A source that cannot be read is an
// error, never an empty image.
func Load(ctx context.Context, spec Spec, opts Options) (*Result, error) {
	res := &Result{Spec: spec}
	switch spec.World {
	case model.WorldKRaft:
		at := int64(-1)
		if spec.At.HasOffset {
			at = spec.At.Offset
		}
		d := spec.Dir
		if d == nil {
			var err error
			if d, err = OpenKRaft(spec.Path); err != nil {
				return nil, err
			}
		}
		r, err := metalog.LoadImageDir(d, metalog.ImageOptions{AtOffset: at, Progress: opts.Progress, Observe: opts.Observe, BatchDone: opts.BatchDone, Before: opts.Before, Oldest: opts.Oldest})
		if err != nil {
			return nil, err
		}
		if at >= 0 && r.StoppedAt < 0 && at >= r.EndOffset {
			end := "it holds no records"
			if r.EndOffset > 0 {
				end = fmt.Sprintf("its last offset is %d", r.EndOffset-1)
			}
			return nil, saw(spec.Path, ErrPastEnd, "offset %d is past the end of the log: %s", at, end)
		}
		// metalog's typed warnings (r.Warnings) are already the image's.
		res.Image = r.Image
	case model.WorldZooKeeper:
		if len(spec.DataDirs) > 1 {
			if opts.ZKStep != nil {
				return nil, fmt.Errorf("%w: %s: a history is read from one data dir, not several", ErrSource, spec)
			}
			return loadDataDirs(ctx, spec, opts)
		}
		zo := opts.ZK
		zo.AtZxid, zo.AtZxidSet = spec.At.Zxid, spec.At.HasZxid
		zo.Step, zo.Before = opts.ZKStep, opts.ZKBefore
		if opts.Progress != nil && zo.Live.Progress == nil {
			zo.Live.Progress = func(done, known int) { opts.Progress(int64(done), int64(known)) }
		}
		if zo.DataProgress == nil {
			zo.DataProgress = opts.Progress
		}
		t, err := spec.ZK.ReadTree(ctx, zo)
		if err != nil {
			return nil, pastEnd(err)
		}
		img, err := zkread.Decode(t, opts.ZKDecode)
		if err != nil && img == nil {
			return nil, err
		}
		if n := t.Len(); n >= collectTreeNodes && spec.ZK.Access == zkread.AccessDataDir {
			// The tree is garbage now, and the largest thing the read
			// made (about as large as the image it decodes to): collect
			// it before the caller allocates, rather than let the heap
			// grow to twice the tree and the image before the next
			// collection would run.
			t = nil
			runtime.GC()
		}
		// Decode copied the tree's typed warnings (and a lenient decode's)
		// into img.Warnings.
		res.Image = img
	case model.WorldKafka:
		img, err := loadKafka(ctx, spec, opts.Kafka)
		if err != nil {
			return nil, err
		}
		res.Image = img
	default:
		return nil, fmt.Errorf("%w: unknown kind", ErrSource)
	}
	return res, nil
}

// loadKafka reads a live cluster. Its errors are kafkaread's, each of a
// class (kafkaread.ErrRefused, ErrAuth, ...) and naming the address; the
// source string is added when the message lacks it.
func loadKafka(ctx context.Context, spec Spec, cfg kafkaread.Config) (*model.Image, error) {
	cfg.Bootstrap, cfg.Controllers = spec.Bootstrap, spec.Controllers
	cl, err := kafkaread.Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return cl.Image(ctx)
}

// ReadZKTree reads a ZooKeeper source's raw tree (for zk dump), with the
// typed warnings it rests on.
func ReadZKTree(ctx context.Context, spec Spec, zo zkread.ReadOptions) (*zkread.Tree, []model.Finding, error) {
	if spec.World != model.WorldZooKeeper {
		return nil, nil, fmt.Errorf("%w: %s is not a ZooKeeper source", ErrSource, spec)
	}
	if len(spec.DataDirs) > 1 {
		// As for an image: the newest dir's tree, once the others are
		// shown to be prefixes of its history.
		res, err := loadDataDirs(ctx, spec, Options{ZK: zo})
		if err != nil {
			return nil, nil, err
		}
		return res.tree, model.CloneFindings(res.tree.Findings), nil
	}
	zo.AtZxid, zo.AtZxidSet = spec.At.Zxid, spec.At.HasZxid
	t, err := spec.ZK.ReadTree(ctx, zo)
	if err != nil {
		return nil, nil, pastEnd(err)
	}
	return t, model.CloneFindings(t.Findings), nil
}
