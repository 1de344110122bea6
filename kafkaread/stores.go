package kafkaread

import (
	"crypto/x509"
	"errors"
)

// What a server.properties file's TLS and SASL settings name, read as
// Kafka reads them, for the online migration's checks of the controller
// listener (migrate/online): the certificate a node presents and the
// certificates it trusts, and the options of a JAAS configuration. The
// settings are the ssl.* of one listener (its listener.name.<l>.ssl.*
// overrides already applied) in Kafka's client spelling.

// ErrNoStore: the settings name no key store (or no trust store).
var ErrNoStore = errors.New("no store set")

// KeyStoreChain reads the certificate chain of the key store the ssl.*
// settings name (ssl.keystore.location with its type and passwords, or
// ssl.keystore.certificate.chain), leaf first; ErrNoStore when none is
// set.
func KeyStoreChain(ssl map[string]string) ([]*x509.Certificate, error) {
	cert, err := Config{Properties: ssl, PropertiesFile: "server.properties"}.keyStore()
	if err != nil {
		return nil, err
	}
	if cert == nil {
		return nil, ErrNoStore
	}
	var out []*x509.Certificate
	for _, raw := range cert.Certificate {
		c, err := x509.ParseCertificate(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// TrustStore reads the certificates the trust store of the ssl.*
// settings holds (ssl.truststore.location with its type and password,
// or ssl.truststore.certificates); ErrNoStore when none is set (Java
// then trusts its own cacerts).
func TrustStore(ssl map[string]string) (*x509.CertPool, error) {
	pool, err := Config{Properties: ssl, PropertiesFile: "server.properties"}.trustStore()
	if err != nil {
		return nil, err
	}
	if pool == nil {
		return nil, ErrNoStore
	}
	return pool, nil
}

// JAASEntry is one login module of a JAAS configuration.
type JAASEntry struct {
	Module, Flag string
	Options      map[string]string
}

// ParseJAAS parses a sasl.jaas.config value as Kafka's JaasConfig does.
// Its errors name the place, never a value.
func ParseJAAS(s string) ([]JAASEntry, error) {
	es, err := parseJAAS(s)
	if err != nil {
		return nil, err
	}
	out := make([]JAASEntry, len(es))
	for i, e := range es {
		out[i] = JAASEntry{Module: e.module, Flag: e.flag, Options: e.opts}
	}
	return out, nil
}

// ErrControllerNotLoaded: a controller asked directly (--bootstrap-controller)
// answers DescribeCluster with UNSUPPORTED_VERSION ("Direct-to-controller
// communication is not supported with the current MetadataVersion"): it
// takes its metadata.version from the metadata it has loaded, so a
// controller whose quorum has elected no leader yet (nothing loaded), or
// one below 3.7-IV0, cannot answer.
var ErrControllerNotLoaded = errors.New("the controller cannot answer directly yet: it has loaded no metadata at 3.7-IV0 or later (a quorum that has elected no leader, or an older metadata.version)")
