package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// readiness adds the findings only a comparison of the two worlds shows:
// what would make Kafka's migration abort, wait forever, invent state or
// skip itself.
func (c *comparison) readiness() {
	zk, kr := c.zk, c.kr
	pending := map[string]bool{}
	if zk.ZK != nil {
		for _, t := range zk.ZK.PendingTopicDeletions {
			pending[t] = true
		}
	}
	for _, t := range zk.SortedTopics() {
		// A topic KRaft already carries with an id was migrated: the
		// topics class says whether that id is the one assigned.
		if kt := kr.Topics[t.Name]; kt != nil && !kt.ID.IsZero() {
			continue
		}
		if t.ID.IsZero() && !pending[t.Name] {
			c.add(model.Finding{Code: CodeTopicWithoutID, Severity: checkSeverity(CodeTopicWithoutID), Class: ClassTopics, Entity: topicEntity(t.Name),
				Message: "the topic znode has no topic_id: Kafka's migration aborts on it (and the controller with it)",
				Fix:     "let a ZooKeeper-mode controller with inter.broker.protocol.version >= 2.8 assign ids (restart the controller broker) before migrating",
				Where:   &model.Location{Position: -1, Offset: -1, Znode: "/brokers/topics/" + t.Name}})
		}
	}
	if zk.ZK != nil {
		for _, p := range zk.ZK.MissingPartitionStates {
			topic := p
			if i := strings.LastIndexByte(p, '-'); i > 0 {
				topic = p[:i]
			}
			if pending[topic] {
				continue
			}
			c.add(model.Finding{Code: CodePartitionStateMissing, Severity: checkSeverity(CodePartitionStateMissing), Class: ClassPartitions, Entity: "partition " + p,
				Message: "the partition has no state znode: Kafka's migration invents ISR = replicas, leader = first replica and epochs 0 for it",
				Where:   &model.Location{Position: -1, Offset: -1, Znode: "/brokers/topics/" + strings.Replace(p, "-", "/partitions/", 1) + "/state"}})
		}
	}
	// Replicas on broker ids neither world has registered: the migration
	// waits for every broker a replica assignment names. A view where no
	// broker is registered at all is a stopped cluster (ZooKeeper's
	// registrations are ephemeral; a KRaft log read before the brokers
	// started, as after an offline migration): then placement cannot be
	// checked against registrations, and the report says so once. So
	// it is for a KRaft view no broker has joined that is not migrating
	// online (an offline migration): Kafka's online migration, which waits
	// for the brokers, is not what happens to it.
	if c.mask.brokers {
		// A side that does not report its brokers (a live cluster read
		// through its controllers) leaves nothing to check placement
		// against: an absent registration there is no fact.
		c.notes = append(c.notes, "replica placement against broker registrations (a side does not report its brokers)")
		c.partitionMetadata(pending)
		return
	}
	if len(kr.Brokers) == 0 && (len(zk.Brokers) == 0 || c.offline()) {
		msg := "no broker is registered on either side (a stopped cluster): replica placement is not checked against registrations"
		if len(zk.Brokers) > 0 {
			msg = "no broker is registered in KRaft and KRaft is not migrating online (an offline migration, before its brokers start): replica placement is not checked against registrations"
		}
		c.add(model.Finding{Code: CodeNoBrokerRegistered, Severity: checkSeverity(CodeNoBrokerRegistered), Class: ClassBrokers, Entity: "brokers", Message: msg})
		c.partitionMetadata(pending)
		return
	}
	registered := c.registeredBrokers()
	missing := map[int32][]string{}
	var parts []*model.Partition
	for _, t := range zk.SortedTopics() {
		// comparePartitions, when it walked the ZooKeeper side, noted
		// the topics to list.
		if pending[t.Name] || c.unplaced != nil && !c.unplaced[t.Name] {
			continue
		}
		parts = t.AppendSortedPartitions(parts[:0])
		for _, p := range parts {
			for _, rs := range [2][]int32{p.Replicas, p.AddingReplicas} {
				for _, r := range rs {
					if _, ok := slices.BinarySearch(registered, r); !ok {
						e := t.Name + "-" + strconv.Itoa(int(p.ID))
						if l := missing[r]; len(l) == 0 || l[len(l)-1] != e {
							missing[r] = append(missing[r], e)
						}
					}
				}
			}
		}
	}
	for id, parts := range missing {
		shown := parts
		if len(shown) > 5 {
			shown = append(slices.Clone(shown[:5]), fmt.Sprintf("… %d more", len(parts)-5))
		}
		c.add(model.Finding{Code: CodeReplicaOnUnregisteredBroker, Severity: checkSeverity(CodeReplicaOnUnregisteredBroker), Class: ClassPartitions, Entity: brokerEntity(id),
			Message: fmt.Sprintf("%d partition(s) have a replica on broker %d, which is registered neither in ZooKeeper nor in KRaft: Kafka's migration waits for it forever (%s)",
				len(parts), id, strings.Join(shown, ", ")),
			Fix: "start that broker, or reassign its replicas away before migrating"})
	}
	c.partitionMetadata(pending)
}

// partitionMetadata compares the topic ids of brokers' partition.metadata
// files with the ZooKeeper view.
func (c *comparison) partitionMetadata(pending map[string]bool) {
	for _, pm := range c.opts.PartitionMetadata {
		t := c.zk.Topics[pm.Topic]
		if t == nil || pending[pm.Topic] {
			continue
		}
		// A topic without id in ZooKeeper gets the plan's.
		want, whose := t.ID, "ZooKeeper's"
		if want.IsZero() {
			want, whose = c.opts.PlanTopicIDs[pm.Topic], "the plan's"
		}
		if want.IsZero() || want == pm.TopicID {
			continue
		}
		c.add(model.Finding{Code: CodePartitionMetadataTopicID, Severity: checkSeverity(CodePartitionMetadataTopicID), Class: ClassTopics,
			Entity: partitionEntity(pm.Topic, pm.Partition), Field: "topicId",
			Left: strp(want.String()), Right: strp(pm.TopicID.String()),
			Message: fmt.Sprintf("%s topic id %s differs from %s in %s: the broker will refuse the partition (inconsistent topic id) once KRaft serves %s id", whose, want, pm.TopicID, pm.Path, whose),
			Where:   &model.Location{File: pm.Path, Position: -1, Offset: -1}})
	}
}
