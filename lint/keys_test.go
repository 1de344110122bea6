package lint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta/kmeta/model"
)

// keyedCodes are the rules that return keys (Rule.keys) on a Context
// with keysOnly, the tracker's: they skip building messages there.
var keyedCodes = []string{
	CodePartitionOffline, CodePartitionUnderMinISR, CodePartitionUnderReplicated, CodeReplicasUnavailable,
	CodeLeaderRecovering, CodeELRUncleanPending, CodeReassignmentInFlight,
	CodeLeaderImbalance, CodeReplicasUnbalanced, CodePreferredUnbalanced,
}

// TestKeysOnlySameFindings: on random images, a run whose rules return
// keys (Context.keysOnly, as a Tracker runs them) reports exactly the
// findings, by code and entity, of a full run, and the same rule
// outcomes (statuses, counts, assumptions): a rule's keyed path fires
// when, and only when, its full path does. Every keyed rule fires on some
// images and not on others, so each shortcut is exercised both ways.
func TestKeysOnlySameFindings(t *testing.T) {
	rnd := rand.New(rand.NewPCG(32, 1))
	fired, quiet := map[string]int{}, map[string]int{}
	for i := range 400 {
		img := randomImage(rnd)
		full, err := runWith(img, Options{}, false)
		if err != nil {
			t.Fatal(err)
		}
		keys, err := runWith(img, Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		want, got := codes(full), codes(keys)
		slices.Sort(want)
		slices.Sort(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("image %d: keys differ from the full findings (-full +keys):\n%s", i, d)
		}
		if d := cmp.Diff(full.Rules, keys.Rules); d != "" {
			t.Fatalf("image %d: rule outcomes differ (-full +keys):\n%s", i, d)
		}
		for _, code := range keyedCodes {
			if slices.ContainsFunc(full.Findings, func(f Finding) bool { return f.Code == code }) {
				fired[code]++
			} else {
				quiet[code]++
			}
		}
	}
	for _, code := range keyedCodes {
		t.Logf("%s: fired on %d images, quiet on %d", code, fired[code], quiet[code])
		if fired[code] < 5 || quiet[code] < 5 {
			t.Errorf("%s fired on %d images, not on %d: the images do not exercise it both ways", code, fired[code], quiet[code])
		}
	}
}

// randomImage is healthy() with brokers added, fenced and missing, random
// topics (replicas, ISRs, leaders, ELRs, reassignments, recovery) and
// min.insync.replicas and leader imbalance settings.
func randomImage(rnd *rand.Rand) *model.Image {
	img := healthy()
	for id := int32(4); id <= 5; id++ {
		if rnd.IntN(2) == 0 {
			img.Brokers[id] = &model.Broker{ID: id}
		}
	}
	for _, b := range img.Brokers {
		b.Fenced = rnd.IntN(8) == 0
	}
	// Broker 6 is never registered. A reassignment in flight keeps the
	// balance rules quiet: only some images have one.
	moving := rnd.IntN(4) == 0
	for i := range 1 + rnd.IntN(4) {
		name := fmt.Sprintf("t%d", i)
		tp := &model.Topic{Name: name, Partitions: map[int32]*model.Partition{}}
		for pid := range int32(1 + rnd.IntN(12)) {
			ids := []int32{1, 2, 3, 4, 5, 6}
			if rnd.IntN(3) > 0 {
				ids = ids[:3] // mostly the first three brokers
			}
			rnd.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
			replicas := slices.Clone(ids[:1+rnd.IntN(3)])
			p := &model.Partition{ID: pid, Replicas: replicas, Leader: model.NoLeader}
			for _, r := range replicas {
				if rnd.IntN(5) > 0 {
					p.ISR = append(p.ISR, r)
				}
			}
			if len(p.ISR) > 0 && rnd.IntN(8) > 0 {
				p.Leader = p.ISR[rnd.IntN(len(p.ISR))]
			}
			if p.Leader == model.NoLeader && rnd.IntN(2) == 0 {
				p.ISR = nil
				if rnd.IntN(2) == 0 {
					p.LastKnownELR = replicas[:1]
				}
				if rnd.IntN(3) == 0 {
					p.ELR = replicas[len(replicas)-1:]
				}
			}
			if moving && rnd.IntN(4) == 0 {
				p.AddingReplicas = replicas[len(replicas)-1:]
			}
			if moving && rnd.IntN(4) == 0 {
				p.RemovingReplicas = replicas[:1]
			}
			if rnd.IntN(12) == 0 {
				p.LeaderRecoveryState = model.Recovering
			}
			tp.Partitions[pid] = p
		}
		img.Topics[name] = tp
		if rnd.IntN(3) == 0 {
			img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: name}] = map[string]string{"min.insync.replicas": strconv.Itoa(1 + rnd.IntN(4))}
		}
	}
	if rnd.IntN(4) == 0 {
		img.Configs[model.ConfigResource{Type: model.ConfigBroker, Name: "2"}] = map[string]string{"min.insync.replicas": strconv.Itoa(1 + rnd.IntN(3))}
	}
	if rnd.IntN(2) == 0 {
		img.Configs[model.ConfigResource{Type: model.ConfigBroker}]["leader.imbalance.per.broker.percentage"] = strconv.Itoa(rnd.IntN(50))
	}
	return img
}
