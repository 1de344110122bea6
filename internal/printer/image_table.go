package printer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// WriteImageTable prints img as a series of titled tables: a CLUSTER
// summary, then one table per non-empty collection (FEATURES, BROKERS,
// CONTROLLERS, PARTITIONS, CONFIGS, CLIENT QUOTAS, ACLS, SCRAM
// CREDENTIALS, DELEGATION TOKENS, QUORUM VOTERS, UNPARSED ZNODES). Like
// WriteImageText it prints img as given.
func WriteImageTable(w io.Writer, img *model.Image) error {
	var sections []tableSection
	// add keeps a non-empty section; essential names the columns that are
	// never left out when the table is fitted to the terminal (fit.go).
	add := func(title string, header []string, rows [][]string, essential ...string) {
		if len(rows) == 0 {
			return
		}
		cols := make([]Column, len(header))
		for i, h := range header {
			cols[i] = Column{Header: h, Wrap: true, Essential: slices.Contains(essential, h)}
		}
		sections = append(sections, tableSection{title, cols, rows})
	}

	summary := [][]string{
		{"cluster id", clusterID(img)},
		{"provenance", provenance(img.Provenance)},
	}
	if len(img.NotReported) > 0 {
		summary = append(summary, []string{"not reported", fieldList(img.NotReported)})
	}
	opt := func(name string, present bool, field model.Field, f func() string) {
		v := "none"
		switch {
		case !img.Reports(field):
			v = notReportedText
		case present:
			v = f()
		}
		summary = append(summary, []string{name, v})
	}
	opt("producer ids", img.ProducerIDs != nil, model.FieldProducerIDs, func() string { return producerIDs(img.ProducerIDs) })
	opt("migration", img.Migration != nil, model.FieldMigration, func() string { return migration(img.Migration) })
	opt("quorum", img.Quorum != nil, model.FieldQuorum, func() string { return quorum(img.Quorum) })
	opt("zookeeper", img.ZK != nil, "", func() string { return zkState(img.ZK) })
	if img.ZK != nil {
		for _, kv := range zkLists(img.ZK) {
			summary = append(summary, []string{kv[0], kv[1]})
		}
	}
	// A collection the source does not report has no table (it would
	// have no rows, or some): the summary says so, never "none".
	for _, sec := range []struct {
		name  string
		n     int
		field model.Field
	}{
		{"brokers", len(img.Brokers), model.FieldBrokers}, {"controllers", len(img.Controllers), model.FieldControllers},
		{"topics", len(img.Topics), model.FieldTopics}, {"client quotas", len(img.ClientQuotas), model.FieldClientQuotas},
		{"acls", len(img.ACLs), model.FieldACLs}, {"scram credentials", len(img.SCRAM), model.FieldSCRAM},
		{"delegation tokens", len(img.DelegationTokens), model.FieldDelegationTokens},
	} {
		switch {
		case img.Reports(sec.field):
		case sec.n == 0:
			summary = append(summary, []string{sec.name, notReportedText})
		default:
			summary = append(summary, []string{sec.name, fmt.Sprintf("%d listed, others not reported", sec.n)})
		}
	}
	add("CLUSTER", []string{"FIELD", "VALUE"}, summary, "FIELD", "VALUE")

	var rows [][]string
	for _, f := range img.SortedFeatures() {
		rows = append(rows, []string{f.Name, strconv.Itoa(int(f.Level))})
	}
	add("FEATURES", []string{"NAME", "LEVEL"}, rows, "NAME", "LEVEL")

	// cell is v, or not-reported for a field the source does not report.
	cell := func(f model.Field, v string) string { return reported(img, f, v) }
	rows = nil
	for _, b := range img.SortedBrokers() {
		rack := "<none>"
		if b.Rack != nil {
			rack = *b.Rack
		}
		rows = append(rows, []string{itoa(b.ID), cell(model.FieldBrokerEpoch, strconv.FormatInt(b.Epoch, 10)), rack,
			cell(model.FieldBrokerFenced, yes(b.Fenced)), cell(model.FieldBrokerControlledShutdown, shutdownCell(b)),
			cell(model.FieldBrokerMigrating, yes(b.IsMigratingZkBroker)), endpointsOf(img, b.Endpoints, model.FieldBrokerEndpoints),
			cell(model.FieldBrokerIncarnationID, uuidText(b.IncarnationID))})
	}
	add("BROKERS", []string{"ID", "EPOCH", "RACK", "FENCED", "CONTROLLED SHUTDOWN", "MIGRATING ZK", "ENDPOINTS", "INCARNATION ID"}, rows,
		"ID", "FENCED", "ENDPOINTS")

	rows = nil
	for _, c := range img.SortedControllers() {
		rows = append(rows, []string{itoa(c.ID), cell(model.FieldControllerZkMigrationReady, yes(c.ZkMigrationReady)),
			endpointsOf(img, c.Endpoints, model.FieldControllerEndpoints), cell(model.FieldControllerIncarnationID, uuidText(c.IncarnationID))})
	}
	add("CONTROLLERS", []string{"ID", "ZK MIGRATION READY", "ENDPOINTS", "INCARNATION ID"}, rows, "ID", "ENDPOINTS")

	rows = nil
	for _, t := range img.SortedTopics() {
		parts := t.SortedPartitions()
		id := uuidText(t.ID) // one string for the topic's rows
		if len(parts) == 0 {
			// Keep partition-less topics visible.
			rows = append(rows, []string{t.Name, id, "-", "", "", "", "", "", "", "", "", ""})
		}
		for _, p := range parts {
			elr := "-"
			if p.ELR != nil {
				elr = int32List(p.ELR)
			}
			rows = append(rows, []string{t.Name, id, itoa(p.ID), itoa(p.Leader), itoa(p.LeaderEpoch),
				cell(model.FieldPartitionEpoch, itoa(p.PartitionEpoch)), int32List(p.Replicas), int32List(p.ISR),
				cell(model.FieldPartitionELR, elr), cell(model.FieldPartitionReassignment, int32List(p.AddingReplicas)),
				cell(model.FieldPartitionReassignment, int32List(p.RemovingReplicas)),
				cell(model.FieldPartitionLeaderRecovery, model.LeaderRecoveryStateName(p.LeaderRecoveryState))})
		}
	}
	add("PARTITIONS", []string{"TOPIC", "TOPIC ID", "PARTITION", "LEADER", "LEADER EPOCH", "PARTITION EPOCH",
		"REPLICAS", "ISR", "ELR", "ADDING", "REMOVING", "RECOVERY"}, rows,
		"TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR")

	rows = nil
	for _, rc := range img.SortedConfigs() {
		name := rc.Resource.Name
		if name == "" {
			name = "<default>"
		}
		for _, e := range rc.Entries {
			rows = append(rows, []string{rc.Resource.Type.String(), name, e.Name, e.Value})
		}
	}
	add("CONFIGS", []string{"RESOURCE TYPE", "RESOURCE NAME", "NAME", "VALUE"}, rows, "RESOURCE TYPE", "RESOURCE NAME", "NAME", "VALUE")

	rows = nil
	for _, q := range img.SortedClientQuotas() {
		key := model.QuotaEntityKey(q.Entity)
		for _, v := range model.SortedQuotaValues(q.Values) {
			rows = append(rows, []string{key, v.Name, formatFloat(v.Value)})
		}
	}
	add("CLIENT QUOTAS", []string{"ENTITY", "NAME", "VALUE"}, rows, "ENTITY", "NAME", "VALUE")

	rows = nil
	for _, a := range img.SortedACLs() {
		rows = append(rows, []string{a.Principal, model.ACLPermissionTypeName(a.PermissionType),
			model.ACLOperationName(a.Operation), a.Host, model.ACLResourceTypeName(a.ResourceType),
			model.ACLPatternTypeName(a.PatternType), a.ResourceName, a.ID.String()})
	}
	add("ACLS", []string{"PRINCIPAL", "PERMISSION", "OPERATION", "HOST", "RESOURCE TYPE", "PATTERN TYPE", "RESOURCE NAME", "ID"}, rows,
		"PRINCIPAL", "PERMISSION", "OPERATION", "HOST", "RESOURCE TYPE", "PATTERN TYPE", "RESOURCE NAME")

	rows = nil
	for _, s := range img.SortedSCRAM() {
		rows = append(rows, []string{s.User, model.ScramMechanismName(s.Mechanism), strconv.Itoa(int(s.Iterations)), scramSecretOf(img, s)})
	}
	add("SCRAM CREDENTIALS", []string{"USER", "MECHANISM", "ITERATIONS", "SECRET"}, rows, "USER", "MECHANISM")

	rows = nil
	for _, t := range img.SortedDelegationTokens() {
		rows = append(rows, []string{t.TokenID, t.Owner, t.Requester, strings.Join(t.Renewers, ","),
			millis(t.IssueTimestamp), millis(t.MaxTimestamp), millis(t.ExpirationTimestamp)})
	}
	add("DELEGATION TOKENS", []string{"TOKEN ID", "OWNER", "REQUESTER", "RENEWERS", "ISSUED", "MAX", "EXPIRES"}, rows,
		"TOKEN ID", "OWNER", "EXPIRES")

	rows = nil
	if img.Quorum != nil {
		for _, v := range img.Quorum.Voters {
			eps := endpointList(v.Endpoints)
			if !img.Reports(model.FieldQuorumVoterEndpoints) {
				eps = notReportedText
			}
			rows = append(rows, []string{itoa(v.ID), cell(model.FieldQuorumVoterDirectoryIDs, v.DirectoryID.String()), eps})
		}
	}
	add("QUORUM VOTERS", []string{"ID", "DIRECTORY ID", "ENDPOINTS"}, rows, "ID", "ENDPOINTS")

	rows = nil
	if img.ZK != nil {
		for _, path := range slices.Sorted(maps.Keys(img.ZK.Raw)) {
			rows = append(rows, []string{path, strconv.Itoa(len(img.ZK.Raw[path]))})
		}
	}
	add("UNPARSED ZNODES", []string{"PATH", "BYTES"}, rows, "PATH", "BYTES")

	for i, s := range sections {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintln(w, s.title); err != nil {
			return err
		}
		if err := renderTable(w, s.cols, s.rows); err != nil {
			return err
		}
	}
	return nil
}

type tableSection struct {
	title string
	cols  []Column
	rows  [][]string
}

func itoa(v int32) string { return strconv.FormatInt(int64(v), 10) }

// shutdownCell is a broker's controlled-shutdown flag; a fenced broker's
// is the log's last, stale once the shutdown ended in fencing.
func shutdownCell(b *model.Broker) string {
	if b.Fenced && b.InControlledShutdown {
		return "stale (fenced)"
	}
	return yes(b.InControlledShutdown)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// uuidText is how text and tables show a topic id or an incarnation id:
// "none" for the zero UUID (a topic created before Kafka 2.8 has no id in
// ZooKeeper; a ZooKeeper-mode broker has no incarnation id), which
// Kafka's base64 form would show as an id, AAAAAAAAAAAAAAAAAAAAAA. JSON
// keeps that form: it is what Kafka's own JSON (kafka-dump-log, the
// admin API) carries, and what scripts compare against.
func uuidText(u model.UUID) string {
	if u.IsZero() {
		return "none"
	}
	return u.String()
}
