package kafkaread

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/model"
)

// describeQuorumAnswer is a DescribeQuorum answer of version v: voters 1
// and 2 (with directory ids), observer 7, and the voters' listeners.
func describeQuorumAnswer(v int16) *kmsg.DescribeQuorumResponse {
	r := kmsg.NewPtrDescribeQuorumResponse()
	r.Version = v
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = 2, 9, 120
	for _, id := range []int32{2, 1} {
		s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		s.ReplicaID, s.ReplicaDirectoryID, s.LogEndOffset = id, [16]byte{byte(id)}, 120
		p.CurrentVoters = append(p.CurrentVoters, s)
	}
	o := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
	o.ReplicaID = 7
	p.Observers = append(p.Observers, o)
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic, t.Partitions = metadataTopic, []kmsg.DescribeQuorumResponseTopicPartition{p}
	r.Topics = append(r.Topics, t)
	for _, id := range []int32{1, 2} {
		n := kmsg.NewDescribeQuorumResponseNode()
		n.NodeID = id
		l := kmsg.NewDescribeQuorumResponseNodeListener()
		l.Name, l.Host, l.Port = "CONTROLLER", "127.0.0.1", uint16(9090+id)
		n.Listeners = append(n.Listeners, l)
		r.Nodes = append(r.Nodes, n)
	}
	return r
}

// TestImageQuorum: DescribeQuorum's answer becomes the image's quorum in
// the shape a metadata log gives it (leader, epoch, voters in Kafka's
// order with directory ids and endpoints, kraft.version; observers are no
// part of it); before v2 the ids and endpoints are not reported.
func TestImageQuorum(t *testing.T) {
	q, missing := imageQuorum(describeQuorumAnswer(2), 1)
	want := &model.Quorum{LeaderID: 2, LeaderEpoch: 9, KRaftVersion: 1, Voters: []model.Voter{
		{ID: 2, DirectoryID: model.UUID{2}, Endpoints: []model.Endpoint{{Name: "CONTROLLER", Host: "127.0.0.1", Port: 9092}}},
		{ID: 1, DirectoryID: model.UUID{1}, Endpoints: []model.Endpoint{{Name: "CONTROLLER", Host: "127.0.0.1", Port: 9091}}},
	}}
	if len(missing) != 0 || q.LeaderID != want.LeaderID || q.LeaderEpoch != want.LeaderEpoch || q.KRaftVersion != want.KRaftVersion ||
		!slices.EqualFunc(q.Voters, want.Voters, func(a, b model.Voter) bool {
			return a.ID == b.ID && a.DirectoryID == b.DirectoryID && slices.Equal(a.Endpoints, b.Endpoints)
		}) {
		t.Fatalf("v2: %+v (not reported %v), want %+v", q, missing, want)
	}
	v1 := describeQuorumAnswer(1)
	v1.Nodes = nil
	for i := range v1.Topics[0].Partitions[0].CurrentVoters {
		v1.Topics[0].Partitions[0].CurrentVoters[i].ReplicaDirectoryID = [16]byte{}
	}
	q, missing = imageQuorum(v1, 0)
	if !slices.Equal(missing, []model.Field{model.FieldQuorumVoterDirectoryIDs, model.FieldQuorumVoterEndpoints}) ||
		len(q.Voters) != 2 || q.Voters[0].Endpoints != nil || q.KRaftVersion != 0 {
		t.Fatalf("v1: %+v, not reported %v", q, missing)
	}
}
