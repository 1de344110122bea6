package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// Credentials of the PLAIN super user that SASL-enabled clusters define in
// their JAAS configuration.
const (
	AdminUser     = "admin"
	AdminPassword = "admin-secret"
)

// DelegationTokenSecret is delegation.token.secret.key on SASL clusters.
const DelegationTokenSecret = "kmeta-test-delegation-token-secret"

// StandardAuthorizer is the KRaft authorizer class.
const StandardAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"

// Log lines that mean a server finished starting: KafkaRaftServer (and
// 4.x) logs the first, a 3.x ZooKeeper-mode KafkaServer the second.
var readyMarkers = []string{"Kafka Server started", "started (kafka.server.KafkaServer)"}

// EnvKeep, when 1, keeps every cluster directory even after a passing test.
const EnvKeep = "KMETA_KEEP"

// Node is one Kafka server of a Cluster. Props is written to Config before
// every start, so a test may change it between StopNode and StartNode.
type Node struct {
	ID int
	// Roles is process.roles for KRaft nodes ("broker", "controller" or
	// "broker,controller") and "" for a ZooKeeper-mode broker.
	Roles          string
	Dir            string            // node root: server.properties, server.log, data/
	DataDir        string            // log.dirs; in KRaft also the metadata log dir
	Config         string            // path of server.properties
	Props          map[string]string // server properties
	PlainPort      int               // PLAINTEXT listener; 0 on controllers
	SASLPort       int               // SASL_PLAINTEXT listener; 0 unless SASL
	SSLPort        int               // SSL listener; 0 unless SSL
	MTLSPort       int               // SSL listener requiring a client certificate; 0 unless SSL
	SSLAltPort     int               // SSL listener on 127.0.0.2, not named by the certificate; 0 unless SSL
	SASLSSLPort    int               // SASL_SSL listener; 0 unless SSL and SASL
	ControllerPort int               // CONTROLLER listener; 0 on brokers
	// DirectoryID is the directory.id the harness chose for the node at
	// format time (a controller of a dynamic quorum of several); "" when
	// format chose it.
	DirectoryID string
	// JVM are extra JVM options for the server (e.g. a larger -Xmx: the
	// last -Xmx on a java command line wins).
	JVM []string
	// JVMOpts, when set, replace the harness's server JVM options (C1
	// only, a serial GC: quick to start in a test), for a server run as
	// Kafka's scripts run it (the bench); JVM still adds to them.
	JVMOpts []string
	// ConfigSource, when set, is a server.properties written by someone
	// else (kmeta migrate stage): it is copied to Config byte for byte
	// before every start instead of rendering Props, so Kafka reads
	// exactly that file. Props then only describe it to the harness.
	ConfigSource string

	proc *process
}

// IsBroker reports whether the node serves clients.
func (n *Node) IsBroker() bool { return n.Roles == "" || strings.Contains(n.Roles, "broker") }

// IsController reports whether the node is a KRaft controller.
func (n *Node) IsController() bool { return strings.Contains(n.Roles, "controller") }

// LogPath is the node's server log (stdout and stderr of the JVM).
func (n *Node) LogPath() string { return filepath.Join(n.Dir, "server.log") }

// Running reports whether the node's JVM is alive.
func (n *Node) Running() bool { return n.proc != nil && !n.proc.exited() }

// Cluster is a set of Kafka nodes started by the harness in one temporary
// directory. t.Cleanup stops every node; the directory is removed unless the
// test failed (or KMETA_KEEP=1), in which case its path and the tail of each
// server log are logged.
type Cluster struct {
	Dist      *Distribution
	Dir       string
	ClusterID string    // KRaft cluster id; empty for ZooKeeper mode until brokers register
	SASL      bool      // brokers have a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256/512)
	TLS       *TLSFiles // the TLS listeners' certificates and stores; nil without SSL
	// Security is a ZooKeeper-mode cluster's secured shape (SecuritySSL,
	// SecuritySASLSSL; "" for none): clients then connect to its one
	// listener as its super user. DeniedKeyStore is DeniedUser's
	// certificate (SecuritySSL).
	Security       string
	DeniedKeyStore string

	t     testing.TB
	mu    sync.Mutex
	nodes map[int]*Node
}

// NewCluster creates an empty cluster directory and registers its cleanup.
// StartKRaft and StartZKCluster build on it; tests that need unusual
// topologies (a migration) add nodes with AddNode.
func NewCluster(t testing.TB, d *Distribution) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "kmeta-kafka-"+d.Version+"-")
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	c := &Cluster{Dist: d, Dir: dir, t: t, nodes: map[int]*Node{}}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() || os.Getenv(EnvKeep) == "1" {
			c.logTails(50)
			t.Logf("kafkatest: cluster files kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return c
}

func (c *Cluster) logTails(n int) {
	for _, node := range c.Nodes() {
		b, err := os.ReadFile(node.LogPath())
		if err != nil {
			continue
		}
		c.t.Logf("kafkatest: last %d lines of %s:\n%s", n, node.LogPath(), tail(b, n))
	}
}

// AddNode registers a node with the given id, roles and properties and
// creates its directories. log.dirs is set to the node's DataDir unless
// props sets it. It does not format or start the node.
func (c *Cluster) AddNode(id int, roles string, props map[string]string) *Node {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.nodes[id]; dup {
		c.t.Fatalf("kafkatest: node %d added twice", id)
	}
	kind := "broker"
	if roles != "" {
		kind = strings.ReplaceAll(roles, ",", "-")
	}
	dir := filepath.Join(c.Dir, fmt.Sprintf("%s-%d", kind, id))
	n := &Node{ID: id, Roles: roles, Dir: dir, DataDir: filepath.Join(dir, "data"),
		Config: filepath.Join(dir, "server.properties"), Props: maps.Clone(props)}
	if n.Props == nil {
		n.Props = map[string]string{}
	}
	if _, ok := n.Props["log.dirs"]; !ok {
		n.Props["log.dirs"] = n.DataDir
	}
	if err := os.MkdirAll(n.DataDir, 0o755); err != nil {
		c.t.Fatalf("kafkatest: %v", err)
	}
	c.nodes[id] = n
	return n
}

// Node returns the node with id, failing the test if there is none.
func (c *Cluster) Node(id int) *Node {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[id]
	if !ok {
		c.t.Fatalf("kafkatest: no node %d", id)
	}
	return n
}

// Nodes returns every node, sorted by id.
func (c *Cluster) Nodes() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := slices.Collect(maps.Values(c.nodes))
	sort.Slice(ns, func(i, j int) bool { return ns[i].ID < ns[j].ID })
	return ns
}

// Brokers returns the ids of the broker nodes, sorted.
func (c *Cluster) Brokers() []int {
	var ids []int
	for _, n := range c.Nodes() {
		if n.IsBroker() {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// Controllers returns the ids of the KRaft controller nodes, sorted.
func (c *Cluster) Controllers() []int {
	var ids []int
	for _, n := range c.Nodes() {
		if n.IsController() {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// BootstrapServers lists the PLAINTEXT listeners of all brokers.
func (c *Cluster) BootstrapServers() string {
	return c.listeners(func(n *Node) int { return n.PlainPort })
}

// SASLBootstrapServers lists the SASL_PLAINTEXT listeners of all brokers.
func (c *Cluster) SASLBootstrapServers() string {
	return c.listeners(func(n *Node) int { return n.SASLPort })
}

// BootstrapControllers lists the CONTROLLER listeners, for tools that take
// --bootstrap-controller.
func (c *Cluster) BootstrapControllers() string {
	return c.listeners(func(n *Node) int { return n.ControllerPort })
}

// QuorumVoters renders controller.quorum.voters for the cluster's controllers.
func (c *Cluster) QuorumVoters() string {
	var vs []string
	for _, n := range c.Nodes() {
		if n.ControllerPort != 0 {
			vs = append(vs, fmt.Sprintf("%d@127.0.0.1:%d", n.ID, n.ControllerPort))
		}
	}
	return strings.Join(vs, ",")
}

func (c *Cluster) listeners(port func(*Node) int) string {
	var hs []string
	for _, n := range c.Nodes() {
		if p := port(n); p != 0 {
			hs = append(hs, "127.0.0.1:"+strconv.Itoa(p))
		}
	}
	return strings.Join(hs, ",")
}

// MetadataLogDir returns the KRaft metadata log directory of node id: the
// directory holding meta.properties, bootstrap.checkpoint and
// __cluster_metadata-0/.
func (c *Cluster) MetadataLogDir(id int) string {
	n := c.Node(id)
	if d := n.Props["metadata.log.dir"]; d != "" {
		return d
	}
	return strings.Split(n.Props["log.dirs"], ",")[0]
}

// MetadataPartitionDir returns MetadataLogDir(id)/__cluster_metadata-0.
func (c *Cluster) MetadataPartitionDir(id int) string {
	return filepath.Join(c.MetadataLogDir(id), "__cluster_metadata-0")
}

// writeConfig writes the node's Props as a properties file, sorted by key,
// or copies ConfigSource.
func (n *Node) writeConfig() error {
	if n.ConfigSource != "" {
		b, err := os.ReadFile(n.ConfigSource)
		if err != nil {
			return err
		}
		return os.WriteFile(n.Config, b, 0o600)
	}
	return os.WriteFile(n.Config, renderProps(n.Props), 0o644)
}

// renderProps renders props as a properties file, sorted by key.
func renderProps(props map[string]string) []byte {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, escapeProp(props[k]))
	}
	return []byte(b.String())
}

// escapeProp escapes what java.util.Properties would otherwise interpret:
// backslashes, and leading whitespace.
func escapeProp(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	if strings.HasPrefix(v, " ") {
		v = `\` + v
	}
	return v
}

// FormatNode writes the node's config and runs kafka-storage format on it
// with the cluster id and args.
func (c *Cluster) FormatNode(id int, args ...string) string {
	c.t.Helper()
	n := c.Node(id)
	if err := n.writeConfig(); err != nil {
		c.t.Fatalf("kafkatest: %v", err)
	}
	return c.Dist.Format(c.t, n.Config, append([]string{"--cluster-id", c.ClusterID}, args...)...)
}

// StartNode (re)starts node id and waits until it logs that it started.
func (c *Cluster) StartNode(id int) {
	c.t.Helper()
	if err := c.startNodes(2*time.Minute, id); err != nil {
		c.t.Fatal(err)
	}
}

// StartNodes starts several nodes at once and waits for all of them.
func (c *Cluster) StartNodes(ids ...int) {
	c.t.Helper()
	if err := c.startNodes(3*time.Minute, ids...); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) startNodes(timeout time.Duration, ids ...int) error {
	var procs []*process
	for _, id := range ids {
		n := c.Node(id)
		if n.Running() {
			return fmt.Errorf("kafkatest: node %d already running", id)
		}
		if err := n.writeConfig(); err != nil {
			return fmt.Errorf("kafkatest: %w", err)
		}
		// Mark restarts in the log so readiness does not match the previous run.
		if f, err := os.OpenFile(n.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			fmt.Fprintf(f, "\n==== kafkatest: starting node %d at %s ====\n", id, time.Now().Format(time.RFC3339Nano))
			f.Close()
		}
		start, _ := os.Stat(n.LogPath())
		p, err := c.Dist.startServer(n.JVMOpts, fmt.Sprintf("node %d", id), n.Dir, n.LogPath(), n.JVM, c.Dist.Tools.Kafka, n.Config)
		if err != nil {
			return err
		}
		p.logOffset = start.Size()
		n.proc = p
		procs = append(procs, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, p := range procs {
		if err := p.waitLog(ctx, readyMarkers...); err != nil {
			return err
		}
	}
	return nil
}

// StopNode stops node id: SIGTERM (a broker then shuts down in a
// controlled way), up to a minute's grace, then SIGKILL. It reports whether
// the node exited by itself.
func (c *Cluster) StopNode(id int) bool {
	c.t.Helper()
	n := c.Node(id)
	if !n.Running() {
		return true
	}
	return n.proc.stop(time.Minute)
}

// KillNode SIGKILLs node id: no controlled shutdown, so a KRaft controller
// fences the broker when its session times out.
func (c *Cluster) KillNode(id int) {
	c.t.Helper()
	if n := c.Node(id); n.Running() {
		n.proc.kill()
	}
}

// Stop stops every node: brokers first, then controllers, each group in
// parallel. It is safe to call more than once.
func (c *Cluster) Stop() {
	var brokers, controllers []*Node
	for _, n := range c.Nodes() {
		if n.IsController() {
			controllers = append(controllers, n)
		} else {
			brokers = append(brokers, n)
		}
	}
	stopAll := func(ns []*Node) {
		var wg sync.WaitGroup
		for _, n := range ns {
			if n.Running() {
				wg.Go(func() { n.proc.stop(time.Minute) })
			}
		}
		wg.Wait()
	}
	stopAll(brokers)
	stopAll(controllers)
}

// Client returns a franz-go client for the cluster's brokers, closed at the
// end of the test. On a SASL cluster it connects to the SASL listeners as the
// PLAIN super user (delegation tokens need an authenticated SASL channel).
func (c *Cluster) Client(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append(c.ClientOpts(), opts...)...)
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// ClientOpts are the options Client connects with: the SASL listeners as
// the PLAIN super user on a SASL cluster, else the PLAINTEXT ones.
func (c *Cluster) ClientOpts() []kgo.Opt {
	if c.Security != "" {
		o, err := c.securedClientOpts(false)
		if err != nil {
			// The stores were made by the harness: a test bug.
			panic(err)
		}
		return o
	}
	if c.SASL {
		return []kgo.Opt{
			kgo.SeedBrokers(strings.Split(c.SASLBootstrapServers(), ",")...),
			kgo.SASL(plain.Auth{User: AdminUser, Pass: AdminPassword}.AsMechanism()),
		}
	}
	return []kgo.Opt{kgo.SeedBrokers(strings.Split(c.BootstrapServers(), ",")...)}
}

// Admin returns an admin client for the cluster (see Client).
func (c *Cluster) Admin(t testing.TB) *kadm.Client {
	t.Helper()
	return kadm.NewClient(c.Client(t))
}

// WaitBrokers waits until the cluster metadata lists exactly the running
// brokers ids (in KRaft: registered and unfenced).
func (c *Cluster) WaitBrokers(t testing.TB, timeout time.Duration, ids ...int) {
	t.Helper()
	adm := c.Admin(t)
	want := slices.Clone(ids)
	sort.Ints(want)
	deadline := time.Now().Add(timeout)
	var got []int
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		bs, err := adm.ListBrokers(ctx)
		cancel()
		got = got[:0]
		if err == nil {
			for _, b := range bs {
				got = append(got, int(b.NodeID))
			}
			sort.Ints(got)
			if slices.Equal(got, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("kafkatest: brokers %v not all up after %s (listed %v, last error %v)", want, timeout, got, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// randomUUID returns a random Kafka Uuid in its 22-character base64url form.
// Kafka reserves UUIDs whose high 64 bits are zero and never hands out ids
// starting with '-', so neither is produced.
func randomUUID() string {
	for {
		var b [16]byte
		_, _ = rand.Read(b[:]) // documented never to fail
		s := base64.RawURLEncoding.EncodeToString(b[:])
		if s[0] != '-' && !allZero(b[:8]) {
			return s
		}
	}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
