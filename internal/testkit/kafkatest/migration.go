package kafkatest

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"
)

// MigrationCompleted is what a 3.9 KRaft controller logs
// (KRaftMigrationDriver) when the initial ZooKeeper → KRaft migration has
// been committed: "Completed migration of metadata from ZooKeeper to KRaft.
// N records were generated in M ms across B batches. ...".
const MigrationCompleted = "Completed migration of metadata from ZooKeeper to KRaft"

// dualWriteMarker is logged when the driver enters DUAL_WRITE, after the
// KRaft → ZooKeeper reconciliation that follows the initial migration.
const dualWriteMarker = "to DUAL_WRITE"

// MigrationOptions configures StartMigration.
type MigrationOptions struct {
	// Controllers is the number of dedicated KRaft controllers (default 1),
	// with ids FirstControllerID, FirstControllerID+1, ….
	Controllers int
	// ReleaseVersion is the controllers' metadata.version (format's
	// --release-version) and the brokers' inter.broker.protocol.version:
	// migrating brokers register with exactly [IBP, IBP]. Default "3.9".
	ReleaseVersion string
	// ControllerProps apply to the controllers after the harness's.
	ControllerProps map[string]string
	// Timeout bounds the whole migration (default 4 min).
	Timeout time.Duration
}

// Migration is a running Kafka-driven migration: the ZooKeeper-mode
// cluster's brokers, restarted in migration mode, and the KRaft
// controllers added to the same Cluster.
type Migration struct {
	Cluster     *Cluster
	ClusterID   string
	Controllers []int
	// Completed is the controller log line that reported the migration.
	Completed string
}

// StartMigration runs Kafka's own online ZooKeeper → KRaft migration
// (KIP-866, reference §6) on a running ZooKeeper-mode cluster started by
// StartZKCluster: it formats dedicated KRaft controllers with the
// cluster's id and zookeeper.metadata.migration.enable=true, starts them,
// restarts the brokers one at a time into migration mode, and waits until
// the active controller logs MigrationCompleted and enters dual-write. The
// brokers stay ZooKeeper-mode brokers (phase 4 of the 3.9 docs, "hybrid").
// Controllers get the ZooKeeper connect string of the brokers (same
// chroot), the SASL settings of the cluster (delegation.token.secret.key
// is needed to migrate tokens) and StandardAuthorizer when the brokers use
// an authorizer, since ZooKeeper-mode brokers in migration mode forward
// CreateAcls and friends to the controller.
func StartMigration(t testing.TB, zk *ZooKeeper, c *Cluster, opts MigrationOptions) *Migration {
	t.Helper()
	start := time.Now()
	if opts.Controllers == 0 {
		opts.Controllers = 1
	}
	if opts.ReleaseVersion == "" {
		opts.ReleaseVersion = "3.9"
	}
	if opts.Timeout == 0 {
		opts.Timeout = 4 * time.Minute
	}
	ctx, cancel := context.WithTimeout(t.Context(), opts.Timeout)
	defer cancel()
	brokers := c.Brokers()
	if len(brokers) == 0 {
		t.Fatal("kafkatest: StartMigration needs a running ZooKeeper-mode cluster")
	}
	first := c.Node(brokers[0])
	connect := first.Props["zookeeper.connect"]
	_, authorizer := first.Props["authorizer.class.name"]

	// The cluster id the controllers are formatted with is ZooKeeper's
	// /cluster/id, as brokers report it.
	meta, err := c.Admin(t).BrokerMetadata(ctx)
	if err != nil || meta.Cluster == "" {
		t.Fatalf("kafkatest: cluster id of the ZooKeeper-mode cluster: %v", err)
	}
	c.ClusterID = meta.Cluster

	ports, err := freePorts(opts.Controllers)
	if err != nil {
		t.Fatal(err)
	}
	var ctrls []*Node
	for i := range opts.Controllers {
		n := c.AddNode(FirstControllerID+i, "controller", nil)
		n.ControllerPort = ports[i]
		ctrls = append(ctrls, n)
	}
	voters := c.QuorumVoters()
	for _, n := range ctrls {
		maps.Copy(n.Props, smallServerProps("1"))
		maps.Copy(n.Props, map[string]string{
			"process.roles":                       "controller",
			"node.id":                             strconv.Itoa(n.ID),
			"controller.quorum.voters":            voters,
			"controller.listener.names":           "CONTROLLER",
			"listeners":                           fmt.Sprintf("CONTROLLER://127.0.0.1:%d", n.ControllerPort),
			"listener.security.protocol.map":      "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
			"inter.broker.listener.name":          "PLAINTEXT",
			"zookeeper.metadata.migration.enable": "true",
			"zookeeper.connect":                   connect,
		})
		if c.SASL {
			maps.Copy(n.Props, saslProps())
		}
		if authorizer {
			n.Props["authorizer.class.name"] = StandardAuthorizer
			n.Props["super.users"] = "User:" + AdminUser + ";User:ANONYMOUS"
		}
		maps.Copy(n.Props, opts.ControllerProps)
		c.FormatNode(n.ID, "--release-version", opts.ReleaseVersion)
	}
	var ids []int
	for _, n := range ctrls {
		ids = append(ids, n.ID)
	}
	if err := c.startNodes(opts.Timeout, ids...); err != nil {
		t.Fatal(err)
	}
	// The log offset before the brokers roll: the completion line must
	// come from this run.
	for _, id := range brokers {
		n := c.Node(id)
		c.StopNode(id)
		maps.Copy(n.Props, map[string]string{
			"zookeeper.metadata.migration.enable": "true",
			"controller.quorum.voters":            voters,
			"controller.listener.names":           "CONTROLLER",
			"inter.broker.protocol.version":       opts.ReleaseVersion,
			"listener.security.protocol.map":      n.Props["listener.security.protocol.map"] + ",CONTROLLER:PLAINTEXT",
		})
		if err := c.startNodes(opts.Timeout, id); err != nil {
			t.Fatal(err)
		}
	}
	m := &Migration{Cluster: c, ClusterID: meta.Cluster, Controllers: ids}
	// Any controller may be the active one; wait for the first that
	// reports the completion, then for dual-write.
	procs := make([]*process, 0, len(ids))
	for _, id := range ids {
		procs = append(procs, c.Node(id).proc)
	}
	if err := waitAnyLog(ctx, procs, MigrationCompleted, dualWriteMarker); err != nil {
		t.Fatal(err)
	}
	c.WaitBrokers(t, opts.Timeout, brokers...)
	m.Completed = MigrationCompleted
	t.Logf("kafkatest: Kafka %s migration of cluster %s to KRaft controllers %v done in %s (brokers %v in migration mode)",
		c.Dist.Version, m.ClusterID, ids, time.Since(start).Round(time.Millisecond), brokers)
	return m
}

// waitAnyLog waits until one of procs has logged every marker (in this
// run's part of its log).
func waitAnyLog(ctx context.Context, procs []*process, markers ...string) error {
	for {
		for _, p := range procs {
			ok := true
			for _, m := range markers {
				c, cancel := context.WithTimeout(ctx, time.Millisecond)
				err := p.waitLog(c, m)
				cancel()
				if err != nil {
					ok = false
					break
				}
			}
			if ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			var last string
			for _, p := range procs {
				last += fmt.Sprintf("\n%s: %s", p.name, p.logPath)
			}
			return fmt.Errorf("kafkatest: migration not completed (%q, %q): %w; logs:%s", markers[0], markers[1], ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
