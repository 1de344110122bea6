package zkread

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// Access is how a Source's tree is read: from a live ensemble, from a
// server's data dir on disk, or from a dump file. Every one yields a
// ZooKeeper tree (the world is model.WorldZooKeeper either way); Access
// picks the reader. String is the source scheme ("zk", "zkdata", "zkdump").
type Access int

const (
	AccessLive    Access = iota + 1 // zk://host:port,…/chroot
	AccessDataDir                   // zkdata:/path (dataDir or version-2)
	AccessDump                      // zkdump:file.json
)

func (a Access) String() string {
	switch a {
	case AccessLive:
		return "zk"
	case AccessDataDir:
		return "zkdata"
	case AccessDump:
		return "zkdump"
	}
	return "unknown"
}

// Source is a parsed ZooKeeper-side source.
type Source struct {
	Access Access
	// Servers and Chroot for AccessLive (Chroot "" = none).
	Servers []string
	Chroot  string
	// Path for AccessDataDir and AccessDump.
	Path string
}

func (s Source) String() string {
	switch s.Access {
	case AccessLive:
		return "zk://" + strings.Join(s.Servers, ",") + s.Chroot
	case AccessDataDir:
		return "zkdata:" + s.Path
	case AccessDump:
		return "zkdump:" + s.Path
	}
	return "?"
}

var hostPortRE = regexp.MustCompile(`^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?$`)

// ParseConnect splits a ZooKeeper connect string "h1:2181,h2:2181/kafka/prod"
// into servers and chroot (which starts at the first '/'), as Kafka does.
// A server without a port gets 2181.
func ParseConnect(s string) ([]string, string, error) {
	if i := CredentialsEnd(s); i >= 0 {
		// USER:PASSWORD@HOST:PORT, the URL habit: never echoed.
		return nil, "", fmt.Errorf("%w: a ZooKeeper connect string holds no credentials (%q)", ErrSource, "<credentials hidden>"+s[i:])
	}
	hosts, chroot := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, chroot = s[:i], s[i:]
	}
	if strings.Contains(chroot, "//") || (len(chroot) > 1 && strings.HasSuffix(chroot, "/")) {
		return nil, "", fmt.Errorf("%w: chroot %q is not a valid znode path", ErrSource, chroot)
	}
	var servers []string
	for _, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if !hostPortRE.MatchString(h) {
			return nil, "", fmt.Errorf("%w: %q is not host:port", ErrSource, h)
		}
		if !strings.HasSuffix(h, "]") && strings.Contains(h, ":") || strings.Contains(h, "]:") {
			servers = append(servers, h)
		} else {
			servers = append(servers, h+":2181")
		}
	}
	return servers, NormalizeChroot(chroot), nil
}

// CredentialsEnd finds credentials written into a connect string as a URL
// carries them (USER:PASSWORD@HOST:PORT/chroot), which ZooKeeper's never
// holds, and returns the index of their '@' (-1 when there are none), so
// that an error can name the string without them. An '@' in the chroot
// (HOST:PORT/a@b) is the chroot's: credentials are an '@' before the
// chroot, or the last '@' when a ':' precedes it and HOST:PORT follows (a
// password may hold '/').
func CredentialsEnd(s string) int {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return -1
	}
	if slash := strings.IndexByte(s, '/'); slash < 0 || at < slash {
		return at
	}
	host, _, _ := strings.Cut(s[at+1:], "/")
	host, _, _ = strings.Cut(host, ",")
	if _, port, err := net.SplitHostPort(host); err == nil && port != "" && strings.Contains(s[:at], ":") {
		return at
	}
	return -1
}

// ParseSource parses one source string:
//
//	zk://h1:2181,h2:2181/kafka/prod   a live ensemble and its chroot
//	zkdata:/var/lib/zookeeper         a data dir (holding version-2/), or version-2
//	zkdump:cluster.json               a dump written by `kmeta zk dump`
//
// A string without one of these schemes is refused: inferring a kind from
// what a path holds is internal/source's job, done in one place.
func ParseSource(s string) (Source, error) {
	switch {
	case strings.HasPrefix(s, "zk://"):
		servers, chroot, err := ParseConnect(strings.TrimPrefix(s, "zk://"))
		if err != nil {
			return Source{}, err
		}
		return Source{Access: AccessLive, Servers: servers, Chroot: chroot}, nil
	case strings.HasPrefix(s, "zkdata:"):
		p := strings.TrimPrefix(s, "zkdata:")
		if p == "" {
			return Source{}, fmt.Errorf("%w: zkdata: needs a directory", ErrSource)
		}
		return Source{Access: AccessDataDir, Path: p}, nil
	case strings.HasPrefix(s, "zkdump:"):
		p := strings.TrimPrefix(s, "zkdump:")
		if p == "" {
			return Source{}, fmt.Errorf("%w: zkdump: needs a file", ErrSource)
		}
		return Source{Access: AccessDump, Path: p}, nil
	}
	return Source{}, fmt.Errorf("%w: %q has no ZooKeeper scheme (want zk://, zkdata: or zkdump:)", ErrSource, s)
}

// ReadOptions are the per-kind settings a command passes with a Source.
type ReadOptions struct {
	// Live settings; Servers and Chroot come from the Source.
	Live LiveOptions
	// Chroot for a data dir: "" detects it (the one subtree holding
	// brokers/ids or cluster/id; the root when that is where they are),
	// "/" forces the root.
	Chroot string
	LogDir string
	// AtZxid, AtZxidSet: a data dir's point in time (DataDirOptions).
	AtZxid    int64
	AtZxidSet bool
	// MaxBuffer is ZooKeeper's jute.maxbuffer, for every kind: the data
	// dir's lengths (DataDirOptions.MaxBuffer), a dump's znodes (ReadDump)
	// and a live read's (LiveOptions.MaxBuffer), so that a znode one
	// source refuses no other passes; <= 0: ZooKeeper's default.
	MaxBuffer int
	// DataProgress is DataDirOptions.Progress for a data dir read (bytes);
	// a live read reports through Live.Progress (znodes).
	DataProgress func(done, total int64)
	// Step follows a data dir's replay (DataDirOptions.Step); other
	// kinds have no history to follow and are refused with it.
	Step func(img *model.Image, s Step)
	// Replay follows a data dir's transaction stream
	// (DataDirOptions.Replay); other kinds hold none and are refused
	// with it.
	Replay *Replay
	// Before goes with Step (DataDirOptions.Before).
	Before func(img *model.Image, s Step)
}

// ReadTree reads the source's raw tree.
func (s Source) ReadTree(ctx context.Context, opts ReadOptions) (*Tree, error) {
	if (opts.Step != nil || opts.Replay != nil) && s.Access != AccessDataDir {
		return nil, fmt.Errorf("%w: %s: only a data dir's transaction logs hold a history", ErrSource, s)
	}
	switch s.Access {
	case AccessLive:
		lo := opts.Live
		lo.Servers, lo.Chroot, lo.MaxBuffer = s.Servers, s.Chroot, opts.MaxBuffer
		return ReadLive(ctx, lo)
	case AccessDataDir:
		if opts.Chroot != "" {
			return ReadDataDir(s.Path, DataDirOptions{Chroot: opts.Chroot, LogDir: opts.LogDir, AtZxid: opts.AtZxid, AtZxidSet: opts.AtZxidSet, MaxBuffer: opts.MaxBuffer, Progress: opts.DataProgress, Step: opts.Step, Replay: opts.Replay, Before: opts.Before})
		}
		full, err := ReadDataDir(s.Path, DataDirOptions{LogDir: opts.LogDir, AtZxid: opts.AtZxid, AtZxidSet: opts.AtZxidSet, MaxBuffer: opts.MaxBuffer, Progress: opts.DataProgress, Step: opts.Step, Replay: opts.Replay, Before: opts.Before})
		if err != nil {
			return nil, err
		}
		chroot, err := DetectChroot(full)
		if err != nil {
			return nil, err
		}
		if h := full.history; h != nil {
			// The history found the chroot as the replay went; the
			// finished tree must agree (a second cluster's chroot made
			// later would not).
			if followed, _ := h.chroot(); followed != chroot {
				return nil, fmt.Errorf("%w: the history followed the Kafka znodes under %q, the data dir's tree has them under %q: name the chroot", ErrSource, followed, chroot)
			}
		}
		if chroot == "" {
			return full, nil
		}
		t := Subtree(full, chroot)
		where := model.NoLocation()
		where.File, where.Znode = s.Path, chroot
		t.warnf(model.WarnChrootDetected, &where, "chroot %s detected in the data dir", chroot)
		return t, nil
	case AccessDump:
		return ReadDumpFile(filepath.Clean(s.Path), opts.MaxBuffer)
	}
	return nil, fmt.Errorf("%w: empty source", ErrSource)
}

// DetectChroot finds where Kafka's znodes are in a tree read from the root:
// "" when /brokers/ids or /cluster/id is at the root, the single path X
// holding X/brokers/ids or X/cluster/id otherwise. Several candidates are
// an error naming them.
func DetectChroot(t *Tree) (string, error) {
	if t.Has("/brokers/ids") || t.Has("/cluster/id") {
		return "", nil
	}
	seen := map[string]bool{}
	t.rangePaths(func(p string) {
		for _, suffix := range []string{"/brokers/ids", "/cluster/id"} {
			if strings.HasSuffix(p, suffix) {
				seen[strings.TrimSuffix(p, suffix)] = true
			}
		}
	})
	var cands []string
	for c := range seen {
		cands = append(cands, c)
	}
	switch len(cands) {
	case 0:
		return "", fmt.Errorf("%w: no Kafka znodes (brokers/ids, cluster/id) anywhere in the tree", ErrNoNode)
	case 1:
		return cands[0], nil
	}
	return "", fmt.Errorf("%w: several Kafka chroots in the tree (%s): name one", ErrSource, strings.Join(cands, ", "))
}

// Subtree returns the part of t under chroot, re-rooted at "/" (an
// offline read's shares its nodes with t).
func Subtree(t *Tree, chroot string) *Tree {
	var out *Tree
	if t.dt != nil {
		abs := chroot
		if t.rootPath != "/" {
			abs = t.rootPath + chroot
		}
		out = offlineTree(t.dt, t.ref(chroot), abs)
		if out.root == zkfile.NoRef {
			out = NewTree()
		}
	} else {
		out = NewTree()
		out.nodes = make(map[string]*Node, len(t.nodes))
		for p, n := range t.nodes {
			if rel, ok := relPath(p, chroot); ok {
				out.nodes[rel] = n
			}
		}
	}
	out.Source, out.MaxZxid, out.Changed = t.Source, t.MaxZxid, t.Changed
	out.Warnings = append([]string{}, t.Warnings...)
	out.Findings = model.CloneFindings(t.Findings)
	out.Chroot = NormalizeChroot(t.Chroot + chroot)
	return out
}
