package metalog

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// The shapes `kmeta log dump -o json` wrote through encoding/json before
// the hand-written lines (the dumper's jsonBatch and jsonRecord).
type oracleBatchLine struct {
	Kind                 string `json:"kind"`
	File                 string `json:"file"`
	Position             int64  `json:"position"`
	BaseOffset           int64  `json:"baseOffset"`
	LastOffset           int64  `json:"lastOffset"`
	Count                int32  `json:"count"`
	PartitionLeaderEpoch int32  `json:"partitionLeaderEpoch"`
	IsControl            bool   `json:"isControl"`
	Compression          string `json:"compression"`
	Timestamp            int64  `json:"timestamp"`
	Size                 int64  `json:"size"`
	CRC                  uint32 `json:"crc"`
	CRCValid             bool   `json:"crcValid"`
}

type oracleRecordLine struct {
	Kind    string          `json:"kind"`
	File    string          `json:"file"`
	Offset  int64           `json:"offset"`
	Epoch   int32           `json:"epoch"`
	Control bool            `json:"control"`
	Type    string          `json:"type"`
	APIKey  int16           `json:"apiKey"`
	Version int16           `json:"version"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

func encodingJSONLine(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDumpJSONLinesMatchEncodingJSON: every batch and record of the
// real-Kafka fixtures, and records with odd file names and errors, give
// the bytes encoding/json gives.
func TestDumpJSONLinesMatchEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "kraft", "*", "metadata", "__cluster_metadata-0", "*.*"))
	files = append(files, filepath.Join("..", "testdata", "kraft", "3.9.2", "metadata", "bootstrap.checkpoint"))
	n := 0
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".log" && ext != ".checkpoint" {
			continue
		}
		r, err := OpenReader(f, ReaderOptions{})
		must(t, err)
		for _, name := range []string{f, "odd <&> \"name\"\t\u2028ü\xff"} {
			r.Close()
			r, err = OpenReader(f, ReaderOptions{})
			must(t, err)
			for {
				b, err := r.Next()
				if err == io.EOF {
					break
				}
				must(t, err)
				want := encodingJSONLine(t, oracleBatchLine{Kind: "batch", File: name, Position: b.Position, BaseOffset: b.BaseOffset,
					LastOffset: b.LastOffset(), Count: b.RecordsCount, PartitionLeaderEpoch: b.PartitionLeaderEpoch, IsControl: b.IsControl(),
					Compression: b.Compression().String(), Timestamp: b.MaxTimestamp, Size: b.Size(), CRC: b.CRC, CRCValid: !b.CRCChecked || b.CRCValid})
				if got := AppendJSONBatchLine(nil, name, b); !bytes.Equal(got, want) {
					t.Fatalf("batch line\ngot  %s\nwant %s", got, want)
				}
				it := b.Records()
				for it.Next() {
					rec := it.Record()
					var data []byte
					var typ string
					var key, ver int16
					if b.IsControl() {
						k, c, _ := records.DecodeControl(rec.Key, rec.Value)
						key, typ = int16(k.Type), k.Type.Name()
						if c != nil {
							data = c.AppendJSON(nil, 0)
						}
					} else {
						fr, m, err := records.DecodeMetadata(rec.Value)
						must(t, err)
						key, ver, typ = fr.APIKey, fr.Version, records.TypeName(m.RecordName())
						data = m.AppendJSON(nil, fr.Version)
					}
					for _, errMsg := range []string{"", "bad <thing> at \"x\"\n"} {
						d := data
						if errMsg != "" {
							d = nil
						}
						want := encodingJSONLine(t, oracleRecordLine{Kind: "record", File: name, Offset: rec.Offset, Epoch: b.PartitionLeaderEpoch,
							Control: b.IsControl(), Type: typ, APIKey: key, Version: ver, Data: d, Error: errMsg})
						got := AppendJSONRecordLine(nil, name, rec.Offset, b.PartitionLeaderEpoch, b.IsControl(), typ, key, ver, d, errMsg)
						if !bytes.Equal(got, want) {
							t.Fatalf("record line\ngot  %s\nwant %s", got, want)
						}
						n++
					}
				}
			}
		}
		r.Close()
	}
	if n < 500 {
		t.Fatalf("only %d record lines compared", n)
	}
}
