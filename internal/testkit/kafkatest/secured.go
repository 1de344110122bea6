package kafkatest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// The secured shapes of a ZooKeeper-mode cluster (ZKClusterOptions.Security),
// the shapes production clusters run.
const (
	// SecuritySSL: one SSL listener per broker, for clients and between
	// brokers, mutual TLS (ssl.client.auth=required), AclAuthorizer with
	// the brokers' and the test client's TLS subjects as super users and
	// allow.everyone.if.no.acl.found=false.
	SecuritySSL = "ssl"
	// SecuritySASLSSL: one SASL_SSL listener per broker, SCRAM-SHA-512
	// between brokers (as AdminUser) and for clients, AclAuthorizer with
	// AdminUser as super user and allow.everyone.if.no.acl.found=false.
	// The SCRAM users (AdminUser, DeniedUser) are made in ZooKeeper with
	// Kafka's ConfigCommand before the brokers start.
	SecuritySASLSSL = "sasl_ssl"
)

// DeniedUser is the principal a secured cluster knows but grants nothing
// but what a test's ACLs grant: its SCRAM user (SecuritySASLSSL), or the
// subject of its certificate, CN=kmeta-denied,O=kmeta test (SecuritySSL).
const (
	DeniedUser     = "kmeta-denied"
	DeniedPassword = "kmeta-denied-secret"
)

// TLS subjects of the harness's certificates, as Kafka names them
// (X500Principal.getName()).
const (
	ServerSubject = "CN=localhost,O=kmeta test"
	ClientSubject = "CN=kmeta-client,O=kmeta test"
	DeniedSubject = "CN=" + DeniedUser + ",O=kmeta test"
)

// securedProps are a broker's settings for a secured shape; port is its
// one listener's.
func securedProps(shape string, tf *TLSFiles, port int) map[string]string {
	p := map[string]string{
		"ssl.keystore.location":                 tf.ServerKeyStore,
		"ssl.keystore.type":                     tf.ServerKeyStoreType,
		"ssl.keystore.password":                 TLSPassword,
		"ssl.key.password":                      TLSPassword,
		"ssl.truststore.location":               tf.TrustPKCS12,
		"ssl.truststore.type":                   "PKCS12",
		"ssl.truststore.password":               TLSPassword,
		"ssl.endpoint.identification.algorithm": "https",
		"authorizer.class.name":                 ZKAuthorizer,
		"allow.everyone.if.no.acl.found":        "false",
	}
	switch shape {
	case SecuritySSL:
		l := fmt.Sprintf("SSL://127.0.0.1:%d", port)
		p["listeners"], p["advertised.listeners"] = l, l
		p["inter.broker.listener.name"] = "SSL"
		p["listener.security.protocol.map"] = "SSL:SSL"
		p["ssl.client.auth"] = "required"
		p["super.users"] = "User:" + ServerSubject + ";User:" + ClientSubject
	case SecuritySASLSSL:
		l := fmt.Sprintf("SASL_SSL://127.0.0.1:%d", port)
		p["listeners"], p["advertised.listeners"] = l, l
		p["inter.broker.listener.name"] = "SASL_SSL"
		p["listener.security.protocol.map"] = "SASL_SSL:SASL_SSL"
		p["sasl.enabled.mechanisms"] = "SCRAM-SHA-512"
		p["sasl.mechanism.inter.broker.protocol"] = "SCRAM-SHA-512"
		p["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = fmt.Sprintf(
			`org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, AdminUser, AdminPassword)
		p["super.users"] = "User:" + AdminUser
	}
	return p
}

// addSCRAMInZooKeeper makes SCRAM-SHA-512 users with Kafka's own
// ConfigCommand against ZooKeeper (its way to bootstrap the inter-broker
// user before the brokers start).
func addSCRAMInZooKeeper(d *Distribution, zk *ZooKeeper, chroot string, users map[string]string) error {
	if d.Tools.Configs == "" {
		return fmt.Errorf("kafkatest: Kafka %s: no ConfigCommand known", d.Version)
	}
	connect := zk.Connect(chroot)
	if c := strings.Trim(chroot, "/"); c != "" {
		// ConfigCommand does not create the chroot (a broker does):
		// ZooKeeper's own CLI does.
		path := ""
		for _, part := range strings.Split(c, "/") {
			path += "/" + part
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, serr, err := d.Run(ctx, d.Tools.ZooKeeperShell, "-server", zk.Addr(), "create", path)
			cancel()
			if err != nil && !strings.Contains(string(out)+string(serr), "already exists") {
				return fmt.Errorf("kafkatest: create %s: %w\n%s%s", path, err, out, serr)
			}
		}
	}
	for user, pass := range users {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, serr, err := d.Run(ctx, d.Tools.Configs, "--zookeeper", connect, "--alter",
			"--add-config", "SCRAM-SHA-512=[iterations=4096,password="+pass+"]", "--entity-type", "users", "--entity-name", user)
		cancel()
		if err != nil {
			return fmt.Errorf("kafkatest: ConfigCommand SCRAM user %s: %w\n%s%s", user, err, out, serr)
		}
	}
	return nil
}

// MakeClientCert makes one more client certificate signed by tf's CA
// (keytool, as MakeTLS), for subject CN=cn,O=kmeta test, in a PKCS12 key
// store it returns the path of.
func MakeClientCert(t testing.TB, d *Distribution, tf *TLSFiles, cn string) string {
	t.Helper()
	kt, err := d.keytool()
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(tf.Dir, cn+".p12")
	csr, crt := filepath.Join(tf.Dir, cn+".csr"), filepath.Join(tf.Dir, cn+".pem")
	pass := []string{"-storepass", TLSPassword}
	for _, args := range [][]string{
		{"-genkeypair", "-alias", cn, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + cn + ",O=kmeta test",
			"-validity", "2", "-keystore", store, "-storetype", "PKCS12", "-keypass", TLSPassword},
		{"-certreq", "-alias", cn, "-keystore", store, "-file", csr},
		{"-gencert", "-alias", "ca", "-keystore", filepath.Join(tf.Dir, "ca.p12"), "-infile", csr, "-outfile", crt, "-rfc", "-validity", "2", "-ext", "eku=clientAuth"},
		{"-importcert", "-noprompt", "-alias", "ca", "-file", tf.CAPEM, "-keystore", store, "-storetype", "PKCS12"},
		{"-importcert", "-noprompt", "-alias", cn, "-file", crt, "-keystore", store},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := execOutput(ctx, kt, tf.Dir, append(append([]string{"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"}, args...), pass...)...)
		cancel()
		if err != nil {
			t.Fatalf("kafkatest: keytool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return store
}

// tlsConfig is a client TLS configuration trusting tf's CA, presenting
// the certificate of the PKCS12 key store keyStore ("": none).
func tlsConfig(tf *TLSFiles, keyStore string) (*tls.Config, error) {
	ca, err := os.ReadFile(tf.CAPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("kafkatest: %s holds no certificate", tf.CAPEM)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if keyStore != "" {
		b, err := os.ReadFile(keyStore)
		if err != nil {
			return nil, err
		}
		key, leaf, cas, err := pkcs12.DecodeChain(b, TLSPassword)
		if err != nil {
			return nil, fmt.Errorf("kafkatest: %s: %w", keyStore, err)
		}
		cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
		for _, c := range cas {
			cert.Certificate = append(cert.Certificate, c.Raw)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// securedClientOpts are the franz-go options of a client of a secured
// cluster: as its super user (the test client's certificate, or
// AdminUser), or as DeniedUser.
func (c *Cluster) securedClientOpts(denied bool) ([]kgo.Opt, error) {
	switch c.Security {
	case SecuritySSL:
		ks := c.TLS.ClientKeyPKCS12
		if denied {
			ks = c.DeniedKeyStore
		}
		cfg, err := tlsConfig(c.TLS, ks)
		if err != nil {
			return nil, err
		}
		return []kgo.Opt{kgo.SeedBrokers(strings.Split(c.listeners(func(n *Node) int { return n.SSLPort }), ",")...), kgo.DialTLSConfig(cfg)}, nil
	case SecuritySASLSSL:
		cfg, err := tlsConfig(c.TLS, "")
		if err != nil {
			return nil, err
		}
		user, pass := AdminUser, AdminPassword
		if denied {
			user, pass = DeniedUser, DeniedPassword
		}
		return []kgo.Opt{kgo.SeedBrokers(strings.Split(c.listeners(func(n *Node) int { return n.SASLSSLPort }), ",")...), kgo.DialTLSConfig(cfg),
			kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism())}, nil
	}
	return nil, fmt.Errorf("kafkatest: cluster security %q", c.Security)
}

// DeniedClient is a client of a secured cluster as DeniedUser.
func (c *Cluster) DeniedClient(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	o, err := c.securedClientOpts(true)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(o, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// ControllerClientProperties writes the client settings a tool needs to
// ask a secured cluster's controllers directly (--bootstrap-controller),
// as its super user, on a controller listener secured as kmeta migrate
// stage secures it: mutual TLS with the test client's certificate
// (SecuritySSL), or SASL_SSL with PLAIN as AdminUser (SecuritySASLSSL:
// SCRAM cannot authenticate on a controller listener).
func (c *Cluster) ControllerClientProperties(t testing.TB) string {
	t.Helper()
	return c.superUserProperties(t, "controller", "PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule")
}

// BrokerClientProperties writes the client settings a tool needs to ask
// a secured cluster's brokers (--bootstrap-server), as its super user:
// mutual TLS with the test client's certificate (SecuritySSL), or
// SASL_SSL with SCRAM-SHA-512 as AdminUser (SecuritySASLSSL).
func (c *Cluster) BrokerClientProperties(t testing.TB) string {
	t.Helper()
	return c.superUserProperties(t, "broker", "SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule")
}

// superUserProperties writes the super user's client settings for one
// side (its name in the file's), with the SASL mechanism and login module
// that side's listener takes.
func (c *Cluster) superUserProperties(t testing.TB, side, mechanism, loginModule string) string {
	t.Helper()
	p := map[string]string{"ssl.truststore.type": "PEM", "ssl.truststore.location": c.TLS.CAPEM}
	switch c.Security {
	case SecuritySSL:
		p["security.protocol"] = "SSL"
		p["ssl.keystore.type"], p["ssl.keystore.location"] = "PKCS12", c.TLS.ClientKeyPKCS12
		p["ssl.keystore.password"], p["ssl.key.password"] = TLSPassword, TLSPassword
	case SecuritySASLSSL:
		p["security.protocol"] = "SASL_SSL"
		p["sasl.mechanism"] = mechanism
		p["sasl.jaas.config"] = fmt.Sprintf(`%s required username="%s" password="%s";`, loginModule, AdminUser, AdminPassword)
	default:
		t.Fatalf("kafkatest: cluster security %q", c.Security)
	}
	return c.WriteClientProperties(t, ClientKind(side+"-"+c.Security), p)
}

func execOutput(ctx context.Context, name, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
