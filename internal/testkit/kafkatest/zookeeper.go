package kafkatest

import (
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ZKOptions configures StartZooKeeper.
type ZKOptions struct {
	// Props are extra zoo.cfg settings; they override the harness's.
	Props map[string]string
	// StartTimeout bounds the start (default 1 min).
	StartTimeout time.Duration
	// JVMOpts, when set, replace the harness's server JVM options (C1
	// only, a serial GC, a heap that starts small: quick to start in a
	// test), for a server run as Kafka's scripts run it (the bench).
	JVMOpts []string
	// JVM are more JVM options, after those: a JAAS file for a server
	// that authenticates its clients with SASL
	// (-Djava.security.auth.login.config=FILE).
	JVM []string
}

// ZooKeeper is a standalone ZooKeeper server from a 3.x Kafka release's
// classpath (the ZooKeeper version Kafka itself ships), on 127.0.0.1.
type ZooKeeper struct {
	Port    int
	Dir     string // server root: zoo.cfg, server.log, data/
	DataDir string // dataDir; holds version-2/
	Config  string // zoo.cfg
	jvmOpts []string
	jvm     []string

	t       testing.TB
	d       *Distribution
	timeout time.Duration
	proc    *process
}

// StartZooKeeper starts ZooKeeper and waits until it answers "ruok". The
// server is stopped at the end of the test; its directory is kept (and its
// log tail printed) if the test failed.
func StartZooKeeper(t testing.TB, d *Distribution, opts ZKOptions) *ZooKeeper {
	t.Helper()
	if d.Tools.ZooKeeper == "" {
		t.Fatalf("kafkatest: Kafka %s ships no ZooKeeper; use %s", d.Version, Kafka39)
	}
	start := time.Now()
	dir, err := os.MkdirTemp("", "kmeta-zk-")
	if err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	z := &ZooKeeper{Port: ports[0], Dir: dir, DataDir: filepath.Join(dir, "data"),
		Config: filepath.Join(dir, "zoo.cfg"), t: t, d: d, timeout: opts.StartTimeout, jvmOpts: opts.JVMOpts, jvm: opts.JVM}
	if z.timeout == 0 {
		z.timeout = time.Minute
	}
	t.Cleanup(func() {
		z.Stop()
		if t.Failed() || os.Getenv(EnvKeep) == "1" {
			if b, err := os.ReadFile(z.LogPath()); err == nil {
				t.Logf("kafkatest: last 50 lines of %s:\n%s", z.LogPath(), tail(b, 50))
			}
			t.Logf("kafkatest: ZooKeeper files kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	props := map[string]string{
		"tickTime":                "2000",
		"initLimit":               "10",
		"syncLimit":               "5",
		"dataDir":                 z.DataDir,
		"clientPort":              strconv.Itoa(z.Port),
		"clientPortAddress":       "127.0.0.1",
		"maxClientCnxns":          "0",
		"admin.enableServer":      "false",
		"4lw.commands.whitelist":  "ruok,srvr,stat,mntr",
		"autopurge.purgeInterval": "0",
	}
	maps.Copy(props, opts.Props)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	if err := os.MkdirAll(z.DataDir, 0o755); err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	if err := os.WriteFile(z.Config, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	if err := z.start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kafkatest: ZooKeeper (Kafka %s classpath) up at %s in %s, dir %s", d.Version, z.Addr(),
		time.Since(start).Round(time.Millisecond), dir)
	return z
}

// Addr is the client address, 127.0.0.1:port.
func (z *ZooKeeper) Addr() string { return "127.0.0.1:" + strconv.Itoa(z.Port) }

// Connect returns a zookeeper.connect string for chroot ("" or "/" for
// none, otherwise a path such as "/kafka").
func (z *ZooKeeper) Connect(chroot string) string {
	if chroot == "" || chroot == "/" {
		return z.Addr()
	}
	return z.Addr() + "/" + strings.TrimPrefix(chroot, "/")
}

// LogPath is ZooKeeper's log file.
func (z *ZooKeeper) LogPath() string { return filepath.Join(z.Dir, "server.log") }

// Running reports whether the server JVM is alive.
func (z *ZooKeeper) Running() bool { return z.proc != nil && !z.proc.exited() }

func (z *ZooKeeper) start() error {
	p, err := z.d.startServer(z.jvmOpts, "zookeeper", z.Dir, z.LogPath(), z.jvm, z.d.Tools.ZooKeeper, z.Config)
	if err != nil {
		return err
	}
	z.proc = p
	deadline := time.Now().Add(z.timeout)
	for {
		if serving(z.Addr()) {
			return nil
		}
		if p.exited() {
			b, _ := os.ReadFile(z.LogPath())
			return fmt.Errorf("kafkatest: ZooKeeper exited at start (%v):\n%s", p.waitErr, tail(b, 30))
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(z.LogPath())
			return fmt.Errorf("kafkatest: ZooKeeper not serving (srvr) after %s:\n%s", z.timeout, tail(b, 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serving says whether ZooKeeper serves requests: its "srvr" four-letter
// command answers with its version only then. "ruok" answers "imok" as
// soon as the client port is open, before the server has loaded its data
// and written the snapshot it takes at every start: a Stop then (a test
// that restarts ZooKeeper and stops it to read its data dir) tore that
// snapshot, and the data dir's reader rightly fell back to an older one,
// with a warning the test did not expect.
func serving(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("srvr")); err != nil {
		return false
	}
	b, _ := io.ReadAll(conn)
	return strings.HasPrefix(string(b), "Zookeeper version:")
}

// Stop stops the server (SIGTERM, then SIGKILL after 30 s).
func (z *ZooKeeper) Stop() {
	if z.Running() {
		z.proc.stop(30 * time.Second)
	}
}

// Restart stops and starts the server on the same port and data.
func (z *ZooKeeper) Restart() {
	z.t.Helper()
	z.Stop()
	if err := z.start(); err != nil {
		z.t.Fatal(err)
	}
}

// ZKClusterOptions configures StartZKCluster.
type ZKClusterOptions struct {
	// Brokers is the number of ZooKeeper-mode brokers (default 1), with ids
	// FirstBrokerID, FirstBrokerID+1, …
	Brokers int
	// Chroot is the ZooKeeper path Kafka keeps its znodes under, e.g.
	// "/kafka"; empty means the root. Kafka creates it.
	Chroot string
	// Props apply to every broker, after the harness's; NodeProps[id]
	// to broker id after them (broker.rack).
	Props     map[string]string
	NodeProps map[int]map[string]string
	// StartTimeout bounds the start (default 3 min).
	StartTimeout time.Duration
	// SASL adds a SASL_PLAINTEXT listener (PLAIN super user, SCRAM,
	// delegation tokens), as KRaftOptions.SASL does.
	SASL bool
	// Authorizer enables ZooKeeper mode's AclAuthorizer with the PLAIN
	// super user and ANONYMOUS as super users.
	Authorizer bool
	// Security makes the brokers one of the secured shapes (SecuritySSL,
	// SecuritySASLSSL) instead: one listener, no PLAINTEXT, SASL and
	// Authorizer ignored. TLS are its certificates (made when nil).
	Security string
	TLS      *TLSFiles
}

// ZKAuthorizer is ZooKeeper mode's authorizer class.
const ZKAuthorizer = "kafka.security.authorizer.AclAuthorizer"

// StartZKCluster starts ZooKeeper-mode brokers (3.x only) against zk and
// waits until all are registered.
func StartZKCluster(t testing.TB, d *Distribution, zk *ZooKeeper, opts ZKClusterOptions) *Cluster {
	t.Helper()
	if !d.HasZooKeeper() {
		t.Fatalf("kafkatest: Kafka %s has no ZooKeeper mode; use %s", d.Version, Kafka39)
	}
	start := time.Now()
	if opts.Brokers == 0 {
		opts.Brokers = 1
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 3 * time.Minute
	}
	c := NewCluster(t, d)
	c.SASL = opts.SASL
	if opts.Security != "" {
		c.SASL, c.Security, c.TLS = false, opts.Security, opts.TLS
		if c.TLS == nil {
			c.TLS = MakeTLS(t, d, filepath.Join(c.Dir, "tls"), "")
		}
		switch opts.Security {
		case SecuritySSL:
			c.DeniedKeyStore = filepath.Join(c.TLS.Dir, DeniedUser+".p12")
			if _, err := os.Stat(c.DeniedKeyStore); err != nil {
				c.DeniedKeyStore = MakeClientCert(t, d, c.TLS, DeniedUser)
			}
		case SecuritySASLSSL:
			if err := addSCRAMInZooKeeper(d, zk, opts.Chroot, map[string]string{AdminUser: AdminPassword, DeniedUser: DeniedPassword}); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("kafkatest: security %q", opts.Security)
		}
	}
	ports, err := freePorts(2 * opts.Brokers)
	if err != nil {
		t.Fatal(err)
	}
	replication := strconv.Itoa(min(3, opts.Brokers))
	var ids []int
	for i := range opts.Brokers {
		id := FirstBrokerID + i
		n := c.AddNode(id, "", nil)
		n.PlainPort = ports[2*i]
		listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.PlainPort)
		if opts.SASL {
			n.SASLPort = ports[2*i+1]
			listeners += fmt.Sprintf(",SASL_PLAINTEXT://127.0.0.1:%d", n.SASLPort)
		}
		maps.Copy(n.Props, smallServerProps(replication))
		maps.Copy(n.Props, map[string]string{
			"broker.id":                       strconv.Itoa(id),
			"zookeeper.connect":               zk.Connect(opts.Chroot),
			"zookeeper.connection.timeout.ms": "30000",
			"listeners":                       listeners,
			"advertised.listeners":            listeners,
			"inter.broker.listener.name":      "PLAINTEXT",
			"listener.security.protocol.map":  "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
		})
		if opts.SASL {
			maps.Copy(n.Props, saslProps())
		}
		if opts.Authorizer {
			n.Props["authorizer.class.name"] = ZKAuthorizer
			n.Props["super.users"] = "User:" + AdminUser + ";User:ANONYMOUS"
		}
		if opts.Security != "" {
			n.PlainPort, n.SASLPort = 0, 0
			for _, k := range []string{"listeners", "advertised.listeners", "listener.security.protocol.map"} {
				delete(n.Props, k)
			}
			if opts.Security == SecuritySSL {
				n.SSLPort = ports[2*i]
			} else {
				n.SASLSSLPort = ports[2*i]
			}
			maps.Copy(n.Props, securedProps(opts.Security, c.TLS, ports[2*i]))
		}
		maps.Copy(n.Props, opts.Props)
		maps.Copy(n.Props, opts.NodeProps[id])
		ids = append(ids, id)
	}
	if err := c.startNodes(opts.StartTimeout, ids...); err != nil {
		t.Fatal(err)
	}
	c.WaitBrokers(t, opts.StartTimeout, ids...)
	t.Logf("kafkatest: ZooKeeper-mode Kafka %s brokers %v up in %s (zookeeper.connect %s), dir %s",
		d.Version, ids, time.Since(start).Round(time.Millisecond), zk.Connect(opts.Chroot), c.Dir)
	return c
}
