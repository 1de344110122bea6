package printer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/model"
)

// writeImageHTML writes the html report of an image (already redacted by
// WriteImage, like the other formats' input): ImageDocument's page, with
// the pictures and tables opt adds after the image's own.
func writeImageHTML(w io.Writer, img *model.Image, opt ImageOptions) error {
	d := ImageDocument(img)
	d.Page.Charts = append(d.Page.Charts, opt.Charts...)
	d.Sections = append(d.Sections, opt.Sections...)
	return WriteHTML(w, d, opt.HTML)
}

// ImageDocument is the html report's document of an image: facts,
// counts per class and per broker, and pictures of aggregates (partitions
// and leaders per broker, replication factors), never one row per
// partition, so that a report on a million partitions stays small.
// The image's warnings are its findings.
func ImageDocument(img *model.Image) Document {
	perBroker := map[int32]*[2]int{} // replicas, leaders
	rf := map[int]int{}
	partitions := 0
	for id := range img.Brokers {
		perBroker[id] = &[2]int{}
	}
	at := func(id int32) *[2]int {
		c := perBroker[id]
		if c == nil {
			c = &[2]int{}
			perBroker[id] = c
		}
		return c
	}
	for _, t := range img.Topics {
		for _, p := range t.Partitions {
			partitions++
			rf[len(p.Replicas)]++
			for _, r := range p.Replicas {
				at(r)[0]++
			}
			if p.Leader != model.NoLeader {
				at(p.Leader)[1]++
			}
		}
	}
	ids := slices.Sorted(maps.Keys(perBroker))
	balance := Chart{ID: "brokers", Title: "Partitions and leaders per broker", XLabel: "broker", YLabel: "partitions",
		Series: []Series{{Name: "replicas"}, {Name: "leaders"}}}
	brokers := Rows{Columns: []Column{{Header: "BROKER", Key: "broker"}, {Header: "RACK", Key: "rack"}, {Header: "STATE", Key: "state"},
		{Header: "REPLICAS", Key: "replicas"}, {Header: "LEADERS", Key: "leaders"}}}
	for _, id := range ids {
		c := perBroker[id]
		balance.Labels = append(balance.Labels, strconv.Itoa(int(id)))
		balance.Series[0].Values = append(balance.Series[0].Values, float64(c[0]))
		balance.Series[1].Values = append(balance.Series[1].Values, float64(c[1]))
		rack, state := "", "not registered"
		if !img.Reports(model.FieldBrokers) {
			state = "not listed by the source"
		}
		if b := img.Brokers[id]; b != nil {
			state = "registered"
			if b.Rack != nil {
				rack = *b.Rack
			}
			// A state the source does not report is not "no".
			switch {
			case !img.Reports(model.FieldBrokerFenced):
				state += " (fenced: not reported)"
			case b.Fenced:
				state = "fenced"
			}
			switch {
			case !img.Reports(model.FieldBrokerControlledShutdown):
				state += " (controlled shutdown: not reported)"
			case b.InControlledShutdown && b.Fenced:
				state += " (its in-controlled-shutdown flag is stale)"
			case b.InControlledShutdown:
				state = "in controlled shutdown"
			}
		}
		brokers.Rows = append(brokers.Rows, []string{strconv.Itoa(int(id)), rack, state, strconv.Itoa(c[0]), strconv.Itoa(c[1])})
	}
	hist := Chart{ID: "replication-factor", Title: "Partitions by replication factor", XLabel: "replication factor", YLabel: "partitions",
		Series: []Series{{Name: "partitions"}}}
	for _, n := range slices.Sorted(maps.Keys(rf)) {
		hist.Labels = append(hist.Labels, strconv.Itoa(n))
		hist.Series[0].Values = append(hist.Series[0].Values, float64(rf[n]))
	}
	// count is n, or what the source left out of it: a count of what the
	// source does not report is not a count.
	count := func(n int, fs ...model.Field) string {
		switch {
		case reportsAll(img, fs...):
			return strconv.Itoa(n)
		case n == 0:
			return "not reported"
		}
		return strconv.Itoa(n) + " (others not reported)"
	}
	counts := Rows{Columns: []Column{{Header: "CLASS", Key: "class"}, {Header: "COUNT", Key: "count"}}, Rows: [][]string{
		{"brokers", count(len(img.Brokers), model.FieldBrokers)}, {"controllers", count(len(img.Controllers), model.FieldControllers)},
		{"topics", count(len(img.Topics), model.FieldTopics)}, {"partitions", count(partitions, model.FieldTopics)},
		{"config resources", count(len(img.Configs), model.FieldTopicConfigs, model.FieldBrokerConfigs)},
		{"client quotas", count(len(img.ClientQuotas), model.FieldClientQuotas)},
		{"ACLs", count(len(img.ACLs), model.FieldACLs)}, {"SCRAM credentials", count(len(img.SCRAM), model.FieldSCRAM)},
		{"delegation tokens", count(len(img.DelegationTokens), model.FieldDelegationTokens)},
	}}
	facts := [][2]string{{"cluster id", clusterID(img)}, {"source", img.Provenance.Source}}
	pv := img.Provenance
	facts = append(facts, [2]string{"point in time", pointInTime(pv)})
	if mv := img.MetadataVersion(); mv != 0 {
		facts = append(facts, [2]string{"metadata.version", strconv.Itoa(int(mv))})
	}
	fs := slices.Clone(img.Warnings)
	model.SortFindings(fs)
	verdict := "complete"
	if len(img.NotReported) > 0 {
		// A live view holds what the admin API answers: what it leaves
		// out is named, and the view is never called complete.
		verdict = "as the source reports it"
		facts = append(facts, [2]string{"not reported", fieldList(img.NotReported)})
	}
	page := &Page{Title: "kmeta image", Verdict: fmt.Sprintf("%s: %s, %s, %s", verdict, Count(len(img.Brokers), "broker"), Count(len(img.Topics), "topic"), Count(partitions, "partition")),
		Status: StatusOK, Facts: facts, Findings: fs}
	if img.IsPartial() {
		page.Verdict, page.Status = "PARTIAL: the image rests on damaged or partial input (see the findings)", StatusFindings
	}
	if len(balance.Labels) > 0 {
		page.Charts = append(page.Charts, balance)
	}
	if len(hist.Labels) > 0 {
		page.Charts = append(page.Charts, hist)
	}
	return Document{Page: page, Sections: []Section{{Rows: &counts}, {Rows: &brokers}}}
}

// pointInTime says which state of its source a view is: the offset and
// epoch of the last record applied, its time, and for ZooKeeper the zxid.
func pointInTime(p model.Provenance) string {
	var parts []string
	// A ZooKeeper view has a zxid and no offset (-1): only the zxid.
	if p.Zxid == 0 || p.Offset >= 0 {
		parts = append(parts, fmt.Sprintf("offset %d, epoch %d", p.Offset, p.Epoch))
	}
	if !p.Timestamp.IsZero() {
		parts = append(parts, p.Timestamp.UTC().Format(time.RFC3339Nano))
	}
	if p.Zxid != 0 {
		parts = append(parts, fmt.Sprintf("zxid %#x", p.Zxid))
	}
	return strings.Join(parts, ", ")
}
