package model

import (
	"strings"
	"testing"
)

// TestSecretWithheld: the stand-ins a reader puts where a secret was
// (RedactedValue, NotReported) are recognised, under sensitive keys only;
// a credential without salt or keys is withheld, redacted or not.
func TestSecretWithheld(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"ssl.keystore.password", RedactedValue("secret"), true},
		{"ssl.keystore.password", NotReported, true},
		{"sasl.jaas.config", RedactedValue(""), true},
		{"ssl.keystore.password", "secret", false},
		{"ssl.keystore.password", "", false},
		{"ssl.keystore.password", "[redacted sha256:abc]", false},
		// Not a secret: the operator's own text.
		{"log.retention.ms", RedactedValue("1000"), false},
	} {
		if got := ConfigWithheld(ConfigBroker, tc.key, tc.value); got != tc.want {
			t.Errorf("ConfigWithheld(broker, %s, %q) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
	full := &ScramCredential{User: "u", Mechanism: ScramSHA256, Salt: []byte("s"), StoredKey: []byte("k"), ServerKey: []byte("v"), Iterations: 4096}
	if full.Withheld() {
		t.Error("a credential with salt and keys is withheld")
	}
	img := NewImage()
	img.SCRAM[ScramKey{User: "u", Mechanism: ScramSHA256}] = full
	red := img.Redacted().SCRAM[ScramKey{User: "u", Mechanism: ScramSHA256}]
	if !red.Withheld() {
		t.Error("a redacted credential is not withheld")
	}
	for _, c := range []*ScramCredential{
		{Iterations: 4096}, // not reported
		{Salt: []byte("s"), StoredKey: []byte("k"), Iterations: 4096},
		{Salt: []byte{}, StoredKey: []byte("k"), ServerKey: []byte("v")},
	} {
		if !c.Withheld() {
			t.Errorf("%+v: not withheld", c)
		}
	}
}

// TestRedactedKeepsNotReported: redaction leaves a stand-in as it is, so
// that values no source reported do not all show one hash.
func TestRedactedKeepsNotReported(t *testing.T) {
	img := NewImage()
	res := ConfigResource{Type: ConfigBroker, Name: "1"}
	img.Configs[res] = map[string]string{"ssl.key.password": NotReported, "ssl.keystore.password": "pw"}
	got := img.Redacted().Configs[res]
	if got["ssl.key.password"] != NotReported || got["ssl.keystore.password"] != RedactedValue("pw") {
		t.Errorf("redacted: %v", got)
	}
}

// TestRedactedConfigs: a config map outside an image is redacted as an
// image's configs are, and the input is left as it was.
func TestRedactedConfigs(t *testing.T) {
	in := map[string]string{"ssl.keystore.password": "ks", "ssl.key.password": "k", "sasl.jaas.config": "jaas",
		"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": "lj", "log.dirs": "/data", "node.id": "1"}
	got := RedactedConfigs(ConfigBroker, in)
	for k, v := range in {
		want := v
		if k != "log.dirs" && k != "node.id" {
			want = RedactedValue(v)
		}
		if got[k] != want {
			t.Errorf("%s: %q, want %q", k, got[k], want)
		}
	}
	if in["ssl.key.password"] != "k" {
		t.Error("the input was modified")
	}
}

// TestNotReportedInJSON: the document carries notReported, sorted, only
// when a source marked fields; other documents are unchanged.
func TestNotReportedInJSON(t *testing.T) {
	img := NewImage()
	b, err := img.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "notReported") || strings.Contains(string(b), "offlineReplicas") {
		t.Fatalf("an image without marks carries them: %s", b)
	}
	img.MarkNotReported(FieldQuorum, FieldBrokerEpoch, FieldQuorum)
	img.Topics["t"] = &Topic{Name: "t", Partitions: map[int32]*Partition{0: {Replicas: []int32{1, 2}, OfflineReplicas: []int32{2}}}}
	if b, err = img.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"notReported":["brokers.epoch","quorum"]}`, `"directories":null,"offlineReplicas":[2]}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
}
