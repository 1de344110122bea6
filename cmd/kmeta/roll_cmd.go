package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/migrate/online"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/quorum"
	"github.com/kmeta/kmeta/roll"
	"github.com/kmeta/kmeta/voters"
)

func init() { register(rollCommand) }

const rollHelp = "SOURCE is the cluster as it is now: kafka://HOST:PORT or --bootstrap-server (brokers: partitions, ISR,\n" +
	"configs, and the quorum through them), --bootstrap-controller (controllers: the quorum only), a\n" +
	"ZooKeeper-mode cluster's zk://HOST:PORT/CHROOT, or a KRaft metadata log dir (no fetch times: a\n" +
	"controller's verdict then needs a live source). --config ID=FILE passes a broker's server.properties\n" +
	"for what the source cannot report (min.insync.replicas set only there: a log dir and ZooKeeper hold\n" +
	"no static configs). A point in time (SOURCE@offset=N, @zxid=N) is refused: a roll is about the\n" +
	"cluster now, and a past state would call a node safe, or back, on what it was then."

func rollCommand() *cli.Command {
	return &cli.Command{
		Name:        "roll",
		Usage:       "rolling restarts an operator can trust: is a node safe to stop, is it back, in which order",
		Subcommands: []*cli.Command{rollCheckCommand(), rollWaitCommand(), rollPlanCommand()},
	}
}

// rollFlags are the flags every roll command takes: the source's, the
// nodes' server.properties and the quorum's fetch timeout. Not
// --at-offset and --at-zxid: a roll is about the cluster now (rollSpec).
func rollFlags() []cli.Flag {
	return append(withoutPointFlags(sourceFlags()),
		&cli.StringSliceFlag{Name: "config", Usage: "a broker's server.properties, `ID=FILE` (repeatable): its static configs, which no metadata record holds"},
		&cli.Int64Flag{Name: "controller-quorum-fetch-timeout-ms", Value: voters.DefaultFetchTimeoutMs,
			Usage: "the controllers' controller.quorum.fetch.timeout.ms, in `MS`: how far behind the leader a voter may be and count as caught up"},
	)
}

func rollCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "is it safe to stop node N now (Strimzi's roller rules: min ISR, offline partitions, the quorum's majority)",
		ArgsUsage: "--node N SOURCE",
		Description: "For a broker: every partition holding one of its replicas that its stop would take offline\n" +
			"(it is the last live in-sync replica), leave under its effective min.insync.replicas (it is in an\n" +
			"ISR at the minimum), or that is already under it (Strimzi refuses those too), grouped by topic;\n" +
			"internal topics included. min.insync.replicas is the value Kafka applies: topic config, the broker's\n" +
			"dynamic config, the cluster default, the broker's server.properties, Kafka's default, for the\n" +
			"broker that leads the partition once N is down. Partitions N leads with followers out of sync are\n" +
			"said. For a controller: whether the voters caught up without it keep a majority (quorum describe's\n" +
			"RestartSafe), and whether it leads the quorum (restart it last); a combined node gets both; a\n" +
			"broker holding ZooKeeper's /controller is said (restart it last).\n" +
			"A fact the answer needs and the source does not report is named with how to get it, and the\n" +
			"answer is then 'could not tell', never 'safe' on a guess. -o json carries safe (bool) and blocking\n" +
			"(each partition with topic and partition, or the quorum's reason).\n" +
			"Exit 0 safe, 1 not safe or an answer resting on damaged or partial input (the warnings say what),\n" +
			"2 could not tell (or could not read the source).\n\n" + rollHelp,
		Flags: append(rollFlags(),
			&cli.IntFlag{Name: "node", Usage: "the node `ID` to stop", Required: true}),
		Action: func(c *cli.Context) error {
			node, err := rollNode(c)
			if err != nil {
				return err
			}
			raw, err := sourceArg(c)
			if err != nil {
				return err
			}
			in, err := rollRead(c, raw, false)
			if err != nil {
				return err
			}
			if err := emit(c, report.RollCheck(roll.Check(in, node))); err != nil {
				return err
			}
			return partialResult(raw, in.Image)
		},
	}
}

func rollWaitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "block until node N is back after its restart: registered, unfenced, back in every ISR, a controller caught up",
		ArgsUsage: "--node N SOURCE",
		Description: "Re-reads SOURCE every --interval until node N is back, as an operator checks it by hand:\n" +
			"a broker registered and unfenced and not in controlled shutdown (KRaft) or in /brokers/ids\n" +
			"(ZooKeeper mode), and in the ISR of every partition it hosts that has a live leader (partitions\n" +
			"without one cannot take it back: named, not waited for); a voter fetching and caught up with the\n" +
			"quorum's leader. Run it once the node was started again. A read that fails (the node asked is the\n" +
			"one restarting) is tried again. On a terminal, what is still waited for is shown on stderr.\n" +
			"Exit 0 back, 1 not back at --timeout (what is still waited for is named) or back on damaged or\n" +
			"partial input (the warnings say what), 2 when the source cannot report what being back needs (a\n" +
			"log dir has no fetch times).\n\n" + rollHelp,
		Flags: append(rollFlags(),
			&cli.IntFlag{Name: "node", Usage: "the node `ID` restarted", Required: true},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "give up after `DURATION`"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "read the source again every `DURATION`"},
			&cli.IntFlag{Name: "under-replicated-at-most", Value: -1, Usage: "a broker is back once registered and the cluster has at most `N` under-replicated partitions (roll check's underReplicated before the stop), even if it is not yet in every ISR", DefaultText: "every ISR"}),
		Action: rollWait,
	}
}

func rollPlanCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "the order to restart nodes one at a time, each step between its roll check and its roll wait",
		ArgsUsage: "SOURCE --nodes N,... | --all-brokers | --all-controllers",
		Description: "The order: the voting controllers first (dedicated before combined), the quorum's leader last\n" +
			"of them; then the brokers, those leading fewer partitions first, the broker holding ZooKeeper's\n" +
			"/controller last. Each step is framed by the exact kmeta roll check (before the stop) and kmeta roll\n" +
			"wait (after the start) commands, with the source and flags given here, but never a ZooKeeper\n" +
			"password: read with --zk-auth, each command takes it from KMETA_ZK_AUTH and stops first when it is\n" +
			"unset (-o json lists it in the step's env). Exit 0; 1 when the plan rests on damaged or partial\n" +
			"input (the warnings say what); 2 when a node is not known to the source, or the source names none\n" +
			"of those asked for (--all-brokers, --all-controllers: nothing to roll, and why).\n\n" + rollHelp,
		Flags: append(rollFlags(),
			&cli.StringFlag{Name: "nodes", Usage: "the nodes to restart, `ID,ID,...`"},
			&cli.BoolFlag{Name: "all-brokers", Usage: "every broker the source knows"},
			&cli.BoolFlag{Name: "all-controllers", Usage: "every voter of the quorum"}),
		Action: rollPlan,
	}
}

func rollNode(c *cli.Context) (int32, error) {
	n := c.Int("node")
	if n < 0 || n > 1<<31-1 {
		return 0, usageErrorf(c, "--node %d: want a node id", n)
	}
	return int32(n), nil
}

// rollSpec parses the source once; a point in time is refused: a roll is
// about the cluster now, and a past state would call a node safe to stop,
// or back, on what it was then (roll wait would never see it change).
func rollSpec(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return spec, usageErrorf(c, "%v", err)
	}
	return spec, refusePoint(c, raw, spec, "a roll is about the cluster now (a check, a wait or a plan on a past state would answer for what the nodes were then)")
}

// rollRead reads the source once into the judge's input: the image with
// the --config files' static configs, and the quorum's replication state
// (DescribeQuorum on a live cluster; a log dir's voters without times).
// quiet leaves warnings and progress out (roll wait reads again and
// again).
func rollRead(c *cli.Context, raw string, quiet bool) (roll.Input, error) {
	in := roll.Input{FetchTimeoutMs: c.Int64("controller-quorum-fetch-timeout-ms")}
	if in.FetchTimeoutMs <= 0 {
		return in, usageErrorf(c, "--controller-quorum-fetch-timeout-ms %d: want a positive number of milliseconds", in.FetchTimeoutMs)
	}
	spec, err := rollSpec(c, raw)
	if err != nil {
		return in, err
	}
	nodes, err := readNodeConfigs(c)
	if err != nil {
		return in, err
	}
	res, err := readPoint(c, spec, source.Options{}, !quiet)
	if err != nil {
		return in, err
	}
	if !quiet {
		printWarnings(c, res.Image.Warnings)
	}
	in.Image = res.Image
	for id, n := range nodes {
		in.Image.SetStaticConfigs(id, n.Props)
	}
	switch spec.World {
	case model.WorldKafka:
		cfg, err := kafkaConfig(c)
		if err != nil {
			return in, err
		}
		cfg.Bootstrap, cfg.Controllers = spec.Bootstrap, spec.Controllers
		cl, err := kafkaread.Dial(c.Context, cfg)
		if err != nil {
			return in, err
		}
		defer cl.Close()
		st, err := cl.QuorumStatus(c.Context)
		switch {
		case errors.Is(err, kafkaread.ErrMissingAPI):
			in.QuorumMissing = fmt.Sprintf("the cluster does not answer DescribeQuorum (%v)", err)
		case err != nil:
			return in, err
		default:
			in.Quorum = st
		}
	case model.WorldKRaft:
		in.Quorum = roll.QuorumFromImage(in.Image)
		if in.Quorum == nil {
			files := map[int32]map[string]string{}
			for id, n := range nodes {
				files[id] = n.Props
			}
			in.Quorum = roll.QuorumFromFiles(in.Image, files)
		}
		if in.Quorum == nil {
			in.QuorumMissing = "the log holds no voter set (a static quorum: its voters are in controller.quorum.voters): pass a node's server.properties, --config ID=FILE, or ask the controllers, --bootstrap-controller HOST:PORT"
		}
	}
	return in, nil
}

func rollWait(c *cli.Context) error {
	node, err := rollNode(c)
	if err != nil {
		return err
	}
	raw, err := sourceArg(c)
	if err != nil {
		return err
	}
	timeout, interval := c.Duration("timeout"), c.Duration("interval")
	if timeout <= 0 || interval <= 0 {
		return usageErrorf(c, "--timeout %s, --interval %s: want positive durations", timeout, interval)
	}
	spec, err := rollSpec(c, raw) // a usage error now, not at every read
	if err != nil {
		return err
	}
	// The local files (the nodes' server.properties, the client settings
	// and the stores they name) are read once first: one kmeta refuses
	// (a FIFO, a device, too large, malformed) is exit 2 at once, not a
	// read retried until the timeout.
	if _, err := readNodeConfigs(c); err != nil {
		return err
	}
	if spec.World == model.WorldKafka {
		if _, err := kafkaConfig(c); err != nil {
			return err
		}
	}
	status := newStatusLine(c)
	start := time.Now()
	deadline := start.Add(timeout)
	d := report.RollWaitDoc{Source: spec.String()}
	read := false
	var last *model.Image // the last read's, which the answer rests on
	for {
		in, err := rollRead(c, raw, read)
		var ue *exitError
		switch {
		case errors.As(err, &ue), errors.Is(err, model.ErrNotRegular), errors.Is(err, model.ErrTooLarge), errors.Is(err, kafkaread.ErrConfig):
			// A usage error, or a local file kmeta refuses (a FIFO, a
			// device, too large, client settings or the stores they
			// name): reading again will not help.
			return err
		case err != nil:
			d.ReadError = err.Error()
			status.show(fmt.Sprintf("waiting for node %d: reading %s: %v", node, printer.Clean(spec.String()), err))
		default:
			read = true // the first good read said its warnings: the next are quiet
			last = in.Image
			d.Progress, d.ReadError = roll.BackWith(in, node, roll.WaitOptions{MaxUnderReplicated: c.Int("under-replicated-at-most")}), ""
			if len(d.Waiting) > 0 {
				status.show(fmt.Sprintf("waiting for %s [%s]", d.Waiting[0], time.Since(start).Round(time.Second)))
			}
		}
		// A live source that cannot tell yet (a quorum that has just
		// elected a leader reports no fetch times for a moment) is asked
		// again until the deadline; a file source will never tell.
		if err == nil && (d.Back || d.Unknown && spec.World != model.WorldKafka) {
			break
		}
		if !time.Now().Before(deadline) {
			d.TimedOut = true
			if d.ReadError != "" && !read {
				d.Node, d.Waiting = node, []string{"a read of " + spec.String()}
			}
			break
		}
		select {
		case <-c.Context.Done():
			status.clear()
			return c.Context.Err()
		case <-time.After(min(interval, time.Until(deadline)+time.Millisecond)):
		}
	}
	status.clear()
	d.Seconds = time.Since(start).Seconds()
	if err := emit(c, report.RollWait(d)); err != nil {
		return err
	}
	return partialResult(raw, last)
}

func rollPlan(c *cli.Context) error {
	raw, err := sourceArg(c)
	if err != nil {
		return err
	}
	picks := 0
	for _, f := range []string{"nodes", "all-brokers", "all-controllers"} {
		if c.IsSet(f) {
			picks++
		}
	}
	if picks != 1 {
		return usageErrorf(c, "give one of --nodes ID,..., --all-brokers, --all-controllers")
	}
	in, err := rollRead(c, raw, false)
	if err != nil {
		return err
	}
	var nodes []int32
	switch {
	case c.Bool("all-brokers"):
		nodes = roll.Brokers(in)
	case c.Bool("all-controllers"):
		ids, ok := roll.Controllers(in)
		if !ok {
			return fmt.Errorf("%s does not name the quorum's voters: %s", printer.Clean(raw), in.QuorumMissing)
		}
		nodes = ids
	default:
		for _, s := range strings.Split(c.String("nodes"), ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
			if err != nil || n < 0 {
				return usageErrorf(c, "--nodes %q: want node ids, ID,ID,...", c.String("nodes"))
			}
			nodes = append(nodes, int32(n))
		}
	}
	if len(nodes) == 0 {
		// Nothing to roll is no plan: an empty one (exit 0) would read as
		// a roll done.
		return fmt.Errorf("%s: nothing to roll: %s", printer.Clean(raw), noNodes(in, c.Bool("all-controllers")))
	}
	steps, err := roll.Order(in, nodes)
	if err != nil {
		return fmt.Errorf("%s: %w", printer.Clean(raw), err)
	}
	src := rollSource(c)
	d := report.RollPlanDoc{Source: in.Image.Provenance.Source, Steps: []report.RollPlanStep{}}
	for _, s := range steps {
		d.Steps = append(d.Steps, report.RollPlanStep{Step: s, Gates: roll.GatesFor(s.Node, src)})
	}
	if err := emit(c, report.RollPlan(d)); err != nil {
		return err
	}
	return partialResult(raw, in.Image)
}

// noNodes says why the source names no node of the kind asked for
// (--all-controllers, else --all-brokers).
func noNodes(in roll.Input, controllers bool) string {
	switch {
	case controllers && in.Image.ZK != nil:
		return "the source names no controller (a ZooKeeper-mode cluster has no KRaft quorum; a migration's controllers: ask them, --bootstrap-controller HOST:PORT)"
	case controllers:
		return "the source names no voter and no registered controller"
	case !in.Image.Reports(model.FieldBrokers):
		return "the source does not report brokers (--bootstrap-controller answers for the quorum only: ask the brokers, --bootstrap-server HOST:PORT)"
	}
	return "the source names no broker (none is registered, and no partition has a replica)"
}

// rollSource is the source of the gate commands roll plan prints: the
// SOURCE or --bootstrap-* flag as given, and every flag that tunes the
// read and was set. A ZooKeeper password is never printed: the printed
// commands read it from KMETA_ZK_AUTH, and say so when it is unset.
func rollSource(c *cli.Context) roll.Source {
	return roll.Source{Words: rollSourceWords(c), ZKDigest: zkDigestRead(c, c.Args().First())}
}

// zkDigestRead says whether kmeta reads src, a live ZooKeeper, with
// digest credentials (--zk-auth or KMETA_ZK_AUTH).
func zkDigestRead(c *cli.Context, src string) bool {
	_, digest := zkReachedWith(c)
	return digest && strings.HasPrefix(src, "zk://")
}

// rollReadFlags name the roll commands' flags that reach the read (the
// source's flags, the quorum's fetch timeout), taken from rollFlags so
// that a flag added there reaches the gates too; not those naming the
// source (sourceWords), the password (KMETA_ZK_AUTH) or --config, which
// repeats (rollSourceWords).
func rollReadFlags() []string {
	var names []string
	for _, f := range rollFlags() {
		if n := flagNames(f)[0]; !slices.Contains([]string{"bootstrap-server", "bootstrap-controller", "zk-auth", "config"}, n) {
			names = append(names, n)
		}
	}
	return names
}

// rollSourceWords are rollSource's words: the source as given, then each
// read flag set, as set (--lenient, --jute-maxbuffer, the TLS files, the
// client settings, the timeouts...), and each --config. A SOURCE that
// reads as a flag comes last, after "--", as the user had to give it.
func rollSourceWords(c *cli.Context) []string {
	flags := setFlagWords(c, rollReadFlags()...)
	for _, kv := range c.StringSlice("config") {
		flags = append(flags, "--config", kv)
	}
	src := sourceWords(c)
	if len(src) == 1 && strings.HasPrefix(src[0], "-") {
		return slices.Concat(flags, []string{"--"}, src)
	}
	return slices.Concat(src, flags)
}

// sourceWords name the command's one source as the user gave it: the
// --bootstrap-server or --bootstrap-controller flag, else the SOURCE
// argument.
func sourceWords(c *cli.Context) []string {
	switch {
	case c.String("bootstrap-server") != "":
		return []string{"--bootstrap-server", c.String("bootstrap-server")}
	case c.String("bootstrap-controller") != "":
		return []string{"--bootstrap-controller", c.String("bootstrap-controller")}
	}
	return []string{c.Args().First()}
}

// statusLine shows one changing line on stderr when it is a terminal
// (and --no-progress was not given); otherwise it does nothing.
type statusLine struct {
	w    io.Writer
	last string
}

func newStatusLine(c *cli.Context) *statusLine {
	if commonBool(c, flagNoProgress) || !isTerminal(stderr(c)) {
		return &statusLine{}
	}
	return &statusLine{w: stderr(c)}
}

func (s *statusLine) show(line string) {
	if s.w == nil || line == s.last {
		return
	}
	s.last = line
	_, _ = io.WriteString(s.w, "\r\x1b[K"+printer.Clean(line))
}

func (s *statusLine) clear() {
	if s.w != nil && s.last != "" {
		_, _ = io.WriteString(s.w, "\r\x1b[K")
		s.last = ""
	}
}

// onlineGates are the gate sources migrate stage and rollback print
// their restarts with: the user's --zk (and the ZooKeeper flags set) for
// ZooKeeper-mode brokers, their --kraft log dir for brokers while the
// KRaft controller leads, their --bootstrap-controller (else the
// quorum's addresses) for controllers; each with the --config files
// given (the brokers' static min.insync.replicas).
func onlineGates(c *cli.Context, in online.Input) (*online.Gates, error) {
	var configs []string
	for _, kv := range c.StringSlice("config") {
		configs = append(configs, "--config", kv)
	}
	g := &online.Gates{ZKDigest: zkDigestRead(c, c.String("zk"))}
	g.ZooKeeper = slices.Concat([]string{c.String("zk")}, setFlagWords(c, zkReadFlags()...), configs)
	if k := c.String("kraft"); k != "" && !strings.HasPrefix(k, "kafka:") {
		g.KRaft = slices.Concat([]string{k}, configs)
	}
	// The controllers' listener takes --controller-command-config where
	// it differs from the brokers'.
	ctlConfig := setFlagWords(c, "controller-command-config")
	if ctlConfig == nil {
		ctlConfig = setFlagWords(c, "command-config")
	}
	ctl := c.String("bootstrap-controller")
	if ctl == "" && !answersDirectly(in.KRaft) {
		// A controller answers --bootstrap-controller only once it has
		// loaded metadata at 3.7-IV0 or later (KIP-919): below it, the
		// quorum's fetch times are asked of the brokers (DescribeQuorum,
		// forwarded), which are KRaft brokers whenever a controller is
		// rolled (stage PreKRaft).
		bs, err := brokerAddresses(c, in)
		if err != nil {
			return nil, err
		}
		if bs != "" {
			g.Controllers = slices.Concat([]string{"--bootstrap-server", bs}, setFlagWords(c, "command-config", "kafka-timeout"))
		}
		return g, nil
	}
	if ctl == "" {
		ctl = quorumAddresses(c, in)
	}
	if ctl != "" {
		g.Controllers = slices.Concat([]string{"--bootstrap-controller", ctl}, ctlConfig, setFlagWords(c, "kafka-timeout"))
	}
	return g, nil
}

// answersDirectly: the controllers of the KRaft view answer
// --bootstrap-controller, as far as the view tells (an unknown
// metadata.version is taken to: the gate then says what it could not
// read).
func answersDirectly(k *model.Image) bool {
	if k == nil {
		return true
	}
	mv := k.MetadataVersion()
	return mv == 0 || mv >= features.LevelControllerRegistration
}

// brokerAddresses are the brokers' HOST:PORT list to ask the quorum
// through: --bootstrap-server as given, else each broker the KRaft view
// registers, on its endpoint whose security protocol is the one
// --command-config sets (PLAINTEXT without it), else its first. The
// settings are read as every live read reads them (kafkaConfig): a
// --command-config that cannot be read is an error here too, not a gate
// printed for the wrong listener.
func brokerAddresses(c *cli.Context, in online.Input) (string, error) {
	if bs := c.String("bootstrap-server"); bs != "" {
		return bs, nil
	}
	if in.KRaft == nil {
		return "", nil
	}
	cfg, err := kafkaConfig(c)
	if err != nil {
		return "", err
	}
	want := clientProtocol(cfg.Properties)
	var addrs []string
	for _, b := range in.KRaft.SortedBrokers() {
		if e, ok := brokerEndpoint(b, want); ok {
			addrs = append(addrs, net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port))))
		}
	}
	return strings.Join(addrs, ","), nil
}

// clientProtocol is the security.protocol client settings name,
// PLAINTEXT when they name none (Kafka's default).
func clientProtocol(props map[string]string) string {
	if p := strings.ToUpper(strings.TrimSpace(props["security.protocol"])); p != "" {
		return p
	}
	return "PLAINTEXT"
}

// brokerEndpoint is the endpoint kmeta's printed commands reach b on:
// the one of the security protocol want, else b's first; ok is false when
// b registers none.
func brokerEndpoint(b *model.Broker, want string) (model.Endpoint, bool) {
	if len(b.Endpoints) == 0 {
		return model.Endpoint{}, false
	}
	for _, e := range b.Endpoints {
		if model.SecurityProtocolName(e.SecurityProtocol) == want {
			return e, true
		}
	}
	return b.Endpoints[0], true
}

// quorumAddresses are the controllers' HOST:PORT list: the voters'
// endpoints the KRaft view names, else controller.quorum.voters of the
// files given, else --controllers.
func quorumAddresses(c *cli.Context, in online.Input) string {
	var addrs []string
	if k := in.KRaft; k != nil && k.Quorum != nil {
		for _, v := range k.Quorum.Voters {
			if len(v.Endpoints) > 0 {
				addrs = append(addrs, net.JoinHostPort(v.Endpoints[0].Host, strconv.Itoa(int(v.Endpoints[0].Port))))
			}
		}
		if len(addrs) == len(k.Quorum.Voters) && len(addrs) > 0 {
			return strings.Join(addrs, ",")
		}
	}
	spec := ""
	for _, id := range slices.Sorted(maps.Keys(in.Nodes)) {
		if v := in.Nodes[id].Props["controller.quorum.voters"]; v != "" {
			spec = v
			break
		}
	}
	if spec == "" && hasFlag(c, "controllers") {
		spec = c.String("controllers")
	}
	cs, err := controllers.Parse(spec)
	if err != nil {
		return ""
	}
	addrs = addrs[:0]
	for _, cs := range cs {
		addrs = append(addrs, net.JoinHostPort(cs.Host, strconv.Itoa(cs.Port)))
	}
	return strings.Join(addrs, ",")
}

// rebuildGates are what follows quorum rebuild, gated: a roll wait for
// each new controller (the new quorum, --bootstrap-controller of its
// endpoints), and, when the brokers' settings change, their roll in
// roll's order (on the copy's image: fewer leaderships first), each
// between a roll check and a roll wait against the brokers' addresses as
// their registrations in the copy name them, on the listener of the
// security protocol the client settings (configFile, props; none:
// PLAINTEXT) name. Every command names configFile, but the controllers'
// waits name ctlConfigFile when given (--controller-command-config: their
// listener takes other settings than the brokers'). needs says what the
// commands lack when no file is given and a broker has no PLAINTEXT
// listener ("" when nothing).
func rebuildGates(p *quorum.RebuildPlan, cs []controllers.Spec, configFile, ctlConfigFile string, props map[string]string) (waits []string, out []report.RollPlanStep, needs string) {
	var addrs []string
	for _, c := range cs {
		addrs = append(addrs, net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	}
	ctl := []string{"--bootstrap-controller", strings.Join(addrs, ",")}
	switch {
	case ctlConfigFile != "":
		ctl = append(ctl, "--controller-command-config", ctlConfigFile)
	case configFile != "":
		ctl = append(ctl, "--command-config", configFile)
	}
	for _, c := range cs {
		waits = append(waits, roll.GatesFor(c.ID, roll.Source{Words: ctl}).Wait)
	}
	img := p.View()
	if len(p.Brokers) == 0 || img == nil {
		return waits, nil, ""
	}
	in := roll.Input{Image: img}
	src, needs := brokersSource(img, configFile, props)
	steps, err := roll.Order(in, roll.Brokers(in))
	if err != nil || src == nil {
		return waits, nil, ""
	}
	for _, s := range steps {
		out = append(out, report.RollPlanStep{Step: s, Gates: roll.GatesFor(s.Node, roll.Source{Words: src})})
	}
	return waits, out, needs
}

// brokersSource names img's brokers for gate commands: --bootstrap-server
// of each one's endpoint of the client settings' protocol (PLAINTEXT
// without a file), and the file; needs says what the commands lack when
// no file is given and a broker has no PLAINTEXT listener. nil when no
// broker registers an endpoint.
func brokersSource(img *model.Image, configFile string, props map[string]string) (src []string, needs string) {
	want := clientProtocol(props)
	var brokers, secured []string
	for _, b := range img.SortedBrokers() {
		if e, ok := brokerEndpoint(b, want); ok {
			brokers = append(brokers, net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port))))
			if pr := model.SecurityProtocolName(e.SecurityProtocol); configFile == "" && pr != "PLAINTEXT" {
				secured = append(secured, fmt.Sprintf("broker %d: %s", b.ID, pr))
			}
		}
	}
	if len(brokers) == 0 {
		return nil, ""
	}
	src = []string{"--bootstrap-server", strings.Join(brokers, ",")}
	if configFile != "" {
		src = append(src, "--command-config", configFile)
	}
	if len(secured) > 0 {
		needs = "the brokers have no PLAINTEXT listener (" + strings.Join(secured, ", ") +
			"): give --command-config FILE, the client settings of the listener to reach them on, and the commands name it"
	}
	return src, needs
}

// quorumConfigRoll is kraft.version 0→1's config roll: every voter and
// broker the cluster names, in roll's order (controllers first, the
// quorum's leader last of them, then the brokers), each gated with the
// source the user gave; and the controller.quorum.bootstrap.servers value
// from the voters' endpoints. Nothing when the cluster cannot be read
// again (the report then prints the roll in words).
func quorumConfigRoll(c *cli.Context, cl *kafkaread.Client) ([]report.RollPlanStep, string) {
	img, err := cl.Image(c.Context)
	if err != nil {
		return nil, ""
	}
	st, err := cl.QuorumStatus(c.Context)
	if err != nil {
		return nil, ""
	}
	in := roll.Input{Image: img, Quorum: st}
	var servers []string
	for _, v := range st.Voters {
		if len(v.Endpoints) > 0 {
			servers = append(servers, net.JoinHostPort(v.Endpoints[0].Host, strconv.Itoa(int(v.Endpoints[0].Port))))
		}
	}
	bs := ""
	if len(servers) == len(st.Voters) {
		bs = strings.Join(servers, ",")
	}
	ids, _ := roll.Controllers(in)
	steps, err := roll.Order(in, append(ids, roll.Brokers(in)...))
	if err != nil {
		return nil, bs
	}
	src := rollSource(c)
	var out []report.RollPlanStep
	for _, s := range steps {
		out = append(out, report.RollPlanStep{Step: s, Gates: roll.GatesFor(s.Node, src)})
	}
	return out, bs
}
