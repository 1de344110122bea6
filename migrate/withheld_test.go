package migrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// loadRedactedFixture reads the ZooKeeper fixture as a default `kmeta zk
// dump` leaves it (secrets redacted, model.RedactRawZnode) and loads that
// dump as a source.
func loadRedactedFixture(t *testing.T) (*model.Image, string) {
	t.Helper()
	spec, err := source.Parse("zkdata:../testdata/zk/datadir")
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := source.ReadZKTree(context.Background(), spec, zkread.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tree.MapData(model.RedactRawZnode)
	dump := filepath.Join(t.TempDir(), "dump.json")
	if err := zkread.WriteDumpFile(dump, tree, false); err != nil {
		t.Fatal(err)
	}
	src := "zkdump:" + dump
	if spec, err = source.Parse(src); err != nil {
		t.Fatal(err)
	}
	res, err := source.Load(context.Background(), spec, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Image, src
}

// TestWithheldSecretsBlock: a source holding stand-ins for its secrets (a
// default dump of the fixture: its 4 SCRAM credentials redacted) is never
// migrated: plan blocks with secrets-withheld and a fix naming
// --show-secrets and the direct sources, no override lifts it, and apply
// writes nothing. The same plan from the data dir itself is not blocked
// by it.
func TestWithheldSecretsBlock(t *testing.T) {
	img, src := loadRedactedFixture(t)
	if len(img.SCRAM) != 4 {
		t.Fatalf("the fixture dump holds %d SCRAM credentials, want 4", len(img.SCRAM))
	}
	opts := Options{Source: src, MetadataVersion: "4.4", Controllers: ctrl, Overrides: Overrides}
	p, err := NewPlan(img, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := findCode(p, CodeSecretsWithheld)
	if f == nil || f.Severity != model.SevError || !p.Blocked {
		t.Fatalf("with every override: want blocker %s, got blocked=%v %v", CodeSecretsWithheld, p.Blocked, p.Findings)
	}
	for _, want := range []string{"4 SCRAM credentials", "redacted", "without --show-secrets"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q lacks %q", f.Message, want)
		}
	}
	for _, want := range []string{"--show-secrets", "zkdata:", "zk://"} {
		if !strings.Contains(f.Fix, want) {
			t.Errorf("fix %q lacks %q", f.Fix, want)
		}
	}
	if strings.Contains(f.Fix, "--override") {
		t.Errorf("the fix names an override: %s", f.Fix)
	}
	if n := countType(p, features.UserScramCredentialRecord); n != 0 {
		t.Errorf("a blocked plan lists %d credentials without keys as records", n)
	}
	out := t.TempDir()
	if _, err := Apply(p, ApplyOptions{Out: out}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("apply: %v, want ErrBlocked", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("apply of a blocked plan wrote %d entries", len(ents))
	}
}

// TestWithheldConfigsBlock: sensitive config values redacted or not
// reported block too, naming the entries; a stand-in under a key that is
// not sensitive is the operator's value and is written.
func TestWithheldConfigsBlock(t *testing.T) {
	for _, tc := range []struct{ value, how string }{
		{model.RedactedValue("pw"), "redacted"},
		{model.NotReported, "not reported"},
	} {
		img := baseImage()
		img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{
			"listener.name.sasl_ssl.plain.sasl.jaas.config": tc.value, "log.cleaner.threads": "2"}
		img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: "t"}]["retention.ms"] = model.RedactedValue("1000")
		p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl, Overrides: Overrides})
		if err != nil {
			t.Fatal(err)
		}
		f := findCode(p, CodeSecretsWithheld)
		if f == nil || f.Severity != model.SevError || f.Entity != "configs" || !p.Blocked {
			t.Fatalf("%s: want blocker %s on configs, got %v", tc.how, CodeSecretsWithheld, p.Findings)
		}
		if !strings.Contains(f.Message, "1 sensitive config values") || !strings.Contains(f.Message, tc.how) ||
			!strings.Contains(f.Message, "listener.name.sasl_ssl.plain.sasl.jaas.config") || strings.Contains(f.Message, "retention.ms") {
			t.Errorf("%s: message %q", tc.how, f.Message)
		}
	}
	// A credential not reported (no fingerprint either) is named so.
	img := baseImage()
	img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}] = &model.ScramCredential{User: "alice", Mechanism: model.ScramSHA512, Iterations: 4096}
	p := mustPlan(t, img)
	if f := findCode(p, CodeSecretsWithheld); f == nil || !strings.Contains(f.Message, "not reported") || !strings.Contains(f.Message, "alice (SCRAM-SHA-512)") {
		t.Errorf("not reported credential: %v", p.Findings)
	}
}

// TestEmitRefusesWithheldSecrets: the record writer, given stand-ins the
// preflight did not leave out, refuses them (ErrSecretWithheld) rather
// than write a credential without keys or a redaction as a password.
func TestEmitRefusesWithheldSecrets(t *testing.T) {
	healthy := mustPlan(t, baseImage())
	if healthy.Blocked {
		t.Fatalf("baseImage blocked: %v", healthy.Blockers())
	}
	for name, mutate := range map[string]func(*model.Image){
		"redacted credential": func(img *model.Image) { img.SCRAM = img.Redacted().SCRAM },
		"credential with an empty salt": func(img *model.Image) {
			img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}].Salt = []byte{}
		},
		"credential without a server key": func(img *model.Image) {
			img.SCRAM[model.ScramKey{User: "alice", Mechanism: model.ScramSHA512}].ServerKey = nil
		},
		"redacted password": func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "1"}] = map[string]string{"ssl.key.password": model.RedactedValue("pw")}
		},
		"unreported password": func(img *model.Image) {
			img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: ""}]["ssl.keystore.password"] = model.NotReported
		},
	} {
		img := baseImage()
		mutate(img)
		_, err := emit(img, testEmitOptions(t))
		if !errors.Is(err, ErrSecretWithheld) {
			t.Errorf("%s: emit: %v, want ErrSecretWithheld", name, err)
		}
	}
	if _, err := emit(baseImage(), testEmitOptions(t)); err != nil {
		t.Fatalf("healthy image: %v", err)
	}
}

// testEmitOptions are emit's options for a 4.4 target with nothing left
// out, as NewPlan makes them.
func testEmitOptions(t *testing.T) emitOptions {
	t.Helper()
	cat := features.Default()
	level, err := cat.LevelFor("4.4")
	if err != nil {
		t.Fatal(err)
	}
	return emitOptions{level: level, catalog: cat, skipTopics: map[string]bool{}, dropConfigs: map[string]bool{},
		topicIDs: map[string]model.UUID{}, configValues: map[string]string{}, skipSCRAM: map[model.ScramKey]bool{}}
}

// TestNotReportedBlocks: a view listing fields its source does not report
// (a live cluster's) is never a migration source: one blocker of the
// withheld-secrets check names the fields, and nothing is applied.
func TestNotReportedBlocks(t *testing.T) {
	img := baseImage()
	img.MarkNotReported(model.FieldProducerIDs, model.FieldBrokerEpoch)
	p, err := NewPlan(img, Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl, Overrides: Overrides})
	if err != nil {
		t.Fatal(err)
	}
	f := findCode(p, CodeSecretsWithheld)
	if f == nil || f.Severity != model.SevError || f.Entity != "source" || !p.Blocked {
		t.Fatalf("want blocker %s on source, got %v", CodeSecretsWithheld, p.Findings)
	}
	if !strings.Contains(f.Message, "does not report brokers.epoch, producerIds") || !strings.Contains(f.Message, "never a migration source") {
		t.Errorf("message %q", f.Message)
	}
	if _, err := Apply(p, ApplyOptions{Out: t.TempDir()}); !errors.Is(err, ErrBlocked) {
		t.Errorf("apply: %v, want ErrBlocked", err)
	}
	if p := mustPlan(t, baseImage()); findCode(p, CodeSecretsWithheld) != nil {
		t.Errorf("a whole view is blocked: %v", p.Findings)
	}
}
