package quorum

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// CodeCopyMetaProperties: a copy's meta.properties is not as Kafka writes
// it (issue 29: a survey called such a copy clean, and a rebuild carried
// a broken cluster id into the new controllers).
const CodeCopyMetaProperties = "copy-meta-properties"

var hostileChecks = model.Checks{
	{
		Code: CodeCopyMetaProperties, Room: "quorum", Class: voters.Class, Severity: model.SevWarning,
		Title:    "a copy's meta.properties is not as Kafka writes it",
		Meaning:  "The copy's meta.properties holds a cluster.id that is not a Kafka Uuid, keys kafka-storage does not write, no node id (version 0 without broker.id), or (in a dynamic quorum) no directory.id for a voter: the file was edited or damaged. A rebuild takes the cluster id from it, and refuses one that is not a Kafka Uuid.",
		Fix:      "compare the file with another node's meta.properties (the cluster.id is the same on every node of the cluster) and repair it",
		Commands: []string{"quorum survey", "quorum rebuild"},
	},
}

func init() { checks = append(checks, hostileChecks...) }

// kafkaMetaKeys are the keys kafka-storage format (and a ZooKeeper-era
// broker) writes in meta.properties.
var kafkaMetaKeys = []string{"version", "node.id", "broker.id", "cluster.id", "directory.id"}

// metaPropertiesFindings say what is not Kafka's in each copy's
// meta.properties.
func (r *SurveyResult) metaPropertiesFindings(dirs map[string]*metalog.MetaProperties) {
	best := &r.Copies[r.Best]
	voters := map[int32]bool{}
	for _, v := range best.Voters {
		voters[v.ID] = true
	}
	ch := hostileChecks.Must(CodeCopyMetaProperties)
	for i := range r.Copies {
		c := &r.Copies[i]
		mp := dirs[c.Dir]
		if mp == nil {
			continue
		}
		where := model.At(filepath.Join(c.root, metalog.MetaPropertiesFileName), -1, -1)
		var why []string
		if mp.ClusterIDProblem != nil {
			why = append(why, fmt.Sprintf("its cluster.id %q is not a Kafka Uuid", mp.ClusterID))
		}
		if mp.Version == 0 && mp.NodeID < 0 && mp.Damage == nil {
			// Kafka's parser takes it (version 0, ids optional), but no
			// Kafka writes it: a KRaft node's dir says version=1 and
			// node.id, a ZooKeeper-mode broker's version=0 and broker.id.
			why = append(why, "it names no node: version 0 (no version=1) and no broker.id, which no Kafka writes; a KRaft node's meta.properties says version=1 and its node.id")
		}
		var odd []string
		for _, k := range slices.Sorted(maps.Keys(mp.Props)) {
			if !slices.Contains(kafkaMetaKeys, k) {
				odd = append(odd, fmt.Sprintf("%q", k))
			}
		}
		if len(odd) > 0 {
			why = append(why, "it holds keys Kafka does not write: "+strings.Join(odd, ", "))
		}
		if best.KRaftVersion >= 1 && voters[c.NodeID] && !mp.HasDirectoryID {
			why = append(why, fmt.Sprintf("it has no directory.id, though node %d is a voter of a dynamic quorum: Kafka would give the dir a new one, not the voter set's", c.NodeID))
		}
		if len(why) > 0 {
			f := ch.Finding(copyEntity(c), "meta.properties: "+strings.Join(why, "; "), ch.Fix)
			f.Where = &where
			r.Findings = append(r.Findings, f)
		}
	}
}
