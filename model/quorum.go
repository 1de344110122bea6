package model

import "slices"

// QuorumStatus is a KRaft quorum's replication state, one shape for every
// source: what the leader answers to DescribeQuorum on a live cluster
// (kafka-metadata-quorum describe --status and --replication), or what
// controllers' metadata log dirs hold. It sits beside Quorum (the image's
// view of the voter set, from control records) and leaves Quorum's JSON as
// it is.
//
// Unknown numbers are -1, as Kafka reports them (a voter that has not
// fetched yet has no log end offset or timestamps). A field the source
// cannot report at all (a log dir knows no fetch times nor high
// watermark) is listed in NotReported: its -1 values are not Kafka's
// "unknown" but "this source cannot say".
type QuorumStatus struct {
	// Source names what was read: kafka://... or the log dirs.
	Source    string `json:"source"`
	ClusterID string `json:"clusterId"`
	// LeaderID is -1 when there is no leader.
	LeaderID      int32 `json:"leaderId"`
	LeaderEpoch   int32 `json:"leaderEpoch"`
	HighWatermark int64 `json:"highWatermark"`
	// KRaftVersion is the finalized kraft.version (0 static, 1 dynamic),
	// KRaftVersionSupported the highest level every controller the source
	// knows of supports (-1 when unknown).
	KRaftVersion          int16 `json:"kraftVersion"`
	KRaftVersionSupported int16 `json:"kraftVersionSupported"`
	// MetadataVersionSupported is the highest metadata.version every
	// registered controller supports (log dirs: their registrations), which
	// tells their Kafka release; -1 when the source does not tell.
	MetadataVersionSupported int16 `json:"metadataVersionSupported"`
	// Voters in the order the source gives them (DescribeQuorum's order,
	// or by id for log dirs); Observers likewise.
	Voters    []QuorumReplica `json:"voters"`
	Observers []QuorumReplica `json:"observers"`
	// NotReported lists the fields this source cannot report (the
	// QuorumField* names), sorted.
	NotReported []Field `json:"notReported,omitempty"`
	// Brokers are the registered brokers' listeners, by broker in id
	// order, where the source holds their registrations (log dirs): the
	// address a printed command reaches the cluster at.
	Brokers [][]Endpoint `json:"-"`
}

// QuorumReplica is one voter or observer of the metadata partition.
type QuorumReplica struct {
	ID          int32      `json:"id"`
	DirectoryID UUID       `json:"directoryId"`
	Endpoints   []Endpoint `json:"endpoints,omitempty"`
	// LogEndOffset, LastFetchTimestamp and LastCaughtUpTimestamp are as
	// the leader reports them (Unix milliseconds on the leader's clock;
	// the leader's own two timestamps are its current time); -1 unknown.
	LogEndOffset          int64 `json:"logEndOffset"`
	LastFetchTimestamp    int64 `json:"lastFetchTimestamp"`
	LastCaughtUpTimestamp int64 `json:"lastCaughtUpTimestamp"`
	// LogDir and MetaDirectoryID, for a replica whose metadata log dir
	// was read: the dir and its meta.properties directory.id
	// (HasMetaDirectoryID false when the file has none).
	LogDir             string `json:"logDir,omitempty"`
	MetaDirectoryID    UUID   `json:"metaDirectoryId,omitzero"`
	HasMetaDirectoryID bool   `json:"hasMetaDirectoryId,omitempty"`
}

// The quorum fields a source may be unable to report (QuorumStatus's
// JSON names).
const (
	QuorumFieldClusterID      Field = "clusterId"
	QuorumFieldHighWatermark  Field = "highWatermark"
	QuorumFieldLastFetch      Field = "lastFetchTimestamp"
	QuorumFieldLastCaughtUp   Field = "lastCaughtUpTimestamp"
	QuorumFieldDirectoryID    Field = "directoryId"
	QuorumFieldEndpoints      Field = "endpoints"
	QuorumFieldObservers      Field = "observers"
	QuorumFieldKRaftSupported Field = "kraftVersionSupported"
	QuorumFieldMVSupported    Field = "metadataVersionSupported"
)

// Reports says whether the status holds field f.
func (s *QuorumStatus) Reports(f Field) bool { return !slices.Contains(s.NotReported, f) }

// MarkNotReported adds fields to NotReported, once each, sorted.
func (s *QuorumStatus) MarkNotReported(fs ...Field) { s.NotReported = markFields(s.NotReported, fs) }

// Leader returns the leader's entry among the voters, nil when there is
// no leader or it is not listed.
func (s *QuorumStatus) Leader() *QuorumReplica {
	if s.LeaderID < 0 {
		return nil
	}
	for i := range s.Voters {
		if s.Voters[i].ID == s.LeaderID {
			return &s.Voters[i]
		}
	}
	return nil
}
