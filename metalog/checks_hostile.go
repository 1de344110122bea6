package metalog

import "github.com/kmeta/kmeta/model"

// Codes of the damage issue 29 found reported as health: a metadata
// partition dir that is not one, and a leader epoch no election started.
const (
	// KindNoMetadataLog: __cluster_metadata-0 is a dangling symlink, a
	// symlink loop, a plain file, or a dir holding no segment and no
	// snapshot (or only empty segments and no bootstrap at all, see
	// LogDir.EmptyLog), or it is absent from a dir kafka-storage format did not
	// leave so (see noPartitionDir). Read as it is, it is an empty log; it
	// is damage (or no log at all), never an empty healthy one.
	KindNoMetadataLog = "no-metadata-log"
	// KindEpochNoLeaderChange: a segment batch raises the leader epoch
	// without the LeaderChange control batch every Raft leader writes
	// first in its epoch. partitionLeaderEpoch is outside the CRC, so a
	// flipped epoch leaves a batch that reads cleanly.
	KindEpochNoLeaderChange = "epoch-without-leader-change"
)

// hostileChecks declares the codes above (see model.Check); init adds
// them to the room's table.
var hostileChecks = model.Checks{
	{
		Code: KindNoMetadataLog, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "the metadata partition dir is missing its log",
		Meaning:  "__cluster_metadata-0 is a dangling symlink, a symlink loop, a plain file, or a dir without a segment or snapshot, or whose segments are empty (Kafka created them when it started) with no snapshot and no bootstrap.checkpoint (kafka-storage format leaves one of the two); or it is absent from a dir that is not what kafka-storage format leaves before the first start (3.x: meta.properties and bootstrap.checkpoint, whose image is the bootstrap; 4.x always writes __cluster_metadata-0), such as one with no bootstrap.checkpoint or with a broker's offset checkpoints: the node's metadata log is not there, whatever meta.properties says. Read as it is it would be an empty, healthy log.",
		Fix:      "restore __cluster_metadata-0 from the node's backup or another copy of the quorum (kmeta quorum survey), or point kmeta at the dir that holds it",
		Commands: model.CommandList(logCommands, []string{"quorum rebuild"}),
	},
	{
		Code: KindEpochNoLeaderChange, Room: "metalog", Class: FindingClass, Severity: model.SevError,
		Title:    "a leader epoch starts without a LeaderChange",
		Meaning:  "every Raft leader writes a LeaderChange control batch first in its epoch; a batch that raises the epoch without one has a damaged partitionLeaderEpoch (the field is not covered by the CRC) and would win an election it never took part in",
		Fix:      "treat the copy as damaged from that batch on: rebuild from another copy (kmeta quorum survey picks it)",
		Commands: model.CommandList(logCommands, []string{"quorum rebuild"}),
	},
}

func init() { checks = append(checks, hostileChecks...) }
