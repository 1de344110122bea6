package online

import (
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/model"
)

// ctlNode is one node's file as the controller listener sees it.
type ctlNode struct {
	entity string
	props  map[string]string
}

// enabledMechs are the SASL mechanisms a controller enables on its
// controller listener.
func enabledMechs(p map[string]string) []string {
	v := listenerSettings(p, ctlListenerName(p), func(k string) bool { return k == keyEnabledMechs })[keyEnabledMechs]
	if strings.TrimSpace(v) == "" {
		v = "GSSAPI" // Kafka's default
	}
	var out []string
	for _, m := range strings.Split(v, ",") {
		if m = strings.ToUpper(strings.TrimSpace(m)); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// ctlMechanism is the SASL mechanism a node connects to the controllers
// with.
func ctlMechanism(p map[string]string) string {
	if m := strings.ToUpper(strings.TrimSpace(p[keyCtlMechanism])); m != "" {
		return m
	}
	return "GSSAPI"
}

// checkControllerListener checks that every node of nodes can reach the
// controllers of ctls on the controller listener and be let in: one
// protocol, the TLS stores it needs (a key store to listen with, one to
// present when certificates are required, a trust store that holds the
// peers' CA), one SASL mechanism that can authenticate controllers, and,
// under an authorizer, a principal the controllers count as super user
// (their authorizer refuses everyone else until it has loaded the
// metadata, which takes a leader). nodes holds the controllers too: they
// connect to each other. st reads the TLS stores (nil: not read).
func checkControllerListener(ctls, nodes []ctlNode, st StoreReader) []model.Finding {
	var fs []model.Finding
	seen := map[string]bool{}
	add := func(code, entity, msg, fix string) {
		if seen[code+"\x00"+entity] {
			return
		}
		seen[code+"\x00"+entity] = true
		c := SecureChecks.Must(code)
		if fix == "" {
			fix = c.Fix
		}
		fs = append(fs, c.Finding(entity, msg, fix))
	}
	for _, s := range ctls {
		proto := protocolOf(s.props, ctlListenerName(s.props))
		if proto == "" {
			add(CodeCtlProtocolMismatch, s.entity, fmt.Sprintf("its listener.security.protocol.map has no entry for its controller listener %s: Kafka does not start", ctlListenerName(s.props)), "")
			continue
		}
		ssl := listenerSettings(s.props, ctlListenerName(s.props), isSSLKey)
		if isTLS(proto) && !hasKeyStore(ssl) {
			add(CodeCtlKeyStoreMissing, s.entity, fmt.Sprintf("its controller listener is %s but it has no key store to listen with", proto), "")
		}
		if isSASL(proto) && strings.HasPrefix(ctlMechanism(s.props), "SCRAM-") {
			add(CodeCtlSCRAM, s.entity, fmt.Sprintf("sasl.mechanism.controller.protocol=%s: the controllers cannot authenticate each other with SCRAM before the quorum has a leader (its credentials are in the metadata log, KAFKA-15513)", ctlMechanism(s.props)), "")
		}
	}
	for _, c := range nodes {
		cl := ctlListenerName(c.props)
		cproto := protocolOf(c.props, cl)
		for _, s := range ctls {
			if s.entity == c.entity {
				continue // a controller does not connect to itself
			}
			sl := ctlListenerName(s.props)
			sproto := protocolOf(s.props, sl)
			if sproto == "" {
				continue
			}
			if cproto != sproto {
				got := cproto
				if got == "" {
					got = "no protocol (listener.security.protocol.map has no " + cl + ")"
				}
				add(CodeCtlProtocolMismatch, c.entity, fmt.Sprintf("it connects to the controllers with %s; %s listens with %s", got, s.entity, sproto), "")
				continue
			}
			sssl, cssl := listenerSettings(s.props, sl, isSSLKey), listenerSettings(c.props, cl, isSSLKey)
			if isTLS(sproto) {
				if clientAuth(sssl) == "required" && !hasKeyStore(cssl) {
					add(CodeCtlKeyStoreMissing, c.entity, fmt.Sprintf("%s requires a client certificate on its controller listener (ssl.client.auth=required) and it has no key store", s.entity), "")
				}
				checkTrust(c, s, cssl, sssl, st, add)
			}
			if isSASL(sproto) {
				m := ctlMechanism(c.props)
				if en := enabledMechs(s.props); !slices.Contains(en, m) {
					add(CodeCtlMechanismMismatch, c.entity, fmt.Sprintf("it connects with SASL mechanism %s; %s enables %s on its controller listener", m, s.entity, strings.Join(en, ",")), "")
				}
			}
			if strings.TrimSpace(s.props[keyAuthorizer]) == "" {
				continue
			}
			p, why := principalOf(c.props, s.props, st)
			supers := superUsers(s.props)
			switch {
			case p == "":
				add(CodeCtlPrincipalUnknown, c.entity, "its principal on the controller listener is not known here: "+why+"; "+s.entity+"'s authorizer lets in only its super users until it has loaded the metadata", "")
			case slices.Contains(supers, p):
			case p == Anonymous:
				add(CodeCtlAnonymous, c.entity, fmt.Sprintf("it reaches %s as %s (the controller listener is %s%s), and %s runs %s without it in super.users: every Vote and registration is refused until the authorizer has loaded the metadata, which takes a leader (AuthorizerNotReadyException); allow.everyone.if.no.acl.found does not apply before that",
					s.entity, Anonymous, sproto, map[bool]string{true: " without client certificates", false: ""}[sproto == ProtoSSL], s.entity, shortClass(s.props[keyAuthorizer])), "")
			default:
				add(CodeCtlNotSuperUser, c.entity, fmt.Sprintf("it reaches %s as %s, which is not in %s's super.users", s.entity, p, s.entity),
					fmt.Sprintf("add %s to super.users in every controller's file", p))
			}
		}
	}
	model.SortFindings(fs)
	return fs
}

func shortClass(c string) string { return c[strings.LastIndex(c, ".")+1:] }

// checkTrust checks that each end trusts the certificate the other
// presents: the client the controller's always, the controller the
// client's when it asks for one.
func checkTrust(c, s ctlNode, cssl, sssl map[string]string, st StoreReader, add func(code, entity, msg, fix string)) {
	if st == nil {
		add(CodeCtlStoresUnread, c.entity, "the TLS stores were not read", "")
		return
	}
	verify := func(who ctlNode, trust map[string]string, peer ctlNode, peerSSL map[string]string) {
		if !hasKeyStore(peerSSL) {
			return
		}
		chain, err := st.KeyChain(peerSSL)
		if err != nil {
			add(CodeCtlStoresUnread, who.entity, fmt.Sprintf("%s's key store %s cannot be read here (%v)", peer.entity, peerSSL["ssl.keystore.location"], err), "")
			return
		}
		pool, err := st.Trust(trust)
		what := "its trust store " + trust["ssl.truststore.location"]
		switch {
		case errors.Is(err, kafkaread.ErrNoStore):
			what = "it sets no trust store, so Java trusts only the JDK's own CAs, and"
			if pool, err = x509.SystemCertPool(); err != nil {
				add(CodeCtlStoresUnread, who.entity, "it sets no trust store and the system's CAs cannot be read here", "")
				return
			}
		case err != nil:
			add(CodeCtlStoresUnread, who.entity, fmt.Sprintf("its trust store %s cannot be read here (%v)", trust["ssl.truststore.location"], err), "")
			return
		}
		opts := x509.VerifyOptions{Roots: pool, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
		for _, ic := range chain[1:] {
			opts.Intermediates.AddCert(ic)
		}
		if _, err := chain[0].Verify(opts); err != nil {
			add(CodeCtlUntrusted, who.entity, fmt.Sprintf("%s does not hold the CA of %s's certificate (%s, issued by %s) on the controller listener", what, peer.entity, javaDN(chain[0].RawSubject), javaDN(chain[0].RawIssuer)), "")
		}
	}
	verify(c, cssl, s, sssl)
	if a := clientAuth(sssl); a == "required" || a == "requested" {
		verify(s, sssl, c, cssl)
	}
}

// listenerNodes are the nodes of files (by id) as the controller
// listener sees them: the controllers (process.roles=controller), and
// every node that connects to them (the controllers, the brokers in
// migration mode or KRaft mode; ZooKeeper-mode brokers do not).
func listenerNodes(files map[int32]map[string]string) (ctls, nodes []ctlNode) {
	for _, id := range slices.Sorted(maps.Keys(files)) {
		p := files[id]
		n := &Node{ID: id, Props: p}
		switch n.Profile() {
		case ControllerMigrating, ControllerKRaft:
			cn := ctlNode{entity: fmt.Sprintf("controller %d", id), props: p}
			ctls = append(ctls, cn)
			nodes = append(nodes, cn)
		case BrokerMigrating, BrokerKRaft:
			nodes = append(nodes, ctlNode{entity: fmt.Sprintf("broker %d", id), props: p})
		}
	}
	return ctls, nodes
}
