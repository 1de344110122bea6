package kafkatest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SCRAM users KRaftOptions.SCRAMUsers adds at format time.
const (
	SCRAM512User     = "scram512"
	SCRAM512Password = "scram512-secret"
	SCRAM256User     = "scram256"
	SCRAM256Password = "scram256-secret"
)

// ClientKind names one way a client connects: a listener and the settings
// Kafka's clients take for it (client.properties, the --command-config of
// Kafka's tools).
type ClientKind string

// The client kinds ClientProperties writes. SASL kinds need
// KRaftOptions.SASL (and the SCRAM ones SCRAMUsers), TLS kinds SSL.
const (
	ClientPlaintext  ClientKind = "plaintext"          // PLAINTEXT
	ClientSASLPlain  ClientKind = "sasl-plain"         // SASL_PLAINTEXT, PLAIN as AdminUser
	ClientSCRAM512   ClientKind = "sasl-scram-sha-512" // SASL_PLAINTEXT, SCRAM-SHA-512 as SCRAM512User
	ClientSCRAM256   ClientKind = "sasl-scram-sha-256" // SASL_PLAINTEXT, SCRAM-SHA-256 as SCRAM256User
	ClientSSLPEM     ClientKind = "ssl-pem"            // SSL, trust store PEM (the CA certificate file)
	ClientSSLJKS     ClientKind = "ssl-jks"            // SSL, trust store JKS
	ClientSSLPKCS12  ClientKind = "ssl-pkcs12"         // SSL, trust store PKCS12
	ClientMTLSJKS    ClientKind = "mtls-jks"           // MTLS listener, key and trust stores JKS
	ClientMTLSPKCS12 ClientKind = "mtls-pkcs12"        // MTLS listener, key and trust stores PKCS12
	ClientSASLSSL    ClientKind = "sasl-ssl-scram-512" // SASL_SSL, SCRAM-SHA-512, trust store PEM
	ClientSSLAltName ClientKind = "ssl-pem-other-name" // SSL on 127.0.0.2, which the certificate does not name
)

// ClientKinds are every kind, in the order above.
var ClientKinds = []ClientKind{ClientPlaintext, ClientSASLPlain, ClientSCRAM512, ClientSCRAM256, ClientSSLPEM,
	ClientSSLJKS, ClientSSLPKCS12, ClientMTLSJKS, ClientMTLSPKCS12, ClientSASLSSL, ClientSSLAltName}

// ClientSettings returns the client settings of kind; it fails t when the
// cluster has no listener for it.
func (c *Cluster) ClientSettings(t testing.TB, kind ClientKind) map[string]string {
	t.Helper()
	p, err := c.clientSettings(kind)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c *Cluster) clientSettings(kind ClientKind) (map[string]string, error) {
	plain := func(user, pass string) string {
		return fmt.Sprintf(`org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";`, user, pass)
	}
	scram := func(user, pass string) string {
		return fmt.Sprintf(`org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";`, user, pass)
	}
	needSASL := strings.HasPrefix(string(kind), "sasl-")
	needTLS := strings.Contains(string(kind), "ssl") || strings.HasPrefix(string(kind), "mtls")
	if needSASL && !c.SASL {
		return nil, fmt.Errorf("kafkatest: client kind %s needs a cluster with SASL", kind)
	}
	if needTLS && c.TLS == nil {
		return nil, fmt.Errorf("kafkatest: client kind %s needs a cluster with SSL", kind)
	}
	tf := c.TLS
	trust := func(p map[string]string, typ string) map[string]string {
		p["ssl.truststore.type"] = typ
		switch typ {
		case "PEM":
			p["ssl.truststore.location"] = tf.CAPEM
		case "JKS":
			p["ssl.truststore.location"], p["ssl.truststore.password"] = tf.TrustJKS, TLSPassword
		case "PKCS12":
			p["ssl.truststore.location"], p["ssl.truststore.password"] = tf.TrustPKCS12, TLSPassword
		}
		return p
	}
	key := func(p map[string]string, typ, loc string) map[string]string {
		p["ssl.keystore.type"], p["ssl.keystore.location"] = typ, loc
		p["ssl.keystore.password"], p["ssl.key.password"] = TLSPassword, TLSPassword
		return p
	}
	switch kind {
	case ClientPlaintext:
		return map[string]string{"security.protocol": "PLAINTEXT"}, nil
	case ClientSASLPlain:
		return map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": plain(AdminUser, AdminPassword)}, nil
	case ClientSCRAM512:
		return map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
			"sasl.jaas.config": scram(SCRAM512User, SCRAM512Password)}, nil
	case ClientSCRAM256:
		return map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
			"sasl.jaas.config": scram(SCRAM256User, SCRAM256Password)}, nil
	case ClientSSLPEM, ClientSSLAltName:
		return trust(map[string]string{"security.protocol": "SSL"}, "PEM"), nil
	case ClientSSLJKS:
		return trust(map[string]string{"security.protocol": "SSL"}, "JKS"), nil
	case ClientSSLPKCS12:
		return trust(map[string]string{"security.protocol": "SSL"}, "PKCS12"), nil
	case ClientMTLSJKS:
		return key(trust(map[string]string{"security.protocol": "SSL"}, "JKS"), "JKS", tf.ClientKeyJKS), nil
	case ClientMTLSPKCS12:
		return key(trust(map[string]string{"security.protocol": "SSL"}, "PKCS12"), "PKCS12", tf.ClientKeyPKCS12), nil
	case ClientSASLSSL:
		return trust(map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
			"sasl.jaas.config": scram(SCRAM512User, SCRAM512Password)}, "PEM"), nil
	}
	return nil, fmt.Errorf("kafkatest: unknown client kind %q", kind)
}

// ClientProperties writes kind's client settings as a client.properties
// file in the cluster's directory and returns its path. BootstrapFor gives
// the addresses to use it with.
func (c *Cluster) ClientProperties(t testing.TB, kind ClientKind) string {
	t.Helper()
	return c.WriteClientProperties(t, kind, c.ClientSettings(t, kind))
}

// WriteClientProperties writes props (say, kind's settings changed by a
// test) as client-<kind>.properties in the cluster's directory, sorted by
// key, and returns its path.
func (c *Cluster) WriteClientProperties(t testing.TB, kind ClientKind, props map[string]string) string {
	t.Helper()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, escapeProp(props[k]))
	}
	path := filepath.Join(c.Dir, "client-"+string(kind)+".properties")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatalf("kafkatest: %v", err)
	}
	return path
}

// BootstrapFor lists the brokers' addresses of kind's listener.
func (c *Cluster) BootstrapFor(kind ClientKind) string {
	port := map[ClientKind]func(*Node) int{
		ClientPlaintext:  func(n *Node) int { return n.PlainPort },
		ClientSASLPlain:  func(n *Node) int { return n.SASLPort },
		ClientSCRAM512:   func(n *Node) int { return n.SASLPort },
		ClientSCRAM256:   func(n *Node) int { return n.SASLPort },
		ClientSSLPEM:     func(n *Node) int { return n.SSLPort },
		ClientSSLJKS:     func(n *Node) int { return n.SSLPort },
		ClientSSLPKCS12:  func(n *Node) int { return n.SSLPort },
		ClientMTLSJKS:    func(n *Node) int { return n.MTLSPort },
		ClientMTLSPKCS12: func(n *Node) int { return n.MTLSPort },
		ClientSASLSSL:    func(n *Node) int { return n.SASLSSLPort },
	}[kind]
	if kind == ClientSSLAltName {
		var hs []string
		for _, n := range c.Nodes() {
			if n.SSLAltPort != 0 {
				hs = append(hs, fmt.Sprintf("127.0.0.2:%d", n.SSLAltPort))
			}
		}
		return strings.Join(hs, ",")
	}
	if port == nil {
		return ""
	}
	return c.listeners(port)
}
