package kafkaread

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// The expected options were checked against Kafka 4.4.0's own parser
// (JaasContext.loadClientContext on each line).
func TestParseJAAS(t *testing.T) {
	const plainModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	for _, tc := range []struct {
		jaas string
		want map[string]string // nil: an error
	}{
		{plainModule + ` required username="alice" password="a\"b\\c";`, map[string]string{"username": "alice", "password": `a"b\c`}},
		{plainModule + ` required username='alice' password='p w;d';`, map[string]string{"username": "alice", "password": "p w;d"}},
		{plainModule + ` required username=alice password=secret;`, map[string]string{"username": "alice", "password": "secret"}},
		{plainModule + ` required username="alice" password="x\ty\nz\q";`, map[string]string{"username": "alice", "password": "x\ty\nzq"}},
		{plainModule + ` required username="alice" password="a\101b";`, map[string]string{"username": "alice", "password": "aAb"}},
		{plainModule + ` required username = "alice"  password = "s" ;`, map[string]string{"username": "alice", "password": "s"}},
		{plainModule + ` REQUIRED /* a comment */ username="alice" // another
			password="s";`, map[string]string{"username": "alice", "password": "s"}},
		{"org.apache.kafka.common.security.scram.ScramLoginModule required username=\"tok\" password=\"hmac\" tokenauth=\"true\";",
			map[string]string{"username": "tok", "password": "hmac", "tokenauth": "true"}},
		{plainModule + ` required username="alice" password="s"`, nil},     // no ';'
		{plainModule + ` username="alice" password="s";`, nil},             // no control flag
		{plainModule + ` required username="alice" password="s;`, nil},     // quote not closed
		{plainModule + ` required username="alice" password;`, nil},        // no '='
		{plainModule + ` required username="alice" password=;`, nil},       // no value
		{plainModule + ` required /* username="alice" password="s";`, nil}, // comment not closed
	} {
		got, err := parseJAAS(tc.jaas)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: parsed as %+v, want an error", tc.jaas, got)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%s: %+v, %v", tc.jaas, got, err)
			continue
		}
		if !maps.Equal(got[0].opts, tc.want) {
			t.Errorf("%s: options %q, want %q", tc.jaas, got[0].opts, tc.want)
		}
	}
}

func TestSASLSettings(t *testing.T) {
	const (
		plainJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s3cr3t-pw";`
		scramJAAS = `org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="s3cr3t-pw";`
	)
	for _, tc := range []struct {
		name  string
		props map[string]string
		class error    // nil: accepted
		want  []string // in the message, or, accepted, the mechanism
	}{
		{"PLAIN", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": plainJAAS}, nil, []string{"PLAIN"}},
		{"SCRAM-SHA-512", map[string]string{"security.protocol": "sasl_ssl", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": scramJAAS}, nil, []string{"SCRAM-SHA-512"}},
		{"SCRAM-SHA-256", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": scramJAAS}, nil, []string{"SCRAM-SHA-256"}},
		{"unknown protocol", map[string]string{"security.protocol": "TLS"}, ErrConfig, []string{`"TLS"`, "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"}},
		{"GSSAPI by default", map[string]string{"security.protocol": "SASL_PLAINTEXT"}, ErrUnsupported, []string{"GSSAPI", "Kerberos"}},
		{"GSSAPI", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"}, ErrUnsupported, []string{"GSSAPI"}},
		{"OAUTHBEARER", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER"}, ErrUnsupported, []string{"OAUTHBEARER"}},
		{"another mechanism", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "AWS_MSK_IAM"}, ErrUnsupported, []string{"AWS_MSK_IAM"}},
		{"no JAAS", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}, ErrConfig, []string{"sasl.jaas.config"}},
		{"no username", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required password="s3cr3t-pw";`}, ErrConfig, []string{"no username"}},
		{"no password", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice";`}, ErrConfig, []string{"no password"}},
		{"PLAIN with the SCRAM module", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": scramJAAS},
			ErrConfig, []string{"ScramLoginModule", "does not fit sasl.mechanism PLAIN"}},
		{"SCRAM with the PLAIN module", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": plainJAAS},
			ErrConfig, []string{"PlainLoginModule", "does not fit sasl.mechanism SCRAM-SHA-512"}},
		{"Kerberos module", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="kafka@X";`},
			ErrConfig, []string{"no username"}},
		{"two modules", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": plainJAAS + " " + plainJAAS},
			ErrConfig, []string{"2 login modules"}},
		{"JAAS without ';'", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": strings.TrimSuffix(plainJAAS, ";")},
			ErrConfig, []string{"';'"}},
		{"tokenauth with PLAIN", map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": strings.Replace(plainJAAS, ";", ` tokenauth="true";`, 1)}, ErrConfig, []string{"tokenauth"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Properties: tc.props, PropertiesFile: "client.properties"}
			sec, err := cfg.parseSecurity()
			if tc.class == nil {
				if err != nil {
					t.Fatal(err)
				}
				if sec.mechName != tc.want[0] {
					t.Errorf("mechanism %s, want %s", sec.mechName, tc.want[0])
				}
				return
			}
			if !errors.Is(err, tc.class) {
				t.Fatalf("error %v, want class %v", err, tc.class)
			}
			msg := err.Error()
			for _, w := range append([]string{"client.properties"}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "s3cr3t-pw") {
				t.Errorf("message %q holds the password", msg)
			}
		})
	}
}

func TestSCRAMToken(t *testing.T) {
	cfg := Config{Properties: map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
		"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="tokenid" password="hmac" tokenauth=true;`}}
	cr, err := cfg.saslCredentials()
	if err != nil {
		t.Fatal(err)
	}
	if want := (saslCreds{mech: "SCRAM-SHA-256", user: "tokenid", pass: "hmac", token: true}); cr != want {
		t.Errorf("%+v, want %+v", cr, want)
	}
}

// TestForControllers: a controller is dialled with
// --controller-command-config's settings; without them, with the client
// file's listener.name.<listener>. keys over the rest.
func TestForControllers(t *testing.T) {
	base := map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
		"listener.name.controller.security.protocol": "PLAINTEXT"}
	c := Config{Properties: base, PropertiesFile: "client.properties"}
	if got := c.forControllers().Properties; got["security.protocol"] != "SASL_SSL" {
		t.Errorf("no listener known: %v", got)
	}
	c.listener = "CONTROLLER"
	got := c.forControllers().Properties
	if got["security.protocol"] != "PLAINTEXT" || got["sasl.mechanism"] != "SCRAM-SHA-512" || len(got) != 2 {
		t.Errorf("listener CONTROLLER: %v", got)
	}
	if base["security.protocol"] != "SASL_SSL" {
		t.Error("the client's own settings were changed")
	}
	c.ControllerProperties, c.ControllerPropertiesFile = map[string]string{"security.protocol": "SSL"}, "ctl.properties"
	if g := c.forControllers(); g.Properties["security.protocol"] != "SSL" || g.PropertiesFile != "ctl.properties" {
		t.Errorf("--controller-command-config: %+v", g)
	}
}
