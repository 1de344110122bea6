package kafkaread

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kmeta/kmeta/model"
)

// TestPartitionLists: the lists the API answers become the model's as the
// metadata log would hold them: no ELR is nil (the API answers [] for a
// null and an empty list alike), reassignment lists are empty, offline
// replicas are set only when there are some.
func TestPartitionLists(t *testing.T) {
	r := &imageRead{img: model.NewImage()}
	p := r.partition(3, 1, 7, []int32{1, 2}, []int32{1}, []int32{}, []int32{}, []int32{2})
	if p.ELR != nil || len(p.LastKnownELR) != 1 || p.OfflineReplicas != nil ||
		p.AddingReplicas == nil || p.RemovingReplicas == nil || p.ID != 3 || p.Leader != 1 || p.LeaderEpoch != 7 {
		t.Fatalf("%+v", p)
	}
	if p = r.partition(0, -1, 0, nil, nil, []int32{2}, []int32{1}, nil); p.Replicas == nil || p.ISR == nil ||
		len(p.OfflineReplicas) != 1 || len(p.ELR) != 1 || p.LastKnownELR != nil {
		t.Fatalf("%+v", p)
	}
}

// TestGap: an authorization error or a missing API leaves a warning and a
// mark; anything else ends the read.
func TestGap(t *testing.T) {
	r := &imageRead{img: model.NewImage()}
	if err := r.gap("DescribeAcls", "ACLs", kerr.ClusterAuthorizationFailed, model.FieldACLs); err != nil {
		t.Fatal(err)
	}
	if err := r.gap("DescribeClientQuotas", "client quotas", ErrMissingAPI, model.FieldClientQuotas); err != nil {
		t.Fatal(err)
	}
	if r.img.Reports(model.FieldACLs) || r.img.Reports(model.FieldClientQuotas) || len(r.img.Warnings) != 2 ||
		r.img.Warnings[0].Code != WarnNotAuthorized || r.img.Warnings[1].Code != WarnNotAnswered {
		t.Fatalf("%v %v", r.img.NotReported, r.img.Warnings)
	}
	if err := r.gap("DescribeAcls", "ACLs", ErrUnreachable, model.FieldACLs); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("an unreachable cluster is an error, got %v", err)
	}
	msg := "Cluster authorization failed."
	if err := codeErr(kerr.ClusterAuthorizationFailed.Code, &msg); err.Error() != kerr.ClusterAuthorizationFailed.Error() {
		t.Fatalf("the description repeated: %v", err)
	}
}
