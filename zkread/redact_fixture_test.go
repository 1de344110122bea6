package zkread

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/model"
)

// fixtureSecrets returns the SCRAM salts and keys Kafka wrote into the
// fixture's /config/users znodes, as stored (base64) and as hex (the
// text printer's form).
func fixtureSecrets(t *testing.T, tr *Tree, prefix string) []string {
	t.Helper()
	var out []string
	for _, p := range tr.Paths() {
		if !strings.HasPrefix(p, prefix+"/config/users/") || len(tr.Get(p).Data) == 0 {
			continue
		}
		var v struct {
			Config map[string]string `json:"config"`
		}
		if err := json.Unmarshal(tr.Get(p).Data, &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for k, val := range v.Config {
			if !strings.HasPrefix(k, "SCRAM-") {
				continue
			}
			for _, f := range strings.Split(val, ",") {
				name, b64, _ := strings.Cut(f, "=")
				if name == "iterations" {
					continue
				}
				raw, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, b64, hex.EncodeToString(raw))
			}
		}
	}
	if len(out) < 4*6 {
		t.Fatalf("found only %d secret strings in the fixture", len(out))
	}
	return out
}

// printAll prints img in every format, redacted unless showSecrets.
func printAll(t *testing.T, img *model.Image, showSecrets bool) string {
	t.Helper()
	var b bytes.Buffer
	for _, f := range printer.Formats {
		if err := printer.WriteImage(&b, f, img, printer.ImageOptions{ShowSecrets: showSecrets}); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func leaked(out string, secrets []string) []string {
	var found []string
	for _, s := range secrets {
		if strings.Contains(out, s) {
			found = append(found, s)
		}
	}
	return found
}

// TestRedactedRawZnodes: znodes that stay raw (a read from the ZooKeeper
// root when Kafka lives in a chroot, or a malformed znode under --lenient)
// must not print Kafka's SCRAM salts and keys unless secrets are asked for.
func TestRedactedRawZnodes(t *testing.T) {
	dir := filepath.Join(fixtureDir, "datadir")

	t.Run("chroot not given", func(t *testing.T) {
		tr, err := ReadDataDir(dir, DataDirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		secrets := fixtureSecrets(t, tr, fixtureChroot)
		img, err := Decode(tr, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if img.ZK.Raw[fixtureChroot+"/config/users/alice"] == nil {
			t.Fatal("alice's znode is not raw; the test no longer covers raw znodes")
		}
		if l := leaked(printAll(t, img, true), secrets); len(l) == 0 {
			t.Fatal("--show-secrets printed none of the raw secrets")
		}
		if l := leaked(printAll(t, img, false), secrets); len(l) > 0 {
			t.Errorf("redacted output holds %d SCRAM secrets, e.g. %s", len(l), l[0])
		}
		// Redacting twice changes nothing; the original keeps its bytes.
		once := img.Redacted()
		if !bytes.Equal(mustJSON(t, once), mustJSON(t, once.Redacted())) {
			t.Error("Redacted is not idempotent on raw znodes")
		}
		if !bytes.Equal(img.ZK.Raw[fixtureChroot+"/config/users/alice"], tr.Get(fixtureChroot+"/config/users/alice").Data) {
			t.Error("Redacted modified the receiver's raw data")
		}
	})

	t.Run("lenient malformed user", func(t *testing.T) {
		tr, err := ReadDataDir(dir, DataDirOptions{Chroot: fixtureChroot})
		if err != nil {
			t.Fatal(err)
		}
		secrets := fixtureSecrets(t, tr, "")
		n := tr.Get("/config/users/alice")
		tr.SetData("/config/users/alice", bytes.Replace(n.Data, []byte(`"config":{`), []byte(`"config":{"consumer_byte_rate":"lots",`), 1))
		img, err := Decode(tr, DecodeOptions{Lenient: true})
		if !errors.Is(err, ErrMalformed) || img == nil || img.ZK.Raw["/config/users/alice"] == nil {
			t.Fatalf("want alice's znode malformed and raw: %v", err)
		}
		if l := leaked(printAll(t, img, false), secrets); len(l) > 0 {
			t.Errorf("redacted output holds %d SCRAM secrets, e.g. %s", len(l), l[0])
		}
		// The rest of the raw data stays readable.
		out := string(mustJSON(t, img.Redacted()))
		if !strings.Contains(out, `consumer_byte_rate`) || !strings.Contains(out, `lots`) {
			t.Errorf("the redacted raw znode lost its non-secret content")
		}
	})

	t.Run("unparsable user znode", func(t *testing.T) {
		tr, err := ReadDataDir(dir, DataDirOptions{Chroot: fixtureChroot})
		if err != nil {
			t.Fatal(err)
		}
		secrets := fixtureSecrets(t, tr, "")
		n := tr.Get("/config/users/carol")
		tr.SetData("/config/users/carol", n.Data[:len(n.Data)-2]) // truncated JSON
		img, err := Decode(tr, DecodeOptions{Lenient: true})
		if !errors.Is(err, ErrMalformed) || img.ZK.Raw["/config/users/carol"] == nil {
			t.Fatalf("want carol's znode malformed and raw: %v", err)
		}
		if l := leaked(printAll(t, img, false), secrets); len(l) > 0 {
			t.Errorf("redacted output holds %d SCRAM secrets, e.g. %s", len(l), l[0])
		}
	})
}

func mustJSON(t *testing.T, img *model.Image) []byte {
	t.Helper()
	b, err := json.Marshal(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
