package model

// World is where a view of a cluster's metadata comes from: the KRaft
// metadata log, a ZooKeeper tree, or a live Kafka cluster asked through its
// API. The source syntax infers it and verify judges by it (which side may
// lead, which differences a migration explains). The zero World is unset.
type World int

const (
	WorldKRaft World = iota + 1
	WorldZooKeeper
	// WorldKafka is a running KRaft cluster asked through its admin API
	// (kafka://, the kafkaread reader). verify judges it as KRaft; its
	// view lists what the API does not report (Image.NotReported).
	WorldKafka
)

// String is the world's name as reports print it ("kraft", "zookeeper",
// "kafka").
func (w World) String() string {
	switch w {
	case WorldKRaft:
		return "kraft"
	case WorldZooKeeper:
		return "zookeeper"
	case WorldKafka:
		return "kafka"
	}
	return "unknown"
}
