package metalog

import (
	"cmp"
	"slices"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Timeline counts the records a replay applied, by type, over offsets and
// over batch time, for the pictures of an html report on a log. The
// records of the snapshot replay started from are counted apart: they all
// sit at the snapshot's offset (see ImageOptions), so on an offset axis
// they would be one bar whatever they hold.
//
// Each axis has at most TimelineBins bins, whose width grows as the
// values spread (offsetWidths, timeWidths: round sizes, each a multiple of
// the one before, so that widening merges bins exactly). Its size is set
// by the number of record types, never by the number of records: the
// replay of a million partitions fills the same bins as that of ten.
//
// Pass Observe as ImageOptions.Observe: it sees the records that took
// effect (Replayer.Observe), so transaction markers, records Kafka
// refuses and those of aborted transactions are not counted.
type Timeline struct {
	names []string       // type names, by index
	index map[string]int // index by name
	// data and control cache the index of a data record's apiKey and a
	// control record's type (+1; 0: not seen yet).
	data, control []int
	snapshot      []int64 // records in the snapshot, by type
	inSnapshot    bool
	log           []int64 // records after it, by type
	offsets       bins
	times         bins
}

// TimelineBins is the most bins an axis of a Timeline has.
const TimelineBins = 50

// offsetWidths are the widths an offset bin takes: 1, 2, 10, 20, 100, 200
// and so on, each a multiple of the one before.
var offsetWidths = func() []int64 {
	var w []int64
	for p := int64(1); p <= 1e17; p *= 10 {
		w = append(w, p, 2*p)
	}
	return w
}()

// timeWidths are the widths, in ms, a batch-time bin takes: round clock
// periods, each a multiple of the one before, then doubling days.
var timeWidths = func() []int64 {
	const s, m, h, d = 1000, 60 * 1000, 3600 * 1000, 24 * 3600 * 1000
	w := []int64{s, 2 * s, 10 * s, 20 * s, m, 2 * m, 10 * m, 20 * m, h, 2 * h, 6 * h, 12 * h}
	for p := int64(d); p < 1<<62; p *= 2 {
		w = append(w, p)
	}
	return w
}()

// NewTimeline starts an empty timeline.
func NewTimeline() *Timeline {
	return &Timeline{index: map[string]int{}, offsets: bins{widths: offsetWidths}, times: bins{widths: timeWidths}}
}

// Observe counts one record replay applied at pos: the replayer's (and
// ImageOptions') Observe.
func (t *Timeline) Observe(_ *model.Image, pos Position, rec records.Message) {
	var typ int
	switch m := rec.(type) {
	case records.Metadata:
		typ = t.slot(&t.data, int(m.APIKey()), func() string { return records.TypeName(m.RecordName()) })
	case records.Control:
		ct := ControlType(m.ControlType())
		typ = t.slot(&t.control, int(ct), ct.String)
		if ct == ControlSnapshotHeader {
			t.inSnapshot = true
		}
		if ct == ControlSnapshotFooter && t.inSnapshot {
			t.snapshot[typ]++
			t.inSnapshot = false
			return
		}
	default:
		return
	}
	if t.inSnapshot {
		t.snapshot[typ]++
		return
	}
	t.log[typ]++
	t.offsets.add(typ, pos.Offset)
	// A batch without a time (0, or -1 as a client may write) has no
	// place on the time axis; a bad clock far from the rest only widens
	// the bins.
	if pos.Timestamp > 0 {
		t.times.add(typ, pos.Timestamp)
	}
}

// slot is the index of the type cached at key in *cache, registering it
// under name() when first seen.
func (t *Timeline) slot(cache *[]int, key int, name func() string) int {
	if key >= 0 && key < len(*cache) && (*cache)[key] > 0 {
		return (*cache)[key] - 1
	}
	n := name()
	i, ok := t.index[n]
	if !ok {
		i = len(t.names)
		t.index[n] = i
		t.names = append(t.names, n)
		t.snapshot = append(t.snapshot, 0)
		t.log = append(t.log, 0)
	}
	if key >= 0 && key < 1<<15 {
		for len(*cache) <= key {
			*cache = append(*cache, 0)
		}
		(*cache)[key] = i + 1
	}
	return i
}

// TimelineType is what a Timeline counted of one record type.
type TimelineType struct {
	Name string
	// Snapshot counts the records in the snapshot replay started from,
	// Log those after it.
	Snapshot, Log int64
}

// Types are the record types counted, the most records first (then by
// name).
func (t *Timeline) Types() []TimelineType {
	out := make([]TimelineType, len(t.names))
	for i, n := range t.names {
		out[i] = TimelineType{Name: n, Snapshot: t.snapshot[i], Log: t.log[i]}
	}
	slices.SortFunc(out, func(a, b TimelineType) int {
		if c := cmp.Compare(b.Snapshot+b.Log, a.Snapshot+a.Log); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// Histogram is one axis of a Timeline: the records after the snapshot,
// by type, in bins of Width from Start (bin i holds the values in
// [Start+i*Width, Start+(i+1)*Width)), from the bin of the smallest value
// counted to that of the largest.
type Histogram struct {
	Start, Width int64
	// First and Last are the smallest and largest value counted.
	First, Last int64
	// Counts holds each type's count per bin, by name; every slice has
	// Bins() values. A type with no record on the axis is absent.
	Counts map[string][]int64
}

// Bins is the number of bins of h (0 when it counted nothing).
func (h Histogram) Bins() int {
	for _, c := range h.Counts {
		return len(c)
	}
	return 0
}

// Offsets is the offset axis: the offsets of the records after the
// snapshot.
func (t *Timeline) Offsets() Histogram { return t.offsets.histogram(t.names) }

// Times is the batch-time axis, in Unix milliseconds: the base timestamps
// of the batches holding the records after the snapshot.
func (t *Timeline) Times() Histogram { return t.times.histogram(t.names) }

// bins counts values of each type in at most TimelineBins bins, all
// widths[step] wide and aligned on multiples of it. base is the bin
// number (value / width) of counts[.][0]; base is always the bin of lo,
// and the bin of hi is less than TimelineBins after it.
type bins struct {
	widths []int64
	step   int
	base   int64
	lo, hi int64
	n      int64
	counts [][TimelineBins]int64 // by type
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (b *bins) add(typ int, v int64) {
	for len(b.counts) <= typ {
		b.counts = append(b.counts, [TimelineBins]int64{})
	}
	if b.n == 0 {
		b.lo, b.hi = v, v
		b.base = floorDiv(v, b.widths[b.step])
	}
	b.n++
	if v < b.lo || v > b.hi {
		b.lo, b.hi = min(b.lo, v), max(b.hi, v)
		step := b.step
		for step+1 < len(b.widths) && floorDiv(b.hi, b.widths[step])-floorDiv(b.lo, b.widths[step]) >= TimelineBins {
			step++
		}
		b.rebin(step)
	}
	b.counts[typ][floorDiv(v, b.widths[b.step])-b.base]++
}

// rebin moves the counts to bins of widths[step] whose first is the bin
// of lo: each old bin falls whole into one new bin, as the new width is a
// multiple of the old.
func (b *bins) rebin(step int) {
	ow, nw := b.widths[b.step], b.widths[step]
	nbase := floorDiv(b.lo, nw)
	if step == b.step && nbase == b.base {
		return
	}
	for i := range b.counts {
		old := b.counts[i]
		b.counts[i] = [TimelineBins]int64{}
		for j, c := range old {
			if c != 0 {
				b.counts[i][floorDiv((b.base+int64(j))*ow, nw)-nbase] += c
			}
		}
	}
	b.step, b.base = step, nbase
}

func (b *bins) histogram(names []string) Histogram {
	h := Histogram{Counts: map[string][]int64{}}
	if b.n == 0 {
		return h
	}
	w := b.widths[b.step]
	h.Start, h.Width, h.First, h.Last = b.base*w, w, b.lo, b.hi
	n := floorDiv(b.hi, w) - b.base + 1
	for i, c := range b.counts {
		if slices.ContainsFunc(c[:n], func(v int64) bool { return v != 0 }) {
			h.Counts[names[i]] = slices.Clone(c[:n])
		}
	}
	return h
}
