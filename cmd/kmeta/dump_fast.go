package main

import (
	"github.com/kmeta/kmeta/metalog/records"
)

// recordData is a data record's frame, type name and Kafka JSON (or the
// decode error). The JSON is transcoded straight from the value's bytes
// (records.AppendMetadataJSON: AppendJSON's bytes without decoding into a
// struct) unless secrets must be redacted from it, which recordJSON does
// on the decoded record; values that do not decode are decoded for their
// error.
func (d *dumper) recordData(value []byte) (records.Frame, string, []byte, error) {
	if out, key, ver, ok := records.AppendMetadataJSON(d.jbuf[:0], value); ok && (d.secrets || !redactedInDump(key)) {
		d.jbuf = out
		return records.Frame{FrameVersion: 1, APIKey: key, Version: ver}, records.MetadataTypeName(key), out, nil
	}
	fr, m, err := d.dec.DecodeMetadata(value)
	if m == nil {
		return fr, "", nil, err
	}
	typ := records.TypeName(m.RecordName())
	if err != nil {
		return fr, typ, nil, err
	}
	return fr, typ, d.recordJSON(m, fr.Version), nil
}

// redactedInDump: record types recordJSON redacts secrets from.
func redactedInDump(apiKey int16) bool {
	return apiKey == (&records.ConfigRecord{}).APIKey() || apiKey == (&records.UserScramCredentialRecord{}).APIKey()
}
