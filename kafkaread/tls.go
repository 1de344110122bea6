package kafkaread

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/kmeta/kmeta/model"
)

// tlsConfig builds the TLS configuration of the ssl.* settings: the trust
// store (the system's roots when none is given, as Java uses its cacerts),
// the key store for mutual TLS, and host name checking.
func (c Config) tlsConfig() (*tls.Config, error) {
	p := c.Properties
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	roots, err := c.trustStore()
	if err != nil {
		return nil, err
	}
	t.RootCAs = roots
	cert, err := c.keyStore()
	if err != nil {
		return nil, err
	}
	if cert != nil {
		t.Certificates = []tls.Certificate{*cert}
	}
	// Kafka's default is "https": the server's certificate must name the
	// host. An explicitly empty value turns the check off (the chain is
	// still verified).
	if alg, set := p["ssl.endpoint.identification.algorithm"]; set && strings.TrimSpace(alg) == "" {
		t.InsecureSkipVerify = true
		t.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("the server sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return t, nil
}

func storeType(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	if v == "" {
		return "JKS" // Kafka's default ssl.*store.type
	}
	return v
}

// jksMagic starts a JKS store (0xFEEDFEED).
var jksMagic = []byte{0xfe, 0xed, 0xfe, 0xed}

// storeFormat is the format a store of type typ is read in. The JDK's
// "JKS" key store (Java 9+, keystore.type.compat) reads a PKCS12 file
// too: a store of type JKS, which is also Kafka's default when
// ssl.*store.type is not set, that is not a JKS file (no magic) and is
// DER (a PKCS12 PFX is an ASN.1 SEQUENCE) is read as PKCS12, as the
// client Kafka runs on would.
func storeFormat(typ string, data []byte) string {
	if typ == "JKS" && !bytes.HasPrefix(data, jksMagic) && len(data) > 0 && data[0] == 0x30 {
		return "PKCS12"
	}
	return typ
}

// trustStore reads the certificates the server's chain must end in; nil
// (the system's roots) when no trust store is set.
func (c Config) trustStore() (*x509.CertPool, error) {
	p := c.Properties
	typ := storeType(p["ssl.truststore.type"])
	loc, inline := p["ssl.truststore.location"], p["ssl.truststore.certificates"]
	if loc == "" && inline == "" {
		return nil, nil
	}
	var certs []*x509.Certificate
	var data []byte
	if inline != "" {
		if typ != "PEM" {
			return nil, c.settingError(ErrConfig, "ssl.truststore.certificates needs ssl.truststore.type=PEM")
		}
		data = []byte(inline)
	} else {
		b, err := model.ReadInput(loc, model.InputKeyStore)
		if err != nil {
			return nil, c.fileSettingError("ssl.truststore.location", loc, err)
		}
		data = b
	}
	pass := p["ssl.truststore.password"]
	var err error
	if inline == "" {
		typ = storeFormat(typ, data)
	}
	switch typ {
	case "PEM":
		certs, err = pemCertificates(data)
	case "PKCS12":
		certs, err = pkcs12.DecodeTrustStore(data, pass)
		if err != nil {
			// A PKCS12 store made with a private key entry only, or one
			// whose certificates lack Java's trusted-key-usage mark.
			var chain []*x509.Certificate
			if _, leaf, cas, e2 := pkcs12.DecodeChain(data, pass); e2 == nil {
				chain = append([]*x509.Certificate{leaf}, cas...)
				certs, err = chain, nil
			}
		}
	case "JKS":
		certs, err = jksCertificates(data, pass)
	default:
		return nil, c.settingError(ErrUnsupported, "ssl.truststore.type %s is not supported by kmeta; PEM, PKCS12 and JKS are", shownName(typ))
	}
	if err != nil {
		return nil, c.settingError(ErrConfig, "trust store %s (%s): %v", shownPath(loc), typ, err)
	}
	if len(certs) == 0 {
		return nil, c.settingError(ErrConfig, "trust store %s (%s) holds no certificate", shownPath(loc), typ)
	}
	pool := x509.NewCertPool()
	for _, ct := range certs {
		pool.AddCert(ct)
	}
	return pool, nil
}

// keyStore reads the client's own certificate and key, for brokers that
// require client authentication; nil when none is set.
func (c Config) keyStore() (*tls.Certificate, error) {
	p := c.Properties
	typ := storeType(p["ssl.keystore.type"])
	loc := p["ssl.keystore.location"]
	chainPEM, keyPEM := p["ssl.keystore.certificate.chain"], p["ssl.keystore.key"]
	if loc == "" && chainPEM == "" {
		return nil, nil
	}
	storePass, keyPass := p["ssl.keystore.password"], p["ssl.key.password"]
	if keyPass == "" {
		keyPass = storePass
	}
	if chainPEM != "" {
		if typ != "PEM" {
			return nil, c.settingError(ErrConfig, "ssl.keystore.certificate.chain needs ssl.keystore.type=PEM")
		}
		return c.pemKeyPair([]byte(chainPEM), []byte(keyPEM), "ssl.keystore.key")
	}
	data, err := model.ReadInput(loc, model.InputKeyStore)
	if err != nil {
		return nil, c.fileSettingError("ssl.keystore.location", loc, err)
	}
	switch typ = storeFormat(typ, data); typ {
	case "PEM":
		// One file with the chain and the key, as Kafka's PEM key store.
		return c.pemKeyPair(data, data, loc)
	case "PKCS12":
		key, leaf, cas, err := pkcs12.DecodeChain(data, storePass)
		if err != nil {
			return nil, c.settingError(ErrConfig, "key store %s (PKCS12): %v", shownPath(loc), err)
		}
		return chainCert(key, append([]*x509.Certificate{leaf}, cas...)), nil
	case "JKS":
		cert, err := jksKeyPair(data, storePass, keyPass)
		if err != nil {
			return nil, c.settingError(ErrConfig, "key store %s (JKS): %v", shownPath(loc), err)
		}
		return cert, nil
	}
	return nil, c.settingError(ErrUnsupported, "ssl.keystore.type %s is not supported by kmeta; PEM, PKCS12 and JKS are", shownName(typ))
}

func chainCert(key crypto.PrivateKey, chain []*x509.Certificate) *tls.Certificate {
	cert := &tls.Certificate{PrivateKey: key, Leaf: chain[0]}
	for _, ct := range chain {
		cert.Certificate = append(cert.Certificate, ct.Raw)
	}
	return cert
}

func pemCertificates(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		ct, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, ct)
	}
	return out, nil
}

// pemKeyPair reads a PEM chain and its private key (PKCS#8, encrypted
// PKCS#8 is not supported by Go's library and is named as such).
func (c Config) pemKeyPair(chainPEM, keyPEM []byte, where string) (*tls.Certificate, error) {
	chain, err := pemCertificates(chainPEM)
	if err != nil || len(chain) == 0 {
		return nil, c.settingError(ErrConfig, "%s: no usable certificate chain (%v)", where, err)
	}
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, c.settingError(ErrConfig, "%s: no private key", where)
		}
		switch b.Type {
		case "ENCRYPTED PRIVATE KEY":
			return nil, c.settingError(ErrUnsupported, "%s: an encrypted PKCS#8 key (ssl.key.password) is not supported by kmeta; give the key unencrypted, or use a PKCS12 or JKS key store", where)
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			cert, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: chain[0].Raw}), pem.EncodeToMemory(b))
			if err != nil {
				return nil, c.settingError(ErrConfig, "%s: %v", where, err)
			}
			for _, ct := range chain[1:] {
				cert.Certificate = append(cert.Certificate, ct.Raw)
			}
			return &cert, nil
		}
	}
}

// errJKSMagic is keystore-go's answer to a file that is no JKS store.
const errJKSMagic = "got invalid magic"

// errJKSDigest is keystore-go's answer to a JKS store whose integrity
// check fails: a wrong store password (or a damaged file).
const errJKSDigest = "got invalid digest"

func jksLoad(data []byte, pass string) (keystore.KeyStore, error) {
	ks := keystore.New()
	err := ks.Load(bytes.NewReader(data), []byte(pass))
	return ks, jksError(err)
}

// jksError says what keystore-go's two common errors mean.
func jksError(err error) error {
	switch {
	case err == nil:
		return nil
	case err.Error() == errJKSDigest:
		return fmt.Errorf("wrong password, or a damaged store (its integrity check fails)")
	case err.Error() == errJKSMagic:
		return fmt.Errorf("not a JKS store (JKS is Kafka's default store type; set the type: PEM or PKCS12)")
	}
	return err
}

func jksCertificates(data []byte, pass string) ([]*x509.Certificate, error) {
	ks := keystore.New()
	err := ks.Load(bytes.NewReader(data), []byte(pass))
	// Java reads a JKS trust store without a password and only skips its
	// integrity check (Kafka: "If a password is not set, trust store file
	// configured will still be used, but integrity checking is
	// disabled"). keystore-go reads every entry before it checks the
	// digest, so without a password the digest alone is let go.
	if err != nil && !(pass == "" && err.Error() == errJKSDigest) {
		return nil, jksError(err)
	}
	var out []*x509.Certificate
	for _, a := range ks.Aliases() {
		var raw [][]byte
		if ks.IsTrustedCertificateEntry(a) {
			e, err := ks.GetTrustedCertificateEntry(a)
			if err != nil {
				return nil, err
			}
			raw = append(raw, e.Certificate.Content)
		}
		for _, r := range raw {
			ct, err := x509.ParseCertificate(r)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", a, err)
			}
			out = append(out, ct)
		}
	}
	return out, nil
}

func jksKeyPair(data []byte, storePass, keyPass string) (*tls.Certificate, error) {
	ks, err := jksLoad(data, storePass)
	if err != nil {
		return nil, err
	}
	for _, a := range ks.Aliases() {
		if !ks.IsPrivateKeyEntry(a) {
			continue
		}
		e, err := ks.GetPrivateKeyEntry(a, []byte(keyPass))
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", a, err)
		}
		key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", a, err)
		}
		var chain []*x509.Certificate
		for _, cc := range e.CertificateChain {
			ct, err := x509.ParseCertificate(cc.Content)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", a, err)
			}
			chain = append(chain, ct)
		}
		if len(chain) == 0 {
			return nil, fmt.Errorf("entry %q has no certificate", a)
		}
		return chainCert(key, chain), nil
	}
	return nil, fmt.Errorf("no private key entry")
}

// fileSettingError is the refusal of a store a setting names: the reader's
// error, which quotes the path, only when the path is one (shownPath).
func (c Config) fileSettingError(key, loc string, err error) error {
	if shownPath(loc) != loc {
		return c.settingError(ErrConfig, "%s %s cannot be read", key, shownPath(loc))
	}
	return c.settingError(ErrConfig, "%s: %v", key, err)
}
