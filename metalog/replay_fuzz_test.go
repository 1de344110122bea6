package metalog

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/metalog/records"
)

// FuzzReplay feeds arbitrary metadata record values (each prefixed by its
// uvarint length) to a Replayer: no sequence of records may panic, and
// every error is ErrTransaction. Seeded with the record values of the real
// fixtures, in log order.
func FuzzReplay(f *testing.F) {
	for _, p := range []string{"4.4.0", "3.9.2"} {
		dir := filepath.Join("..", "testdata", "kraft", p, "metadata")
		d, err := OpenLogDir(dir)
		if err != nil {
			f.Fatal(err)
		}
		var seed []byte
		st := d.Log(StreamOptions{})
		for {
			b, err := st.Next()
			if err != nil {
				break
			}
			if b.IsControl() {
				continue
			}
			it := b.Records()
			for it.Next() {
				v := it.Record().Value
				seed = binary.AppendUvarint(seed, uint64(len(v)))
				seed = append(seed, v...)
			}
		}
		st.Close()
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rp := NewReplayer()
		for off := int64(0); len(data) > 0; off++ {
			n, k := binary.Uvarint(data)
			if k <= 0 || n > uint64(len(data)-k) {
				return
			}
			v := data[k : k+int(n)]
			data = data[k+int(n):]
			_, m, err := records.DecodeMetadata(v)
			if err != nil {
				continue
			}
			if err := rp.Apply(Position{Offset: off}, m); err != nil && !errors.Is(err, ErrTransaction) {
				t.Fatalf("offset %d: %v", off, err)
			}
		}
	})
}
