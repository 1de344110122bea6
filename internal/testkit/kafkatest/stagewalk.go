package kafkatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// StageStep is one step of the steps list `kmeta migrate stage` and
// `kmeta migrate rollback` print (their -o json "steps"). Paths in Config
// and From are relative to the command's --out directory.
type StageStep struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Node   int    `json:"node,omitempty"`
	Config string `json:"config,omitempty"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	What   string `json:"what,omitempty"`
	// Args and Command: a "zookeeper" step, for ZooKeeper's own CLI.
	Args    []string `json:"args,omitempty"`
	Command string   `json:"command,omitempty"`
	// Path: a "delete-metadata-dir" step.
	Path string `json:"path,omitempty"`
	// Nodes: a "roll-plan" step's nodes (Config names their files with
	// {id}).
	Nodes []int `json:"nodes,omitempty"`
}

func (s StageStep) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d. %s", s.Step, s.Action)
	if s.Node != 0 {
		fmt.Fprintf(&b, " node %d", s.Node)
	}
	for _, f := range []string{s.Config, s.From, s.To, s.What, s.Command, s.Path} {
		if f != "" {
			b.WriteString(" " + f)
		}
	}
	return b.String()
}

// StageRunner performs kmeta's printed steps on a Cluster, as an operator
// following them would, and nothing else: every started or restarted node
// runs the server.properties kmeta wrote, byte for byte (Node.ConfigSource),
// and every metadata dir is the one kmeta formatted.
type StageRunner struct {
	Cluster *Cluster
	// ReadProps parses a Java properties file (kmeta's server-ID.properties),
	// for what the harness must know about a node it starts: process.roles
	// and the listener ports. Kafka itself reads the file.
	ReadProps func(path string) (map[string]string, error)
	// Wait performs a "wait" step: poll until the condition it names holds
	// (the test asks `kmeta migrate status`), or fail.
	Wait func(ctx context.Context, s StageStep) error
	// ZKConnect is the ZooKeeper connect string for a "zookeeper" step
	// whose command does not name one.
	ZKConnect string
	// StartTimeout bounds one node's start (default 3 min), InSyncTimeout
	// the wait for full ISRs after a broker's (re)start (default 2 min).
	StartTimeout, InSyncTimeout time.Duration
	// Logf, when set, is told each step as it runs.
	Logf func(format string, args ...any)
	// AfterStep, when set, runs after each step (the test checks kmeta
	// migrate status mid-roll there); an error stops the run.
	AfterStep func(ctx context.Context, s StageStep) error
	// Kmeta, when set, runs kmeta with args (the words after "kmeta")
	// and returns its stdout and exit code: the runner then performs the
	// gates kmeta prints (roll-check, roll-wait, roll-plan) and waits for
	// nothing of its own after a restart. Without it, a gate step is an
	// error and each broker (re)start waits for full ISRs (WaitInSync).
	Kmeta func(ctx context.Context, args []string) (string, int)
	// CheckTimeout bounds how long a roll-check is run again while it
	// exits 1 (default 3 min), as an operator waits and asks again.
	CheckTimeout time.Duration
	// Gates counts the gates run, and Refusals the roll checks that
	// exited 1 before one exited 0.
	Gates, Refusals int
}

// Run performs steps in order. outDir is the --out directory they refer
// to. After each broker start or restart it waits until every partition
// is fully in sync again, as a careful rolling restart does: otherwise
// the next restart could take a partition below min.insync.replicas.
//
// Consecutive "start" steps of nodes that are not brokers run at once, as
// an operator with a terminal per controller starts them: kmeta prints
// no gate between them, a lone controller of several voters cannot elect
// until the others are up anyway, and each JVM start is seconds the walk
// would otherwise wait one after the other.
func (r *StageRunner) Run(ctx context.Context, outDir string, steps []StageStep) error {
	for i := 0; i < len(steps); {
		start := time.Now()
		batch, props := r.startBatch(outDir, steps[i:])
		if len(batch) > 1 {
			if err := r.startAll(outDir, batch, props); err != nil {
				return fmt.Errorf("steps %d-%d: %w", batch[0].Step, batch[len(batch)-1].Step, err)
			}
		} else {
			batch = steps[i : i+1]
			if err := r.step(ctx, outDir, batch[0]); err != nil {
				return fmt.Errorf("step %s: %w", batch[0], err)
			}
		}
		for _, s := range batch {
			if r.Logf != nil {
				r.Logf("kafkatest: step %s done in %s", s, time.Since(start).Round(time.Millisecond))
			}
			if r.AfterStep != nil {
				if err := r.AfterStep(ctx, s); err != nil {
					return fmt.Errorf("after step %s: %w", s, err)
				}
			}
		}
		i += len(batch)
	}
	return nil
}

// startBatch is the run of "start" steps at the head of steps whose
// configs name no broker role, with each config's properties.
func (r *StageRunner) startBatch(outDir string, steps []StageStep) ([]StageStep, []map[string]string) {
	var all []map[string]string
	for _, s := range steps {
		if s.Action != "start" || r.ReadProps == nil {
			break
		}
		props, err := r.ReadProps(filepath.Join(outDir, s.Config))
		if err != nil || strings.Contains(props["process.roles"], "broker") || props["process.roles"] == "" {
			break
		}
		all = append(all, props)
	}
	return steps[:len(all)], all
}

// startAll configures and starts the nodes of a startBatch together.
func (r *StageRunner) startAll(outDir string, batch []StageStep, props []map[string]string) error {
	var ids []int
	for i, s := range batch {
		n, err := r.configureWith(filepath.Join(outDir, s.Config), s.Node, props[i])
		if err != nil {
			return err
		}
		if n.Running() {
			return fmt.Errorf("node %d is running; a start step expects it stopped", n.ID)
		}
		ids = append(ids, n.ID)
	}
	return r.Cluster.startNodes(cmpOr(r.StartTimeout, 3*time.Minute), ids...)
}

func (r *StageRunner) step(ctx context.Context, outDir string, s StageStep) error {
	c := r.Cluster
	switch s.Action {
	case "install-metadata-dir":
		if s.From == "" || !filepath.IsAbs(s.To) {
			return errors.New("needs from and an absolute to")
		}
		// os.CopyFS refuses to overwrite: a metadata dir already there
		// is an error, as it would be for an operator.
		if err := os.MkdirAll(s.To, 0o755); err != nil {
			return err
		}
		return os.CopyFS(s.To, os.DirFS(filepath.Join(outDir, s.From)))
	case "start", "restart":
		if s.Action == "restart" {
			if n := r.node(s.Node); n != nil {
				c.StopNode(s.Node)
			}
		}
		n, err := r.configure(filepath.Join(outDir, s.Config), s.Node)
		if err != nil {
			return err
		}
		if n.Running() {
			return fmt.Errorf("node %d is running; a start step expects it stopped", n.ID)
		}
		if err := c.startNodes(cmpOr(r.StartTimeout, 3*time.Minute), n.ID); err != nil {
			return err
		}
		if n.IsBroker() && r.Kmeta == nil {
			return c.WaitInSync(ctx, cmpOr(r.InSyncTimeout, 2*time.Minute))
		}
		return nil
	case "roll-check", "roll-wait", "roll-plan":
		return r.gate(ctx, outDir, s)
	case "stop":
		if r.node(s.Node) == nil {
			return fmt.Errorf("no node %d", s.Node)
		}
		c.StopNode(s.Node)
		return nil
	case "wait":
		if r.Wait == nil {
			return errors.New("no Wait function")
		}
		return r.Wait(ctx, s)
	case "zookeeper":
		out, err := r.zookeeper(ctx, s)
		if r.Logf != nil {
			r.Logf("kafkatest: %s: %s", s.Command, strings.TrimSpace(out))
		}
		return err
	case "delete-metadata-dir":
		if n := r.nodeWithDir(s.Path); n != nil && n.Running() {
			return fmt.Errorf("node %d still runs on %s", n.ID, s.Path)
		}
		if !filepath.IsAbs(s.Path) {
			return fmt.Errorf("path %q is not absolute", s.Path)
		}
		return os.RemoveAll(s.Path)
	}
	return fmt.Errorf("unknown action %q", s.Action)
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (r *StageRunner) node(id int) *Node {
	r.Cluster.mu.Lock()
	defer r.Cluster.mu.Unlock()
	return r.Cluster.nodes[id]
}

func (r *StageRunner) nodeWithDir(dir string) *Node {
	for _, n := range r.Cluster.Nodes() {
		if n.Props["metadata.log.dir"] == dir || slices.Contains(strings.Split(n.Props["log.dirs"], ","), dir) {
			return n
		}
	}
	return nil
}

// configure points node id at config (adding the node if the cluster does
// not know it yet) and takes its roles and ports from the file.
func (r *StageRunner) configure(config string, id int) (*Node, error) {
	if r.ReadProps == nil {
		return nil, errors.New("no ReadProps function")
	}
	props, err := r.ReadProps(config)
	if err != nil {
		return nil, err
	}
	return r.configureWith(config, id, props)
}

// configureWith is configure with config's properties already read.
func (r *StageRunner) configureWith(config string, id int, props map[string]string) (*Node, error) {
	got := props["node.id"]
	if got == "" {
		got = props["broker.id"]
	}
	if strings.TrimSpace(got) != strconv.Itoa(id) {
		return nil, fmt.Errorf("%s is for node %q, the step names %d", config, got, id)
	}
	roles := props["process.roles"]
	n := r.node(id)
	if n == nil {
		n = r.Cluster.AddNode(id, roles, nil)
	}
	n.Roles = roles
	n.Props = props
	n.ConfigSource = config
	n.PlainPort, n.SASLPort, n.SSLPort, n.SASLSSLPort, n.ControllerPort = 0, 0, 0, 0, 0
	for _, l := range strings.Split(props["listeners"], ",") {
		name, port, ok := listenerPort(l)
		if !ok {
			continue
		}
		switch name {
		case "PLAINTEXT":
			n.PlainPort = port
		case "SASL_PLAINTEXT":
			n.SASLPort = port
		case "SSL":
			n.SSLPort = port
		case "SASL_SSL":
			n.SASLSSLPort = port
		default:
			if slices.Contains(strings.Split(props["controller.listener.names"], ","), name) && strings.Contains(roles, "controller") {
				n.ControllerPort = port
			}
		}
	}
	return n, nil
}

var listenerRE = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)://[^:]*:(\d+)\s*$`)

func listenerPort(l string) (string, int, bool) {
	m := listenerRE.FindStringSubmatch(l)
	if m == nil {
		return "", 0, false
	}
	p, err := strconv.Atoi(m[2])
	return strings.ToUpper(m[1]), p, err == nil
}

// zookeeper runs ZooKeeper's CLI as Kafka's zookeeper-shell.sh does
// (ZooKeeperMainWithTlsSupportForKafka -server CONNECT ARGS...), with the
// connect string the step's command names: the printed command is what an
// operator runs, so it is what the test runs. Deleting a znode that does
// not exist is the wanted end state, not a failure.
func (r *StageRunner) zookeeper(ctx context.Context, s StageStep) (string, error) {
	d := r.Cluster.Dist
	if d.Tools.ZooKeeperShell == "" {
		return "", fmt.Errorf("Kafka %s ships no ZooKeeper CLI", d.Version)
	}
	connect := r.ZKConnect
	f := strings.Fields(s.Command)
	if len(f) >= 2 && strings.HasSuffix(f[0], "zookeeper-shell.sh") {
		connect = f[1]
		if !slices.Equal(f[2:], s.Args) {
			return "", fmt.Errorf("command %q and args %q differ", s.Command, s.Args)
		}
	}
	if connect == "" || len(s.Args) == 0 {
		return "", errors.New("no ZooKeeper connect string or no arguments")
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, stderr, err := d.Run(cctx, d.Tools.ZooKeeperShell, append([]string{"-server", connect}, s.Args...)...)
	text := string(out) + string(stderr)
	if err != nil && strings.Contains(text, "does not exist") && slices.Contains([]string{"delete", "deleteall", "rmr"}, s.Args[0]) {
		return text, nil
	}
	if err == nil && (strings.Contains(text, "Failed to delete") || strings.Contains(text, "Insufficient permission")) {
		// The CLI exits 0 when ZooKeeper refuses a deleteall's deletes
		// (migrate/online's TestZKCommandsLogInToSASLZooKeeper).
		err = fmt.Errorf("ZooKeeper refused it")
	}
	return text, err
}

// WaitInSync waits until every partition of every topic has its full
// replica set in sync (kadm metadata: ISR = replicas), the condition a
// rolling restart waits for before the next broker.
func (c *Cluster) WaitInSync(ctx context.Context, timeout time.Duration) error {
	cl, err := kgo.NewClient(c.ClientOpts()...)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		md, err := adm.Metadata(mctx)
		cancel()
		last = ""
		if err != nil {
			last = err.Error()
		} else {
			for _, td := range md.Topics.Sorted() {
				for _, p := range td.Partitions.Sorted() {
					if len(p.ISR) != len(p.Replicas) || p.Err != nil {
						last = fmt.Sprintf("%s-%d replicas %v isr %v (%v)", td.Topic, p.Partition, p.Replicas, p.ISR, p.Err)
						break
					}
				}
				if last != "" {
					break
				}
			}
			if last == "" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: partitions not in sync after %s: %s", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// gate performs a gate step with kmeta itself: roll check until it exits
// 0 (exit 1: not safe yet, asked again), roll wait once (it blocks until
// the node is back; anything but 0 fails), roll plan run with -o json and
// its order performed: for each node, its check, its restart on the
// step's Config ({id} replaced), its wait.
func (r *StageRunner) gate(ctx context.Context, outDir string, s StageStep) error {
	if r.Kmeta == nil {
		return fmt.Errorf("a %s step and no Kmeta function", s.Action)
	}
	if len(s.Args) == 0 {
		return errors.New("no arguments")
	}
	r.Gates++
	switch s.Action {
	case "roll-check":
		deadline := time.Now().Add(cmpOr(r.CheckTimeout, 3*time.Minute))
		for {
			out, code := r.Kmeta(ctx, s.Args)
			if code == 0 {
				return nil
			}
			if code != 1 || time.Now().After(deadline) {
				return fmt.Errorf("kmeta %s: exit %d:\n%s", strings.Join(s.Args, " "), code, out)
			}
			r.Refusals++
			if r.Logf != nil {
				r.Logf("kafkatest: kmeta %s: exit 1 (not safe yet), asking again", strings.Join(s.Args, " "))
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	case "roll-wait":
		if out, code := r.Kmeta(ctx, s.Args); code != 0 {
			return fmt.Errorf("kmeta %s: exit %d:\n%s", strings.Join(s.Args, " "), code, out)
		}
		return nil
	}
	out, code := r.Kmeta(ctx, append(slices.Clone(s.Args), "-o", "json"))
	if code != 0 {
		return fmt.Errorf("kmeta %s: exit %d:\n%s", strings.Join(s.Args, " "), code, out)
	}
	var plan struct {
		Steps []struct {
			Node      int      `json:"node"`
			CheckArgs []string `json:"checkArgs"`
			WaitArgs  []string `json:"waitArgs"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		return fmt.Errorf("kmeta %s -o json: %w", strings.Join(s.Args, " "), err)
	}
	var got []int
	for _, p := range plan.Steps {
		got = append(got, p.Node)
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(s.Nodes))) {
		return fmt.Errorf("roll plan orders %v; the step names %v", got, s.Nodes)
	}
	if r.Logf != nil {
		r.Logf("kafkatest: roll plan's order: %v", got)
	}
	for _, p := range plan.Steps {
		cfg := strings.ReplaceAll(s.Config, "{id}", strconv.Itoa(p.Node))
		for _, sub := range []StageStep{
			{Step: s.Step, Action: "roll-check", Node: p.Node, Args: p.CheckArgs},
			{Step: s.Step, Action: "restart", Node: p.Node, Config: cfg},
			{Step: s.Step, Action: "roll-wait", Node: p.Node, Args: p.WaitArgs},
		} {
			if err := r.step(ctx, outDir, sub); err != nil {
				return fmt.Errorf("%s: %w", sub, err)
			}
			if r.AfterStep != nil {
				if err := r.AfterStep(ctx, sub); err != nil {
					return fmt.Errorf("after %s: %w", sub, err)
				}
			}
		}
	}
	return nil
}
