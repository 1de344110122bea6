package metalog

import (
	"math"
	"sort"

	"github.com/kmeta/kmeta/metalog/records"
)

// Stats summarises batches and records, computed while streaming. Slices
// are sorted by key, so the JSON form is deterministic.
type Stats struct {
	Batches        int64 `json:"batches"`
	ControlBatches int64 `json:"controlBatches"`
	Records        int64 `json:"records"`
	// Bytes is the stored size of all batches, headers included.
	Bytes        int64 `json:"bytes"`
	FirstOffset  int64 `json:"firstOffset"`
	LastOffset   int64 `json:"lastOffset"`
	MinTimestamp int64 `json:"minTimestamp"`
	MaxTimestamp int64 `json:"maxTimestamp"`
	// ByAPIKey counts data records by the apiKey in their frame header
	// (-1: no readable frame). Bytes are value bytes.
	ByAPIKey []KeyStats `json:"byApiKey"`
	// ByControlType counts control records by type (-1: unreadable key).
	ByControlType []KeyStats `json:"byControlType"`
	// ByCompression counts batches by codec.
	ByCompression []KeyStats `json:"byCompression"`
	// Epochs lists partitionLeaderEpoch values with their batch counts and
	// offset ranges.
	Epochs []EpochStats `json:"epochs"`

	apiKeys  map[int32]*KeyStats
	controls map[int32]*KeyStats
	codecs   map[int32]*KeyStats
	epochs   map[int32]*EpochStats
}

// KeyStats is a count of records (or batches, for codecs) and their bytes.
type KeyStats struct {
	Key     int32  `json:"key"`
	Name    string `json:"name,omitempty"`
	Records int64  `json:"records"`
	Bytes   int64  `json:"bytes"`
}

// EpochStats describes the batches written in one leader epoch.
type EpochStats struct {
	Epoch       int32 `json:"epoch"`
	Batches     int64 `json:"batches"`
	Records     int64 `json:"records"`
	FirstOffset int64 `json:"firstOffset"`
	LastOffset  int64 `json:"lastOffset"`
}

// NewStats returns an empty collector.
func NewStats() *Stats {
	return &Stats{
		FirstOffset: -1, LastOffset: -1,
		MinTimestamp: math.MaxInt64, MaxTimestamp: math.MinInt64,
		apiKeys: map[int32]*KeyStats{}, controls: map[int32]*KeyStats{},
		codecs: map[int32]*KeyStats{}, epochs: map[int32]*EpochStats{},
	}
}

// AddBatch counts a batch header (not its records; see AddRecord).
func (s *Stats) AddBatch(b *Batch) {
	s.Batches++
	if b.IsControl() {
		s.ControlBatches++
	}
	s.Bytes += b.Size()
	if s.FirstOffset < 0 || b.BaseOffset < s.FirstOffset {
		s.FirstOffset = b.BaseOffset
	}
	s.LastOffset = max(s.LastOffset, b.LastOffset())
	s.MinTimestamp = min(s.MinTimestamp, b.BaseTimestamp)
	s.MaxTimestamp = max(s.MaxTimestamp, b.MaxTimestamp)
	c := bump(s.codecs, int32(b.Compression()))
	c.Name = b.Compression().String()
	c.Records++
	c.Bytes += b.Size()
	e := s.epochs[b.PartitionLeaderEpoch]
	if e == nil {
		e = &EpochStats{Epoch: b.PartitionLeaderEpoch, FirstOffset: b.BaseOffset, LastOffset: b.LastOffset()}
		s.epochs[b.PartitionLeaderEpoch] = e
	}
	e.Batches++
	e.Records += int64(b.RecordsCount)
	e.FirstOffset = min(e.FirstOffset, b.BaseOffset)
	e.LastOffset = max(e.LastOffset, b.LastOffset())
}

// AddRecord counts one record of b.
func (s *Stats) AddRecord(b *Batch, r *Record) {
	s.Records++
	if b.IsControl() {
		key := int32(-1)
		if t, ok := ParseControlKey(r.Key); ok {
			key = int32(t)
		}
		k := bump(s.controls, key)
		if key >= 0 {
			k.Name = ControlType(key).String()
		}
		k.Records++
		k.Bytes += int64(len(r.Value))
		return
	}
	key := int32(-1)
	if fr, err := records.ParseFrame(r.Value); err == nil {
		key = int32(fr.APIKey)
	}
	k := bump(s.apiKeys, key)
	if k.Name == "" {
		k.Name = "UNKNOWN"
		if m := records.NewMetadata(int16(key)); key >= 0 && m != nil {
			k.Name = records.TypeName(m.RecordName())
		}
	}
	k.Records++
	k.Bytes += int64(len(r.Value))
}

func bump(m map[int32]*KeyStats, key int32) *KeyStats {
	k := m[key]
	if k == nil {
		k = &KeyStats{Key: key}
		m[key] = k
	}
	return k
}

// Finish fills the sorted slices and returns s.
func (s *Stats) Finish() *Stats {
	s.ByAPIKey = sortedKeys(s.apiKeys)
	s.ByControlType = sortedKeys(s.controls)
	s.ByCompression = sortedKeys(s.codecs)
	s.Epochs = s.Epochs[:0]
	for _, e := range s.epochs {
		s.Epochs = append(s.Epochs, *e)
	}
	sort.Slice(s.Epochs, func(i, j int) bool { return s.Epochs[i].Epoch < s.Epochs[j].Epoch })
	if s.Batches == 0 {
		s.MinTimestamp, s.MaxTimestamp = -1, -1
	}
	return s
}

func sortedKeys(m map[int32]*KeyStats) []KeyStats {
	out := make([]KeyStats, 0, len(m))
	for _, k := range m {
		out = append(out, *k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
