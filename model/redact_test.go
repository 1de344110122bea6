package model

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkNoAlias fails for every map, slice backing array or pointer that a
// and b share. Both must have the same shape (b a clone of a).
func checkNoAlias(t *testing.T, a, b any) {
	t.Helper()
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		switch x.Kind() {
		case reflect.Pointer:
			if x.IsNil() || y.IsNil() {
				return
			}
			if x.Pointer() == y.Pointer() {
				t.Errorf("%s: pointer shared", path)
				return
			}
			walk(path, x.Elem(), y.Elem())
		case reflect.Map:
			if x.IsNil() || y.IsNil() {
				return
			}
			if x.Pointer() == y.Pointer() {
				t.Errorf("%s: map shared", path)
				return
			}
			for _, k := range x.MapKeys() {
				if yv := y.MapIndex(k); yv.IsValid() {
					walk(fmt.Sprintf("%s[%v]", path, k), x.MapIndex(k), yv)
				}
			}
		case reflect.Slice:
			if x.Cap() > 0 && y.Cap() > 0 && x.Pointer() == y.Pointer() {
				t.Errorf("%s: slice backing array shared", path)
				return
			}
			for i := range min(x.Len(), y.Len()) {
				walk(fmt.Sprintf("%s[%d]", path, i), x.Index(i), y.Index(i))
			}
		case reflect.Struct:
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
				}
			}
		}
	}
	walk("Image", reflect.ValueOf(a), reflect.ValueOf(b))
}

func TestCloneIsDeepAndEqual(t *testing.T) {
	img := fullImage()
	c := img.Clone()
	if diff := cmp.Diff(img, c); diff != "" {
		t.Fatalf("clone differs (-orig +clone):\n%s", diff)
	}
	checkNoAlias(t, img, c)

	// nil and empty slices stay distinct (ELR nil = not tracked).
	p := img.Topics["foo"].Partitions[1]
	p.ELR, p.LastKnownELR = nil, []int32{}
	c = img.Clone()
	cp := c.Topics["foo"].Partitions[1]
	if cp.ELR != nil || cp.LastKnownELR == nil || len(cp.LastKnownELR) != 0 {
		t.Errorf("ELR nil/empty not preserved: ELR=%#v LastKnownELR=%#v", cp.ELR, cp.LastKnownELR)
	}
	if (*Image)(nil).Clone() != nil {
		t.Error("nil.Clone() != nil")
	}
}

func TestRedacted(t *testing.T) {
	img := fullImage()
	before := img.Clone()
	r := img.Redacted()

	if diff := cmp.Diff(before, img); diff != "" {
		t.Fatalf("Redacted modified its receiver (-before +after):\n%s", diff)
	}
	checkNoAlias(t, img, r)

	cred := r.SCRAM[ScramKey{"alice", ScramSHA256}]
	if cred.Salt != nil || cred.StoredKey != nil || cred.ServerKey != nil {
		t.Errorf("SCRAM secrets kept: %+v", cred)
	}
	if want := ScramFingerprint(img.SCRAM[ScramKey{"alice", ScramSHA256}]); cred.Fingerprint != want ||
		!strings.HasPrefix(want, "sha256:") || len(want) != len("sha256:")+12 {
		t.Errorf("fingerprint = %q, want %q (sha256: + 12 hex)", cred.Fingerprint, want)
	}
	if cred.Iterations != 4096 || cred.User != "alice" {
		t.Errorf("non-secret SCRAM fields changed: %+v", cred)
	}

	bc := r.Configs[ConfigResource{ConfigBroker, "1"}]
	if got, want := bc["ssl.keystore.password"], RedactedValue("hunter2"); got != want {
		t.Errorf("password = %q, want %q", got, want)
	}
	if got := bc["listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config"]; !strings.HasPrefix(got, "[redacted sha256:") {
		t.Errorf("jaas config not redacted: %q", got)
	}
	if got := bc["log.retention.ms"]; got != "1000" {
		t.Errorf("plain config changed: %q", got)
	}
	if got, want := r.StaticConfigs[1]["ssl.keystore.password"], RedactedValue("static-secret"); got != want {
		t.Errorf("static password = %q, want %q", got, want)
	}
	if got := r.StaticConfigs[1]["min.insync.replicas"]; got != "2" {
		t.Errorf("plain static config changed: %q", got)
	}
	// Everything else is untouched.
	r2 := r.Clone()
	r2.SCRAM = before.SCRAM
	r2.Configs = before.Configs
	r2.StaticConfigs = before.StaticConfigs
	if diff := cmp.Diff(before, r2); diff != "" {
		t.Errorf("Redacted changed more than secrets (-orig +redacted):\n%s", diff)
	}

	// Idempotent: redacting a redacted image changes nothing.
	if diff := cmp.Diff(r, r.Redacted()); diff != "" {
		t.Errorf("redacting twice differs:\n%s", diff)
	}
}

func TestRedactedEqualSecretsStayEqual(t *testing.T) {
	a := &ScramCredential{Salt: []byte("s"), StoredKey: []byte("k1"), ServerKey: []byte("k2")}
	b := &ScramCredential{Salt: []byte("s"), StoredKey: []byte("k1"), ServerKey: []byte("k2"), User: "other"}
	c := &ScramCredential{Salt: []byte("s"), StoredKey: []byte("k"), ServerKey: []byte("1k2")} // same bytes, other split
	if ScramFingerprint(a) != ScramFingerprint(b) {
		t.Error("equal secrets have different fingerprints")
	}
	if ScramFingerprint(a) == ScramFingerprint(c) {
		t.Error("differently split secrets have the same fingerprint")
	}
	if RedactedValue("x") != RedactedValue("x") || RedactedValue("x") == RedactedValue("y") {
		t.Error("RedactedValue is not a function of the value")
	}
	// sha256("hunter2") = f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7
	if got, want := RedactedValue("hunter2"), "[redacted sha256:f52fbd32b2b3]"; got != want {
		t.Errorf("RedactedValue(hunter2) = %q, want %q", got, want)
	}
}

func TestIsSensitiveConfig(t *testing.T) {
	for name, want := range map[string]bool{
		"ssl.keystore.password":                         true,
		"ssl.key.password":                              true,
		"ssl.truststore.password":                       true,
		"ssl.keystore.key":                              true,
		"ssl.keystore.certificate.chain":                true,
		"ssl.truststore.certificates":                   true,
		"listener.name.internal.ssl.keystore.password":  true,
		"sasl.jaas.config":                              true,
		"listener.name.sasl_ssl.plain.sasl.jaas.config": true,
		"password.encoder.secret":                       true,
		"password.encoder.old.secret":                   true,
		"delegation.token.secret.key":                   true,
		"delegation.token.master.key":                   true,
		"SSL.KEYSTORE.PASSWORD":                         true, // unknown: keys match exactly
		// Kafka 4.4.0's PASSWORD-typed broker configs (KafkaConfig.configDef)
		// include the OAuth client credentials and assertion key passphrase.
		"sasl.oauthbearer.client.credentials.client.secret":                             true,
		"sasl.oauthbearer.assertion.private.key.passphrase":                             true,
		"listener.name.x.oauthbearer.sasl.oauthbearer.assertion.private.key.passphrase": true,
		"ssl.keystore.location":                        false,
		"ssl.keystore.type":                            false,
		"password.encoder.iterations":                  false,
		"password.encoder.keyfactory.algorithm":        false,
		"log.retention.ms":                             false,
		"cleanup.policy":                               false,
		"sasl.enabled.mechanisms":                      false,
		"ssl.truststore.location":                      false,
		"listener.name.internal.ssl.keystore.location": false,
		"sasl.login.callback.handler.class":            false,
		// Kafka does not know these keys, so it hides their values.
		"":                         true,
		"my.plugin.api.token":      true,
		"ssl.key.password ":        true,
		"listener.name.x.my.token": true,
	} {
		if got := IsSensitiveConfig(name); got != want {
			t.Errorf("IsSensitiveConfig(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRedactedRawZnodeEdges: raw znode data keeps what is not secret, and
// no spelling of a secret survives (repeated keys, nesting, non-JSON).
func TestRedactedRawZnodeEdges(t *testing.T) {
	const scram = "salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"
	cases := []struct {
		path, data string
		keep       []string // substrings that must survive
	}{
		{"/config/topics/t", `{"version":1,"config":{"retention.ms":"1000"}}`, []string{`{"version":1,"config":{"retention.ms":"1000"}}`}},
		{"/brokers/topics/t", `not json at all`, []string{`not json at all`}},
		{"/kafka/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-256":"` + scram + `","consumer_byte_rate":"x"}}`, []string{`"consumer_byte_rate":"x"`}},
		{"/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-256":"` + scram + `","SCRAM-SHA-256":"other"}}`, nil},
		{"/config/brokers/1", `{"version":1,"config":{"listener.name.x.ssl.key.password":"hunter2","log.cleaner.threads":"2"}}`, []string{`"log.cleaner.threads":"2"`}},
		{"/config/brokers/1", `{"config":{"sasl.jaas.config":{"nested":"hunter2"}}}`, nil},
		{"/x/y", `{"a":[{"ssl.keystore.password":"hunter2"}],"b":"<default>"}`, []string{`"b":"<default>"`}},
		{"/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-256":"` + scram, nil},
		{"/config/users/alice", `"` + scram + `"`, nil},
		{"/somewhere", scram, nil},
		{"/config/users/empty", "", nil},
	}
	secrets := []string{"c2FsdA==", "c3RvcmVk", "c2VydmVy", "hunter2"}
	for i, c := range cases {
		img := NewImage()
		img.ZK = &ZKState{Raw: map[string][]byte{c.path: []byte(c.data)}}
		r := img.Redacted()
		got := string(r.ZK.Raw[c.path])
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("case %d: %s kept %q: %s", i, c.path, s, got)
			}
		}
		for _, k := range c.keep {
			if !strings.Contains(got, k) {
				t.Errorf("case %d: %s lost %q: %s", i, c.path, k, got)
			}
		}
		if again := string(r.Redacted().ZK.Raw[c.path]); again != got {
			t.Errorf("case %d: redacting twice gives %s, then %s", i, got, again)
		}
		if string(img.ZK.Raw[c.path]) != c.data {
			t.Errorf("case %d: the receiver was modified", i)
		}
		if c.data == "" && got != "" {
			t.Errorf("case %d: empty data became %q", i, got)
		}
	}
}

// TestSensitiveConfigPerResource: the rule depends on the resource type,
// as DescribeConfigs' does.
func TestSensitiveConfigPerResource(t *testing.T) {
	for _, c := range []struct {
		typ  ConfigResourceType
		name string
		want bool
	}{
		{ConfigTopic, "cleanup.policy", false},
		{ConfigTopic, "my.plugin.api.token", true},
		{ConfigTopic, "retention.ms ", true},
		{ConfigTopic, "ssl.key.password", true}, // not a topic config
		{ConfigBroker, "cleanup.policy", true},  // not a broker config
		{ConfigBroker, "log.cleanup.policy", false},
		{ConfigBroker, "ssl.key.password", true},
		{ConfigBroker, "ssl.key.password ", true},
		{ConfigBroker, "my.plugin.api.token", true},
		{ConfigBroker, "listener.name.internal.ssl.keystore.location", false},
		{ConfigBroker, "listener.name.internal.ssl.keystore.password", true},
		{ConfigBroker, "listener.name.x.plain.sasl.jaas.config", true},
		{ConfigBroker, "listener.name.x.plain.connections.max.reauth.ms", false},
		{ConfigBroker, "listener.name.x.ssl.keystore.location\n", true},
		{ConfigBroker, "zookeeper.connect", false}, // a 3.9 key
		{ConfigGroup, "consumer.session.timeout.ms", false},
		{ConfigGroup, "my.plugin.api.token", true},
		{ConfigBrokerLogger, "my.plugin.api.token", false},
		{ConfigClientMetrics, "ssl.key.password", false},
		{ConfigUnknown, "retention.ms", true},
	} {
		if got := SensitiveConfig(c.typ, c.name); got != c.want {
			t.Errorf("SensitiveConfig(%v, %q) = %v, want %v", c.typ, c.name, got, c.want)
		}
	}
}

// TestRedactedConfigsPerResource: Image.Redacted applies the per-type rule
// to configs: a topic's unknown plugin key and a broker's key with a
// trailing space are hidden; known non-password keys stay readable.
func TestRedactedConfigsPerResource(t *testing.T) {
	img := NewImage()
	img.Configs[ConfigResource{Type: ConfigTopic, Name: "t"}] = map[string]string{"my.plugin.api.token": "tok-secret", "cleanup.policy": "compact"}
	img.Configs[ConfigResource{Type: ConfigBroker, Name: "1"}] = map[string]string{"ssl.key.password ": "pw-secret", "log.cleaner.threads": "2", "cleanup.policy": "pol-secret"}
	img.Configs[ConfigResource{Type: ConfigClientMetrics, Name: "m"}] = map[string]string{"metrics": "org.apache"}
	r := img.Redacted()
	want := map[ConfigResource]map[string]string{
		{Type: ConfigTopic, Name: "t"}:         {"my.plugin.api.token": RedactedValue("tok-secret"), "cleanup.policy": "compact"},
		{Type: ConfigBroker, Name: "1"}:        {"ssl.key.password ": RedactedValue("pw-secret"), "log.cleaner.threads": "2", "cleanup.policy": RedactedValue("pol-secret")},
		{Type: ConfigClientMetrics, Name: "m"}: {"metrics": "org.apache"},
	}
	if d := cmp.Diff(want, r.Configs); d != "" {
		t.Error(d)
	}
}

// TestRawZnodeRules pins each rule of RedactRawZnode on the data it hides:
// every case holds a secret ("hunter2" or SCRAM key material) that must
// not survive, and readable data that must.
func TestRawZnodeRules(t *testing.T) {
	const scram = "salt=c2FsdA==,stored_key=c3RvcmVk,server_key=c2VydmVy,iterations=4096"
	cred := &ScramCredential{Salt: []byte("salt"), StoredKey: []byte("stored"), ServerKey: []byte("server"), Iterations: 4096}
	for _, c := range []struct {
		rule, path, data string
		want             string // exact result; "" = hashed whole
	}{
		{"broker config znode that is not JSON (truncated)", "/config/brokers/1", `{"version":1,"config":{"ssl.key.password":"hunter2"`, ""},
		{"topic config znode that is not JSON", "/config/topics/t", `{"config":{"my.plugin.token":"hunter2"`, ""},
		{"user znode that is not an object", "/kafka/config/users/alice", `["hunter2"]`, ""},
		{"config that is not an object", "/config/brokers/1", `{"version":1,"config":["hunter2"]}`, `{"version":1,"config":"` + RedactedValue(`["hunter2"]`) + `"}`},
		{"broker password key", "/config/brokers/<default>", `{"version":1,"config":{"ssl.key.password":"hunter2","log.cleaner.threads":"2"}}`,
			`{"version":1,"config":{"log.cleaner.threads":"2","ssl.key.password":"` + RedactedValue("hunter2") + `"}}`},
		{"broker key with a trailing space", "/config/brokers/1", `{"version":1,"config":{"ssl.key.password ":"hunter2"}}`,
			`{"version":1,"config":{"ssl.key.password ":"` + RedactedValue("hunter2") + `"}}`},
		{"broker JAAS listener override", "/config/brokers/1", `{"version":1,"config":{"listener.name.x.plain.sasl.jaas.config":"hunter2"}}`,
			`{"version":1,"config":{"listener.name.x.plain.sasl.jaas.config":"` + RedactedValue("hunter2") + `"}}`},
		{"topic plugin key", "/config/topics/t", `{"version":1,"config":{"my.plugin.api.token":"hunter2","retention.ms":"1000"}}`,
			`{"version":1,"config":{"my.plugin.api.token":"` + RedactedValue("hunter2") + `","retention.ms":"1000"}}`},
		{"non-string value under a hidden key", "/config/topics/t", `{"version":1,"config":{"x.token":{"k":"hunter2"}}}`,
			`{"version":1,"config":{"x.token":"` + RedactedValue(`{"k":"hunter2"}`) + `"}}`},
		{"user znode: unknown mechanism", "/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-1":"salt=aHVudGVyMg==,stored_key=x,server_key=y,iterations=1"}}`,
			`{"version":1,"config":{"SCRAM-SHA-1":"` + RedactedValue("salt=aHVudGVyMg==,stored_key=x,server_key=y,iterations=1") + `"}}`},
		{"user znode: unknown key", "/config/users/alice", `{"version":1,"config":{"hunter.key":"hunter2","consumer_byte_rate":"10"}}`,
			`{"version":1,"config":{"consumer_byte_rate":"10","hunter.key":"` + RedactedValue("hunter2") + `"}}`},
		{"user znode: SCRAM keeps fingerprint and iterations", "/config/users/alice", `{"version":1,"config":{"SCRAM-SHA-256":"` + scram + `"}}`,
			`{"version":1,"config":{"SCRAM-SHA-256":"` + RedactedScram(cred) + `"}}`},
		{"client znode under a chroot", "/kafka/prod/config/users/u/clients/c", `{"version":1,"config":{"hunter":"hunter2"}}`,
			`{"version":1,"config":{"hunter":"` + RedactedValue("hunter2") + `"}}`},
		{"password key at any depth elsewhere", "/x/y", `{"a":[{"ssl.keystore.password":"hunter2"}],"b":"<default>"}`,
			`{"a":[{"ssl.keystore.password":"` + RedactedValue("hunter2") + `"}],"b":"<default>"}`},
		{"SCRAM key material outside JSON", "/somewhere", scram, ""},
		{"SCRAM key material in a JSON string", "/somewhere", `{"note":"` + scram + `"}`, ""},
	} {
		got := string(RedactRawZnode(c.path, []byte(c.data)))
		want := c.want
		if want == "" {
			want = RedactedValue(c.data)
		} else {
			// Re-encoded JSON has its object keys sorted.
			var v any
			if err := json.Unmarshal([]byte(want), &v); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(v)
			want = strings.TrimSuffix(b.String(), "\n")
		}
		if got != want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.rule, c.path, got, want)
		}
		for _, s := range []string{"hunter2", "aHVudGVyMg==", "c2FsdA==", "c3RvcmVk", "c2VydmVy"} {
			if strings.Contains(got, s) {
				t.Errorf("%s: kept %q", c.rule, s)
			}
		}
		if again := string(RedactRawZnode(c.path, []byte(got))); again != got {
			t.Errorf("%s: redacting twice gives %s, then %s", c.rule, got, again)
		}
	}
	// Not secrets: an unknown key outside a config znode, and plain text.
	for path, data := range map[string]string{"/brokers/ids/1": `{"version":5,"host":"h","my.plugin.api.token":"x"}`, "/controller_epoch": "7"} {
		if got := string(RedactRawZnode(path, []byte(data))); got != data {
			t.Errorf("%s: %s became %s", path, data, got)
		}
	}
}
