package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TLSPassword protects every store and key the harness makes.
const TLSPassword = "kmeta-tls-secret"

// TLSFiles are the certificates and stores of a cluster with SSL listeners,
// made in the test with the JDK's keytool (the tool Kafka users make theirs
// with): a CA, a server certificate it signed for localhost and 127.0.0.1, a
// client certificate it signed (mutual TLS), and a second CA that signed
// nothing the cluster uses. Every store and key has the password
// TLSPassword. Keys are EC P-256: an RSA key costs keytool seconds.
type TLSFiles struct {
	Dir string

	CAPEM      string // the CA certificate, PEM
	OtherCAPEM string // another CA's certificate, PEM: trusting it alone fails

	TrustJKS    string // trust store holding the CA, JKS
	TrustPKCS12 string // the same as PKCS12 (keytool marks the entry trusted)

	ServerKeyStore     string // the brokers' key store: the server key, its chain and the CA
	ServerKeyStoreType string // JKS or PKCS12

	ClientKeyJKS    string // the client's key and chain (mutual TLS), JKS
	ClientKeyPKCS12 string // the same as PKCS12
}

// SANs the server certificate names. A client that connects through any
// other name or address (127.0.0.2, see Node.SSLAltPort) fails the host
// name check.
const tlsServerSAN = "dns:localhost,ip:127.0.0.1"

// keytool is the JDK tool beside the java the harness runs.
func (d *Distribution) keytool() (string, error) {
	java, err := filepath.EvalSymlinks(d.Java)
	if err != nil {
		return "", fmt.Errorf("kafkatest: %w", err)
	}
	p := filepath.Join(filepath.Dir(java), "keytool")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("kafkatest: no keytool beside %s (install a JDK, not a JRE): %w", java, err)
	}
	return p, nil
}

// MakeTLS makes a TLSFiles in dir; serverStoreType is JKS or PKCS12
// (empty: PKCS12, keytool's default).
//
// keytool makes one set per store type and JDK in a test process (17 JVM
// runs, seconds of CPU); later calls get copies of its files, byte for
// byte, so that clusters started side by side do not each pay for them.
func MakeTLS(t testing.TB, d *Distribution, dir, serverStoreType string) *TLSFiles {
	t.Helper()
	start := time.Now()
	key := strings.ToUpper(serverStoreType)
	if key == "" {
		key = "PKCS12"
	}
	m := tlsMemoFor(d.Java + "\x00" + key)
	m.Lock()
	defer m.Unlock()
	if m.files != nil {
		tf, err := m.copyTo(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("kafkatest: TLS stores copied from the ones keytool made in this process (%s)", time.Since(start).Round(time.Millisecond))
		return tf
	}
	tf, err := makeTLS(d, dir, serverStoreType)
	if err == nil {
		err = m.keep(tf)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kafkatest: TLS stores made with keytool in %s", time.Since(start).Round(time.Millisecond))
	return tf
}

// tlsMemo is what keytool made for one key of MakeTLS: every file of its
// dir, and the TLSFiles naming them there.
type tlsMemo struct {
	sync.Mutex
	files map[string][]byte
	tf    TLSFiles
}

var tlsMemos struct {
	sync.Mutex
	m map[string]*tlsMemo
}

func tlsMemoFor(key string) *tlsMemo {
	tlsMemos.Lock()
	defer tlsMemos.Unlock()
	if tlsMemos.m == nil {
		tlsMemos.m = map[string]*tlsMemo{}
	}
	if tlsMemos.m[key] == nil {
		tlsMemos.m[key] = &tlsMemo{}
	}
	return tlsMemos.m[key]
}

func (m *tlsMemo) keep(tf *TLSFiles) error {
	ents, err := os.ReadDir(tf.Dir)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tf.Dir, e.Name()))
		if err != nil {
			return fmt.Errorf("kafkatest: %w", err)
		}
		files[e.Name()] = b
	}
	m.files, m.tf = files, *tf
	return nil
}

// copyTo writes the kept files into dir and returns the TLSFiles naming
// them there.
func (m *tlsMemo) copyTo(dir string) (*TLSFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	for name, b := range m.files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, fmt.Errorf("kafkatest: %w", err)
		}
	}
	tf := m.tf
	tf.Dir = dir
	for _, p := range []*string{&tf.CAPEM, &tf.OtherCAPEM, &tf.TrustJKS, &tf.TrustPKCS12, &tf.ServerKeyStore, &tf.ClientKeyJKS, &tf.ClientKeyPKCS12} {
		*p = filepath.Join(dir, filepath.Base(*p))
	}
	return &tf, nil
}

func makeTLS(d *Distribution, dir, serverStoreType string) (*TLSFiles, error) {
	kt, err := d.keytool()
	if err != nil {
		return nil, err
	}
	if serverStoreType == "" {
		serverStoreType = "PKCS12"
	}
	serverStoreType = strings.ToUpper(serverStoreType)
	if serverStoreType != "JKS" && serverStoreType != "PKCS12" {
		return nil, fmt.Errorf("kafkatest: server key store type %q: JKS or PKCS12", serverStoreType)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	ext := map[string]string{"JKS": "jks", "PKCS12": "p12"}
	f := func(name string) string { return filepath.Join(dir, name) }
	tf := &TLSFiles{
		Dir:                dir,
		CAPEM:              f("ca.pem"),
		OtherCAPEM:         f("other-ca.pem"),
		TrustJKS:           f("truststore.jks"),
		TrustPKCS12:        f("truststore.p12"),
		ServerKeyStore:     f("server." + ext[serverStoreType]),
		ServerKeyStoreType: serverStoreType,
		ClientKeyJKS:       f("client.jks"),
		ClientKeyPKCS12:    f("client.p12"),
	}
	run := func(args ...string) error {
		// C1 only and a serial GC: keytool runs for half a second.
		a := []string{"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Djava.awt.headless=true"}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kt, append(a, args...)...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("kafkatest: keytool %s: %w\n%s", strings.Join(args, " "), err, out.String())
		}
		return nil
	}
	pass := []string{"-storepass", TLSPassword}
	genKey := func(store, typ, alias, dname string, ca bool) error {
		args := []string{"-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
			"-dname", dname, "-validity", "2", "-keystore", store, "-storetype", typ, "-keypass", TLSPassword}
		if ca {
			args = append(args, "-ext", "bc:c", "-ext", "ku:c=keyCertSign,cRLSign")
		}
		return run(append(args, pass...)...)
	}
	export := func(store, alias, pem string) error {
		return run(append([]string{"-exportcert", "-rfc", "-alias", alias, "-keystore", store, "-file", pem}, pass...)...)
	}
	trust := func(store, typ, pem string) error {
		return run(append([]string{"-importcert", "-noprompt", "-alias", "ca", "-file", pem,
			"-keystore", store, "-storetype", typ}, pass...)...)
	}
	// signed makes alias's key in store, has the CA sign it with the SANs,
	// and imports the CA and the signed certificate back (keytool builds the
	// chain from the CA entry).
	signed := func(store, typ, alias, dname, san string) error {
		csr, crt := f(alias+".csr"), f(alias+".pem")
		steps := []func() error{
			func() error { return genKey(store, typ, alias, dname, false) },
			func() error {
				return run(append([]string{"-certreq", "-alias", alias, "-keystore", store, "-file", csr}, pass...)...)
			},
			func() error {
				args := []string{"-gencert", "-alias", "ca", "-keystore", f("ca.p12"), "-infile", csr, "-outfile", crt,
					"-rfc", "-validity", "2", "-ext", "eku=serverAuth,clientAuth"}
				if san != "" {
					args = append(args, "-ext", "san="+san)
				}
				return run(append(args, pass...)...)
			},
			func() error { return trust(store, typ, tf.CAPEM) },
			func() error {
				return run(append([]string{"-importcert", "-noprompt", "-alias", alias, "-file", crt, "-keystore", store}, pass...)...)
			},
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return err
			}
		}
		return nil
	}
	steps := []func() error{
		func() error { return genKey(f("ca.p12"), "PKCS12", "ca", "CN=kmeta test CA", true) },
		func() error { return export(f("ca.p12"), "ca", tf.CAPEM) },
		func() error { return genKey(f("other-ca.p12"), "PKCS12", "other", "CN=kmeta other CA", true) },
		func() error { return export(f("other-ca.p12"), "other", tf.OtherCAPEM) },
		func() error { return trust(tf.TrustJKS, "JKS", tf.CAPEM) },
		func() error { return trust(tf.TrustPKCS12, "PKCS12", tf.CAPEM) },
		func() error {
			return signed(tf.ServerKeyStore, serverStoreType, "server", "CN=localhost,O=kmeta test", tlsServerSAN)
		},
		func() error {
			return signed(tf.ClientKeyPKCS12, "PKCS12", "client", "CN=kmeta-client,O=kmeta test", "")
		},
		func() error {
			return run("-importkeystore", "-noprompt", "-srckeystore", tf.ClientKeyPKCS12, "-srcstoretype", "PKCS12",
				"-srcstorepass", TLSPassword, "-destkeystore", tf.ClientKeyJKS, "-deststoretype", "JKS",
				"-deststorepass", TLSPassword, "-destkeypass", TLSPassword)
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	return tf, nil
}

// sslProps are a broker's TLS settings: its key store, and the trust store
// it checks client certificates against (on the MTLS listener, which
// requires one; the other TLS listeners ask for none).
func sslProps(tf *TLSFiles, sasl bool) map[string]string {
	p := map[string]string{
		"ssl.keystore.location":                 tf.ServerKeyStore,
		"ssl.keystore.type":                     tf.ServerKeyStoreType,
		"ssl.keystore.password":                 TLSPassword,
		"ssl.key.password":                      TLSPassword,
		"ssl.truststore.location":               tf.TrustPKCS12,
		"ssl.truststore.type":                   "PKCS12",
		"ssl.truststore.password":               TLSPassword,
		"listener.name.mtls.ssl.client.auth":    "required",
		"ssl.endpoint.identification.algorithm": "https",
	}
	if sasl {
		p["listener.name.sasl_ssl.plain.sasl.jaas.config"] = plainJAASServer
		p["listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config"] = scramJAASServer
		p["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = scramJAASServer
	}
	return p
}
