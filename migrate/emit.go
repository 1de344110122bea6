package migrate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Record is one metadata record to write: its type, the version the
// target metadata.version allows, and the framed value.
type Record struct {
	APIKey  int16
	Version int16
	Value   []byte
}

// emitOptions are the choices the plan made that change which records
// are written.
type emitOptions struct {
	level    features.Level
	catalog  *features.Catalog
	features []FeatureLevel
	// skipTopics are topics not written, nor their configs: topics
	// pending deletion (with the override) and names that only have a
	// config (checkConfigOnlyTopics).
	skipTopics map[string]bool
	// dropConfigs are "TYPE/name/key" config entries not written.
	dropConfigs map[string]bool
	// topicIDs replace zero topic ids (topics from before 2.8).
	topicIDs map[string]model.UUID
	// configValues replace config values (decrypted passwords), keyed as
	// dropConfigs.
	configValues map[string]string
	dropSCRAM    bool
	// skipSCRAM are credentials not written (withheld in the source; the
	// plan is blocked).
	skipSCRAM  map[model.ScramKey]bool
	dropTokens bool
	// progress is told the partitions encoded so far, of how many.
	progress func(done, total int64)
}

func configKey(r model.ConfigResource, key string) string {
	return fmt.Sprintf("%s/%s/%s", r.Type, r.Name, key)
}

// emit turns the image into records in the order Kafka's own image writer
// uses (MetadataImage.write, walked by metalog.ImageRecords): features,
// topics with their partitions, configs, client quotas, producer ids,
// ACLs, SCRAM, delegation tokens. Brokers and controllers are not
// written: nodes register themselves.
func emit(img *model.Image, o emitOptions) ([]Record, error) {
	mv := o.level.Level
	nParts := 0
	for _, t := range img.Topics {
		nParts += len(t.Partitions)
	}
	out := make([]Record, 0, len(o.features)+len(img.Topics)+nParts)
	// Records are encoded into a scratch buffer and copied into 1 MiB
	// chunks: two allocations per MiB instead of several per record (the
	// encoder grows its buffer field by field), which at a million
	// partitions is most of what planning allocates.
	var scratch, chunk []byte
	add := func(m records.Metadata) error {
		v, ok := o.catalog.RecordVersion(mv, m.APIKey())
		if !ok {
			return fmt.Errorf("%w: %s cannot be written at metadata.version %s", ErrCannotExpress, m.RecordName(), o.level.Name)
		}
		var err error
		if scratch, err = records.EncodeMetadata(scratch[:0], m, v); err != nil {
			return err
		}
		if len(scratch) > cap(chunk)-len(chunk) {
			chunk = make([]byte, 0, max(1<<20, len(scratch)))
		}
		start := len(chunk)
		chunk = append(chunk, scratch...)
		out = append(out, Record{APIKey: m.APIKey(), Version: v, Value: chunk[start:len(chunk):len(chunk)]})
		return nil
	}

	for _, f := range o.features {
		if err := add(&records.FeatureLevelRecord{Name: f.Name, FeatureLevel: f.Level}); err != nil {
			return nil, err
		}
	}
	err := metalog.ImageRecords(img, metalog.ImageRecordOptions{
		Versions:  func(apiKey int16) (int16, bool) { return o.catalog.RecordVersion(mv, apiKey) },
		SkipTopic: func(name string) bool { return o.skipTopics[name] },
		TopicID:   func(name string) model.UUID { return o.topicIDs[name] },
		Config: func(r model.ConfigResource, k, v string) (string, bool, error) {
			ck := configKey(r, k)
			if o.dropConfigs[ck] {
				return "", false, nil
			}
			if nv, ok := o.configValues[ck]; ok {
				v = nv
			}
			if model.ConfigWithheld(r.Type, k, v) {
				return "", false, fmt.Errorf("%w: config %s %s %s", ErrSecretWithheld, r.Type, displayName(r.Name), k)
			}
			return v, true, nil
		},
		SCRAM: func(k model.ScramKey, s *model.ScramCredential) (bool, error) {
			if o.dropSCRAM || o.skipSCRAM[k] {
				return false, nil
			}
			if s.Withheld() {
				return false, fmt.Errorf("%w: SCRAM credential %s of user %s has no salt and keys", ErrSecretWithheld, model.ScramMechanismName(k.Mechanism), k.User)
			}
			return true, nil
		},
		NoTokens: o.dropTokens,
		Progress: o.progress,
	}, add)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// RecordSummary counts what a plan writes and fingerprints it, so that
// apply can prove it writes exactly what plan printed.
type RecordSummary struct {
	Total  int           `json:"total"`
	Bytes  int64         `json:"bytes"`
	ByType []RecordCount `json:"byType"`
	SHA256 string        `json:"sha256"`
	counts map[int16]*RecordCount
}

// RecordCount is the number of records of one type and the version they
// are written at.
type RecordCount struct {
	Name    string `json:"name"`
	APIKey  int16  `json:"apiKey"`
	Version int16  `json:"version"`
	Count   int    `json:"count"`
}

func summarize(recs []Record) RecordSummary {
	h := sha256.New()
	s := RecordSummary{Total: len(recs), counts: map[int16]*RecordCount{}}
	for _, r := range recs {
		s.Bytes += int64(len(r.Value))
		// Length-prefixed, so that the digest names one record list.
		h.Write(binary.AppendUvarint(nil, uint64(len(r.Value))))
		h.Write(r.Value)
		c := s.counts[r.APIKey]
		if c == nil {
			c = &RecordCount{Name: features.RecordName(r.APIKey), APIKey: r.APIKey, Version: r.Version}
			s.counts[r.APIKey] = c
		}
		c.Count++
	}
	for _, k := range slices.Sorted(maps.Keys(s.counts)) {
		s.ByType = append(s.ByType, *s.counts[k])
	}
	s.SHA256 = hex.EncodeToString(h.Sum(nil))
	return s
}
