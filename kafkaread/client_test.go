package kafkaread

import (
	"errors"
	"testing"
)

// TestCheckMode: a node is a ZooKeeper-mode broker when it lists an API
// whose only listener is zkBroker (LeaderAndIsr, StopReplica,
// UpdateMetadata); ControlledShutdown, which 3.x KRaft controllers in a
// migration list too (listeners zkBroker and controller), is not a sign.
func TestCheckMode(t *testing.T) {
	ctl := &Client{Addr: "c:9093", APIs: map[int16][2]int16{7: {0, 3}, 55: {0, 2}, 60: {0, 1}}}
	if err := ctl.checkMode(); err != nil {
		t.Errorf("a KRaft controller listing ControlledShutdown: %v", err)
	}
	zk := &Client{Addr: "b:9092", APIs: map[int16][2]int16{6: {0, 8}, 7: {0, 3}}}
	if err := zk.checkMode(); !errors.Is(err, ErrZooKeeperMode) {
		t.Errorf("a broker listing UpdateMetadata: %v", err)
	}
}
