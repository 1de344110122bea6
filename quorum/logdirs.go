package quorum

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// kraftVersionFeature is the feature controllers register their
// supported kraft.version range under.
const kraftVersionFeature = "kraft.version"

// FromLogDirs builds a quorum status from one or more controllers'
// metadata log dirs (each opened with metalog.OpenLogDir): the voters
// and kraft.version of the most advanced copy (Raft's vote rule: the
// highest leader epoch, then the longest log), the highest leader epoch
// any copy's log or quorum-state names with its leader, each given dir's
// log end offset, and each dir's meta.properties directory.id beside the
// voter's. A log holds no fetch times, no high watermark and no
// observers: those are listed as not reported. A dir whose node is not a
// voter is listed among the observers. The warnings are the replays'
// (what each copy rests on).
func FromLogDirs(dirs []*metalog.LogDir) (*model.QuorumStatus, []model.Finding, error) {
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("quorum: no log dir given")
	}
	type copyOf struct {
		dir  *metalog.LogDir
		img  *model.Image
		end  int64
		node int32
	}
	var copies []copyOf
	var warnings []model.Finding
	seen := map[int32]string{}
	for _, d := range dirs {
		mp := d.MetaProperties
		if bad := metaPropertiesProblem(d); mp == nil && bad != nil || mp != nil && mp.Damage != nil {
			// Present but unreadable: damage, not a dir without one.
			if bad == nil {
				bad = mp.Damage
			}
			return nil, nil, fmt.Errorf("%s: meta.properties cannot be read (%v): repair it from the node's backup, or give another copy", d.Path, bad)
		}
		if mp == nil || mp.NodeID < 0 {
			return nil, nil, fmt.Errorf("%s: no meta.properties with a node.id: give each controller's metadata log dir (the dir holding meta.properties and %s/)", d.Path, metalog.MetadataPartitionDir)
		}
		if first := dirs[0].MetaProperties; first != nil && mp.ClusterID != first.ClusterID {
			return nil, nil, fmt.Errorf("%s belongs to cluster %s and %s to cluster %s: give the log dirs of one cluster's controllers", dirs[0].Path, first.ClusterID, d.Path, mp.ClusterID)
		}
		if prev, ok := seen[mp.NodeID]; ok {
			return nil, nil, fmt.Errorf("%s and %s are both node %d's: give one metadata log dir per controller", prev, d.Path, mp.NodeID)
		}
		seen[mp.NodeID] = d.Path
		r, err := metalog.LoadImageDir(d, metalog.ImageOptions{AtOffset: -1})
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, r.Warnings...)
		copies = append(copies, copyOf{dir: d, img: r.Image, end: r.EndOffset, node: mp.NodeID})
	}
	cluster := copies[0].dir.MetaProperties.ClusterID
	epochOf := func(img *model.Image) int32 {
		if img.Quorum == nil {
			return -1
		}
		return img.Quorum.LeaderEpoch
	}
	// The most advanced copy holds the newest voter set.
	ref := slices.MaxFunc(copies, func(a, b copyOf) int {
		if c := cmp.Compare(epochOf(a.img), epochOf(b.img)); c != 0 {
			return c
		}
		return cmp.Compare(a.end, b.end)
	})
	st := &model.QuorumStatus{ClusterID: cluster, LeaderID: -1, LeaderEpoch: -1, HighWatermark: -1,
		KRaftVersionSupported: -1, MetadataVersionSupported: -1, Voters: []model.QuorumReplica{}, Observers: []model.QuorumReplica{}}
	st.MarkNotReported(model.QuorumFieldHighWatermark, model.QuorumFieldLastFetch, model.QuorumFieldLastCaughtUp, model.QuorumFieldObservers)
	for _, c := range copies {
		// Image.Quorum already takes quorum-state's leader when its epoch
		// is newer than the log's.
		if q := c.img.Quorum; q != nil && q.LeaderEpoch > st.LeaderEpoch {
			st.LeaderID, st.LeaderEpoch = q.LeaderID, q.LeaderEpoch
		}
	}
	var voters []model.Voter
	if q := ref.img.Quorum; q != nil {
		st.KRaftVersion = q.KRaftVersion
		voters = q.Voters
	}
	if len(voters) == 0 {
		// A static quorum whose log holds no LeaderChange yet: quorum-state
		// (data_version 0) lists the voters.
		for _, c := range copies {
			if qs := c.dir.QuorumState; qs != nil && len(qs.CurrentVoters) > 0 {
				for _, v := range qs.CurrentVoters {
					voters = append(voters, model.Voter{ID: v.VoterID})
				}
				break
			}
		}
	}
	byNode := map[int32]copyOf{}
	for _, c := range copies {
		byNode[c.node] = c
	}
	static := st.KRaftVersion == 0
	for _, v := range voters {
		r := model.QuorumReplica{ID: v.ID, DirectoryID: v.DirectoryID, Endpoints: v.Endpoints,
			LogEndOffset: -1, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1}
		if static {
			// Static voters' endpoints live in controller.quorum.voters, not
			// in the log; the controller's registration names its listeners.
			if ctl := ref.img.Controllers[v.ID]; ctl != nil {
				r.Endpoints = slices.Clone(ctl.Endpoints)
			}
		}
		if c, ok := byNode[v.ID]; ok {
			fillDir(&r, c.dir, c.end)
			delete(byNode, v.ID)
		}
		st.Voters = append(st.Voters, r)
	}
	slices.SortFunc(st.Voters, func(a, b model.QuorumReplica) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range copies {
		if _, left := byNode[c.node]; !left {
			continue
		}
		r := model.QuorumReplica{ID: c.node, LastFetchTimestamp: -1, LastCaughtUpTimestamp: -1}
		if c.dir.MetaProperties.HasDirectoryID {
			r.DirectoryID = c.dir.MetaProperties.DirectoryID
		}
		fillDir(&r, c.dir, c.end)
		st.Observers = append(st.Observers, r)
	}
	slices.SortFunc(st.Observers, func(a, b model.QuorumReplica) int { return cmp.Compare(a.ID, b.ID) })
	// Every registered controller must support a level before it can be
	// finalized: the lowest maximum is the quorum's.
	for _, id := range slices.Sorted(maps.Keys(ref.img.Controllers)) {
		for _, f := range ref.img.Controllers[id].Features {
			if f.Name == kraftVersionFeature && (st.KRaftVersionSupported < 0 || f.Max < st.KRaftVersionSupported) {
				st.KRaftVersionSupported = f.Max
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ref.img.Brokers)) {
		st.Brokers = append(st.Brokers, ref.img.Brokers[id].Endpoints)
	}
	if mv, ok := ref.img.ControllersMetadataVersionMax(); ok {
		st.MetadataVersionSupported = mv
	} else {
		st.MarkNotReported(model.QuorumFieldMVSupported)
	}
	if st.KRaftVersionSupported < 0 {
		st.MarkNotReported(model.QuorumFieldKRaftSupported)
	}
	return st, warnings, nil
}

func fillDir(r *model.QuorumReplica, d *metalog.LogDir, end int64) {
	r.LogDir = d.Path
	r.LogEndOffset = max(end, 0)
	if mp := d.MetaProperties; mp.HasDirectoryID {
		r.MetaDirectoryID, r.HasMetaDirectoryID = mp.DirectoryID, true
	}
}

// metaPropertiesProblem is the error that made a dir's meta.properties
// unusable (nil when it read, or is absent).
func metaPropertiesProblem(d *metalog.LogDir) error {
	if d.Root == "" {
		return nil
	}
	mp := filepath.Join(d.Root, metalog.MetaPropertiesFileName)
	for _, p := range d.Problems {
		if strings.Contains(p.Error(), mp) {
			return p
		}
	}
	return nil
}
