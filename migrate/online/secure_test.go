package online

import (
	"crypto/ecdsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// fakeStores is a StoreReader over certificates made in the test: a
// key store location names a chain, a trust store location a CA.
type fakeStores struct {
	chains map[string][]*x509.Certificate
	cas    map[string]*x509.Certificate
}

func (f fakeStores) KeyChain(ssl map[string]string) ([]*x509.Certificate, error) {
	loc := ssl["ssl.keystore.location"]
	if loc == "" {
		return nil, kafkaread.ErrNoStore
	}
	c, ok := f.chains[loc]
	if !ok {
		return nil, errors.New("no such file")
	}
	return c, nil
}

func (f fakeStores) Trust(ssl map[string]string) (*x509.CertPool, error) {
	loc := ssl["ssl.truststore.location"]
	if loc == "" {
		return nil, kafkaread.ErrNoStore
	}
	ca, ok := f.cas[loc]
	if !ok {
		return nil, errors.New("no such file")
	}
	p := x509.NewCertPool()
	p.AddCert(ca)
	return p, nil
}

func makeCert(t *testing.T, subject pkix.Name, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	if ca == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	}
	return kafkatest.SignedCert(t, tmpl, ca, caKey)
}

// tlsWorld is a CA that signed the brokers' certificate (CN=broker,
// O=kmeta test), another CA, and the stores naming them.
func tlsWorld(t *testing.T) fakeStores {
	ca, caKey := makeCert(t, pkix.Name{CommonName: "kmeta test CA"}, nil, nil)
	other, _ := makeCert(t, pkix.Name{CommonName: "kmeta other CA"}, nil, nil)
	broker, _ := makeCert(t, pkix.Name{CommonName: "broker", Organization: []string{"kmeta test"}}, ca, caKey)
	return fakeStores{
		chains: map[string][]*x509.Certificate{"/tls/broker.p12": {broker, ca}},
		cas:    map[string]*x509.Certificate{"/tls/truststore.p12": ca, "/tls/other.p12": other},
	}
}

// securedFile is a ZooKeeper-mode broker of one of the shapes
// production runs: "ssl" (one SSL listener, mutual TLS, AclAuthorizer,
// super users by TLS subject), "sasl_ssl" (SCRAM-SHA-512 between brokers
// and for clients), "sasl_plain" (SASL_PLAINTEXT with PLAIN), or
// "plaintext".
func securedFile(id int32, shape string) *Node {
	p := map[string]string{
		"broker.id": strconv.Itoa(int(id)), "zookeeper.connect": "zk:2181/kafka", "log.dirs": "/var/kafka",
		"inter.broker.protocol.version":  "3.9",
		"authorizer.class.name":          "kafka.security.authorizer.AclAuthorizer",
		"allow.everyone.if.no.acl.found": "false",
	}
	tls := map[string]string{
		"ssl.keystore.location": "/tls/broker.p12", "ssl.keystore.type": "PKCS12", "ssl.keystore.password": "ks-secret-" + strconv.Itoa(int(id)),
		"ssl.key.password": "key-secret", "ssl.truststore.location": "/tls/truststore.p12", "ssl.truststore.type": "PKCS12",
		"ssl.truststore.password": "ts-secret",
	}
	port := "909" + strconv.Itoa(int(id))
	switch shape {
	case "ssl":
		p["listeners"] = "SSL://127.0.0.1:" + port
		p["listener.security.protocol.map"] = "SSL:SSL"
		p["inter.broker.listener.name"] = "SSL"
		p["ssl.client.auth"] = "required"
		p["ssl.principal.mapping.rules"] = "RULE:^CN=([^,]+),O=kmeta test$/$1/L,DEFAULT"
		p["super.users"] = "User:broker"
		for k, v := range tls {
			p[k] = v
		}
	case "sasl_ssl":
		p["listeners"] = "SASL_SSL://127.0.0.1:" + port
		p["inter.broker.listener.name"] = "SASL_SSL"
		p["sasl.enabled.mechanisms"] = "SCRAM-SHA-512"
		p["sasl.mechanism.inter.broker.protocol"] = "SCRAM-SHA-512"
		p["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = `org.apache.kafka.common.security.scram.ScramLoginModule required username="kafka" password="scram-secret";`
		p["super.users"] = "User:kafka"
		for k, v := range tls {
			p[k] = v
		}
	case "sasl_plain":
		p["listeners"] = "SASL_PLAINTEXT://127.0.0.1:" + port
		p["inter.broker.listener.name"] = "SASL_PLAINTEXT"
		p["sasl.enabled.mechanisms"] = "PLAIN"
		p["sasl.mechanism.inter.broker.protocol"] = "PLAIN"
		p["listener.name.sasl_plaintext.plain.sasl.jaas.config"] = `org.apache.kafka.common.security.plain.PlainLoginModule required username="kafka" password="plain-secret" user_kafka="plain-secret";`
		p["super.users"] = "User:kafka"
	default:
		p["listeners"] = "PLAINTEXT://127.0.0.1:" + port
		p["super.users"] = "User:admin;User:ANONYMOUS"
	}
	return &Node{ID: id, Path: "/etc/kafka/server-" + strconv.Itoa(int(id)) + ".properties", Props: p}
}

func securedFiles(shape string) map[int32]*Node {
	return map[int32]*Node{1: securedFile(1, shape), 2: securedFile(2, shape), 3: securedFile(3, shape)}
}

var ctl3 = []controllers.Spec{{ID: 3000, Host: "127.0.0.1", Port: 9093}, {ID: 3001, Host: "127.0.0.1", Port: 9094}, {ID: 3002, Host: "127.0.0.1", Port: 9095}}

func stageSecured(t *testing.T, nodes map[int32]*Node, st StoreReader, proto string) *StageResult {
	t.Helper()
	r, err := Stage(Input{ZK: zkImage(), Nodes: nodes, Stores: st},
		StageOptions{Phase: KRaftMigration, Controllers: ctl3, MetadataDir: "/var/lib/kafka/ctl-{id}", ControllerProtocol: proto})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkCodes(fs []model.Finding, sev ...model.Severity) []string {
	var out []string
	for _, f := range fs {
		if len(sev) == 0 || slices.Contains(sev, f.Severity) {
			out = append(out, f.Code+"("+f.Entity+")")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The controller listener follows the cluster: its protocol, the TLS
// stores and SASL credentials of the brokers' inter-broker listener,
// written into the controllers' and the brokers' files alike; PLAIN
// instead of SCRAM; the principals the nodes present added to the
// controllers' super.users when missing.
func TestControllerListenerFollowsCluster(t *testing.T) {
	st := tlsWorld(t)
	for _, tc := range []struct {
		shape, proto string
		// want are settings of controller 3000's file and broker 2's.
		ctl, broker map[string]string
		info        []string
	}{
		{shape: "plaintext",
			ctl:    map[string]string{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT", "super.users": "User:admin;User:ANONYMOUS"},
			broker: map[string]string{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT"},
			info:   []string{"controller-listener-security(controller listener)"}},
		{shape: "ssl",
			ctl: map[string]string{"listener.security.protocol.map": "SSL:SSL,CONTROLLER:SSL", "listener.name.controller.ssl.keystore.location": "/tls/broker.p12",
				"listener.name.controller.ssl.client.auth": "required", "listener.name.controller.ssl.truststore.location": "/tls/truststore.p12",
				"listener.name.controller.ssl.principal.mapping.rules": "RULE:^CN=([^,]+),O=kmeta test$/$1/L,DEFAULT", "super.users": "User:broker",
				"authorizer.class.name": migrate.StandardAuthorizer, "allow.everyone.if.no.acl.found": "false", "inter.broker.listener.name": "SSL"},
			broker: map[string]string{"listener.security.protocol.map": "SSL:SSL,CONTROLLER:SSL", "listener.name.controller.ssl.keystore.password": "ks-secret-2",
				"listener.name.controller.ssl.client.auth": "required", "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"},
			info: []string{"controller-listener-security(controller listener)"}},
		{shape: "sasl_ssl",
			ctl: map[string]string{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:SASL_SSL",
				"sasl.mechanism.controller.protocol": "PLAIN", "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
				"listener.name.controller.plain.sasl.jaas.config":  `org.apache.kafka.common.security.plain.PlainLoginModule required username="kafka" password="scram-secret" user_kafka="scram-secret";`,
				"listener.name.controller.ssl.truststore.location": "/tls/truststore.p12", "super.users": "User:kafka",
				"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512"},
			broker: map[string]string{"sasl.mechanism.controller.protocol": "PLAIN",
				"listener.name.controller.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="kafka" password="scram-secret" user_kafka="scram-secret";`,
				"sasl.mechanism.inter.broker.protocol":            "SCRAM-SHA-512"},
			info: []string{"controller-listener-security(controller listener)"}},
		{shape: "sasl_plain",
			ctl: map[string]string{"sasl.mechanism.controller.protocol": "PLAIN", "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
				"listener.name.controller.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="kafka" password="plain-secret" user_kafka="plain-secret";`},
			broker: map[string]string{"sasl.mechanism.controller.protocol": "PLAIN"},
			info:   []string{"controller-listener-security(controller listener)"}},
		// SSL chosen on a SASL_SSL cluster: certificates are then the only
		// authentication, so they are required, and the brokers'
		// certificate subject becomes a super user of the controllers.
		{shape: "sasl_ssl", proto: "SSL",
			ctl: map[string]string{"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:SSL",
				"listener.name.controller.ssl.client.auth": "required", "super.users": "User:kafka;User:CN=broker,O=kmeta test"},
			broker: map[string]string{"listener.name.controller.ssl.client.auth": "required"},
			info:   []string{"controller-listener-security(controller listener)", "controller-super-users-added(controllers)"}},
	} {
		t.Run(tc.shape+"/"+tc.proto, func(t *testing.T) {
			r := stageSecured(t, securedFiles(tc.shape), st, tc.proto)
			if !r.Ready || !slices.Equal(checkCodes(r.Checks), tc.info) {
				t.Fatalf("ready %v, checks %v, want %v", r.Ready, checkCodes(r.Checks), tc.info)
			}
			for id, want := range map[int32]map[string]string{3000: tc.ctl, 2: tc.broker} {
				got := nodeProps(r.Nodes, id)
				for k, v := range want {
					if got[k] != v {
						t.Errorf("node %d: %s=%q, want %q", id, k, got[k], v)
					}
				}
			}
			// No node keeps a listener.name.controller.* setting the
			// protocol does not use.
			for _, n := range r.Nodes {
				proto := protocolOf(n.Props, "CONTROLLER")
				for k := range n.Props {
					if strings.HasPrefix(k, "listener.name.controller.ssl.") && !isTLS(proto) ||
						(strings.HasPrefix(k, "listener.name.controller.plain.") || k == "sasl.mechanism.controller.protocol") && !isSASL(proto) {
						t.Errorf("node %d (%s): %s", n.ID, proto, k)
					}
				}
			}
		})
	}
}

// Each combination that cannot elect a leader or register a broker is
// refused, with its code and only it.
func TestControllerListenerRefusals(t *testing.T) {
	st := tlsWorld(t)
	for name, tc := range map[string]struct {
		shape, proto string
		edit         func(map[int32]*Node)
		stores       StoreReader
		want         []string
	}{
		// PLAINTEXT with an authorizer: everyone is User:ANONYMOUS, which
		// is no super user; allow.everyone.if.no.acl.found=true does not
		// help before the authorizer has loaded the metadata.
		"anonymous": {shape: "plaintext", edit: func(ns map[int32]*Node) { setAll2(ns, "super.users", "User:admin") },
			want: []string{"controller-listener-anonymous(broker 1)", "controller-listener-anonymous(broker 2)", "controller-listener-anonymous(broker 3)",
				"controller-listener-anonymous(controller 3000)", "controller-listener-anonymous(controller 3001)", "controller-listener-anonymous(controller 3002)"}},
		"anonymous, allow.everyone": {shape: "plaintext", edit: func(ns map[int32]*Node) {
			setAll2(ns, "super.users", "User:admin")
			setAll2(ns, "allow.everyone.if.no.acl.found", "true")
		},
			want: []string{"controller-listener-anonymous(broker 1)", "controller-listener-anonymous(broker 2)", "controller-listener-anonymous(broker 3)",
				"controller-listener-anonymous(controller 3000)", "controller-listener-anonymous(controller 3001)", "controller-listener-anonymous(controller 3002)"}},
		// A trust store that holds another CA: nobody trusts anybody.
		"trust store of another CA": {shape: "ssl", edit: func(ns map[int32]*Node) { setAll2(ns, "ssl.truststore.location", "/tls/other.p12") },
			want: []string{"controller-tls-untrusted(broker 1)", "controller-tls-untrusted(broker 2)", "controller-tls-untrusted(broker 3)",
				"controller-tls-untrusted(controller 3000)", "controller-tls-untrusted(controller 3001)", "controller-tls-untrusted(controller 3002)"}},
		// No trust store: Java trusts the JDK's CAs, which did not sign
		// the test CA.
		"no trust store": {shape: "sasl_ssl", edit: func(ns map[int32]*Node) {
			for _, n := range ns {
				delete(n.Props, "ssl.truststore.location")
			}
		},
			want: []string{"controller-tls-untrusted(broker 1)", "controller-tls-untrusted(broker 2)", "controller-tls-untrusted(broker 3)",
				"controller-tls-untrusted(controller 3000)", "controller-tls-untrusted(controller 3001)", "controller-tls-untrusted(controller 3002)"}},
		// Certificates required, and broker 2 has none: the brokers' own
		// listener would not take it either, so it is given on another
		// listener that does not ask.
		"client auth without key store": {shape: "ssl", edit: func(ns map[int32]*Node) {
			p := ns[2].Props
			for _, k := range []string{"ssl.keystore.location", "ssl.keystore.type", "ssl.keystore.password", "ssl.key.password"} {
				delete(p, k)
			}
		},
			want: []string{"controller-principal-unknown(broker 2)", "controller-tls-keystore-missing(broker 2)"}},
		// SASL chosen on a TLS-only cluster: no mechanism, no JAAS (both
		// sides then default to GSSAPI, with no Kerberos settings).
		"sasl without settings": {shape: "ssl", proto: "SASL_SSL",
			want: []string{"controller-listener-settings-missing(broker 1)", "controller-listener-settings-missing(broker 2)", "controller-listener-settings-missing(broker 3)",
				"controller-principal-unknown(broker 1)", "controller-principal-unknown(broker 2)", "controller-principal-unknown(broker 3)",
				"controller-principal-unknown(controller 3000)", "controller-principal-unknown(controller 3001)", "controller-principal-unknown(controller 3002)"}},
	} {
		t.Run(name, func(t *testing.T) {
			nodes := securedFiles(tc.shape)
			if tc.edit != nil {
				tc.edit(nodes)
			}
			stores := tc.stores
			if stores == nil {
				stores = st
			}
			r := stageSecured(t, nodes, stores, tc.proto)
			got := checkCodes(r.Checks, model.SevError, model.SevWarning)
			if r.Ready || !slices.Equal(got, tc.want) {
				t.Errorf("ready %v, checks\n%v\nwant\n%v", r.Ready, got, tc.want)
			}
		})
	}
}

func setAll2(ns map[int32]*Node, k, v string) {
	for _, n := range ns {
		n.Props[k] = v
	}
}

// The combinations an operator makes by editing the staged files are
// found in them: status names each, and the next roll is refused.
func TestControllerListenerEditedFiles(t *testing.T) {
	st := tlsWorld(t)
	staged := func(shape string) map[int32]*Node {
		r := stageSecured(t, securedFiles(shape), st, "")
		if !r.Ready {
			t.Fatalf("%s: refused: %v", shape, checkCodes(r.Checks))
		}
		out := map[int32]*Node{}
		for _, n := range r.Nodes {
			out[n.ID] = &Node{ID: n.ID, Props: n.Props}
		}
		return out
	}
	for name, tc := range map[string]struct {
		shape string
		edit  func(map[int32]*Node)
		want  []string
	}{
		"mechanisms differ": {shape: "sasl_ssl", edit: func(ns map[int32]*Node) { ns[2].Props["sasl.mechanism.controller.protocol"] = "SCRAM-SHA-512" },
			want: []string{"controller-principal-unknown(broker 2)", "controller-sasl-mechanism-mismatch(broker 2)"}},
		"scram between controllers": {shape: "sasl_ssl", edit: func(ns map[int32]*Node) {
			setAll2(ns, "sasl.mechanism.controller.protocol", "SCRAM-SHA-512")
			setAll2(ns, "listener.name.controller.sasl.enabled.mechanisms", "SCRAM-SHA-512")
			setAll2(ns, "listener.name.controller.scram-sha-512.sasl.jaas.config", `org.apache.kafka.common.security.scram.ScramLoginModule required username="kafka" password="scram-secret";`)
		},
			want: []string{"controller-sasl-scram(controller 3000)", "controller-sasl-scram(controller 3001)", "controller-sasl-scram(controller 3002)"}},
		"protocols differ": {shape: "ssl", edit: func(ns map[int32]*Node) {
			ns[3].Props["listener.security.protocol.map"] = "SSL:SSL,CONTROLLER:PLAINTEXT"
		},
			want: []string{"controller-protocol-mismatch(broker 3)"}},
		"principal not a super user": {shape: "ssl", edit: func(ns map[int32]*Node) {
			for _, id := range []int32{3000, 3001, 3002} {
				ns[id].Props["super.users"] = "User:admin"
			}
		},
			want: []string{"controller-principal-not-super-user(broker 1)", "controller-principal-not-super-user(broker 2)", "controller-principal-not-super-user(broker 3)",
				"controller-principal-not-super-user(controller 3000)", "controller-principal-not-super-user(controller 3001)", "controller-principal-not-super-user(controller 3002)"}},
		"stores elsewhere": {shape: "ssl", edit: func(ns map[int32]*Node) {
			setAll2(ns, "listener.name.controller.ssl.keystore.location", "/elsewhere/broker.p12")
		},
			want: []string{"controller-principal-unknown(broker 1)", "controller-principal-unknown(broker 2)", "controller-principal-unknown(broker 3)",
				"controller-principal-unknown(controller 3000)", "controller-principal-unknown(controller 3001)", "controller-principal-unknown(controller 3002)",
				"controller-tls-stores-unread(broker 1)", "controller-tls-stores-unread(broker 2)", "controller-tls-stores-unread(broker 3)",
				"controller-tls-stores-unread(controller 3000)", "controller-tls-stores-unread(controller 3001)", "controller-tls-stores-unread(controller 3002)"}},
	} {
		t.Run(name, func(t *testing.T) {
			ns := staged(tc.shape)
			tc.edit(ns)
			st2, err := Observe(Input{ZK: zkImage(), Nodes: ns, Stores: st})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range checkCodes(st2.Findings, model.SevError, model.SevWarning) {
				if strings.HasPrefix(c, "controller-") {
					got = append(got, c)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("status:\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

// Kafka's SslPrincipalMapper: the first rule that applies, $n groups,
// /L and /U, DEFAULT; none applies: an error (Kafka refuses).
func TestMapSSLPrincipal(t *testing.T) {
	dn := "CN=broker-1,OU=Kafka,O=kmeta test,C=FR"
	for rules, want := range map[string]string{
		"":        dn,
		"DEFAULT": dn,
		`RULE:^CN=(.*?),OU=(.*?),O=(.*?),C=(.*?)$/$1@$2/L,DEFAULT`: "broker-1@kafka",
		`RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,DEFAULT`:            dn,
		`RULE:^CN=([^,]+),.*$/$1/U`:                                "BROKER-1",
		`RULE:^.*[Cc][Nn]=([a-zA-Z0-9.-]*).*$/$1/L, DEFAULT`:       "broker-1",
		`RULE:^CN=broker-(\d),.*$/node-$1x/`:                       "node-1x",
		`RULE:^CN=nomatch$/x/`:                                     "",
	} {
		got, err := mapSSLPrincipal(rules, dn)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("rules %q: %q, %v; want %q", rules, got, err, want)
		}
	}
}

// The subject is printed as Java's X500Principal.getName() does: RFC
// 2253, the last RDN first, with its escapes.
func TestJavaDN(t *testing.T) {
	c, _ := makeCert(t, pkix.Name{CommonName: "a, b", Organization: []string{"kmeta test"}, Country: []string{"FR"},
		OrganizationalUnit: []string{"#ops"}}, nil, nil)
	if got, want := javaDN(c.RawSubject), `CN=a\, b,OU=\#ops,O=kmeta test,C=FR`; got != want {
		t.Errorf("javaDN = %q, want %q", got, want)
	}
}

// A quorum whose controllers run without a leader is named, with the
// files' reason, instead of "waiting for the controllers to start".
func TestStatusQuorumWithoutLeader(t *testing.T) {
	st := tlsWorld(t)
	nodes := securedFiles("plaintext")
	setAll2(nodes, "super.users", "User:admin")
	r := stageSecured(t, nodes, st, "")
	files := map[int32]*Node{}
	for _, n := range r.Nodes {
		files[n.ID] = &Node{ID: n.ID, Props: n.Props}
	}
	k := model.NewImage()
	k.ClusterID = zkImage().ClusterID
	k.Migration = nil
	s, err := Observe(Input{ZK: zkImage(), KRaft: k, Nodes: files, Stores: st, Election: &Election{LeaderID: -1, LeaderEpoch: 1600, VotedID: 3000}})
	if err != nil {
		t.Fatal(err)
	}
	var f *model.Finding
	for i := range s.Findings {
		if s.Findings[i].Code == CodeQuorumNoLeader {
			f = &s.Findings[i]
		}
	}
	if f == nil || !strings.Contains(f.Message, "epoch 1600, no leader") || !strings.Contains(f.Message, "controller 3000: controller-listener-anonymous") {
		t.Fatalf("findings %v", s.Findings)
	}
	if !slices.Contains(s.WaitingFor, "the controllers to elect a leader: they run, but the quorum has none") || s.Healthy {
		t.Errorf("waiting for %q, healthy %v", s.WaitingFor, s.Healthy)
	}
}

// A roll staged out of order is refused for that alone: the files it
// would make from the wrong phase's are not checked (they are nobody's).
func TestOutOfOrderRollHasNoListenerFindings(t *testing.T) {
	st := tlsWorld(t)
	r := stageSecured(t, securedFiles("ssl"), st, "")
	nodes := securedFiles("ssl")
	for _, n := range r.Nodes {
		if n.Role == RoleController {
			nodes[n.ID] = &Node{ID: n.ID, Props: n.Props}
		}
	}
	k := model.NewImage()
	k.ClusterID = zkImage().ClusterID
	out, err := Stage(Input{ZK: zkImage(), KRaft: k, Nodes: nodes, Stores: st}, StageOptions{Phase: KRaftPostMigration})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Checks {
		if strings.HasPrefix(f.Code, "controller-") {
			t.Errorf("out-of-order KRaftPostMigration: %s(%s): %s", f.Code, f.Entity, f.Message)
		}
	}
	if out.Ready {
		t.Error("out-of-order KRaftPostMigration is ready")
	}
}
