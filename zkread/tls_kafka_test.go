package zkread

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestLiveTLS reads a real ZooKeeper over its TLS port, which requires a
// client certificate (ssl.clientAuth=need); without one the read fails.
func TestLiveTLS(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	dir := t.TempDir()
	ca, caKey := newCert(t, nil, nil, "kmeta test CA", true)
	srv, srvKey := newCert(t, ca, caKey, "127.0.0.1", false)
	cli, cliKey := newCert(t, ca, caKey, "client", false)
	writePEM(t, filepath.Join(dir, "ca.pem"), ca, nil)
	writePEM(t, filepath.Join(dir, "server.pem"), srv, srvKey)
	writePEM(t, filepath.Join(dir, "client.crt"), cli, nil)
	writePEM(t, filepath.Join(dir, "client.key"), nil, cliKey)
	ports, err := kafkatest.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	port := ports[0]
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{Props: map[string]string{
		"secureClientPort":        strconv.Itoa(port),
		"secureClientPortAddress": "127.0.0.1",
		"serverCnxnFactory":       "org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location":   filepath.Join(dir, "server.pem"),
		"ssl.keyStore.type":       "PEM",
		"ssl.trustStore.location": filepath.Join(dir, "ca.pem"),
		"ssl.trustStore.type":     "PEM",
		"ssl.clientAuth":          "need",
	}})
	_ = zks
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cfg, err := TLSConfig(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{addr}, TLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !tree.Has("/zookeeper") {
		t.Errorf("read %d znodes, no /zookeeper", tree.Len())
	}
	noCert, _ := TLSConfig(filepath.Join(dir, "ca.pem"), "", "", "")
	_, err = ReadLive(context.Background(), LiveOptions{Servers: []string{addr}, TLS: noCert, SessionTimeout: 2 * time.Second})
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("without a client certificate: %v", err)
	}
}

func newCert(t *testing.T, parent *x509.Certificate, parentKey *rsa.PrivateKey, cn string, isCA bool) (*x509.Certificate, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:        isCA, BasicConstraintsValid: true,
	}
	if ip := net.ParseIP(cn); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
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

func writePEM(t *testing.T, path string, cert *x509.Certificate, key *rsa.PrivateKey) {
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
