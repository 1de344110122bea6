package kafkatest

import (
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// First node ids StartKRaft uses: brokers count up from 1, dedicated
// controllers from 3000 (the numbering of Kafka's own examples).
const (
	FirstBrokerID     = 1
	FirstControllerID = 3000
)

// KRaftOptions configures StartKRaft. The zero value is one combined
// broker+controller node at the release's latest metadata.version.
type KRaftOptions struct {
	// Controllers is the number of dedicated controllers. 0 means combined
	// mode: Brokers nodes (at least one) that are each broker and controller.
	Controllers int
	// Brokers is the number of broker nodes (default 1). With dedicated
	// controllers it may be 0, for a controller-only quorum.
	Brokers int

	// ReleaseVersion is format's --release-version (e.g. "3.7-IV4"); empty
	// means the release's latest production metadata.version.
	ReleaseVersion string
	// Features are format's --feature name=level arguments.
	Features []string
	// AddSCRAM are format's --add-scram arguments, e.g.
	// "SCRAM-SHA-256=[name=alice,password=alice-secret]".
	AddSCRAM []string
	// DynamicQuorum formats a KIP-853 dynamic quorum (kraft.version 1):
	// every node gets controller.quorum.bootstrap.servers, and the
	// controllers are formatted with --standalone when there is one, or
	// else each with the same --initial-controllers
	// ID@HOST:PORT:DIRECTORY_ID list (each controller's own directory id,
	// made here and kept in Node.DirectoryID).
	DynamicQuorum bool

	// SASL adds a SASL_PLAINTEXT listener to every broker with PLAIN (user
	// AdminUser) and SCRAM-SHA-256/512, and sets delegation.token.secret.key
	// so delegation tokens work. Cluster.Admin then uses that listener.
	SASL bool
	// SSL adds TLS listeners to every broker, with certificates made in the
	// test by MakeTLS (Cluster.TLS): SSL (no client certificate), MTLS (an
	// SSL listener that requires one), SSLALT (SSL on 127.0.0.2, a name the
	// server certificate does not carry) and, with SASL, SASL_SSL. The
	// inter-broker and controller listeners stay PLAINTEXT.
	SSL bool
	// SSLServerStoreType is the brokers' key store type with SSL: JKS or
	// PKCS12 (default).
	SSLServerStoreType string
	// SCRAMUsers adds, at format time, SCRAM512User with SCRAM-SHA-512 and
	// SCRAM256User with SCRAM-SHA-256 (see ClientProperties); it needs SASL.
	SCRAMUsers bool
	// Authorizer enables StandardAuthorizer with super.users
	// User:admin;User:ANONYMOUS (the PLAINTEXT listeners stay all-powerful).
	Authorizer bool

	// SnapshotMaxBytes sets metadata.log.max.record.bytes.between.snapshots
	// and SnapshotInterval metadata.log.max.snapshot.interval.ms when > 0.
	SnapshotMaxBytes int64
	SnapshotInterval time.Duration
	// SegmentBytes, when > 0, rolls metadata log segments at this size (it
	// also lowers the internal minimum that otherwise clamps it to 8 MiB).
	SegmentBytes int64
	// IdleInterval sets metadata.max.idle.interval.ms (NoOpRecord cadence)
	// when > 0.
	IdleInterval time.Duration

	// Props apply to every node, then ControllerProps to controllers and
	// BrokerProps to brokers, then NodeProps[id] to node id (broker.rack);
	// later maps win.
	Props, ControllerProps, BrokerProps map[string]string
	NodeProps                           map[int]map[string]string

	// JVM are extra JVM options for every node (Node.JVM).
	JVM []string

	// StartTimeout bounds the start of the whole cluster (default 3 min).
	StartTimeout time.Duration
}

// StartKRaft formats and starts a KRaft cluster and waits until every broker
// is registered and unfenced.
func StartKRaft(t testing.TB, d *Distribution, opts KRaftOptions) *Cluster {
	t.Helper()
	start := time.Now()
	c := NewCluster(t, d)
	c.ClusterID = randomUUID()
	c.SASL = opts.SASL
	if opts.SCRAMUsers && !opts.SASL {
		t.Fatal("kafkatest: SCRAMUsers needs SASL")
	}
	if opts.SSL {
		c.TLS = MakeTLS(t, d, filepath.Join(c.Dir, "tls"), opts.SSLServerStoreType)
	}
	if opts.Brokers == 0 && opts.Controllers == 0 {
		opts.Brokers = 1
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 3 * time.Minute
	}
	combined := opts.Controllers == 0
	nControllers := opts.Controllers
	if combined {
		nControllers = opts.Brokers
	}

	type spec struct {
		id    int
		roles string
	}
	var specs []spec
	if combined {
		for i := range opts.Brokers {
			specs = append(specs, spec{FirstBrokerID + i, "broker,controller"})
		}
	} else {
		for i := range opts.Controllers {
			specs = append(specs, spec{FirstControllerID + i, "controller"})
		}
		for i := range opts.Brokers {
			specs = append(specs, spec{FirstBrokerID + i, "broker"})
		}
	}
	// Ports per node: controller, PLAINTEXT, SASL_PLAINTEXT, then with SSL
	// SSL, MTLS, SSLALT and SASL_SSL.
	perNode := 3
	if opts.SSL {
		perNode = 7
	}
	ports, err := freePorts(perNode * len(specs))
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*Node
	for i, s := range specs {
		n := c.AddNode(s.id, s.roles, nil)
		n.JVM = slicesClone(opts.JVM)
		np := ports[perNode*i:]
		if n.IsController() {
			n.ControllerPort = np[0]
		}
		if n.IsBroker() {
			n.PlainPort = np[1]
			if opts.SASL {
				n.SASLPort = np[2]
			}
			if opts.SSL {
				n.SSLPort, n.MTLSPort, n.SSLAltPort = np[3], np[4], np[5]
				if opts.SASL {
					n.SASLSSLPort = np[6]
				}
			}
		}
		nodes = append(nodes, n)
	}
	// A dynamic quorum of several controllers is formatted from one list
	// naming each voter's directory id: format writes that id into the
	// controller's meta.properties and the voters into its bootstrap
	// snapshot, so every controller must get the same list.
	var initialControllers string
	if opts.DynamicQuorum && nControllers > 1 {
		var vs []string
		for _, n := range nodes {
			if n.IsController() {
				n.DirectoryID = randomUUID()
				vs = append(vs, fmt.Sprintf("%d@127.0.0.1:%d:%s", n.ID, n.ControllerPort, n.DirectoryID))
			}
		}
		initialControllers = strings.Join(vs, ",")
	}
	replication := strconv.Itoa(min(3, max(1, opts.Brokers)))
	for _, n := range nodes {
		p := kraftProps(c, n, opts, replication)
		maps.Copy(n.Props, p)
		maps.Copy(n.Props, opts.Props)
		if n.IsController() {
			maps.Copy(n.Props, opts.ControllerProps)
		}
		if n.IsBroker() {
			maps.Copy(n.Props, opts.BrokerProps)
		}
		maps.Copy(n.Props, opts.NodeProps[n.ID])
	}

	var formatArgs []string
	if opts.ReleaseVersion != "" {
		formatArgs = append(formatArgs, "--release-version", opts.ReleaseVersion)
	}
	for _, f := range opts.Features {
		formatArgs = append(formatArgs, "--feature", f)
	}
	scram := opts.AddSCRAM
	if opts.SCRAMUsers {
		scram = append(slicesClone(scram),
			fmt.Sprintf("SCRAM-SHA-512=[name=%s,password=%s]", SCRAM512User, SCRAM512Password),
			fmt.Sprintf("SCRAM-SHA-256=[name=%s,password=%s]", SCRAM256User, SCRAM256Password))
	}
	for _, s := range scram {
		formatArgs = append(formatArgs, "--add-scram", s)
	}
	// Every node formatted in one JVM (RunEach: kafka-storage's own main
	// once per node): a JVM start per node was most of a small cluster's
	// start on two cores.
	var argss [][]string
	for _, n := range nodes {
		args := slicesClone(formatArgs)
		if opts.DynamicQuorum && n.IsController() {
			if initialControllers != "" {
				args = append(args, "--initial-controllers", initialControllers)
			} else {
				args = append(args, "--standalone")
			}
		}
		if err := n.writeConfig(); err != nil {
			t.Fatalf("kafkatest: format: %v", err)
		}
		argss = append(argss, append([]string{"format", "-c", n.Config, "--cluster-id", c.ClusterID}, args...))
	}
	runs, err := d.RunEach(t.Context(), d.Tools.Storage, argss)
	if err != nil {
		t.Fatalf("kafkatest: format: %v", err)
	}
	for i, r := range runs {
		if r.Exit != 0 {
			t.Fatalf("kafkatest: format of node %d: exit %d\n%s%s", nodes[i].ID, r.Exit, r.Stdout, tail(r.Stderr, 30))
		}
	}
	formatted := time.Now()

	var ids []int
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	// Several dynamic voters started with the brokers can elect twice, and
	// a broker that learned the first leader was seen to keep sending its
	// registration there until it gave up (4.4.0): the brokers start once
	// the controllers are up.
	if initialControllers != "" && len(c.Brokers()) > 0 {
		if err := c.startNodes(opts.StartTimeout, c.Controllers()...); err != nil {
			t.Fatal(err)
		}
		ids = c.Brokers()
	}
	if err := c.startNodes(opts.StartTimeout, ids...); err != nil {
		t.Fatal(err)
	}
	if brokers := c.Brokers(); len(brokers) > 0 {
		c.WaitBrokers(t, opts.StartTimeout, brokers...)
	}
	t.Logf("kafkatest: KRaft %s cluster %s up in %s (format %s): controllers %v, brokers %v, dir %s",
		d.Version, c.ClusterID, time.Since(start).Round(time.Millisecond), formatted.Sub(start).Round(time.Millisecond),
		c.Controllers(), c.Brokers(), c.Dir)
	return c
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// kraftProps are the harness's base properties for one KRaft node.
// smallServerProps are the settings every test server shares, KRaft or
// ZooKeeper mode: few threads and partitions, small buffers, internal topics
// replicated as far as the cluster allows.
func smallServerProps(replication string) map[string]string {
	return map[string]string{
		"auto.create.topics.enable":                "false",
		"num.partitions":                           "1",
		"default.replication.factor":               "1",
		"offsets.topic.replication.factor":         replication,
		"offsets.topic.num.partitions":             "3",
		"transaction.state.log.replication.factor": replication,
		"transaction.state.log.min.isr":            "1",
		"transaction.state.log.num.partitions":     "3",
		"group.initial.rebalance.delay.ms":         "0",
		"num.network.threads":                      "2",
		"num.io.threads":                           "2",
		"num.replica.fetchers":                     "1",
		"num.recovery.threads.per.data.dir":        "1",
		"log.cleaner.threads":                      "1",
		"log.cleaner.dedupe.buffer.size":           "8388608",
	}
}

func kraftProps(c *Cluster, n *Node, opts KRaftOptions, replication string) map[string]string {
	p := smallServerProps(replication)
	maps.Copy(p, map[string]string{
		"process.roles":                                    n.Roles,
		"node.id":                                          strconv.Itoa(n.ID),
		"controller.listener.names":                        "CONTROLLER",
		"listener.security.protocol.map":                   "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"share.coordinator.state.topic.replication.factor": replication,
		"share.coordinator.state.topic.min.isr":            "1",
	})
	if opts.DynamicQuorum {
		p["controller.quorum.bootstrap.servers"] = c.BootstrapControllers()
	} else {
		p["controller.quorum.voters"] = c.QuorumVoters()
	}
	var listeners []string
	if n.IsBroker() {
		listeners = append(listeners, fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.PlainPort))
		if n.SASLPort != 0 {
			listeners = append(listeners, fmt.Sprintf("SASL_PLAINTEXT://127.0.0.1:%d", n.SASLPort))
		}
		if n.SSLPort != 0 {
			listeners = append(listeners, fmt.Sprintf("SSL://127.0.0.1:%d", n.SSLPort),
				fmt.Sprintf("MTLS://127.0.0.1:%d", n.MTLSPort), fmt.Sprintf("SSLALT://127.0.0.2:%d", n.SSLAltPort))
		}
		if n.SASLSSLPort != 0 {
			listeners = append(listeners, fmt.Sprintf("SASL_SSL://127.0.0.1:%d", n.SASLSSLPort))
		}
		p["advertised.listeners"] = strings.Join(listeners, ",")
	}
	if n.IsController() {
		listeners = append(listeners, fmt.Sprintf("CONTROLLER://127.0.0.1:%d", n.ControllerPort))
	}
	p["listeners"] = strings.Join(listeners, ",")
	if opts.SASL {
		maps.Copy(p, saslProps())
	}
	if opts.SSL {
		p["listener.security.protocol.map"] += ",SSL:SSL,MTLS:SSL,SSLALT:SSL,SASL_SSL:SASL_SSL"
		maps.Copy(p, sslProps(c.TLS, opts.SASL))
	}
	if opts.Authorizer {
		p["authorizer.class.name"] = StandardAuthorizer
		p["super.users"] = "User:" + AdminUser + ";User:ANONYMOUS"
	}
	if opts.SnapshotMaxBytes > 0 {
		p["metadata.log.max.record.bytes.between.snapshots"] = strconv.FormatInt(opts.SnapshotMaxBytes, 10)
	}
	if opts.SnapshotInterval > 0 {
		p["metadata.log.max.snapshot.interval.ms"] = strconv.FormatInt(opts.SnapshotInterval.Milliseconds(), 10)
	}
	if opts.SegmentBytes > 0 {
		s := strconv.FormatInt(opts.SegmentBytes, 10)
		// metadata.log.segment.bytes is clamped to at least 8 MiB; the
		// escape hatch is internal and differs: 3.9 lowers the floor, 4.x
		// rejects small values outright and takes an internal override.
		if c.Dist.Is3() {
			p["metadata.log.segment.bytes"] = s
			p["metadata.log.segment.min.bytes"] = s
		} else {
			p["internal.metadata.log.segment.bytes"] = s
		}
	}
	if opts.IdleInterval > 0 {
		p["metadata.max.idle.interval.ms"] = strconv.FormatInt(opts.IdleInterval.Milliseconds(), 10)
	}
	return p
}

// saslProps enable PLAIN and SCRAM on the SASL_PLAINTEXT listener and
// delegation tokens. Controllers get them too: in KRaft the controller
// creates tokens and SCRAM credentials.
func saslProps() map[string]string {
	return map[string]string{
		"sasl.enabled.mechanisms":                                     "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
		"listener.name.sasl_plaintext.plain.sasl.jaas.config":         plainJAASServer,
		"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": scramJAASServer,
		"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scramJAASServer,
		"delegation.token.secret.key":                                 DelegationTokenSecret,
	}
}

// The brokers' JAAS settings: PLAIN knows AdminUser alone; SCRAM users are
// the cluster's SCRAM credentials.
const (
	plainJAASServer = `org.apache.kafka.common.security.plain.PlainLoginModule required user_` + AdminUser + `="` + AdminPassword + `";`
	scramJAASServer = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
)
