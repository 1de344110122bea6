package report

import (
	"slices"
	"testing"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

// TestRecordTimelineSeries: the pictures draw up to eight record types
// of the log after the snapshot, each in a colour of its own, the most
// records first; beyond eight, the seven largest and "other". Types only
// in the snapshot are in the table, not the pictures.
func TestRecordTimelineSeries(t *testing.T) {
	kinds := []records.Metadata{&records.PartitionChangeRecord{}, &records.NoOpRecord{}, &records.TopicRecord{}, &records.PartitionRecord{},
		&records.ConfigRecord{}, &records.FeatureLevelRecord{}, &records.RegisterBrokerRecord{}, &records.FenceBrokerRecord{},
		&records.UnfenceBrokerRecord{}}
	for _, n := range []int{3, 8, 9} {
		tl := metalog.NewTimeline()
		snap := metalog.Position{Offset: 9, Timestamp: 1000}
		tl.Observe(nil, snap, &records.SnapshotHeaderRecord{})
		tl.Observe(nil, snap, &records.ProducerIdsRecord{})
		tl.Observe(nil, snap, &records.SnapshotFooterRecord{})
		off := int64(10)
		for i, k := range kinds[:n] {
			for range 20 - i { // fewer of each next type
				tl.Observe(nil, metalog.Position{Offset: off, Timestamp: 2000 + off*100}, k)
				off++
			}
		}
		charts, sections := RecordTimeline(tl)
		if len(charts) != 2 || len(sections) != 2 || sections[1].Rows == nil || len(sections[1].Rows.Rows) != n+3 {
			t.Fatalf("%d types: %d charts, sections %+v", n, len(charts), sections)
		}
		for _, ch := range charts {
			var names, colors []string
			for i, s := range ch.Series {
				names, colors = append(names, s.Name), append(colors, ch.SeriesColor(i))
			}
			want := min(n, 8)
			if len(names) != want || slices.Contains(names, "PRODUCER_IDS_RECORD") || len(slices.Compact(slices.Sorted(slices.Values(colors)))) != want {
				t.Errorf("%d types, %s: series %q in %q", n, ch.ID, names, colors)
			}
			if names[0] != "PARTITION_CHANGE_RECORD" || (n > 8) != (names[len(names)-1] == OtherType) {
				t.Errorf("%d types, %s: series %q", n, ch.ID, names)
			}
			if slices.Contains(colors, printer.AlertColor) {
				t.Errorf("%d types, %s: a record type in the alert colour", n, ch.ID)
			}
		}
	}
}
