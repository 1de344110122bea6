package printer

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// WriteImageText prints img as an indented tree, one section per kind of
// metadata, every collection in its model.Sorted* order. Leaf lines are
// key=value so they grep well. It prints img as given: redact first (or
// use WriteImage) unless secrets are wanted.
func WriteImageText(w io.Writer, img *model.Image) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	p := func(indent int, format string, a ...any) {
		bw.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(bw, format, a...)
		bw.WriteByte('\n')
	}
	// section heads a collection. One the source does not report (a
	// live cluster's controllers without --bootstrap-controller, a
	// principal not allowed to read the ACLs) is "not reported", never
	// "none"; one reported in part says so.
	section := func(name string, n int, fields ...model.Field) bool {
		reported := reportsAll(img, fields...)
		switch {
		case n == 0 && !reported:
			p(0, "%s: %s", name, notReportedText)
			return false
		case n == 0:
			p(0, "%s: none", name)
			return false
		case !reported:
			p(0, "%s (%d; others not reported):", name, n)
			return true
		}
		p(0, "%s (%d):", name, n)
		return true
	}

	p(0, "cluster id: %s", clusterID(img))
	p(0, "provenance: %s", provenance(img.Provenance))
	if len(img.NotReported) > 0 {
		p(0, "not reported by the source: %s", fieldList(img.NotReported))
	}

	features := img.SortedFeatures()
	if section("features", len(features)) {
		for _, f := range features {
			p(1, "%s=%d", Clean(f.Name), f.Level)
		}
	}

	brokers := img.SortedBrokers()
	if section("brokers", len(brokers), model.FieldBrokers) {
		for _, b := range brokers {
			var flags []string
			// A flag the source does not report is said as such: its
			// absence would read as "no".
			flag := func(on bool, name string, f model.Field) {
				switch {
				case !img.Reports(f):
					flags = append(flags, name+"="+notReportedText)
				case on:
					flags = append(flags, name)
				}
			}
			flag(b.Fenced, "fenced", model.FieldBrokerFenced)
			if b.Fenced && b.InControlledShutdown && img.Reports(model.FieldBrokerControlledShutdown) {
				// The log's last flag of a broker whose shutdown ended
				// in fencing: not today's state.
				flags = append(flags, "in-controlled-shutdown=stale(fenced)")
			} else {
				flag(b.InControlledShutdown, "in-controlled-shutdown", model.FieldBrokerControlledShutdown)
			}
			flag(b.IsMigratingZkBroker, "migrating-zk-broker", model.FieldBrokerMigrating)
			line := fmt.Sprintf("broker %d: epoch=%s rack=%s incarnation=%s", b.ID,
				reported(img, model.FieldBrokerEpoch, strconv.FormatInt(b.Epoch, 10)), optString(b.Rack),
				reported(img, model.FieldBrokerIncarnationID, uuidText(b.IncarnationID)))
			if len(flags) > 0 {
				line += " " + strings.Join(flags, " ")
			}
			p(1, "%s", line)
			p(2, "endpoints: %s", endpointsOf(img, b.Endpoints, model.FieldBrokerEndpoints))
			if !img.Reports(model.FieldBrokerFeatures) {
				p(2, "features: %s", notReportedText)
			} else if len(b.Features) > 0 {
				p(2, "features: %s", featureRanges(b.Features))
			}
			if len(b.CordonedLogDirs) > 0 && img.Reports(model.FieldBrokerCordonedLogDirs) {
				p(2, "cordoned log dirs: %s", uuidList(b.CordonedLogDirs))
			}
			if !img.Reports(model.FieldBrokerLogDirs) {
				p(2, "log dirs: %s", notReportedText)
			} else if len(b.LogDirs) > 0 {
				p(2, "log dirs: %s", uuidList(b.LogDirs))
			}
		}
	}

	controllers := img.SortedControllers()
	if section("controllers", len(controllers), model.FieldControllers) {
		for _, c := range controllers {
			line := fmt.Sprintf("controller %d: incarnation=%s", c.ID, reported(img, model.FieldControllerIncarnationID, uuidText(c.IncarnationID)))
			switch {
			case !img.Reports(model.FieldControllerZkMigrationReady):
				line += " zk-migration-ready=" + notReportedText
			case c.ZkMigrationReady:
				line += " zk-migration-ready"
			}
			p(1, "%s", line)
			p(2, "endpoints: %s", endpointsOf(img, c.Endpoints, model.FieldControllerEndpoints))
			if !img.Reports(model.FieldControllerFeatures) && len(c.Features) == 0 {
				p(2, "features: %s", notReportedText)
			} else if len(c.Features) > 0 {
				p(2, "features: %s", featureRanges(c.Features))
			}
		}
	}

	topics := img.SortedTopics()
	pl := partitionLineOf(img)
	if section("topics", len(topics), model.FieldTopics) {
		// Partitions are nearly all of a large image: each line is
		// appended into one reused buffer, with one reused sorted slice.
		var parts []*model.Partition
		var line []byte
		for _, t := range topics {
			parts = t.AppendSortedPartitions(parts[:0])
			p(1, "%s: id=%s partitions=%d", Clean(t.Name), uuidText(t.ID), len(parts))
			for _, pt := range parts {
				line = pl.appendLine(append(line[:0], "    "...), pt)
				bw.Write(append(line, '\n'))
			}
		}
	}

	configs := img.SortedConfigs()
	if section("configs", len(configs), model.FieldTopicConfigs, model.FieldBrokerConfigs) {
		for _, rc := range configs {
			p(1, "%s:", configResource(rc.Resource))
			for _, e := range rc.Entries {
				p(2, "%s=%s", Clean(e.Name), Clean(e.Value))
			}
		}
	}

	quotas := img.SortedClientQuotas()
	if section("client quotas", len(quotas), model.FieldClientQuotas) {
		for _, q := range quotas {
			// Names are quoted in the key, entity types (free-form in a
			// metadata log) are not.
			p(1, "%s: %s", Clean(model.QuotaEntityKey(q.Entity)), quotaValues(q))
		}
	}

	acls := img.SortedACLs()
	if section("acls", len(acls), model.FieldACLs) {
		for _, a := range acls {
			p(1, "%s", aclLine(a))
		}
	}

	scram := img.SortedSCRAM()
	if section("scram credentials", len(scram), model.FieldSCRAM) {
		for _, s := range scram {
			p(1, "%s %s: iterations=%d %s", Clean(s.User), model.ScramMechanismName(s.Mechanism), s.Iterations, scramSecretOf(img, s))
		}
	}

	tokens := img.SortedDelegationTokens()
	if section("delegation tokens", len(tokens), model.FieldDelegationTokens) {
		for _, t := range tokens {
			renewers := make([]string, len(t.Renewers))
			for i, r := range t.Renewers {
				renewers[i] = Clean(r)
			}
			p(1, "%s: owner=%s requester=%s renewers=[%s] issued=%s max=%s expires=%s", Clean(t.TokenID),
				Clean(t.Owner), Clean(t.Requester), strings.Join(renewers, ","),
				millis(t.IssueTimestamp), millis(t.MaxTimestamp), millis(t.ExpirationTimestamp))
		}
	}

	switch {
	case !img.Reports(model.FieldProducerIDs):
		p(0, "producer ids: %s", notReportedText)
	case img.ProducerIDs == nil:
		p(0, "producer ids: none")
	default:
		p(0, "producer ids: %s", producerIDs(img.ProducerIDs))
	}
	switch {
	case !img.Reports(model.FieldMigration):
		p(0, "migration: %s", notReportedText)
	case img.Migration == nil:
		p(0, "migration: none")
	default:
		p(0, "migration: %s", migration(img.Migration))
	}
	switch q := img.Quorum; {
	case q == nil && !img.Reports(model.FieldQuorum):
		p(0, "quorum: %s", notReportedText)
	case q == nil:
		p(0, "quorum: none")
	default:
		p(0, "quorum: %s", quorum(q))
		for _, v := range q.Voters {
			p(1, "%s", voterOf(img, v))
		}
	}
	if z := img.ZK; z == nil {
		p(0, "zookeeper: none")
	} else {
		p(0, "zookeeper: %s", zkState(z))
		for _, kv := range zkLists(z) {
			p(1, "%s: %s", kv[0], kv[1])
		}
		if len(z.Raw) > 0 {
			p(1, "unparsed znodes (%d):", len(z.Raw))
			for _, path := range slices.Sorted(maps.Keys(z.Raw)) {
				p(2, "%s (%s)", Clean(path), Count(len(z.Raw[path]), "byte"))
			}
		}
	}
	return bw.Flush()
}

// partitionLine says which partition fields the source reports: a field
// it does not is printed as not-reported (partitionEpoch, recovery) or
// left out with the image's note (ELR, reassignment, directories), never
// as its zero value.
type partitionLine struct {
	epoch, elr, recovery, moves, dirs bool
}

func partitionLineOf(img *model.Image) partitionLine {
	return partitionLine{epoch: img.Reports(model.FieldPartitionEpoch), elr: img.Reports(model.FieldPartitionELR),
		recovery: img.Reports(model.FieldPartitionLeaderRecovery), moves: img.Reports(model.FieldPartitionReassignment),
		dirs: img.Reports(model.FieldPartitionDirectories)}
}

// appendLine appends a partition's line (without indent or newline):
// what fmt would print, appended with strconv.
func (pl partitionLine) appendLine(b []byte, pt *model.Partition) []byte {
	b = append(b, "partition "...)
	b = strconv.AppendInt(b, int64(pt.ID), 10)
	b = append(b, ": leader="...)
	b = strconv.AppendInt(b, int64(pt.Leader), 10)
	b = append(b, " leaderEpoch="...)
	b = strconv.AppendInt(b, int64(pt.LeaderEpoch), 10)
	b = append(b, " partitionEpoch="...)
	if pl.epoch {
		b = strconv.AppendInt(b, int64(pt.PartitionEpoch), 10)
	} else {
		b = append(b, notReportedText...)
	}
	b = appendInt32List(append(b, " replicas="...), pt.Replicas)
	b = appendInt32List(append(b, " isr="...), pt.ISR)
	// nil ELR means the metadata does not track it; print only when
	// tracked (and reported).
	if pt.ELR != nil && pl.elr {
		b = appendInt32List(append(b, " elr="...), pt.ELR)
	}
	if pt.LastKnownELR != nil && pl.elr {
		b = appendInt32List(append(b, " lastKnownElr="...), pt.LastKnownELR)
	}
	if len(pt.AddingReplicas) > 0 && pl.moves {
		b = appendInt32List(append(b, " adding="...), pt.AddingReplicas)
	}
	if len(pt.RemovingReplicas) > 0 && pl.moves {
		b = appendInt32List(append(b, " removing="...), pt.RemovingReplicas)
	}
	if pt.LeaderRecoveryState != model.Recovered && pl.recovery {
		b = append(append(b, " leaderRecoveryState="...), model.LeaderRecoveryStateName(pt.LeaderRecoveryState)...)
	}
	if len(pt.Directories) > 0 && pl.dirs {
		b = appendDirList(append(b, " directories="...), pt.Directories)
	}
	return b
}

func cleanAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = Clean(v)
	}
	return out
}

// clusterID is the image's cluster id as every format prints it, or
// not-reported where the source cannot tell it (a bootstrap file, a log
// without meta.properties).
func clusterID(img *model.Image) string {
	if !img.Reports(model.FieldClusterID) {
		return notReportedText
	}
	return Clean(img.ClusterID)
}
