package online

import (
	"crypto/x509"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/kafkaread"
)

// Settings of the controller listener's security.
const (
	keyCtlMechanism     = "sasl.mechanism.controller.protocol"
	keyIBMechanism      = "sasl.mechanism.inter.broker.protocol"
	keyEnabledMechs     = "sasl.enabled.mechanisms"
	keySuperUsers       = "super.users"
	keyAllowEveryone    = "allow.everyone.if.no.acl.found"
	keyPrincipalRules   = "ssl.principal.mapping.rules"
	keyPrincipalBuilder = "principal.builder.class"
	keyClientAuth       = "ssl.client.auth"
	keyKerberosRules    = "sasl.kerberos.principal.to.local.rules"
	// ctlPrefix is the controller listener's override prefix: Kafka reads
	// a listener's settings under listener.name.<name in lower case>.
	// first, on the side that listens and on the side that connects.
	ctlPrefix = "listener.name.controller."
)

// The security protocols of a listener.
const (
	ProtoPlaintext     = "PLAINTEXT"
	ProtoSSL           = "SSL"
	ProtoSASLPlaintext = "SASL_PLAINTEXT"
	ProtoSASLSSL       = "SASL_SSL"
)

// Protocols are the security protocols, for --controller-listener-protocol.
var Protocols = []string{ProtoPlaintext, ProtoSSL, ProtoSASLPlaintext, ProtoSASLSSL}

// ParseProtocol reads a security protocol name.
func ParseProtocol(s string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(s))
	if !slices.Contains(Protocols, p) {
		return "", fmt.Errorf("%w: security protocol %q, want one of %s", ErrBadInput, s, strings.Join(Protocols, ", "))
	}
	return p, nil
}

func isTLS(proto string) bool  { return proto == ProtoSSL || proto == ProtoSASLSSL }
func isSASL(proto string) bool { return proto == ProtoSASLPlaintext || proto == ProtoSASLSSL }

// protocolOf is the security protocol of listener l in a file: its entry
// in listener.security.protocol.map (Kafka's default map when unset: each
// protocol is a listener of its own name); "" when the map lacks it.
func protocolOf(p map[string]string, l string) string {
	pm := p[keyProtocolMap]
	if strings.TrimSpace(pm) == "" {
		pm = defaultProtocolMap
	}
	for _, e := range strings.Split(pm, ",") {
		name, proto, ok := strings.Cut(e, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), strings.TrimSpace(l)) {
			return strings.ToUpper(strings.TrimSpace(proto))
		}
	}
	return ""
}

// withProtocol sets the CONTROLLER entry of a protocol map to proto,
// keeping the others.
func withProtocol(pm, proto string) string {
	if strings.TrimSpace(pm) == "" {
		pm = defaultProtocolMap
	}
	var out []string
	for _, e := range strings.Split(pm, ",") {
		if e = strings.TrimSpace(e); e != "" && !strings.HasPrefix(strings.ToUpper(e), controllers.Listener+":") {
			out = append(out, e)
		}
	}
	return strings.Join(append(out, controllers.Listener+":"+proto), ",")
}

// ctlListenerName is the listener a file uses for the controllers: the
// first of controller.listener.names.
func ctlListenerName(p map[string]string) string {
	if v, _, _ := strings.Cut(p[keyListenerNames], ","); strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	return controllers.Listener
}

// listenerSettings are the settings of listener l that keep selects,
// as Kafka reads them for it: each top-level key, replaced by its
// listener.name.<l>. override where the file has one.
func listenerSettings(p map[string]string, l string, keep func(string) bool) map[string]string {
	out := map[string]string{}
	pre := "listener.name." + strings.ToLower(l) + "."
	for k, v := range p {
		if keep(k) && !strings.HasPrefix(k, "listener.name.") {
			out[k] = v
		}
	}
	for k, v := range p {
		if rest, ok := strings.CutPrefix(k, pre); ok && keep(rest) {
			out[rest] = v
		}
	}
	return out
}

func isSSLKey(k string) bool { return strings.HasPrefix(k, "ssl.") }

// hasKeyStore says whether TLS settings name a key store.
func hasKeyStore(ssl map[string]string) bool {
	return strings.TrimSpace(ssl["ssl.keystore.location"]) != "" || strings.TrimSpace(ssl["ssl.keystore.certificate.chain"]) != ""
}

// hasTrustStore says whether TLS settings name a trust store.
func hasTrustStore(ssl map[string]string) bool {
	return strings.TrimSpace(ssl["ssl.truststore.location"]) != "" || strings.TrimSpace(ssl["ssl.truststore.certificates"]) != ""
}

// clientAuth is a listener's ssl.client.auth (none by default).
func clientAuth(ssl map[string]string) string {
	if v := strings.ToLower(strings.TrimSpace(ssl[keyClientAuth])); v != "" {
		return v
	}
	return "none"
}

// jaasKey is where a listener's JAAS for a mechanism lives.
func jaasKey(listener, mech string) string {
	return "listener.name." + strings.ToLower(listener) + "." + strings.ToLower(mech) + ".sasl.jaas.config"
}

// plainJAAS renders a PLAIN login module for user: the client side's
// username and password, and the server side's user_<name> entry.
func plainJAAS(user, pass string) string {
	q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
	return "org.apache.kafka.common.security.plain.PlainLoginModule required username=" + q(user) + " password=" + q(pass) + " user_" + user + "=" + q(pass) + ";"
}

// jaasUser reads username and password of a JAAS configuration's one
// login module.
func jaasUser(jaas string) (user, pass string, opts map[string]string, ok bool) {
	es, err := kafkaread.ParseJAAS(jaas)
	if err != nil || len(es) != 1 {
		return "", "", nil, false
	}
	o := es[0].Options
	return o["username"], o["password"], o, true
}

// ctlSettings makes the controller listener's settings for one node from
// its own ZooKeeper-mode file p (a broker's; for a controller, the
// template broker's): the listener's protocol proto, and what that
// protocol needs — the TLS stores of the node's inter-broker listener,
// its SASL mechanism and JAAS — written as listener.name.controller.*
// (both the side that listens and the side that connects read them
// there first), and sasl.mechanism.controller.protocol. The controller
// listener thus authenticates a node as its inter-broker listener does,
// with one exception: SCRAM cannot authenticate the controllers (its
// credentials live in the metadata log, which they cannot read before
// they have elected a leader, KAFKA-15513), so an inter-broker SCRAM
// user is given PLAIN with its own name and password, over the same TLS.
// notes say what was chosen; problem what the file lacks for proto.
func ctlSettings(p map[string]string, proto string) (out map[string]string, notes []string, problem string) {
	out = map[string]string{}
	ibl := interBrokerListener(p)
	if isTLS(proto) {
		ssl := listenerSettings(p, ibl, isSSLKey)
		for k, v := range ssl {
			out[ctlPrefix+k] = v
		}
		// An SSL listener authenticates by certificate only: without a
		// client certificate every peer is User:ANONYMOUS.
		if proto == ProtoSSL && hasKeyStore(ssl) && clientAuth(ssl) != "required" {
			out[ctlPrefix+keyClientAuth] = "required"
			notes = append(notes, "ssl.client.auth=required on the controller listener: an SSL listener knows its peers only by their certificates")
		}
	}
	if !isSASL(proto) {
		return out, notes, ""
	}
	mech := strings.ToUpper(strings.TrimSpace(p[keyIBMechanism]))
	if mech == "" {
		mech = "GSSAPI" // Kafka's default
	}
	if !isSASL(protocolOf(p, ibl)) {
		return out, notes, fmt.Sprintf("its inter-broker listener %s is not a SASL listener: there is no mechanism and JAAS to give the controller listener", ibl)
	}
	jaas := p[jaasKey(ibl, mech)]
	cmech := mech
	switch {
	case strings.HasPrefix(mech, "SCRAM-"):
		user, pass, _, ok := jaasUser(jaas)
		if !ok || user == "" || pass == "" {
			return out, notes, fmt.Sprintf("its inter-broker mechanism is %s, which cannot authenticate the controllers (KAFKA-15513), and %s holds no username and password to use PLAIN with", mech, jaasKey(ibl, mech))
		}
		cmech, jaas = "PLAIN", plainJAAS(user, pass)
		notes = append(notes, fmt.Sprintf("PLAIN as %s on the controller listener: %s cannot authenticate controllers to each other (its credentials are in the metadata log they cannot read before electing a leader, KAFKA-15513)", user, mech))
	case mech == "PLAIN":
		if user, pass, opts, ok := jaasUser(jaas); ok && user != "" && opts["user_"+user] == "" {
			// The controllers check their peers against user_ entries.
			jaas = plainJAAS(user, pass)
		}
	}
	out[keyCtlMechanism] = cmech
	out[ctlPrefix+keyEnabledMechs] = cmech
	if jaas != "" {
		out[ctlPrefix+strings.ToLower(cmech)+".sasl.jaas.config"] = jaas
	} else {
		notes = append(notes, fmt.Sprintf("%s is not in the file (a JAAS file given with -Djava.security.auth.login.config?): the controllers need it too, in its KafkaServer section", jaasKey(ibl, mech)))
	}
	// The mechanism's other listener settings (callback handlers, login
	// classes) go with it.
	mpre := "listener.name." + strings.ToLower(ibl) + "." + strings.ToLower(mech) + "."
	for k, v := range p {
		if rest, ok := strings.CutPrefix(k, mpre); ok && rest != "sasl.jaas.config" && cmech == mech {
			out[ctlPrefix+strings.ToLower(cmech)+"."+rest] = v
		}
	}
	return out, notes, ""
}

// applyCtlSettings puts a node's controller-listener settings into its
// file: the protocol in its map, and the settings, replacing any
// listener.name.controller.* the file had.
func applyCtlSettings(out map[string]string, proto string, settings map[string]string) {
	for k := range out {
		if strings.HasPrefix(k, ctlPrefix) || k == keyCtlMechanism {
			delete(out, k)
		}
	}
	maps.Copy(out, settings)
	out[keyProtocolMap] = withProtocol(out[keyProtocolMap], proto)
}

// defaultProtocol is the controller listener's protocol when none is
// chosen: the inter-broker listener's.
func defaultProtocol(p map[string]string) string {
	if proto := protocolOf(p, interBrokerListener(p)); proto != "" {
		return proto
	}
	return ProtoPlaintext
}

// StoreReader reads the TLS stores a node's settings name (ssl.* of one
// listener, overrides applied). cmd gives FileStores; nil reads none,
// and the checks that need a certificate say they could not be made.
type StoreReader interface {
	// KeyChain is the key store's certificate chain, leaf first.
	KeyChain(ssl map[string]string) ([]*x509.Certificate, error)
	// Trust is the trust store's certificates.
	Trust(ssl map[string]string) (*x509.CertPool, error)
}

// FileStores reads stores from the files the settings name, as Kafka
// does (JKS, PKCS12, PEM), through kafkaread.
type FileStores struct{}

// KeyChain implements StoreReader.
func (FileStores) KeyChain(ssl map[string]string) ([]*x509.Certificate, error) {
	return kafkaread.KeyStoreChain(ssl)
}

// Trust implements StoreReader.
func (FileStores) Trust(ssl map[string]string) (*x509.CertPool, error) {
	return kafkaread.TrustStore(ssl)
}

// superUsers reads super.users (';'-separated principals).
func superUsers(p map[string]string) []string {
	var out []string
	for _, u := range strings.Split(p[keySuperUsers], ";") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Anonymous is the principal of a peer that did not authenticate.
const Anonymous = "User:ANONYMOUS"

// principalOf is the principal client presents to server on the
// controller listener, as Kafka's DefaultKafkaPrincipalBuilder makes it:
// the SASL user (PLAIN and SCRAM: the JAAS username; GSSAPI: the
// Kerberos principal's first component under the DEFAULT rule), the TLS
// subject of its certificate under the server's ssl.principal.mapping.rules
// (when the server asks for certificates), else ANONYMOUS. "" and why
// when kmeta cannot tell.
func principalOf(client, server map[string]string, st StoreReader) (principal, why string) {
	if b := strings.TrimSpace(server[keyPrincipalBuilder]); b != "" && !strings.HasSuffix(b, ".DefaultKafkaPrincipalBuilder") {
		return "", "the controllers set principal.builder.class " + b
	}
	sl, cl := ctlListenerName(server), ctlListenerName(client)
	proto := protocolOf(server, sl)
	switch {
	case isSASL(proto):
		mech := strings.ToUpper(strings.TrimSpace(client[keyCtlMechanism]))
		if mech == "" {
			mech = "GSSAPI"
		}
		jaas := client[jaasKey(cl, mech)]
		if jaas == "" {
			return "", "its file has no " + jaasKey(cl, mech) + " (a static JAAS file?)"
		}
		user, _, opts, ok := jaasUser(jaas)
		switch {
		case !ok:
			return "", jaasKey(cl, mech) + " does not parse"
		case mech == "PLAIN" || strings.HasPrefix(mech, "SCRAM-"):
			if user == "" {
				return "", jaasKey(cl, mech) + " has no username"
			}
			return "User:" + user, ""
		case mech == "GSSAPI":
			kp := opts["principal"]
			if r := strings.TrimSpace(server[keyKerberosRules]); r != "" && r != "DEFAULT" {
				return "", "the controllers set sasl.kerberos.principal.to.local.rules, which kmeta does not evaluate"
			}
			if kp == "" {
				return "", jaasKey(cl, mech) + " names no Kerberos principal"
			}
			short, _, _ := strings.Cut(kp, "@")
			short, _, _ = strings.Cut(short, "/")
			return "User:" + short, ""
		}
		return "", "kmeta does not know the principals of SASL mechanism " + mech
	case proto == ProtoSSL:
		auth := clientAuth(listenerSettings(server, sl, isSSLKey))
		if auth == "none" {
			return Anonymous, ""
		}
		ssl := listenerSettings(client, cl, isSSLKey)
		if !hasKeyStore(ssl) {
			if auth == "required" {
				return "", "it has no key store, and the controllers require a certificate"
			}
			return Anonymous, ""
		}
		if st == nil {
			return "", "its key store was not read"
		}
		chain, err := st.KeyChain(ssl)
		if err != nil {
			return "", fmt.Sprintf("its key store %s cannot be read here (%v)", ssl["ssl.keystore.location"], err)
		}
		dn := javaDN(chain[0].RawSubject)
		rules := listenerSettings(server, sl, isSSLKey)[keyPrincipalRules]
		name, err := mapSSLPrincipal(rules, dn)
		if err != nil {
			return "", fmt.Sprintf("its certificate's subject %q: %v", dn, err)
		}
		return "User:" + name, ""
	}
	return Anonymous, ""
}
