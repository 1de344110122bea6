package kafkatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"maps"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TLSZooKeeper is a ZooKeeper that takes clients on a TLS port, and only
// those with a certificate its CA signed (ssl.clientAuth=need). Its PEM
// files are made in Go, in milliseconds (MakeTLS's keytool stores take
// seconds): ZooKeeper and Kafka's ZooKeeper clients read PEM key and
// trust stores (type PEM: the key and its chain in one file).
type TLSZooKeeper struct {
	*ZooKeeper
	// TLSAddr is the TLS port's host:port.
	TLSAddr string
	// CA, ClientCert and ClientKey are kmeta's --zk-tls-ca, --zk-tls-cert
	// and --zk-tls-key.
	CA, ClientCert, ClientKey string
	// ClientPEM is the client's key and certificate in one file: the key
	// store Kafka's clients name (zookeeper.ssl.keystore.location).
	ClientPEM string
}

// StartTLSZooKeeper starts a ZooKeeper (StartZooKeeper, opts) that also
// listens on a TLS port, its PEM files in a directory of the test's.
func StartTLSZooKeeper(t testing.TB, d *Distribution, opts ZKOptions) *TLSZooKeeper {
	t.Helper()
	dir := t.TempDir()
	ca, caKey := newCert(t, nil, nil, "kmeta test CA")
	srv, srvKey := newCert(t, ca, caKey, "127.0.0.1")
	cli, cliKey := newCert(t, ca, caKey, "kmeta test client")
	z := &TLSZooKeeper{
		CA: filepath.Join(dir, "ca.pem"), ClientCert: filepath.Join(dir, "client.crt"),
		ClientKey: filepath.Join(dir, "client.key"), ClientPEM: filepath.Join(dir, "client.pem"),
	}
	server := filepath.Join(dir, "server.pem")
	writePEM(t, z.CA, ca, nil)
	writePEM(t, server, srv, srvKey)
	writePEM(t, z.ClientCert, cli, nil)
	writePEM(t, z.ClientKey, nil, cliKey)
	writePEM(t, z.ClientPEM, cli, cliKey)
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	z.TLSAddr = "127.0.0.1:" + strconv.Itoa(ports[0])
	props := map[string]string{
		"secureClientPort":        strconv.Itoa(ports[0]),
		"secureClientPortAddress": "127.0.0.1",
		"serverCnxnFactory":       "org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location":   server,
		"ssl.keyStore.type":       "PEM",
		"ssl.trustStore.location": z.CA,
		"ssl.trustStore.type":     "PEM",
		"ssl.clientAuth":          "need",
	}
	maps.Copy(props, opts.Props)
	opts.Props = props
	z.ZooKeeper = StartZooKeeper(t, d, opts)
	return z
}

// ClientProps are the zookeeper.* settings of a broker that reaches z
// over TLS, as Kafka's docs configure it: what its server.properties (or
// a file given to Kafka's ZooKeeper CLI with -zk-tls-config-file) holds.
func (z *TLSZooKeeper) ClientProps() map[string]string {
	return map[string]string{
		"zookeeper.ssl.client.enable":       "true",
		"zookeeper.clientCnxnSocket":        "org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.keystore.location":   z.ClientPEM,
		"zookeeper.ssl.keystore.type":       "PEM",
		"zookeeper.ssl.truststore.location": z.CA,
		"zookeeper.ssl.truststore.type":     "PEM",
	}
}

// newCert makes a certificate for cn signed by parent (nil: self-signed,
// a CA), with cn as its IP address when it is one.
func newCert(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:        parent == nil, BasicConstraintsValid: true,
	}
	if ip := net.ParseIP(cn); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	return SignedCert(t, tmpl, parent, parentKey)
}

// SignedCert makes a P-256 key and the certificate tmpl describes for it,
// signed by parent with parentKey (parent nil: self-signed). The tests'
// one way of making a certificate in Go.
func SignedCert(t testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// writePEM writes key (PKCS#8) then cert, either of them nil, to path.
func writePEM(t testing.TB, path string, cert *x509.Certificate, key *ecdsa.PrivateKey) {
	t.Helper()
	var out []byte
	if key != nil {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})...)
	}
	if cert != nil {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})...)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
