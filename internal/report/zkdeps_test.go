package report

import (
	"testing"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkdeps"
)

// TestZKDependentsExit: safe is exit 0; a dependent or Kafka itself
// still connected, 1; nothing found in a damaged history, 2 (the verdict
// could not be reached), and 1 with a dependent besides.
func TestZKDependentsExit(t *testing.T) {
	torn := model.Finding{Code: model.WarnTornTail}
	dep := zkdeps.Dependent{Code: zkdeps.CodeForeignData, Kind: "data", Path: "/hbase", Evidence: []string{"1 znode"}}
	connected := model.Finding{Code: zkdeps.CodeKafkaConnected}
	for _, tc := range []struct {
		name string
		r    zkdeps.Result
		want Exit
	}{
		{"safe", zkdeps.Result{SafeToStop: true}, OK},
		{"a dependent", zkdeps.Result{Dependents: []zkdeps.Dependent{dep}}, Findings},
		{"kafka connected", zkdeps.Result{Findings: []model.Finding{connected}}, Findings},
		{"damaged, nothing found", zkdeps.Result{Damaged: []model.Finding{torn}}, Failed},
		{"damaged, kafka connected", zkdeps.Result{Damaged: []model.Finding{torn}, Findings: []model.Finding{connected}}, Findings},
		{"damaged, a dependent", zkdeps.Result{Damaged: []model.Finding{torn}, Dependents: []zkdeps.Dependent{dep}}, Findings},
	} {
		if got := ZKDependents(&tc.r).Exit; got != tc.want {
			t.Errorf("%s: exit class %d, want %d", tc.name, got, tc.want)
		}
	}
}
