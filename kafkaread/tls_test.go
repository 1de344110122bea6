package kafkaread

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// testPKI is a CA and a certificate it signed for localhost and
// 127.0.0.1, and a CA that signed nothing.
type testPKI struct {
	ca, leaf, other *x509.Certificate
	leafKey         *ecdsa.PrivateKey
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	mk := func(tmpl, parent *x509.Certificate, signer *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
		return kafkatest.SignedCert(t, tmpl, parent, signer)
	}
	now := time.Now()
	caTmpl := func(n int64, cn string) *x509.Certificate {
		return &x509.Certificate{SerialNumber: big.NewInt(n), Subject: pkix.Name{CommonName: cn}, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	}
	ca, caKey := mk(caTmpl(1, "test CA"), nil, nil)
	other, _ := mk(caTmpl(2, "other CA"), nil, nil)
	leaf, leafKey := mk(&x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}},
		ca, caKey)
	return &testPKI{ca: ca, leaf: leaf, other: other, leafKey: leafKey}
}

func pemOf(certs ...*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return b.Bytes()
}

func (p *testPKI) keyPEM(t *testing.T) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(p.leafKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func jksStore(t *testing.T, pass string, fill func(keystore.KeyStore)) []byte {
	t.Helper()
	ks := keystore.New()
	fill(ks)
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(pass)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const storePass = "st0re-secret"

func TestTLSStores(t *testing.T) {
	p := newTestPKI(t)
	trustedJKS := jksStore(t, storePass, func(ks keystore.KeyStore) {
		if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{CreationTime: time.Now(),
			Certificate: keystore.Certificate{Type: "X509", Content: p.ca.Raw}}); err != nil {
			t.Fatal(err)
		}
	})
	trustP12, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{p.ca}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	keyP12, err := pkcs12.Modern.Encode(p.leafKey, p.leaf, []*x509.Certificate{p.ca}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(p.leafKey)
	if err != nil {
		t.Fatal(err)
	}
	keyJKS := jksStore(t, storePass, func(ks keystore.KeyStore) {
		if err := ks.SetPrivateKeyEntry("client", keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: pkcs8,
			CertificateChain: []keystore.Certificate{{Type: "X509", Content: p.leaf.Raw}, {Type: "X509", Content: p.ca.Raw}}},
			[]byte("k3y-secret")); err != nil {
			t.Fatal(err)
		}
	})
	caPEM := writeFile(t, "ca.pem", pemOf(p.ca))
	ssl := func(kv ...string) map[string]string {
		m := map[string]string{"security.protocol": "SSL"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		props   map[string]string
		class   error    // nil: accepted
		want    []string // in the message
		keyPair bool     // accepted with a client certificate
	}{
		{"no trust store", ssl(), nil, nil, false},
		{"PEM file", ssl("ssl.truststore.type", "PEM", "ssl.truststore.location", caPEM), nil, nil, false},
		{"inline PEM", ssl("ssl.truststore.type", "PEM", "ssl.truststore.certificates", string(pemOf(p.ca))), nil, nil, false},
		{"inline PEM without type PEM", ssl("ssl.truststore.certificates", string(pemOf(p.ca))), ErrConfig, []string{"ssl.truststore.type=PEM"}, false},
		{"JKS", ssl("ssl.truststore.location", writeFile(t, "t.jks", trustedJKS), "ssl.truststore.password", storePass), nil, nil, false},
		{"JKS without a password", ssl("ssl.truststore.type", "JKS", "ssl.truststore.location", writeFile(t, "t.jks", trustedJKS)), nil, nil, false},
		{"JKS wrong password", ssl("ssl.truststore.location", writeFile(t, "t.jks", trustedJKS), "ssl.truststore.password", "wr0ng-secret"),
			ErrConfig, []string{"wrong password", "JKS"}, false},
		{"PKCS12", ssl("ssl.truststore.type", "pkcs12", "ssl.truststore.location", writeFile(t, "t.p12", trustP12), "ssl.truststore.password", storePass), nil, nil, false},
		// The JDK's JKS store (Kafka's default type) reads PKCS12 too.
		{"PKCS12 without a type", ssl("ssl.truststore.location", writeFile(t, "t.p12", trustP12), "ssl.truststore.password", storePass), nil, nil, false},
		{"PKCS12 typed JKS", ssl("ssl.truststore.type", "JKS", "ssl.truststore.location", writeFile(t, "t.p12", trustP12), "ssl.truststore.password", storePass), nil, nil, false},
		{"PKCS12 key store without a type", ssl("ssl.keystore.location", writeFile(t, "k.p12", keyP12), "ssl.keystore.password", storePass), nil, nil, true},
		{"PKCS12 wrong password", ssl("ssl.truststore.type", "PKCS12", "ssl.truststore.location", writeFile(t, "t.p12", trustP12), "ssl.truststore.password", "wr0ng-secret"),
			ErrConfig, []string{"PKCS12", "password"}, false},
		{"JKS that is PEM", ssl("ssl.truststore.location", caPEM), ErrConfig, []string{"not a JKS store"}, false},
		{"missing file", ssl("ssl.truststore.type", "PEM", "ssl.truststore.location", filepath.Join(t.TempDir(), "nope.pem")), ErrConfig, []string{"nope.pem"}, false},
		{"empty PEM", ssl("ssl.truststore.type", "PEM", "ssl.truststore.location", writeFile(t, "e.pem", []byte("nothing"))), ErrConfig, []string{"no certificate"}, false},
		{"BCFKS trust store", ssl("ssl.truststore.type", "BCFKS", "ssl.truststore.location", caPEM), ErrUnsupported, []string{"BCFKS", "PEM, PKCS12 and JKS"}, false},
		{"PKCS12 key store", ssl("ssl.keystore.type", "PKCS12", "ssl.keystore.location", writeFile(t, "k.p12", keyP12), "ssl.keystore.password", storePass), nil, nil, true},
		{"JKS key store", ssl("ssl.keystore.location", writeFile(t, "k.jks", keyJKS), "ssl.keystore.password", storePass, "ssl.key.password", "k3y-secret"), nil, nil, true},
		{"JKS key store wrong key password", ssl("ssl.keystore.location", writeFile(t, "k.jks", keyJKS), "ssl.keystore.password", storePass, "ssl.key.password", "wr0ng-secret"),
			ErrConfig, []string{"key store"}, false},
		{"PEM key store file", ssl("ssl.keystore.type", "PEM", "ssl.keystore.location", writeFile(t, "k.pem", append(pemOf(p.leaf, p.ca), p.keyPEM(t)...))), nil, nil, true},
		{"inline PEM key store", ssl("ssl.keystore.type", "PEM", "ssl.keystore.certificate.chain", string(pemOf(p.leaf, p.ca)), "ssl.keystore.key", string(p.keyPEM(t))), nil, nil, true},
		{"inline PEM key store without key", ssl("ssl.keystore.type", "PEM", "ssl.keystore.certificate.chain", string(pemOf(p.leaf))), ErrConfig, []string{"no private key"}, false},
		{"encrypted PEM key", ssl("ssl.keystore.type", "PEM", "ssl.keystore.certificate.chain", string(pemOf(p.leaf)),
			"ssl.keystore.key", string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}})), "ssl.key.password", "k3y-secret"),
			ErrUnsupported, []string{"encrypted PKCS#8"}, false},
		{"BCFKS key store", ssl("ssl.keystore.type", "BCFKS", "ssl.keystore.location", caPEM), ErrUnsupported, []string{"BCFKS"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Properties: tc.props, PropertiesFile: "client.properties"}
			sec, err := cfg.parseSecurity()
			if tc.class != nil {
				if !errors.Is(err, tc.class) {
					t.Fatalf("error %v, want class %v", err, tc.class)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("message %q lacks %q", err, w)
					}
				}
				for _, secret := range []string{storePass, "wr0ng-secret", "k3y-secret"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("message %q holds a password", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.props["ssl.truststore.location"] != "" || tc.props["ssl.truststore.certificates"] != "" {
				if _, err := p.leaf.Verify(x509.VerifyOptions{Roots: sec.tls.RootCAs, DNSName: "localhost"}); err != nil {
					t.Errorf("the trust store does not verify the server: %v", err)
				}
			} else if sec.tls.RootCAs != nil {
				t.Error("no trust store, yet roots other than the system's")
			}
			if !tc.keyPair {
				if len(sec.tls.Certificates) != 0 {
					t.Errorf("%d client certificates, want none", len(sec.tls.Certificates))
				}
				return
			}
			if len(sec.tls.Certificates) != 1 {
				t.Fatalf("%d client certificates, want 1", len(sec.tls.Certificates))
			}
			c := sec.tls.Certificates[0]
			if len(c.Certificate) != 2 || !bytes.Equal(c.Certificate[0], p.leaf.Raw) || !bytes.Equal(c.Certificate[1], p.ca.Raw) {
				t.Errorf("client chain of %d certificates, want the leaf and the CA", len(c.Certificate))
			}
			if k, ok := c.PrivateKey.(*ecdsa.PrivateKey); !ok || !k.Equal(p.leafKey) {
				t.Errorf("client key %T is not the leaf's", c.PrivateKey)
			}
		})
	}
}

// ssl.endpoint.identification.algorithm= (empty) skips the host name check
// and nothing else.
func TestTLSHostNameCheckOff(t *testing.T) {
	p := newTestPKI(t)
	for _, tc := range []struct {
		alg   *string
		check bool // the host name is checked (by crypto/tls)
	}{{nil, true}, {new("https"), true}, {new(""), false}, {new(" "), false}} {
		props := map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": string(pemOf(p.ca))}
		if tc.alg != nil {
			props["ssl.endpoint.identification.algorithm"] = *tc.alg
		}
		sec, err := Config{Properties: props}.parseSecurity()
		if err != nil {
			t.Fatal(err)
		}
		if sec.tls.InsecureSkipVerify == tc.check || (sec.tls.VerifyConnection != nil) == tc.check {
			t.Errorf("algorithm %v: InsecureSkipVerify %v", tc.alg, sec.tls.InsecureSkipVerify)
		}
		if tc.check {
			continue
		}
		if err := sec.tls.VerifyConnection(tls.ConnectionState{PeerCertificates: []*x509.Certificate{p.leaf}}); err != nil {
			t.Errorf("algorithm %q: the CA's certificate refused: %v", *tc.alg, err)
		}
		if err := sec.tls.VerifyConnection(tls.ConnectionState{PeerCertificates: []*x509.Certificate{p.other}}); err == nil {
			t.Errorf("algorithm %q: another CA's certificate accepted", *tc.alg)
		}
	}
}
