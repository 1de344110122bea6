// Package source parses kmeta's one source syntax and loads the view a
// source names into a model.Image, so that every command that reads a
// view (image, features, verify, migrate) accepts the same strings:
//
//	kraft:/var/lib/kafka/meta            a metadata log dir, a __cluster_metadata-0
//	                                     dir, a .checkpoint, a .log or a bootstrap.checkpoint
//	zk://h1:2181,h2:2181/kafka/prod      a live ZooKeeper ensemble and its chroot
//	zkdata:/var/lib/zookeeper            a ZooKeeper data dir (holding version-2/)
//	zkdump:cluster.json                  a dump written by `kmeta zk dump`
//
// Without a scheme the kind is inferred from what the path holds, and the
// reason is recorded for verbose output.
//
// A point in time is part of the source, so that commands taking two
// sources (diff) can give each its own:
//
//	kraft:/var/lib/kafka/meta@offset=1200     replay up to and including offset 1200
//	zkdata:/var/lib/zookeeper@zxid=0x2000001f the tree as of that zxid
//
// The suffix is recognised only in exactly that form (@offset=N or
// @zxid=N, N decimal or 0x-hex), so a path that merely contains '@' keeps
// working. The --at-offset and --at-zxid flags are the same thing for a
// command's single source; a source's own suffix wins.
package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// ErrSource is wrapped by every parse error.
var ErrSource = errors.New("source")

// Kind is the world a source belongs to.
type Kind int

const (
	KRaft Kind = iota + 1
	ZooKeeper
)

func (k Kind) String() string {
	if k == KRaft {
		return "kraft"
	}
	return "zookeeper"
}

// Spec is a parsed source.
type Spec struct {
	Raw  string
	Kind Kind
	// Path for KRaft sources.
	Path string
	// ZK for ZooKeeper sources.
	ZK zkread.Source
	// Inferred is set when the string had no scheme; Why says how.
	Inferred bool
	Why      string
	// At is the point in time the source string named (@offset=, @zxid=).
	At At
}

// At is a point in time in a source: a KRaft offset or a ZooKeeper zxid.
// Zero values mean "the newest state".
type At struct {
	// Offset, when HasOffset, replays a KRaft source up to and including
	// this offset.
	Offset    int64
	HasOffset bool
	// Zxid, when > 0, reads a ZooKeeper data dir as of this zxid.
	Zxid int64
}

func (a At) String() string {
	switch {
	case a.HasOffset:
		return fmt.Sprintf("@offset=%d", a.Offset)
	case a.Zxid > 0:
		return fmt.Sprintf("@zxid=%#x", a.Zxid)
	}
	return ""
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
	if n == 0 {
		return "", At{}, fmt.Errorf("%w: %q: @zxid must be above 0", ErrSource, s)
	}
	return s[:i], At{Zxid: n}, nil
}

func (s Spec) String() string {
	if s.Kind == KRaft {
		return "kraft:" + s.Path + s.At.String()
	}
	return s.ZK.String() + s.At.String()
}

// Parse reads one source string, with its point in time if it names one.
func Parse(s string) (Spec, error) {
	rest, at, err := splitAt(s)
	if err != nil {
		return Spec{}, err
	}
	spec, err := parse(rest)
	if err != nil {
		return Spec{}, err
	}
	spec.Raw = s
	if at.HasOffset && spec.Kind != KRaft {
		return Spec{}, fmt.Errorf("%w: %q: @offset applies to KRaft sources; a ZooKeeper point in time is @zxid=N", ErrSource, s)
	}
	if at.Zxid > 0 && (spec.Kind != ZooKeeper || spec.ZK.Kind != zkread.SourceDataDir) {
		return Spec{}, fmt.Errorf("%w: %q: @zxid applies to ZooKeeper data dirs (zkdata:); a KRaft point in time is @offset=N", ErrSource, s)
	}
	spec.At = at
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
		return Spec{Raw: s, Kind: KRaft, Path: p}, nil
	}
	if strings.HasPrefix(s, "zk://") || strings.HasPrefix(s, "zkdata:") || strings.HasPrefix(s, "zkdump:") {
		z, err := zkread.ParseSource(s)
		if err != nil {
			return Spec{}, fmt.Errorf("%w: %w", ErrSource, err)
		}
		return Spec{Raw: s, Kind: ZooKeeper, ZK: z}, nil
	}
	if i := strings.Index(s, "://"); i >= 0 {
		return Spec{}, fmt.Errorf("%w: unknown scheme %q (want kraft:, zk://, zkdata: or zkdump:)", ErrSource, s[:i])
	}
	if why, ok := looksKRaft(s); ok {
		return Spec{Raw: s, Kind: KRaft, Path: s, Inferred: true, Why: why}, nil
	}
	if _, err := os.Stat(s); err != nil && !strings.Contains(s, ":") {
		// A bare word is a path that is not there, not a ZooKeeper host:
		// never resolve names the user did not ask to connect to.
		return Spec{}, fmt.Errorf("%w: %s: no such file or directory (a live ZooKeeper is zk://host:port)", ErrSource, s)
	}
	z, err := zkread.ParseSource(s)
	if err != nil {
		return Spec{}, fmt.Errorf("%w: %w", ErrSource, err)
	}
	return Spec{Raw: s, Kind: ZooKeeper, ZK: z, Inferred: true, Why: z.Why}, nil
}

// looksKRaft says whether an existing path holds KRaft metadata.
func looksKRaft(p string) (string, bool) {
	st, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if !st.IsDir() {
		switch kind, _ := metalog.ClassifyName(filepath.Base(p)); kind {
		case metalog.KindSegment, metalog.KindSnapshot, metalog.KindBootstrap:
			return "a KRaft " + kind.String() + " file", true
		}
		return "", false
	}
	if _, err := os.Stat(filepath.Join(p, "version-2")); err == nil {
		return "", false
	}
	if _, err := metalog.OpenLogDir(p); err == nil {
		return "a directory holding KRaft metadata", true
	}
	return "", false
}

// Options carries the per-kind settings commands pass along.
type Options struct {
	// AtOffset replays a KRaft source up to this offset; negative for all.
	AtOffset int64
	// ZK settings for ZooKeeper sources.
	ZK       zkread.ReadOptions
	ZKDecode zkread.DecodeOptions
	// Progress reports bytes (KRaft) or znodes (ZooKeeper).
	Progress func(done, total int64)
}

// Result is a loaded view.
type Result struct {
	Spec     Spec
	Image    *model.Image
	Warnings []string
}

// Load reads the view a spec names. A source that cannot be read is an
// error, never an empty image.
func Load(ctx context.Context, spec Spec, opts Options) (*Result, error) {
	res := &Result{Spec: spec}
	switch spec.Kind {
	case KRaft:
		at := opts.AtOffset
		if spec.At.HasOffset {
			at = spec.At.Offset
		}
		r, err := metalog.LoadImage(spec.Path, metalog.ImageOptions{AtOffset: at, Progress: opts.Progress})
		if err != nil {
			return nil, err
		}
		res.Image = r.Image
		for _, w := range r.Warnings {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s (%s): %s", w.Code, w.Where, w.Message))
		}
	case ZooKeeper:
		zo := opts.ZK
		if spec.At.Zxid > 0 {
			zo.AtZxid = spec.At.Zxid
		}
		if opts.Progress != nil && zo.Live.Progress == nil {
			zo.Live.Progress = func(done, known int) { opts.Progress(int64(done), int64(known)) }
		}
		t, err := spec.ZK.ReadTree(ctx, zo)
		if err != nil {
			return nil, err
		}
		img, err := zkread.Decode(t, opts.ZKDecode)
		if err != nil && img == nil {
			return nil, err
		}
		res.Image = img
		res.Warnings = append(res.Warnings, t.Warnings...)
		if err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
	default:
		return nil, fmt.Errorf("%w: unknown kind", ErrSource)
	}
	return res, nil
}
