package kafkaread

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// DialCluster proves the connection layer against a real cluster with
// PLAINTEXT, SASL_PLAINTEXT (PLAIN, SCRAM) and TLS listeners (stores made
// with keytool): every client kind the harness writes (all) or the SCRAM
// and TLS kinds, and, with all, the failures an operator meets first. It
// is exported for the external test package, whose TestKafkaLive starts
// the one cluster per release that this and the image comparisons share.
func DialCluster(t *testing.T, c *kafkatest.Cluster, all bool) {
	// dial writes props as a client.properties file, reads it back as kmeta
	// does, and dials addr.
	dial := func(t *testing.T, props map[string]string, addr string) (*Client, Config, error) {
		t.Helper()
		path := c.WriteClientProperties(t, kafkatest.ClientKind(strings.ReplaceAll(t.Name(), "/", "_")), props)
		p, err := ReadProperties(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Bootstrap: strings.Split(addr, ","), Properties: p, PropertiesFile: path, Timeout: 15 * time.Second}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cl, err := Dial(ctx, cfg)
		if cl != nil {
			t.Cleanup(cl.Close)
		}
		return cl, cfg, err
	}
	// works checks a dialled session with a second request through
	// franz-go's routing: the cluster id Kafka reports is the one the
	// harness formatted the cluster with.
	works := func(t *testing.T, cl *Client, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("Dial: %v", err)
		}
		if cl.Finalized["metadata.version"] <= 0 {
			t.Errorf("finalized features %v: no metadata.version", cl.Finalized)
		}
		resp, err := cl.request(t.Context(), kmsg.NewPtrDescribeClusterRequest())
		if err != nil {
			t.Fatalf("DescribeCluster after Dial: %v", err)
		}
		if got := resp.(*kmsg.DescribeClusterResponse).ClusterID; got != c.ClusterID {
			t.Errorf("DescribeCluster: cluster id %s, want %s", got, c.ClusterID)
		}
	}
	// fails checks that Dial fails with class, within limit, with a
	// message that names the address and holds every want and no secret.
	fails := func(t *testing.T, cl *Client, cfg Config, err error, class error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("Dial succeeded (%s), want %v", cl.Addr, class)
		}
		t.Logf("Dial: %v", err)
		if !errors.Is(err, class) {
			t.Errorf("error class: %v, want %v", err, class)
		}
		msg := err.Error()
		for _, w := range append([]string{cfg.Bootstrap[0]}, want...) {
			if !strings.Contains(msg, w) {
				t.Errorf("message %q lacks %q", msg, w)
			}
		}
		for k, v := range cfg.Properties {
			if (strings.Contains(k, "password") || k == "sasl.jaas.config") && v != "" {
				for _, secret := range []string{kafkatest.AdminPassword, kafkatest.SCRAM512Password, kafkatest.TLSPassword, "wrong-secret"} {
					if strings.Contains(msg, secret) {
						t.Errorf("message %q holds a password", msg)
					}
				}
			}
		}
	}
	with := func(kind kafkatest.ClientKind, set map[string]string) map[string]string {
		p := c.ClientSettings(t, kind)
		for k, v := range set {
			p[k] = v
		}
		return p
	}

	kinds := kafkatest.ClientKinds
	if !all {
		kinds = []kafkatest.ClientKind{kafkatest.ClientSCRAM512, kafkatest.ClientSSLPEM, kafkatest.ClientSSLJKS,
			kafkatest.ClientSSLPKCS12, kafkatest.ClientSASLSSL}
	}
	for _, kind := range kinds {
		if kind == kafkatest.ClientSSLAltName {
			continue // the host name check refuses it; see below
		}
		t.Run(string(kind), func(t *testing.T) {
			cl, _, err := dial(t, c.ClientSettings(t, kind), c.BootstrapFor(kind))
			works(t, cl, err)
			if want := c.ClientSettings(t, kind)["sasl.mechanism"]; err == nil && cl.Mechanism() != want {
				t.Errorf("mechanism %q, want %q", cl.Mechanism(), want)
			}
		})
	}
	if !all {
		return
	}
	// Kafka's own tools take the harness's settings files as they are:
	// what kmeta reads above is what Kafka users write.
	t.Run("Kafka's tools take the settings", func(t *testing.T) {
		for _, kind := range []kafkatest.ClientKind{kafkatest.ClientSSLPEM, kafkatest.ClientMTLSJKS, kafkatest.ClientMTLSPKCS12, kafkatest.ClientSASLSSL} {
			c.Dist.MustRun(t, c.Dist.Tools.Topics, "--bootstrap-server", c.BootstrapFor(kind),
				"--command-config", c.ClientProperties(t, kind), "--list")
		}
	})
	wrongSCRAM := strings.ReplaceAll(c.ClientSettings(t, kafkatest.ClientSCRAM512)["sasl.jaas.config"], kafkatest.SCRAM512Password, "wrong-secret")
	wrongPlain := strings.ReplaceAll(c.ClientSettings(t, kafkatest.ClientSASLPlain)["sasl.jaas.config"], kafkatest.AdminPassword, "wrong-secret")
	bad := []struct {
		name  string
		props map[string]string
		addr  string
		class error
		want  []string
	}{
		{"wrong SCRAM password", with(kafkatest.ClientSCRAM512, map[string]string{"sasl.jaas.config": wrongSCRAM}),
			c.BootstrapFor(kafkatest.ClientSCRAM512), ErrAuth, []string{"authentication failed", "SCRAM-SHA-512"}},
		{"wrong PLAIN password", with(kafkatest.ClientSASLPlain, map[string]string{"sasl.jaas.config": wrongPlain}),
			c.BootstrapFor(kafkatest.ClientSASLPlain), ErrAuth, []string{"authentication failed", "PLAIN"}},
		{"SCRAM-SHA-256 as a SCRAM-SHA-512 user", with(kafkatest.ClientSCRAM512, map[string]string{"sasl.mechanism": "SCRAM-SHA-256"}),
			c.BootstrapFor(kafkatest.ClientSCRAM512), ErrAuth, []string{"authentication failed"}},
		{"trust store of another CA", with(kafkatest.ClientSSLPEM, map[string]string{"ssl.truststore.location": c.TLS.OtherCAPEM}),
			c.BootstrapFor(kafkatest.ClientSSLPEM), ErrTLS, []string{"unknown authority", "ssl.truststore.location"}},
		{"address the certificate does not name", c.ClientSettings(t, kafkatest.ClientSSLAltName),
			c.BootstrapFor(kafkatest.ClientSSLAltName), ErrTLS, []string{"127.0.0.2", "127.0.0.1", "ssl.endpoint.identification.algorithm"}},
		{"client certificate required", c.ClientSettings(t, kafkatest.ClientSSLPEM),
			c.BootstrapFor(kafkatest.ClientMTLSPKCS12), ErrTLS, []string{"certificate"}},
		{"PLAINTEXT client at an SSL listener", c.ClientSettings(t, kafkatest.ClientPlaintext),
			c.BootstrapFor(kafkatest.ClientSSLPEM), ErrTLS, []string{"PLAINTEXT"}},
		{"SSL client at a PLAINTEXT listener", c.ClientSettings(t, kafkatest.ClientSSLPEM),
			c.BootstrapFor(kafkatest.ClientPlaintext), ErrTLS, []string{"SSL", "PLAINTEXT"}},
		{"PLAINTEXT client at a SASL listener", c.ClientSettings(t, kafkatest.ClientPlaintext),
			c.BootstrapFor(kafkatest.ClientSASLPlain), ErrAuth, []string{"SASL"}},
		{"SASL client at a PLAINTEXT listener", c.ClientSettings(t, kafkatest.ClientSCRAM512),
			c.BootstrapFor(kafkatest.ClientPlaintext), ErrAuth, []string{"expects no SASL", "SASL_PLAINTEXT"}},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			start := time.Now()
			cl, cfg, err := dial(t, b.props, b.addr)
			fails(t, cl, cfg, err, b.class, b.want...)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	t.Run("host name check off", func(t *testing.T) {
		// ssl.endpoint.identification.algorithm= (empty) is Kafka's way to
		// accept a certificate that does not name the host; the chain is
		// still checked.
		cl, _, err := dial(t, with(kafkatest.ClientSSLAltName, map[string]string{"ssl.endpoint.identification.algorithm": ""}),
			c.BootstrapFor(kafkatest.ClientSSLAltName))
		works(t, cl, err)
		cl, cfg, err := dial(t, with(kafkatest.ClientSSLAltName, map[string]string{"ssl.endpoint.identification.algorithm": "",
			"ssl.truststore.location": c.TLS.OtherCAPEM}), c.BootstrapFor(kafkatest.ClientSSLAltName))
		fails(t, cl, cfg, err, ErrTLS, "unknown authority")
	})
	t.Run("closed port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		start := time.Now()
		cl, cfg, err := dial(t, c.ClientSettings(t, kafkatest.ClientPlaintext), addr)
		fails(t, cl, cfg, err, ErrRefused)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("refused after %s, want at once", d)
		}
	})
}
