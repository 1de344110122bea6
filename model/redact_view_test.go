package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRedactedViewEqualsRedacted: the view holds what Redacted holds, and
// shares the topics instead of copying them.
func TestRedactedViewEqualsRedacted(t *testing.T) {
	img := streamTestImage()
	img.SCRAM[ScramKey{"u", 1}] = &ScramCredential{User: "u", Mechanism: 1, Salt: []byte{1}, StoredKey: []byte{2}, ServerKey: []byte{3}, Iterations: 4096}
	img.Configs[ConfigResource{ConfigBroker, "1"}] = map[string]string{"ssl.keystore.password": "hunter2"}
	want, got := img.Redacted(), img.RedactedView()
	if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
		t.Fatalf("view differs from Redacted (-want +got):\n%s", d)
	}
	for k, tp := range img.Topics {
		if got.Topics[k] != tp {
			t.Fatalf("topic %q copied, want shared", k)
		}
	}
	if img.SCRAM[ScramKey{"u", 1}].Salt == nil || img.Configs[ConfigResource{ConfigBroker, "1"}]["ssl.keystore.password"] != "hunter2" {
		t.Fatal("the receiver was modified")
	}
	if (*Image)(nil).RedactedView() != nil {
		t.Fatal("nil image")
	}
}
