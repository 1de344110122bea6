package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// sourceHelp documents the one source syntax in every command that reads a
// view.
const sourceHelp = `SOURCE is one of:
   kraft:PATH                     a KRaft metadata log dir, a __cluster_metadata-0 dir,
                                  a .checkpoint snapshot, a .log segment or a bootstrap.checkpoint
   zk://HOST:PORT[,HOST:PORT][/CHROOT]   a live ZooKeeper ensemble (read-only)
   zkdata:PATH                    a ZooKeeper data dir (snapshots and transaction logs)
   zkdump:FILE                    a dump written by 'kmeta zk dump'
   kafka://...                    reserved for the live Kafka source (not yet supported)
   A point in time may follow: kraft:DIR@offset=N, zkdata:DIR@zxid=N.
   Without a scheme, kmeta infers the kind from what the path holds (-v says what it inferred);
   host:port without zk:// is never taken for a host.`

// kraftSourceFlags tune how a KRaft source is read.
func kraftSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at-offset", Usage: "KRaft: replay up to and including `OFFSET` (same as SOURCE@offset=N)", DefaultText: "everything"},
	}
}

// zkSourceFlags tune how a ZooKeeper source is read.
func zkSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at-zxid", Usage: "ZooKeeper data dir: replay transactions up to `ZXID` (same as SOURCE@zxid=N)", DefaultText: "everything"},
		&cli.StringFlag{Name: "zk-auth", Usage: "ZooKeeper digest credentials `USER:PASSWORD`"},
		&cli.DurationFlag{Name: "zk-session-timeout", Value: 10 * time.Second, Usage: "ZooKeeper session timeout `DURATION` (also bounds connecting)"},
		&cli.StringFlag{Name: "zk-tls-ca", Usage: "ZooKeeper TLS: CA bundle `FILE` (PEM)"},
		&cli.StringFlag{Name: "zk-tls-cert", Usage: "ZooKeeper TLS: client certificate `FILE` (PEM)"},
		&cli.StringFlag{Name: "zk-tls-key", Usage: "ZooKeeper TLS: client key `FILE` (PEM)"},
		&cli.IntFlag{Name: "zk-connections", Value: 2, Usage: "`N` ZooKeeper sessions to spread reads over"},
		&cli.IntFlag{Name: "zk-in-flight", Value: 64, Usage: "`N` ZooKeeper requests in flight at once"},
		&cli.IntFlag{Name: "zk-batch", Value: 128, Usage: "`N` ZooKeeper reads per multiRead request (ZooKeeper 3.6+; 1: one request per read)"},
		&cli.BoolFlag{Name: "consistent", Usage: "ZooKeeper: re-read until the tree did not change during the read"},
		&cli.BoolFlag{Name: "lenient", Usage: "ZooKeeper: keep going past malformed znodes and list them"},
		&cli.IntFlag{Name: "jute-maxbuffer", Usage: "ZooKeeper data dir, dump or live: the largest record or znode to accept, in `BYTES`, as the server's jute.maxbuffer", DefaultText: "ZooKeeper's, 0xfffff"},
	}
}

// sourceFlags are the flags of commands that read any SOURCE.
func sourceFlags() []cli.Flag { return append(kraftSourceFlags(), zkSourceFlags()...) }

// hasFlag says whether the command defines a flag.
func hasFlag(c *cli.Context, name string) bool { return hasFlagName(c.Command.Flags, []string{name}) }

// pointFlag reads --at-offset or --at-zxid: -1 when not given; a negative
// value given is a usage error.
func pointFlag(c *cli.Context, name string) (int64, error) {
	if !hasFlag(c, name) || !c.IsSet(name) {
		return -1, nil
	}
	v := c.Int64(name)
	if v < 0 {
		return -1, usageErrorf(c, "--%s %d: must be 0 or more (leave it out to read everything)", name, v)
	}
	return v, nil
}

// parseSource parses SOURCE, saying with -v what was inferred.
func parseSource(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := source.Parse(raw)
	if err != nil {
		return spec, err
	}
	if spec.Inferred {
		verbosef(c, "%s: read as %s (%s)", raw, spec, spec.Why)
	}
	return spec, nil
}

// loadSource parses and reads a SOURCE with the command's source flags,
// reporting progress on a terminal and the warnings the image rests on.
func loadSource(c *cli.Context, raw string) (*source.Result, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return nil, err
	}
	return loadSpec(c, spec)
}

func loadSpec(c *cli.Context, spec source.Spec) (*source.Result, error) {
	at, err := pointFlag(c, "at-offset")
	if err != nil {
		return nil, err
	}
	if at >= 0 && spec.World != model.WorldKRaft {
		return nil, usageErrorf(c, "--at-offset applies to KRaft sources; %s is a ZooKeeper source (use --at-zxid)", spec.Raw)
	}
	opts := source.Options{AtOffset: at}
	if spec.World == model.WorldZooKeeper {
		if opts.ZK, err = zkReadOptions(c); err != nil {
			return nil, err
		}
		opts.ZKDecode.Lenient = hasFlag(c, "lenient") && c.Bool("lenient")
	} else if z, _ := pointFlag(c, "at-zxid"); z >= 0 {
		return nil, usageErrorf(c, "--at-zxid applies to ZooKeeper data dirs; %s is a KRaft source (use --at-offset)", spec.Raw)
	}
	// A live read counts znodes; files (KRaft logs, ZooKeeper data dirs)
	// count bytes.
	unit := progressBytes
	if spec.World == model.WorldZooKeeper && spec.ZK.Access != zkread.AccessDataDir {
		unit = progressCount
	}
	p := newProgress(c, "reading "+spec.String(), unit)
	opts.Progress = p.Update
	res, err := source.Load(c.Context, spec, opts)
	p.Done()
	if err != nil {
		if errors.Is(err, source.ErrPastEnd) {
			return nil, usageErrorf(c, "%v", err)
		}
		if errors.Is(err, source.ErrDataDirsDiverge) && res != nil {
			// The result says what each dir held, for a report (migrate
			// plan's blocker); callers that only check err refuse.
			return res, err
		}
		return nil, pathErr(spec.Raw, err)
	}
	printWarnings(c, res.Image.Warnings)
	return res, nil
}

// loadImageSource is the imageLoader the commands use.
func loadImageSource(c *cli.Context, raw string) (*model.Image, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return nil, err
	}
	if spec.World == model.WorldKRaft {
		// (A ZooKeeper read leaves its tree behind as garbage: the
		// default target stays.)
		defer lessGC()()
	}
	res, err := loadSpec(c, spec)
	if err != nil {
		return nil, err
	}
	return res.Image, nil
}

// printWarnings is the one place warnings reach the user: stderr, always,
// as "kmeta: warning: CODE: message (where)". The message and the place
// are cleaned each on its own: a znode name or file name with bytes that
// are not printable UTF-8 quotes that part, never the line, so the
// "kmeta: warning: CODE: " prefix stays one a script can match. (warnf
// would clean the line once more, and quote it whole when the message is
// empty.)
func printWarnings(c *cli.Context, ws []model.Finding) {
	for _, w := range ws {
		msg := "kmeta: warning: " + printer.Clean(w.Code) + ": " + printer.Clean(w.Message)
		if w.Where != nil {
			if loc := w.Where.String(); loc != "" && !strings.Contains(w.Message, loc) {
				msg += " (" + printer.Clean(loc) + ")"
			}
		}
		_, _ = io.WriteString(stderr(c), msg+"\n")
	}
}

// partialResult is the exit-1 error of a command whose printed result
// rests on damaged or partial input (the warnings said what).
func partialResult(raw string, img *model.Image) error {
	if img == nil || !img.IsPartial() {
		return nil
	}
	return findingsf("%s: the result rests on damaged or partial input (see the warnings above)", printer.Clean(raw))
}

// pathErr names path in err once: library errors usually name it already.
func pathErr(path string, err error) error {
	if err == nil || strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// zkReadOptions turns the ZooKeeper source flags into reader options.
func zkReadOptions(c *cli.Context) (zkread.ReadOptions, error) {
	z, err := pointFlag(c, "at-zxid")
	if err != nil {
		return zkread.ReadOptions{}, err
	}
	opts := zkread.ReadOptions{AtZxid: max(z, 0), MaxBuffer: c.Int("jute-maxbuffer")}
	if opts.MaxBuffer < 0 {
		return opts, fmt.Errorf("--jute-maxbuffer %d: want a positive size in bytes", opts.MaxBuffer)
	}
	opts.Live = zkread.LiveOptions{
		Auth: c.String("zk-auth"), SessionTimeout: c.Duration("zk-session-timeout"),
		Connections: c.Int("zk-connections"), InFlight: c.Int("zk-in-flight"), Batch: c.Int("zk-batch"),
		Consistent: c.Bool("consistent"),
	}
	if ca, cert, key := c.String("zk-tls-ca"), c.String("zk-tls-cert"), c.String("zk-tls-key"); ca != "" || cert != "" {
		tc, err := zkread.TLSConfig(ca, cert, key, "")
		if err != nil {
			return opts, fmt.Errorf("ZooKeeper TLS: %w", err)
		}
		opts.Live.TLS = tc
	}
	return opts, nil
}
