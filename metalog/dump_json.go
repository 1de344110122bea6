package metalog

import (
	"strconv"

	"github.com/kmeta/kmeta/model"
)

// The JSON lines of `kmeta log dump -o json`, appended by hand: a dump
// writes one line per record, and encoding them through encoding/json
// (reflection, then validating and compacting the record's data again)
// cost five times the decoding. The bytes are exactly those encoding/json
// writes, HTML escaping off, for the line shapes below
// (TestDumpJSONLinesMatchEncodingJSON):
//
//	{"kind":"batch","file":F,"position":N,"baseOffset":N,"lastOffset":N,"count":N,
//	 "partitionLeaderEpoch":N,"isControl":B,"compression":S,"timestamp":N,"size":N,
//	 "crc":N,"crcValid":B}
//	{"kind":"record","file":F,"offset":N,"epoch":N,"control":B,"type":S,"apiKey":N,
//	 "version":N[,"data":{...}][,"error":S]}

// AppendJSONBatchLine appends b's batch line (newline included).
func AppendJSONBatchLine(dst []byte, file string, b *Batch) []byte {
	return appendJSONBatchLine(dst, model.AppendJSONString(nil, file), b)
}

// appendJSONBatchLine is AppendJSONBatchLine with the file name already
// a JSON string (the dumper escapes it once per file, not per line).
func appendJSONBatchLine(dst, jsonFile []byte, b *Batch) []byte {
	dst = append(dst, `{"kind":"batch","file":`...)
	dst = append(dst, jsonFile...)
	dst = append(dst, `,"position":`...)
	dst = strconv.AppendInt(dst, b.Position, 10)
	dst = append(dst, `,"baseOffset":`...)
	dst = strconv.AppendInt(dst, b.BaseOffset, 10)
	dst = append(dst, `,"lastOffset":`...)
	dst = strconv.AppendInt(dst, b.LastOffset(), 10)
	dst = append(dst, `,"count":`...)
	dst = strconv.AppendInt(dst, int64(b.RecordsCount), 10)
	dst = append(dst, `,"partitionLeaderEpoch":`...)
	dst = strconv.AppendInt(dst, int64(b.PartitionLeaderEpoch), 10)
	dst = append(dst, `,"isControl":`...)
	dst = strconv.AppendBool(dst, b.IsControl())
	dst = append(dst, `,"compression":`...)
	dst = model.AppendJSONString(dst, b.Compression().String())
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, b.MaxTimestamp, 10)
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, b.Size(), 10)
	dst = append(dst, `,"crc":`...)
	dst = strconv.AppendUint(dst, uint64(b.CRC), 10)
	dst = append(dst, `,"crcValid":`...)
	dst = strconv.AppendBool(dst, !b.CRCChecked || b.CRCValid)
	return append(dst, "}\n"...)
}

// AppendJSONRecordLine appends a record line (newline included). data is
// the record's Kafka JSON (records' AppendJSON), omitted when empty; errMsg
// is omitted when empty.
func AppendJSONRecordLine(dst []byte, file string, offset int64, epoch int32, control bool, typ string, apiKey, version int16, data []byte, errMsg string) []byte {
	dst = appendJSONRecordStart(dst, model.AppendJSONString(nil, file))
	dst = appendJSONRecordHead(dst, offset, epoch, control)
	dst = appendJSONRecordType(dst, typ, apiKey)
	return appendJSONRecordTail(dst, version, data, errMsg)
}

// The record line in parts, so that the dumper can keep the start (per
// file) and the middle (per apiKey, epoch and version) made, and transcode a record's data
// straight after the rest (Dumper.jsonRecordInPlace).

func appendJSONRecordStart(dst, jsonFile []byte) []byte {
	dst = append(dst, `{"kind":"record","file":`...)
	return append(dst, jsonFile...)
}

func appendJSONRecordHead(dst []byte, offset int64, epoch int32, control bool) []byte {
	return appendJSONRecordEpoch(appendJSONRecordOffset(dst, offset), epoch, control)
}

func appendJSONRecordOffset(dst []byte, offset int64) []byte {
	dst = append(dst, `,"offset":`...)
	return strconv.AppendInt(dst, offset, 10)
}

func appendJSONRecordEpoch(dst []byte, epoch int32, control bool) []byte {
	dst = append(dst, `,"epoch":`...)
	dst = strconv.AppendInt(dst, int64(epoch), 10)
	dst = append(dst, `,"control":`...)
	return strconv.AppendBool(dst, control)
}

func appendJSONRecordType(dst []byte, typ string, apiKey int16) []byte {
	dst = append(dst, `,"type":`...)
	dst = model.AppendJSONString(dst, typ)
	dst = append(dst, `,"apiKey":`...)
	return strconv.AppendInt(dst, int64(apiKey), 10)
}

func appendJSONRecordTail(dst []byte, version int16, data []byte, errMsg string) []byte {
	dst = appendJSONRecordVersion(dst, version)
	if len(data) > 0 {
		dst = append(dst, `,"data":`...)
		dst = append(dst, data...)
	}
	if errMsg != "" {
		dst = append(dst, `,"error":`...)
		dst = model.AppendJSONString(dst, errMsg)
	}
	return append(dst, "}\n"...)
}

func appendJSONRecordVersion(dst []byte, version int16) []byte {
	dst = append(dst, `,"version":`...)
	return strconv.AppendInt(dst, int64(version), 10)
}
