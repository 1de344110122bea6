package migrate

import (
	"fmt"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/model"
)

// BenchmarkPlanApply100k plans and applies a synthetic image of 1,000
// topics x 100 partitions (100,000 partitions, replication 3).
func BenchmarkPlanApply100k(b *testing.B) {
	img := baseImage()
	for i := range 1000 {
		name := fmt.Sprintf("topic-%04d", i)
		ps := map[int32]*model.Partition{}
		for p := range int32(100) {
			r := []int32{p % 6, (p + 1) % 6, (p + 2) % 6}
			ps[p] = &model.Partition{ID: p, Replicas: r, ISR: r, Leader: r[0], LeaderEpoch: 3, PartitionEpoch: 4,
				AddingReplicas: []int32{}, RemovingReplicas: []int32{}, Directories: make([]model.UUID, 3)}
		}
		img.Topics[name] = &model.Topic{Name: name, ID: derivedUUID("bench", name), Partitions: ps}
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := NewPlan(img, Options{Source: "bench", MetadataVersion: "4.4", Controllers: []controllers.Spec{{ID: 3000, Host: "h", Port: 1}}})
		if err != nil || p.Blocked {
			b.Fatal(err, p.Blockers())
		}
		if _, err := Apply(p, ApplyOptions{Out: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
}
