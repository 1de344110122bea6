package model

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Streaming the image document. Topics and partitions are nearly all of a
// large image (a million partitions is hundreds of megabytes of JSON), so
// they are written as they are walked, by hand, appended straight into the
// one output buffer (no scratch copy, no bufio in between), which goes to
// the writer whenever it passes jsonFlushAt: no document is built and
// nothing is re-indented. The other
// sections are small; each is encoded by encoding/json and indented on its
// own, which yields the bytes encoding/json would give for the whole
// document, since its indentation is a pure function of the compact form.
// The result is byte-for-byte what encoding/json writes for the imageJSON
// document (TestStreamingJSONMatchesEncodingJSON).

// WriteJSON writes the image as MarshalJSON does (compact, no newline).
func (img *Image) WriteJSON(w io.Writer) error { return img.writeJSON(w, "", false) }

// WriteIndentedJSON writes the image exactly as a json.Encoder with
// SetEscapeHTML(false) and SetIndent("", indent) encodes it, final newline
// included: what `kmeta image -o json` prints.
func (img *Image) WriteIndentedJSON(w io.Writer, indent string) error {
	return img.writeJSON(w, indent, true)
}

func (img *Image) writeJSON(w io.Writer, indent string, newline bool) error {
	s := &jsonStream{w: w, buf: make([]byte, 0, jsonFlushAt+jsonFlushAt/4), indent: indent}
	// The document is at most 8 deep; line starts are precomputed, and
	// with a comma in front for the elements after the first.
	for d := range s.nls {
		if indent != "" {
			s.nls[d] = "\n" + strings.Repeat(indent, d)
		}
		s.seps[d] = "," + s.nls[d]
	}
	s.enc = json.NewEncoder(&s.tmp)
	s.enc.SetEscapeHTML(false)
	doc := img.jsonDoc()
	s.raw("{")
	s.key(1, "clusterId", true)
	s.value(1, doc.ClusterID)
	s.key(1, "features", false)
	s.value(1, doc.Features)
	s.key(1, "brokers", false)
	s.value(1, doc.Brokers)
	s.key(1, "controllers", false)
	s.value(1, doc.Controllers)
	s.key(1, "topics", false)
	s.topics(img)
	s.key(1, "configs", false)
	s.value(1, doc.Configs)
	s.key(1, "clientQuotas", false)
	s.value(1, doc.ClientQuotas)
	s.key(1, "acls", false)
	s.value(1, doc.ACLs)
	s.key(1, "scram", false)
	s.value(1, doc.SCRAM)
	s.key(1, "delegationTokens", false)
	s.value(1, doc.DelegationTokens)
	s.key(1, "producerIds", false)
	s.value(1, doc.ProducerIDs)
	s.key(1, "migration", false)
	s.value(1, doc.Migration)
	s.key(1, "quorum", false)
	s.value(1, doc.Quorum)
	s.key(1, "zk", false)
	s.value(1, doc.ZK)
	s.key(1, "provenance", false)
	s.value(1, doc.Provenance)
	s.key(1, "warnings", false)
	s.value(1, doc.Warnings)
	if len(doc.NotReported) > 0 {
		s.key(1, "notReported", false)
		s.value(1, doc.NotReported)
	}
	if len(doc.StaticConfigs) > 0 {
		s.key(1, "staticConfigs", false)
		s.value(1, doc.StaticConfigs)
	}
	if len(doc.UnreportedConfigs) > 0 {
		s.key(1, "unreportedConfigs", false)
		s.value(1, doc.UnreportedConfigs)
	}
	s.nl(0)
	s.raw("}")
	if newline {
		s.raw("\n")
	}
	s.flush()
	return s.err
}

// jsonFlushAt is how much output is gathered before it is written: large
// writes, few system calls.
const jsonFlushAt = 256 << 10

type jsonStream struct {
	w      io.Writer
	buf    []byte // output not yet written to w
	indent string
	err    error
	enc    *json.Encoder
	tmp    bytes.Buffer
	ind    bytes.Buffer
	parts  []*Partition // scratch: one topic's sorted partitions
	nls    [10]string   // "\n" + indent*d, empty when compact
	seps   [10]string   // "," + nls[d]
	// dirLists caches the text of recent directory lists (dirList), at
	// depth pkDepth: a cluster has a few log directories per broker,
	// named by every partition.
	dirLists [64]dirListJSON
	// pk holds what comes between partitionJSON values at depth pkDepth.
	pk      *partKeys
	pkDepth int
}

func (s *jsonStream) raw(x string) {
	s.buf = append(s.buf, x...)
	s.spill()
}

func (s *jsonStream) bytes(x []byte) {
	s.buf = append(s.buf, x...)
	s.spill()
}

// spill writes the buffer out once it has reached jsonFlushAt.
func (s *jsonStream) spill() {
	if len(s.buf) >= jsonFlushAt {
		s.flush()
	}
}

// flush writes the buffer out; after an error nothing more is written.
func (s *jsonStream) flush() {
	if s.err == nil && len(s.buf) > 0 {
		if t, ok := s.w.(bufferTaker); ok {
			s.buf, s.err = t.TakeBuffer(s.buf)
			return
		}
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

// bufferTaker is a writer that takes a full buffer as it is and hands back
// an empty one, of at least the same capacity, to fill next (the printer's
// asynchronous writer): hundreds of megabytes of JSON then leave without
// being copied on the way.
type bufferTaker interface {
	TakeBuffer(full []byte) (empty []byte, err error)
}

// nl starts a new line at depth d (nothing when compact).
func (s *jsonStream) nl(d int) { s.raw(s.nls[d]) }

// key writes `"name":` (`"name": ` indented), after a comma unless first.
func (s *jsonStream) key(d int, name string, first bool) {
	if !first {
		s.raw(",")
	}
	s.nl(d)
	s.raw(`"` + name + `":`)
	if s.indent != "" {
		s.raw(" ")
	}
}

// value encodes v with encoding/json and writes it indented for depth d.
func (s *jsonStream) value(d int, v any) {
	if s.err != nil {
		return
	}
	s.tmp.Reset()
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	compact := bytes.TrimSuffix(s.tmp.Bytes(), []byte("\n"))
	if s.indent == "" {
		s.bytes(compact)
		return
	}
	s.ind.Reset()
	if s.err = json.Indent(&s.ind, compact, strings.Repeat(s.indent, d), s.indent); s.err != nil {
		return
	}
	s.bytes(s.ind.Bytes())
}

// str writes a JSON string as encoding/json (without HTML escaping) does.
func (s *jsonStream) str(x string) {
	s.buf = AppendJSONString(s.buf, x)
	s.spill()
}

// AppendJSONString appends x as a JSON string exactly as encoding/json
// writes it with HTML escaping off (json.Encoder.SetEscapeHTML(false)), as
// every kmeta JSON document does. Plain printable ASCII is copied; anything
// else goes through encoding/json itself, so the two never disagree.
func AppendJSONString(dst []byte, x string) []byte {
	if isPlainJSON(x) {
		dst = append(dst, '"')
		dst = append(dst, x...)
		return append(dst, '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(x) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// isPlainJSON: printable ASCII without quote or backslash needs no escape.
func isPlainJSON(x string) bool {
	for i := 0; i < len(x); i++ {
		if c := x[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// topics writes the topics array: topicJSON and partitionJSON by hand.
func (s *jsonStream) topics(img *Image) {
	ts := img.SortedTopics()
	if len(ts) == 0 {
		s.raw("[]")
		return
	}
	s.raw("[")
	for i, t := range ts {
		if i > 0 {
			s.raw(",")
		}
		s.nl(2)
		s.raw("{")
		s.key(3, "name", true)
		s.str(t.Name)
		s.key(3, "id", false)
		s.buf = appendUUID(s.buf, t.ID)
		s.key(3, "partitions", false)
		s.parts = t.AppendSortedPartitions(s.parts[:0])
		ps := s.parts
		if len(ps) == 0 {
			s.raw("[]")
		} else {
			s.raw("[")
			for j, p := range ps {
				if j > 0 {
					s.buf = append(s.buf, ',')
				}
				s.buf = s.appendPartition(s.buf, 4, p)
				s.spill()
			}
			s.buf = s.appendNL(s.buf, 3)
			s.raw("]")
		}
		s.nl(2)
		s.raw("}")
	}
	s.nl(1)
	s.raw("]")
}

func (s *jsonStream) appendNL(b []byte, d int) []byte { return append(b, s.nls[d]...) }

func (s *jsonStream) appendKey(b []byte, d int, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = s.appendNL(b, d)
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	if s.indent != "" {
		b = append(b, ' ')
	}
	return b
}

// partitionKeys are partitionJSON's keys in order.
var partitionKeys = [...]string{"partition", "leader", "leaderEpoch", "partitionEpoch",
	"replicas", "isr", "elr", "lastKnownElr", "addingReplicas", "removingReplicas",
	"leaderRecoveryState", "leaderRecoveryStateCode", "directories"}

// Indexes into partitionKeys.
const (
	pkPartition = iota
	pkLeader
	pkLeaderEpoch
	pkPartitionEpoch
	pkReplicas
	pkLeaderRecoveryState = pkReplicas + 6
	pkLeaderRecoveryCode  = pkLeaderRecoveryState + 1
	pkDirectories         = pkLeaderRecoveryCode + 1
)

// partKeys is what comes between the values of a partitionJSON at one
// depth, joined into as few strings as possible: appending a short string
// is a call, and there are some thirty of them in a partition otherwise.
type partKeys struct {
	start string // line break, "{", the first key
	keys  [len(partitionKeys)]string
	// For the lists (replicas to removingReplicas, then directories):
	// the key with null, with [], and with the opening of a non-empty
	// list up to its first element.
	null, empty, open [7]string
	sep, close        string    // between elements of a list; its end
	recovery          [2]string // leaderRecoveryState's value and leaderRecoveryStateCode's key, for the known states
	end               string
}

// listKeys are the indexes in partitionKeys of partKeys' lists.
var listKeys = [7]int{pkReplicas, pkReplicas + 1, pkReplicas + 2, pkReplicas + 3, pkReplicas + 4, pkReplicas + 5, pkDirectories}

func (s *jsonStream) partKeys(d int) *partKeys {
	k := &partKeys{}
	for i, name := range partitionKeys {
		k.keys[i] = string(s.appendKey(nil, d+1, name, i == 0))
	}
	k.start = s.nls[d] + "{" + k.keys[pkPartition]
	for j, i := range listKeys {
		k.null[j] = k.keys[i] + "null"
		k.empty[j] = k.keys[i] + "[]"
		k.open[j] = k.keys[i] + "[" + s.nls[d+2]
	}
	k.sep, k.close = s.seps[d+2], s.nls[d+1]+"]"
	for st := range k.recovery {
		k.recovery[st] = k.keys[pkLeaderRecoveryState] + `"` + LeaderRecoveryStateName(int8(st)) + `"` + k.keys[pkLeaderRecoveryCode]
	}
	k.end = s.nls[d] + "}"
	s.pk, s.pkDepth = k, d
	s.dirLists = [len(s.dirLists)]dirListJSON{}
	return k
}

// appendPartition appends one partitionJSON at depth d, preceded by its
// line break.
func (s *jsonStream) appendPartition(b []byte, d int, p *Partition) []byte {
	k := s.pk
	if s.pkDepth != d || k == nil {
		k = s.partKeys(d)
	}
	b = append(b, k.start...)
	b = appendInt(b, int64(p.ID))
	b = append(b, k.keys[pkLeader]...)
	b = appendInt(b, int64(p.Leader))
	b = append(b, k.keys[pkLeaderEpoch]...)
	b = appendInt(b, int64(p.LeaderEpoch))
	b = append(b, k.keys[pkPartitionEpoch]...)
	b = appendInt(b, int64(p.PartitionEpoch))
	// nil is null, empty is [] (partitionJSON keeps them apart).
	var replicas []byte // the replicas list as written, after its key
	for j, v := range [...][]int32{p.Replicas, p.ISR, p.ELR, p.LastKnownELR, p.AddingReplicas, p.RemovingReplicas} {
		switch {
		case v == nil:
			b = append(b, k.null[j]...)
		case len(v) == 0:
			b = append(b, k.empty[j]...)
		case j == 1 && slices.Equal(v, p.Replicas):
			// The ISR is nearly always the replicas: the same text.
			b = append(b, k.keys[pkReplicas+1]...)
			b = append(b, replicas...)
		default:
			start := len(b) + len(k.keys[pkReplicas+j])
			b = append(b, k.open[j]...)
			for i, x := range v {
				if i > 0 {
					b = append(b, k.sep...)
				}
				b = appendInt(b, int64(x))
			}
			b = append(b, k.close...)
			if j == 0 {
				replicas = b[start:len(b):len(b)]
			}
		}
	}
	if st := p.LeaderRecoveryState; st == 0 || st == 1 {
		b = append(b, k.recovery[st]...)
	} else {
		b = append(b, k.keys[pkLeaderRecoveryState]...)
		b = append(b, '"')
		b = append(b, LeaderRecoveryStateName(st)...)
		b = append(b, '"')
		b = append(b, k.keys[pkLeaderRecoveryCode]...)
	}
	b = appendInt(b, int64(p.LeaderRecoveryState))
	switch dirs := p.Directories; {
	case dirs == nil:
		b = append(b, k.null[6]...)
	case len(dirs) == 0:
		b = append(b, k.empty[6]...)
	default:
		e := s.dirList(dirs)
		if e != nil && slices.Equal(e.ids[:e.n], dirs) {
			b = append(b, k.keys[pkDirectories]...)
			b = append(b, e.text...)
			break
		}
		start := len(b) + len(k.keys[pkDirectories])
		b = append(b, k.open[6]...)
		for i, u := range dirs {
			if i > 0 {
				b = append(b, k.sep...)
			}
			b = appendUUID(b, u)
		}
		b = append(b, k.close...)
		if e != nil {
			e.n = len(dirs)
			copy(e.ids[:], dirs)
			e.text = append(e.text[:0], b[start:]...)
		}
	}
	if len(p.OfflineReplicas) > 0 {
		// Only a live cluster's view has them, and rarely: no cached key.
		b = s.appendKey(b, d+1, "offlineReplicas", false)
		b = append(b, '[')
		b = s.appendNL(b, d+2)
		for i, x := range p.OfflineReplicas {
			if i > 0 {
				b = append(b, k.sep...)
			}
			b = appendInt(b, int64(x))
		}
		b = append(b, k.close...)
	}
	return append(b, k.end...)
}

// dirListJSON is the text of a recent directory list (after its key).
type dirListJSON struct {
	n    int
	ids  [4]UUID
	text []byte
}

// dirList is the slot of dirs in the cache of recent directory lists, or
// nil for a list too long to cache. A partition's directories follow its
// replicas' brokers, so a cluster has few distinct lists; their text is
// written once per slot and copied after.
func (s *jsonStream) dirList(dirs []UUID) *dirListJSON {
	if len(dirs) > 4 {
		return nil
	}
	var h uint64
	for _, u := range dirs {
		h = h*0x9e3779b97f4a7c15 + binary.LittleEndian.Uint64(u[:8]) ^ binary.LittleEndian.Uint64(u[8:])
	}
	return &s.dirLists[(h>>32)%uint64(len(s.dirLists))]
}

// appendInt appends x in decimal; single digits, most of the numbers in
// a partition (replica ids, epochs, leaders of small clusters), without
// the call into strconv.
func appendInt(b []byte, x int64) []byte {
	if uint64(x) < 10 {
		return append(b, byte('0'+x))
	}
	return strconv.AppendInt(b, x, 10)
}

// appendUUID appends the UUID as its JSON string (UUID.MarshalText).
func appendUUID(b []byte, u UUID) []byte {
	b = append(b, '"')
	b = base64.RawURLEncoding.AppendEncode(b, u[:])
	return append(b, '"')
}
