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
	section := func(name string, n int) bool {
		if n == 0 {
			p(0, "%s: none", name)
			return false
		}
		p(0, "%s (%d):", name, n)
		return true
	}

	p(0, "cluster id: %s", Clean(img.ClusterID))
	p(0, "provenance: %s", provenance(img.Provenance))

	features := img.SortedFeatures()
	if section("features", len(features)) {
		for _, f := range features {
			p(1, "%s=%d", Clean(f.Name), f.Level)
		}
	}

	brokers := img.SortedBrokers()
	if section("brokers", len(brokers)) {
		for _, b := range brokers {
			var flags []string
			if b.Fenced {
				flags = append(flags, "fenced")
			}
			if b.InControlledShutdown {
				flags = append(flags, "in-controlled-shutdown")
			}
			if b.IsMigratingZkBroker {
				flags = append(flags, "migrating-zk-broker")
			}
			line := fmt.Sprintf("broker %d: epoch=%d rack=%s incarnation=%s", b.ID, b.Epoch, optString(b.Rack), uuidText(b.IncarnationID))
			if len(flags) > 0 {
				line += " " + strings.Join(flags, " ")
			}
			p(1, "%s", line)
			p(2, "endpoints: %s", endpointList(b.Endpoints))
			if len(b.Features) > 0 {
				p(2, "features: %s", featureRanges(b.Features))
			}
			if len(b.CordonedLogDirs) > 0 {
				p(2, "cordoned log dirs: %s", uuidList(b.CordonedLogDirs))
			}
			if len(b.LogDirs) > 0 {
				p(2, "log dirs: %s", uuidList(b.LogDirs))
			}
		}
	}

	controllers := img.SortedControllers()
	if section("controllers", len(controllers)) {
		for _, c := range controllers {
			line := fmt.Sprintf("controller %d: incarnation=%s", c.ID, uuidText(c.IncarnationID))
			if c.ZkMigrationReady {
				line += " zk-migration-ready"
			}
			p(1, "%s", line)
			p(2, "endpoints: %s", endpointList(c.Endpoints))
			if len(c.Features) > 0 {
				p(2, "features: %s", featureRanges(c.Features))
			}
		}
	}

	topics := img.SortedTopics()
	if section("topics", len(topics)) {
		// Partitions are nearly all of a large image: each line is
		// appended into one reused buffer, with one reused sorted slice.
		var parts []*model.Partition
		var line []byte
		for _, t := range topics {
			parts = t.AppendSortedPartitions(parts[:0])
			p(1, "%s: id=%s partitions=%d", Clean(t.Name), uuidText(t.ID), len(parts))
			for _, pt := range parts {
				line = appendPartitionLine(append(line[:0], "    "...), pt)
				bw.Write(append(line, '\n'))
			}
		}
	}

	configs := img.SortedConfigs()
	if section("configs", len(configs)) {
		for _, rc := range configs {
			p(1, "%s:", configResource(rc.Resource))
			for _, e := range rc.Entries {
				p(2, "%s=%s", Clean(e.Name), Clean(e.Value))
			}
		}
	}

	quotas := img.SortedClientQuotas()
	if section("client quotas", len(quotas)) {
		for _, q := range quotas {
			// Names are quoted in the key, entity types (free-form in a
			// metadata log) are not.
			p(1, "%s: %s", Clean(model.QuotaEntityKey(q.Entity)), quotaValues(q))
		}
	}

	acls := img.SortedACLs()
	if section("acls", len(acls)) {
		for _, a := range acls {
			p(1, "%s", aclLine(a))
		}
	}

	scram := img.SortedSCRAM()
	if section("scram credentials", len(scram)) {
		for _, s := range scram {
			p(1, "%s %s: iterations=%d %s", Clean(s.User), model.ScramMechanismName(s.Mechanism), s.Iterations, scramSecret(s))
		}
	}

	tokens := img.SortedDelegationTokens()
	if section("delegation tokens", len(tokens)) {
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

	if img.ProducerIDs == nil {
		p(0, "producer ids: none")
	} else {
		p(0, "producer ids: %s", producerIDs(img.ProducerIDs))
	}
	if img.Migration == nil {
		p(0, "migration: none")
	} else {
		p(0, "migration: %s", migration(img.Migration))
	}
	if q := img.Quorum; q == nil {
		p(0, "quorum: none")
	} else {
		p(0, "quorum: %s", quorum(q))
		for _, v := range q.Voters {
			p(1, "%s", voter(v))
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

// appendPartitionLine appends a partition's line (without indent or
// newline): what fmt would print, appended with strconv.
func appendPartitionLine(b []byte, pt *model.Partition) []byte {
	b = append(b, "partition "...)
	b = strconv.AppendInt(b, int64(pt.ID), 10)
	b = append(b, ": leader="...)
	b = strconv.AppendInt(b, int64(pt.Leader), 10)
	b = append(b, " leaderEpoch="...)
	b = strconv.AppendInt(b, int64(pt.LeaderEpoch), 10)
	b = append(b, " partitionEpoch="...)
	b = strconv.AppendInt(b, int64(pt.PartitionEpoch), 10)
	b = appendInt32List(append(b, " replicas="...), pt.Replicas)
	b = appendInt32List(append(b, " isr="...), pt.ISR)
	// nil ELR means the metadata does not track it; print only when tracked.
	if pt.ELR != nil {
		b = appendInt32List(append(b, " elr="...), pt.ELR)
	}
	if pt.LastKnownELR != nil {
		b = appendInt32List(append(b, " lastKnownElr="...), pt.LastKnownELR)
	}
	if len(pt.AddingReplicas) > 0 {
		b = appendInt32List(append(b, " adding="...), pt.AddingReplicas)
	}
	if len(pt.RemovingReplicas) > 0 {
		b = appendInt32List(append(b, " removing="...), pt.RemovingReplicas)
	}
	if pt.LeaderRecoveryState != model.Recovered {
		b = append(append(b, " leaderRecoveryState="...), model.LeaderRecoveryStateName(pt.LeaderRecoveryState)...)
	}
	if len(pt.Directories) > 0 {
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
