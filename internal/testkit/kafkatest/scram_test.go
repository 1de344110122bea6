package kafkatest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestFixtureSCRAMMatchesLog checks, without a JVM, that each committed
// admin.json's scramUsers is the answer of a broker that agrees with the
// SCRAM records Kafka's DumpLogSegments printed for the controller's log,
// and that it is that broker's recorded answer.
func TestFixtureSCRAMMatchesLog(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			root := filepath.Join("..", "..", "..", "testdata", "kraft", v)
			var gen struct{ Files []string }
			var view AdminView
			for name, dst := range map[string]any{"generator.json": &gen, "admin.json": &view} {
				b, err := os.ReadFile(filepath.Join(root, name))
				if err != nil {
					t.Fatalf("fixtures missing (run make fixtures): %v", err)
				}
				if err := json.Unmarshal(b, dst); err != nil {
					t.Fatal(err)
				}
			}
			logScram, err := scramInDumps(root, gen.Files, view.FeaturesEpoch)
			if err != nil {
				t.Fatal(err)
			}
			if len(logScram) == 0 {
				t.Fatal("no SCRAM users in the log dumps")
			}
			if !sameSCRAM(view.SCRAMUsers, logScram) {
				t.Errorf("scramUsers %v, log %v", view.SCRAMUsers, logScram)
			}
			if by := view.SCRAMUsersByBroker[strconv.Itoa(int(view.SCRAMUsersBroker))]; !sameSCRAM(by, view.SCRAMUsers) {
				t.Errorf("scramUsers is not broker %d's answer %v", view.SCRAMUsersBroker, by)
			}
			if len(view.SCRAMUsersByBroker) != len(view.Brokers) {
				t.Errorf("SCRAM answers from %d brokers, %d brokers", len(view.SCRAMUsersByBroker), len(view.Brokers))
			}
		})
	}
}
