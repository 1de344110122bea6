package zkread

import (
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// historyView is what a history's image holds, for comparing it with a
// full decode.
type historyView struct {
	ClusterID                 string
	Brokers                   map[int32]*model.Broker
	Topics                    map[string]*model.Topic
	Configs                   map[model.ConfigResource]map[string]string
	Features                  map[string]int16
	Migration                 *model.Migration
	Controller, KRaftEpoch    int32
	ControllerEpoch, ZkVer    int32
	FeatureStatus             int32
	Deletions, Elections      []string
	Reassignments             map[string][]int32
	ISRChanges, LogDirChanges int32
	MissingStates             []string
}

func viewOf(img *model.Image) historyView {
	z := img.ZK
	missing := z.MissingPartitionStates
	if len(missing) == 0 {
		missing = nil // none, however the list was emptied
	}
	return historyView{img.ClusterID, img.Brokers, img.Topics, img.Configs, img.Features, img.Migration,
		z.ControllerID, z.KRaftControllerEpoch, z.ControllerEpoch, z.ControllerEpochZkVersion, z.FeatureStatus,
		z.PendingTopicDeletions, z.PreferredReplicaElections, z.LegacyReassignments,
		z.Notifications["isr_change"], z.Notifications["log_dir_event"], missing}
}

// TestHistoryMatchesDecodeAtEveryZxid replays the fixture's data dir
// (written by a real ZooKeeper under Kafka 3.9.2: brokers registered and
// gone, topics created, reassigned and marked for deletion, configs set)
// with a history, and after every step compares the image the history
// keeps up to date, znode by znode, with a full read and decode of the
// data dir at that zxid (@zxid): the incremental decode misses nothing
// and keeps nothing stale. The history starts from the oldest snapshot
// the logs go on from (snapshot.0, the empty tree: the chroot appears in
// a transaction) and names every znode a transaction changed that the
// image is about.
func TestHistoryMatchesDecodeAtEveryZxid(t *testing.T) {
	dir := filepath.Join(fixtureDir, "datadir")
	var steps, changes int
	var first int64 = -1
	touched := map[Touched]bool{}
	_, err := ReadDataDir(dir, DataDirOptions{Step: func(img *model.Image, s Step) {
		steps++
		if first < 0 {
			first = s.Zxid
		}
		for _, c := range s.Changes {
			changes++
			touched[c.What] = true
			if c.What != TouchedAll && (c.Znode == "" || c.Op == "") {
				t.Errorf("zxid %#x: a change without znode or op: %+v", s.Zxid, c)
			}
		}
		sameAsDecode(t, dir, img, s.Zxid, s.Changes)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if steps < 30 || first == 0x10c {
		t.Errorf("%d steps from zxid %#x: the history did not replay the logs from the oldest snapshot", steps, first)
	}
	for _, w := range []Touched{TouchedAll, TouchedBroker, TouchedTopic, TouchedPartition, TouchedTopicConfig, TouchedController, TouchedAdmin} {
		if !touched[w] {
			t.Errorf("no change of kind %d in the fixture's history (kinds seen: %v)", w, slices.Sorted(maps.Keys(touched)))
		}
	}
	t.Logf("%d steps, %d changes, from zxid %#x", steps, changes, first)

	// Between the steps too: after every transaction, including those
	// the history passed over as changing nothing the image holds.
	h := newHistory("zkdata:"+dir, "", func(*model.Image, Step) {})
	var txns int
	_, err = zkfile.ReadDir(dir, zkfile.DirOptions{Oldest: true, Base: h.base, Step: func(dt *zkfile.DataTree, txn *zkfile.Txn, changed []zkfile.Changed) {
		h.txn(dt, txn, changed)
		if h.ready {
			txns++
			sameAsDecode(t, dir, h.d.img, txn.Zxid, nil)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if txns < steps {
		t.Errorf("compared after %d transactions, fewer than the %d steps", txns, steps)
	}
	t.Logf("compared after each of %d transactions", txns)
}

// sameAsDecode compares a history's image at zxid with the full decode
// of the data dir at that zxid.
func sameAsDecode(t *testing.T, dir string, img *model.Image, zxid int64, changes []Change) {
	t.Helper()
	full, err := ReadDataDir(dir, DataDirOptions{Chroot: fixtureChroot, AtZxid: zxid, AtZxidSet: true})
	if err != nil {
		t.Fatalf("zxid %#x: %v", zxid, err)
	}
	want, err := Decode(full, DecodeOptions{})
	if err != nil {
		t.Fatalf("zxid %#x: %v", zxid, err)
	}
	got, w := viewOf(img), viewOf(want)
	if reflect.DeepEqual(got, w) {
		return
	}
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(w)
	for i := range gv.NumField() {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			t.Errorf("zxid %#x (%+v): %s differs from the decode at that zxid:\nhistory %+v\ndecode  %+v", zxid, changes,
				gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
}

// TestHistoryRefsOfAdminZnodes: the admin znodes the image decodes name
// the entities whose fields they set (what diff's zookeeper class
// compares): /admin/delete_topics/<t> the topic (pendingDeletion), the
// legacy /admin/reassign_partitions every partition, since it may name
// any (legacyReassignment); the preferred election and the notification
// queues no entity's field.
func TestHistoryRefsOfAdminZnodes(t *testing.T) {
	h := newHistory("test", "/", func(*model.Image, Step) {})
	h.d = newDecoder(&Tree{}, true)
	h.d.img.Topics["b"] = &model.Topic{Name: "b"}
	h.d.img.Topics["a"] = &model.Topic{Name: "a"}
	for rel, want := range map[string][]model.EntityRef{
		"/admin/delete_topics/doomed": {{Kind: model.EntityTopic, Name: "doomed"}},
		"/admin/reassign_partitions": {{Kind: model.EntityPartition, Name: "a", ID: model.AllIDs},
			{Kind: model.EntityPartition, Name: "b", ID: model.AllIDs}},
		"/admin/delete_topics":                  nil,
		"/admin/preferred_replica_election":     nil,
		"/isr_change_notification/isr_change_1": nil,
	} {
		if got := h.refs(rel); !reflect.DeepEqual(got, want) {
			t.Errorf("refs(%s) = %+v, want %+v", rel, got, want)
		}
	}
}
