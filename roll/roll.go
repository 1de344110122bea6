package roll

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// Input is what a verdict is made from: one read of the source.
type Input struct {
	// Image is the cluster as the source reports it: brokers and their
	// state, partitions with their ISR, configs (static ones included
	// when known), ZooKeeper's /controller.
	Image *model.Image
	// Quorum is the metadata quorum's replication state (DescribeQuorum
	// on a live cluster; voters without fetch times from a log dir); nil
	// when the source has none (ZooKeeper mode) or could not read it.
	Quorum *model.QuorumStatus
	// QuorumMissing says why Quorum is nil on a source that should have
	// one ("DescribeQuorum: ..."), "" otherwise.
	QuorumMissing string
	// FetchTimeoutMs is the controllers' controller.quorum.fetch.timeout.ms
	// (0: Kafka's default): how far behind the leader a voter may be and
	// still count as caught up.
	FetchTimeoutMs int64
}

// Role is what a node does: broker, controller, or both (combined).
type Role string

// The roles.
const (
	RoleBroker     Role = "broker"
	RoleController Role = "controller"
)

// QuorumFromImage is the quorum status a metadata log dir's image holds:
// the voters (VotersRecord, kraft.version 1) and the leader it last
// knew, without fetch times, high watermark or observers (listed as not
// reported). nil when the image names no voters (a static quorum, whose
// voters are in the controllers' configs only, or a ZooKeeper view).
func QuorumFromImage(img *model.Image) *model.QuorumStatus {
	if img == nil || img.Quorum == nil || len(img.Quorum.Voters) == 0 {
		return nil
	}
	st := &model.QuorumStatus{Source: img.Provenance.Source, ClusterID: img.ClusterID, LeaderID: img.Quorum.LeaderID,
		LeaderEpoch: img.Quorum.LeaderEpoch, HighWatermark: -1, KRaftVersion: img.Quorum.KRaftVersion, KRaftVersionSupported: -1, MetadataVersionSupported: -1,
		Voters: []model.QuorumReplica{}, Observers: []model.QuorumReplica{}}
	for _, v := range img.Quorum.Voters {
		st.Voters = append(st.Voters, model.QuorumReplica{ID: v.ID, DirectoryID: v.DirectoryID, Endpoints: v.Endpoints,
			LogEndOffset: -1, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1})
	}
	st.MarkNotReported(model.QuorumFieldHighWatermark, model.QuorumFieldLastFetch, model.QuorumFieldLastCaughtUp,
		model.QuorumFieldObservers, model.QuorumFieldKRaftSupported, model.QuorumFieldMVSupported)
	return st
}

// view is what every question about one input shares: who is live, who
// votes, who leads how many partitions.
type view struct {
	in  Input
	img *model.Image
	// live brokers: registered, not fenced, not in controlled shutdown
	// (as far as the source reports those states).
	live map[int32]bool
	// brokersKnown: the source lists the brokers; topicsKnown: the
	// partitions.
	brokersKnown, topicsKnown bool
	zk                        bool
	// voters (when votersKnown), the quorum's leader (-1 none or
	// unknown).
	voters      []int32
	votersKnown bool
	leader      int32
	assessment  *voters.Assessment
}

func newView(in Input) *view {
	img := in.Image
	if img == nil {
		img = model.NewImage()
		img.MarkNotReported(model.FieldBrokers, model.FieldTopics)
	}
	v := &view{in: in, img: img, live: map[int32]bool{}, leader: -1,
		brokersKnown: img.Reports(model.FieldBrokers), topicsKnown: img.Reports(model.FieldTopics), zk: img.ZK != nil}
	fenced, shutdown := img.Reports(model.FieldBrokerFenced), img.Reports(model.FieldBrokerControlledShutdown)
	for id, b := range img.Brokers {
		v.live[id] = !(fenced && b.Fenced) && !(shutdown && b.InControlledShutdown)
	}
	switch {
	case in.Quorum != nil && len(in.Quorum.Voters) > 0:
		for _, r := range in.Quorum.Voters {
			v.voters = append(v.voters, r.ID)
		}
		v.votersKnown, v.leader = true, in.Quorum.LeaderID
		a := voters.Judge(in.Quorum, voters.Options{FetchTimeoutMs: in.FetchTimeoutMs})
		v.assessment = &a
	case img.Quorum != nil && len(img.Quorum.Voters) > 0:
		for _, r := range img.Quorum.Voters {
			v.voters = append(v.voters, r.ID)
		}
		v.votersKnown, v.leader = true, img.Quorum.LeaderID
	case img.Quorum != nil && img.Quorum.LeaderID >= 0 && len(img.Controllers) > 0:
		// A static quorum's log: no voter set, but the controllers
		// registered (MV 3.7+) and the log names its leader.
		v.leader = img.Quorum.LeaderID
	case v.zk:
		// ZooKeeper lists ZooKeeper-mode brokers, none of which votes in
		// a KRaft quorum (a migration has dedicated controllers, which
		// ZooKeeper does not list: see zkController).
		v.votersKnown = true
	}
	slices.Sort(v.voters)
	return v
}

// underReplicated counts the partitions whose ISR is short of their
// replicas (-1 when the source has no partitions).
func (v *view) underReplicated() int {
	if !v.topicsKnown {
		return -1
	}
	n := 0
	for _, t := range v.img.Topics {
		for _, p := range t.Partitions {
			if len(p.ISR) < len(p.Replicas) {
				n++
			}
		}
	}
	return n
}

// liveIn says whether broker b serves partition p: live, and not among
// the replicas the cluster reports offline for it.
func (v *view) liveIn(b int32, p *model.Partition) bool {
	return v.live[b] && !slices.Contains(p.OfflineReplicas, b)
}

// roles are node's roles as far as the source tells: a broker when it is
// registered or holds a replica, a controller when it votes or
// registered as one.
func (v *view) roles(node int32) []Role {
	var out []Role
	broker := v.img.Brokers[node] != nil
	if !broker && v.topicsKnown {
		broker = v.holdsReplica(node)
	}
	if broker {
		out = append(out, RoleBroker)
	}
	if slices.Contains(v.voters, node) || v.img.Controllers[node] != nil {
		out = append(out, RoleController)
	}
	return out
}

func (v *view) holdsReplica(node int32) bool {
	for _, t := range v.img.Topics {
		for _, p := range t.Partitions {
			if slices.Contains(p.Replicas, node) {
				return true
			}
		}
	}
	return false
}

// voterState is the judge's view of a voter, nil when the source gave no
// replication state or the node is not a voter.
func (v *view) voterState(node int32) *voters.VoterState {
	if v.assessment == nil {
		return nil
	}
	for i := range v.assessment.Voters {
		if v.assessment.Voters[i].ID == node {
			return &v.assessment.Voters[i]
		}
	}
	return nil
}

// timesMissing is the fact a controller's verdict lacks when the source
// has voters but no fetch times.
const (
	timesMissing = "the voters' fetch times (a metadata log dir holds none)"
	timesHow     = "ask the controllers: --bootstrap-controller HOST:PORT (or the brokers, --bootstrap-server)"
)

// partitionName is topic-partition as Kafka's tools print it.
func partitionName(topic string, p int32) string { return topic + "-" + strconv.Itoa(int(p)) }

// idList prints ids as Kafka prints a replica list: [1,2,3].
func idList(ids []int32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	b.WriteByte(']')
	return b.String()
}

// partList prints up to max partition numbers, then how many more.
func partList(ps []int32, max int) string {
	var b strings.Builder
	for i, p := range ps {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(ps)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(p)))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// QuorumFromFiles is the voter set the nodes' server.properties name
// (controller.quorum.voters, ID@HOST:PORT,...: a static quorum's voters
// are in no metadata record), with the leader the image last knew; nil
// when no file names voters. Like QuorumFromImage it has no fetch times.
func QuorumFromFiles(img *model.Image, files map[int32]map[string]string) *model.QuorumStatus {
	ids := slices.Sorted(maps.Keys(files))
	for _, id := range ids {
		v := strings.TrimSpace(files[id]["controller.quorum.voters"])
		if v == "" {
			continue
		}
		q := &model.Quorum{LeaderID: -1}
		if img != nil && img.Quorum != nil {
			q.LeaderID, q.LeaderEpoch, q.KRaftVersion = img.Quorum.LeaderID, img.Quorum.LeaderEpoch, img.Quorum.KRaftVersion
		}
		for _, part := range strings.Split(v, ",") {
			idS, _, ok := strings.Cut(strings.TrimSpace(part), "@")
			n, err := strconv.ParseInt(idS, 10, 32)
			if !ok || err != nil {
				return nil
			}
			q.Voters = append(q.Voters, model.Voter{ID: int32(n)})
		}
		tmp := model.NewImage()
		tmp.Quorum = q
		if img != nil {
			tmp.ClusterID, tmp.Provenance = img.ClusterID, img.Provenance
		}
		return QuorumFromImage(tmp)
	}
	return nil
}
