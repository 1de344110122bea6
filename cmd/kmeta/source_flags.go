package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// sourceHelp documents the one source syntax in every command that reads a
// view.
const sourceHelp = `SOURCE is one of:
   kraft:PATH                     a KRaft metadata log dir, a __cluster_metadata-0 dir,
                                  a .checkpoint snapshot, a .log segment or a bootstrap.checkpoint
   zk://HOST:PORT[,HOST:PORT][/CHROOT]   a live ZooKeeper ensemble (read-only); Kafka's
                                  --zookeeper HOST:PORT[/CHROOT] names it too (as --zk where a command has it)
   zkdata:PATH                    a ZooKeeper data dir (snapshots and transaction logs)
   zkdump:FILE                    a dump written by 'kmeta zk dump'
   kafka://HOST:PORT[,HOST:PORT]  a running KRaft cluster, read through its admin API (read-only;
                                  IPv6 in brackets: [::1]:9092); Kafka's --bootstrap-server and
                                  --bootstrap-controller name it too, --command-config its client settings
   A point in time may follow: kraft:DIR@offset=N, zkdata:DIR@zxid=N (a live source is read as it is now);
   N ends a batch (Kafka applies a batch whole: an offset inside one is refused, naming the batch's ends).
   Without a scheme, kmeta infers the kind from what the path holds (-v says what it inferred);
   host:port without zk:// is never taken for a host.`

// kraftSourceFlags tune how a KRaft source is read.
func kraftSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at-offset", Usage: "KRaft: replay up to and including `OFFSET` (same as SOURCE@offset=N)", DefaultText: "everything"},
	}
}

// kafkaSourceFlags name and tune a live cluster as Kafka's own tools
// spell it: --bootstrap-server (the same as SOURCE kafka://...),
// --bootstrap-controller (the addresses are controllers, KIP-919) and
// --command-config (client.properties). Either address flag stands for
// the command's last SOURCE argument left out (sourceArgs).
func kafkaSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "bootstrap-server", Usage: "a live cluster's brokers `HOST:PORT[,HOST:PORT]` (the same as SOURCE kafka://HOST:PORT,...)"},
		&cli.StringFlag{Name: "bootstrap-controller", Usage: "a live cluster's controllers `HOST:PORT[,HOST:PORT]`, asked directly (KIP-919, Kafka 3.7+)"},
		&cli.StringFlag{Name: "command-config", Usage: "Kafka client settings `FILE` (client.properties: security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*)"},
		&cli.StringFlag{Name: "controller-command-config", Usage: "client settings `FILE` for the controllers' listener, where it differs from the brokers' (without it, --command-config's listener.name.LISTENER.* keys apply to a controller asked through LISTENER)"},
		&cli.DurationFlag{Name: "kafka-timeout", Value: kafkaread.DefaultTimeout, Usage: "Kafka: the deadline of the whole read, `DURATION`: connecting (every bootstrap address at once) and every request after it"},
	}
}

// zkSourceFlags tune how a ZooKeeper source is read.
func zkSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at-zxid", Usage: "ZooKeeper data dir: replay transactions up to `ZXID` (same as SOURCE@zxid=N)", DefaultText: "everything"},
		&cli.StringFlag{Name: "zk-auth", Usage: "ZooKeeper digest credentials `USER:PASSWORD` (better from the environment)", EnvVars: []string{"KMETA_ZK_AUTH"}},
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

// zkReadFlags name the flags of zkSourceFlags a printed command repeats to
// read ZooKeeper as this one did (setFlagWords): not the point (--at-zxid:
// a printed gate reads the ensemble now) nor the password (the printed
// commands take it from KMETA_ZK_AUTH).
func zkReadFlags() []string {
	var names []string
	for _, f := range zkSourceFlags() {
		if n := flagNames(f)[0]; n != "at-zxid" && n != "zk-auth" {
			names = append(names, n)
		}
	}
	return names
}

// sourceFlags are the flags of commands that read any SOURCE.
func sourceFlags() []cli.Flag {
	return slices.Concat(kraftSourceFlags(), zkSourceFlags(), kafkaSourceFlags())
}

// liveFlag is the source --bootstrap-server or --bootstrap-controller
// names, as kafka://ADDRS ("" when neither is given); both at once is a
// usage error.
func liveFlag(c *cli.Context) (string, error) {
	if !hasFlag(c, "bootstrap-server") {
		return "", nil
	}
	srv, ctl := c.String("bootstrap-server"), c.String("bootstrap-controller")
	switch {
	case srv != "" && ctl != "":
		return "", usageErrorf(c, "--bootstrap-server and --bootstrap-controller: give one (brokers or controllers)")
	case srv != "":
		if _, err := source.Live(srv, false); err != nil {
			return "", usageErrorf(c, "%v", err)
		}
		return "kafka://" + srv, nil
	case ctl != "":
		if _, err := source.Live(ctl, true); err != nil {
			return "", usageErrorf(c, "%v", err)
		}
		return "kafka://" + ctl, nil
	}
	return "", nil
}

// sourceArgs are a command's n SOURCE arguments: those given, and the live
// cluster of --bootstrap-server or --bootstrap-controller in place of the
// last one left out (kmeta image --bootstrap-server h:9092; kmeta diff
// kraft:DIR --bootstrap-server h:9092 compares DIR, before, with the
// cluster, after). A flag with every argument given is refused: two
// sources for one place.
func sourceArgs(c *cli.Context, n int, usage string) ([]string, error) {
	live, err := liveFlag(c)
	if err != nil {
		return nil, err
	}
	if live == "" {
		return checkArgs(c, n, n, usage)
	}
	args, err := checkArgs(c, n-1, n, usage)
	if err != nil {
		return nil, err
	}
	if len(args) == n {
		return nil, usageErrorf(c, "too many sources: %s and %s (the --bootstrap-* flag names a source of its own)", strings.Join(args, " "), live)
	}
	return append(args, live), nil
}

// sourceArg is sourceArgs for a command of one SOURCE.
func sourceArg(c *cli.Context) (string, error) {
	args, err := sourceArgs(c, 1, "SOURCE")
	if err != nil {
		return "", err
	}
	return args[0], nil
}

// liveSpec marks the spec --bootstrap-controller names as one of
// controllers: the flag's addresses are controllers, kafka:// names
// brokers.
func liveSpec(c *cli.Context, spec source.Spec) source.Spec {
	if spec.World == model.WorldKafka && hasFlag(c, "bootstrap-controller") {
		if ctl := c.String("bootstrap-controller"); ctl != "" && spec.Raw == "kafka://"+ctl {
			spec.Controllers = true
		}
	}
	return spec
}

// kafkaConfig turns --command-config and --kafka-timeout into the live
// reader's settings (the addresses are the spec's).
func kafkaConfig(c *cli.Context) (kafkaread.Config, error) {
	cfg := kafkaread.Config{Timeout: c.Duration("kafka-timeout")}
	if cfg.Timeout <= 0 {
		return cfg, usageErrorf(c, "--kafka-timeout %s: want a positive duration", cfg.Timeout)
	}
	var err error
	if cfg.Properties, cfg.PropertiesFile, err = clientSettings(c, "command-config"); err != nil {
		return cfg, err
	}
	if cfg.ControllerProperties, cfg.ControllerPropertiesFile, err = clientSettings(c, "controller-command-config"); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// clientSettings reads the Kafka client settings file flag names, when
// the command has the flag and it is given (nil and "" otherwise).
func clientSettings(c *cli.Context, flag string) (map[string]string, string, error) {
	f := c.String(flag)
	if !hasFlag(c, flag) || f == "" {
		return nil, "", nil
	}
	p, err := kafkaread.ReadProperties(f)
	if err != nil {
		return nil, "", fmt.Errorf("--%s: %w", flag, err)
	}
	return p, f, nil
}

// liveArg is the live cluster a command of one cluster names (quorum
// describe, features upgrade): its kafka:// SOURCE or a --bootstrap-*
// flag, parsed, with the reader's settings (--command-config,
// --kafka-timeout). ok is false when the command names no live cluster
// (the argument is something else, e.g. a log dir).
func liveArg(c *cli.Context) (cfg kafkaread.Config, name string, ok bool, err error) {
	args := c.Args().Slice()
	raw, err := liveFlag(c)
	if err != nil {
		return cfg, "", false, err
	}
	switch {
	case raw != "" && len(args) > 0:
		return cfg, "", false, usageErrorf(c, "too many sources: %s and %s (the --bootstrap-* flag names a source of its own)", printer.Clean(args[0]), raw)
	case raw == "" && len(args) == 1 && strings.HasPrefix(args[0], "kafka:"):
		raw = args[0]
	case raw == "":
		return cfg, "", false, nil
	}
	spec, err := parseSource(c, raw)
	if err != nil {
		return cfg, "", false, err
	}
	if cfg, err = kafkaConfig(c); err != nil {
		return cfg, "", false, err
	}
	cfg.Bootstrap, cfg.Controllers = spec.Bootstrap, spec.Controllers
	return cfg, spec.String(), true, nil
}

// setFlagWords are the words that set each named flag the command has as
// the user set it (--NAME VALUE; a bool flag alone when true), in the
// order named, for a printed kmeta command that must read a source as
// this one did. Flags left unset are left out: the printed command takes
// the same defaults.
func setFlagWords(c *cli.Context, names ...string) []string {
	var w []string
	for _, f := range names {
		if !hasFlag(c, f) || !c.IsSet(f) {
			continue
		}
		if v, ok := c.Value(f).(bool); ok {
			if v {
				w = append(w, "--"+f)
			}
			continue
		}
		w = append(w, "--"+f, fmt.Sprint(c.Value(f)))
	}
	return w
}

// hasFlag says whether the command defines a flag.
func hasFlag(c *cli.Context, name string) bool { return hasFlagName(c.Command.Flags, []string{name}) }

// pointFlags reads --at-offset and --at-zxid, those the command defines.
// 0 is a point like any other (offset 0, zxid 0: see source.At); a flag
// left out is told apart by whether it was set, never by its value. A
// negative value is a usage error.
func pointFlags(c *cli.Context) (source.At, error) {
	var at source.At
	for _, name := range []string{"at-offset", "at-zxid"} {
		if !hasFlag(c, name) || !c.IsSet(name) {
			continue
		}
		v := c.Int64(name)
		if v < 0 {
			return at, usageErrorf(c, "--%s %d: must be 0 or more (leave it out to read everything)", name, v)
		}
		if name == "at-offset" {
			at.Offset, at.HasOffset = v, true
		} else {
			at.Zxid, at.HasZxid = v, true
		}
	}
	return at, nil
}

// withoutPointFlags are flags without --at-offset and --at-zxid: those of
// a command about the cluster now (roll, migrate stage and rollback),
// which refusePoint also refuses a SOURCE@POINT for.
func withoutPointFlags(flags []cli.Flag) []cli.Flag {
	return slices.DeleteFunc(slices.Clone(flags), func(f cli.Flag) bool {
		return hasFlagName([]cli.Flag{f}, []string{"at-offset", "at-zxid"})
	})
}

// refusePoint refuses spec (raw, as given) when it names a point in time,
// before anything is read: a command about the cluster now would answer,
// and print gates and steps, for what it was then. now says why, for the
// command.
func refusePoint(c *cli.Context, raw string, spec source.Spec, now string) error {
	if spec.At.HasOffset || spec.At.HasZxid {
		return usageErrorf(c, "%s: %s is a point in the past, and %s: give the source without it", printer.Clean(raw), spec.At, now)
	}
	return nil
}

// withPointFlags gives spec the point in time of the command's flags.
func withPointFlags(c *cli.Context, spec source.Spec) (source.Spec, error) {
	at, err := pointFlags(c)
	if err != nil {
		return spec, err
	}
	if spec, err = spec.WithPoint(at); err != nil {
		return spec, usageErrorf(c, "%v", err)
	}
	return spec, nil
}

// parseSource parses SOURCE, saying with -v what was inferred.
func parseSource(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := source.Parse(raw)
	if err != nil {
		return spec, err
	}
	spec = liveSpec(c, spec)
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

// loadSpec reads spec with the command's flags, its point in time
// included.
func loadSpec(c *cli.Context, spec source.Spec) (*source.Result, error) {
	spec, err := withPointFlags(c, spec)
	if err != nil {
		return nil, err
	}
	return loadPoint(c, spec)
}

// loadPoint is loadSpec for a spec whose point in time is already set
// (commands of several sources apply the flags to each, by kind).
func loadPoint(c *cli.Context, spec source.Spec) (*source.Result, error) {
	return loadPointWith(c, spec, source.Options{})
}

// loadPointWith is loadPoint with options of the caller's (a replay
// observer); the flags fill the rest.
func loadPointWith(c *cli.Context, spec source.Spec, opts source.Options) (*source.Result, error) {
	res, err := readPoint(c, spec, opts, true)
	if err == nil {
		printWarnings(c, res.Image.Warnings)
	}
	return res, err
}

// readPoint is loadPointWith without the warnings printed, and without
// progress unless showProgress: for a command that reads a source again
// and again (roll wait).
func readPoint(c *cli.Context, spec source.Spec, opts source.Options, showProgress bool) (*source.Result, error) {
	if spec.World == model.WorldZooKeeper {
		var err error
		if opts.ZK, err = zkReadOptions(c); err != nil {
			return nil, err
		}
		opts.ZKDecode.Lenient = hasFlag(c, "lenient") && c.Bool("lenient")
	}
	if spec.World == model.WorldKafka {
		var err error
		if opts.Kafka, err = kafkaConfig(c); err != nil {
			return nil, err
		}
	}
	// A live read counts znodes; files (KRaft logs, ZooKeeper data dirs)
	// count bytes.
	unit := progressBytes
	if spec.World == model.WorldZooKeeper && spec.ZK.Access != zkread.AccessDataDir {
		unit = progressCount
	}
	var p *progress
	if showProgress {
		p = newProgress(c, "reading "+spec.String(), unit)
		opts.Progress = p.Update
	}
	restore := func() {}
	if spec.World == model.WorldZooKeeper && spec.ZK.Access == zkread.AccessDataDir {
		// Until source.Load collects the tree, everything the read and
		// the decode allocate is kept (the tree, then the image beside
		// it): a collection before then finds nothing to free, and marks
		// the half-built image (at a million partitions, one of about
		// 0.07 s of CPU).
		restore = lessGC()
	}
	res, err := source.Load(c.Context, spec, opts)
	restore()
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
		if spec.World == model.WorldKafka && slices.ContainsFunc(spec.Bootstrap, func(a string) bool { return strings.Contains(err.Error(), a) }) {
			return nil, err // the live reader names the address
		}
		return nil, pathErr(spec.Raw, err)
	}
	return res, nil
}

// loadViews loads several sources (verify's two sides, migrate status's
// ZooKeeper and KRaft); opts, when set, gives a source options of the
// caller's (a replay observer). Any unreadable source fails the whole.
//
// A ZooKeeper data dir is read first and alone (its tree collected once
// decoded, by source.Load), then the others concurrently: the tree is
// the largest thing kmeta holds (more than the image it decodes to), and
// read alongside the other side's it made the peak the sum of both (a
// million partitions: 1 GiB instead of 700 MiB). Its read is CPU work,
// on every core already, so overlapping it saved little.
func loadViews(c *cli.Context, specs []source.Spec, opts func(source.Spec) source.Options) ([]*model.Image, error) {
	return loadViewsWarn(c, specs, opts, func(ws []model.Finding) { printWarnings(c, ws) })
}

// loadViewsWarn is loadViews with the warnings handed to warn, in the
// sources' order, once every source was read (a command that reads
// again and again says each once).
func loadViewsWarn(c *cli.Context, specs []source.Spec, opts func(source.Spec) source.Options, warn func([]model.Finding)) ([]*model.Image, error) {
	views := make([]*model.Image, len(specs))
	errs := make([]error, len(specs))
	load := func(i int) {
		spec := specs[i]
		var o source.Options
		if opts != nil {
			o = opts(spec)
		}
		res, err := readPoint(c, spec, o, true) // warnings said by warn, once
		if err != nil {
			errs[i] = fmt.Errorf("reading %s: %w", spec.Raw, err)
			return
		}
		views[i] = res.Image
	}
	var rest []int
	for i, spec := range specs {
		if spec.World == model.WorldZooKeeper && spec.ZK.Access == zkread.AccessDataDir {
			// Alone (readPoint keeps the collector off its tree).
			load(i)
			continue
		}
		rest = append(rest, i)
	}
	var wg sync.WaitGroup
	for _, i := range rest {
		wg.Go(func() { load(i) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return views, err
	}
	for _, v := range views {
		warn(v.Warnings)
	}
	return views, nil
}

// loadImageSource is the imageLoader the commands use.
func loadImageSource(c *cli.Context, raw string) (*model.Image, error) {
	return loadImageReport(c, raw, nil)
}

// loadImageReport is the imageReportLoader image uses: loadImageSource,
// with a KRaft log's replay observed by tl when set.
func loadImageReport(c *cli.Context, raw string, tl *metalog.Timeline) (*model.Image, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return nil, err
	}
	var opts source.Options
	if spec.World == model.WorldKRaft {
		// (A ZooKeeper read leaves its tree behind as garbage: the
		// default target stays.)
		defer lessGC()()
		if tl != nil {
			opts.Observe = tl.Observe
		}
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return nil, err
	}
	res, err := loadPointWith(c, spec, opts)
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

// zkReachedWith says how a live ZooKeeper source is read: over TLS
// (--zk-tls-ca or --zk-tls-cert), with digest credentials (--zk-auth,
// KMETA_ZK_AUTH). The zookeeper-shell commands printed for it reach it
// the same way (shellword.ZKShell).
func zkReachedWith(c *cli.Context) (tls, digest bool) {
	return c.String("zk-tls-ca") != "" || c.String("zk-tls-cert") != "", c.String("zk-auth") != ""
}

// zkReadOptions turns the ZooKeeper source flags into reader options.
func zkReadOptions(c *cli.Context) (zkread.ReadOptions, error) {
	// The point in time (--at-zxid) travels in the source's Spec.
	opts := zkread.ReadOptions{MaxBuffer: c.Int("jute-maxbuffer")}
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
