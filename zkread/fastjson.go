package zkread

import (
	"cmp"
	"slices"
	"strconv"
)

// The fast path for the two znode kinds a big cluster has millions of: a
// topic's assignment and a partition's state. It accepts only the plain
// shapes Kafka writes (known keys spelled exactly, each once; integers
// without fraction or exponent; strings without escapes; JSON whitespace)
// and returns ok=false on anything else, so the caller decodes the data
// with encoding/json as before: what is accepted, what is rejected and
// every error message stay those of encoding/json. FuzzFastJSON checks
// that whatever the fast path accepts, encoding/json decodes to the same
// values.

// scan is a cursor over one JSON document.
type scan struct {
	b []byte
	i int
}

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat skips whitespace and consumes c if it is next.
func (s *scan) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end: only whitespace is left.
func (s *scan) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str reads a string without escapes or control characters and returns
// its bytes (aliasing the input). Bytes >= 0x80 send the document to
// encoding/json, which replaces invalid UTF-8.
func (s *scan) str() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// int32 reads a JSON integer (-?(0|[1-9][0-9]*)) in int32's range.
func (s *scan) int32() (int32, bool) {
	s.ws()
	start, neg := s.i, false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	digits := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int64(s.b[s.i]-'0')
		if v > 1<<31 {
			return 0, false
		}
		s.i++
	}
	n := s.i - digits
	if n == 0 || (n > 1 && s.b[digits] == '0') {
		return 0, false
	}
	// A fraction or exponent is a number encoding/json judges (a type
	// error for an integer field); leave it to encoding/json.
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -1<<31 || s.i == start {
		return 0, false
	}
	return int32(v), true
}

// int32s reads [n, ...] (never null) into dst.
func (s *scan) int32s(dst []int32) ([]int32, bool) {
	if !s.eat('[') {
		return nil, false
	}
	if s.eat(']') {
		return dst, true
	}
	for {
		v, ok := s.int32()
		if !ok {
			return nil, false
		}
		dst = append(dst, v)
		if s.eat(']') {
			return dst, true
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

// object calls field for each key of an object; field returns false to
// give up.
func (s *scan) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		k, ok := s.str()
		if !ok || !s.eat(':') || !field(k) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// partitionKey parses a partition number written canonically ("0",
// "17"); anything else ("007", "+1", "-0") goes to encoding/json.
func partitionKey[T string | []byte](k T) (int32, bool) {
	if len(k) == 0 || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var v int64
	for i := range len(k) {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// topicAssignment is a decoded /brokers/topics/<name>: partition number to
// replicas (never nil), for the assignment and the two reassignment maps.
type topicAssignment struct {
	// Partitions by partition id: a decode walks them in order, with no
	// map to fill, sort the keys of and look each up in again.
	Partitions []partitionReplicas
	TopicID    *string
	Adding     map[int32][]int32
	Removing   map[int32][]int32
}

// partitionReplicas is one entry of a topic's "partitions".
type partitionReplicas struct {
	ID       int32
	Replicas []int32
}

func comparePartitionReplicas(a, b partitionReplicas) int { return cmp.Compare(a.ID, b.ID) }

// sortedPartitions is m's entries by partition id.
func sortedPartitions(m map[int32][]int32) []partitionReplicas {
	out := make([]partitionReplicas, 0, len(m))
	for p, r := range m {
		out = append(out, partitionReplicas{p, r})
	}
	slices.SortFunc(out, comparePartitionReplicas)
	return out
}

// fastTopic decodes the usual topic znode. The replica lists of one topic
// share one backing array, each capped so an append cannot reach its
// neighbour.
func fastTopic(data []byte) (topicAssignment, bool) {
	return fastTopicInto(data, &topicScratch{})
}

// topicScratch is what fastTopicInto reuses from one topic to the next:
// its maps and the backing array of its replica lists.
type topicScratch struct {
	maps    [2]map[int32][]int32 // adding, removing
	backing []int32
	order   []partitionReplicas
}

// fastTopicInto is fastTopic with the maps and lists made in sc: they
// hold the result until the next call with sc.
func fastTopicInto(data []byte, sc *topicScratch) (topicAssignment, bool) {
	var v topicAssignment
	s := scan{b: data}
	backing := sc.backing[:0]
	order := sc.order[:0]
	defer func() {
		if backing != nil {
			sc.backing = backing
		}
		if order != nil {
			sc.order = order
		}
	}()
	// replicas reads one partition's replica list into backing.
	replicas := func() ([]int32, bool) {
		start := len(backing)
		var ok bool
		if backing, ok = s.int32s(backing); !ok {
			return nil, false
		}
		r := backing[start:len(backing):len(backing)]
		if r == nil {
			r = []int32{} // as encoding/json decodes []
		}
		return r, true
	}
	// list reads the value of "partitions" into order.
	var sawPartitions bool
	list := func() bool {
		if sawPartitions {
			return false // a repeated key: encoding/json merges them
		}
		sawPartitions = true
		return s.object(func(k []byte) bool {
			p, ok := partitionKey(k)
			if !ok {
				return false
			}
			r, ok := replicas()
			if !ok {
				return false
			}
			order = append(order, partitionReplicas{p, r})
			return true
		})
	}
	partMap := func(dst *map[int32][]int32, i int) bool {
		if *dst != nil {
			return false // a repeated key: encoding/json merges them
		}
		m := sc.maps[i]
		if m == nil {
			m = map[int32][]int32{}
			sc.maps[i] = m
		}
		clear(m)
		ok := s.object(func(k []byte) bool {
			p, ok := partitionKey(k)
			if !ok {
				return false
			}
			if _, dup := m[p]; dup {
				return false
			}
			r, ok := replicas()
			if !ok {
				return false
			}
			m[p] = r
			return true
		})
		*dst = m
		return ok
	}
	var sawVersion bool
	ok := s.object(func(k []byte) bool {
		switch string(k) {
		case "partitions":
			return list()
		case "adding_replicas":
			return partMap(&v.Adding, 0)
		case "removing_replicas":
			return partMap(&v.Removing, 1)
		case "topic_id":
			if v.TopicID != nil {
				return false
			}
			id, ok := s.str()
			if !ok {
				return false
			}
			sid := string(id)
			v.TopicID = &sid
			return true
		case "version":
			if sawVersion {
				return false
			}
			sawVersion = true
			_, ok := s.int32()
			return ok
		}
		return false
	})
	if !ok || !s.end() || !sawPartitions {
		return topicAssignment{}, false
	}
	// Kafka writes the partitions in order, as a rule.
	if !slices.IsSortedFunc(order, comparePartitionReplicas) {
		slices.SortFunc(order, comparePartitionReplicas)
	}
	for i := 1; i < len(order); i++ {
		if order[i].ID == order[i-1].ID {
			return topicAssignment{}, false // a repeated partition: encoding/json keeps the last
		}
	}
	if v.Adding == nil {
		v.Adding = map[int32][]int32{}
	}
	if v.Removing == nil {
		v.Removing = map[int32][]int32{}
	}
	v.Partitions = order
	if v.Partitions == nil {
		v.Partitions = []partitionReplicas{} // "partitions":{}
	}
	return v, true
}

// partitionState is a decoded .../partitions/<n>/state.
type partitionState struct {
	Leader, LeaderEpoch int32
	ISR                 []int32
	LeaderRecoveryState *int8
	// ControllerEpoch is the epoch of the controller that wrote the
	// state (-1 when absent or not an int32).
	ControllerEpoch int32
}

// fastState decodes the usual partition state znode; it also requires
// leader, leader_epoch and isr, as the decoder does.
func fastState(data []byte) (partitionState, bool) {
	return fastStateInto(data, nil)
}

// fastStateInto is fastState reading the ISR into the free capacity of
// isrs when it fits (a topic's partitions share one array; the ISR's
// capacity is its length, so an append to it never reaches a neighbour).
func fastStateInto(data []byte, isrs []int32) (partitionState, bool) {
	if v, ok := kafkaState(data, isrs); ok {
		return v, true
	}
	return scanState(data, isrs)
}

// scanState is fastStateInto for any order of the keys, and whitespace.
func scanState(data []byte, isrs []int32) (partitionState, bool) {
	v := partitionState{ControllerEpoch: -1}
	s := scan{b: data}
	const (
		sawLeader = 1 << iota
		sawEpoch
		sawISR
		sawLRS
		sawVersion
		sawControllerEpoch
	)
	var saw int
	once := func(bit int) bool {
		if saw&bit != 0 {
			return false
		}
		saw |= bit
		return true
	}
	ok := s.object(func(k []byte) bool {
		var ok bool
		switch string(k) {
		case "leader":
			if !once(sawLeader) {
				return false
			}
			v.Leader, ok = s.int32()
		case "leader_epoch":
			if !once(sawEpoch) {
				return false
			}
			v.LeaderEpoch, ok = s.int32()
		case "isr":
			if !once(sawISR) {
				return false
			}
			dst := isrs[len(isrs):]
			if cap(dst) == 0 {
				dst = make([]int32, 0, 4)
			}
			v.ISR, ok = s.int32s(dst)
			v.ISR = v.ISR[:len(v.ISR):len(v.ISR)]
		case "leader_recovery_state":
			if !once(sawLRS) {
				return false
			}
			var n int32
			if n, ok = s.int32(); ok && n >= -128 && n <= 127 {
				lrs := int8(n)
				v.LeaderRecoveryState = &lrs
			} else {
				ok = false
			}
		case "version":
			if !once(sawVersion) {
				return false
			}
			_, ok = s.int32()
		case "controller_epoch":
			if !once(sawControllerEpoch) {
				return false
			}
			v.ControllerEpoch, ok = s.int32()
		}
		return ok
	})
	if !ok || !s.end() || saw&(sawLeader|sawEpoch|sawISR) != sawLeader|sawEpoch|sawISR {
		return partitionState{}, false
	}
	return v, true
}

// kafkaState reads a state znode spelled as Kafka writes it, its keys in
// Kafka's order: {"controller_epoch":N,"leader":N,"version":N,
// "leader_epoch":N,"isr":[N,...]}. A million of them are most of what a
// large cluster's decode reads, and matching the keys in place costs a
// fraction of scanning them. false: any other spelling (scanState reads
// it, with the same result on this one).
func kafkaState(data []byte, isrs []int32) (partitionState, bool) {
	s := scan{b: data}
	key := func(k string) bool {
		if len(s.b)-s.i < len(k) || string(s.b[s.i:s.i+len(k)]) != k {
			return false
		}
		s.i += len(k)
		return true
	}
	var v partitionState
	var ok bool
	if !key(`{"controller_epoch":`) {
		return v, false
	}
	if v.ControllerEpoch, ok = s.int32(); !ok || !key(`,"leader":`) {
		return partitionState{}, false
	}
	if v.Leader, ok = s.int32(); !ok || !key(`,"version":`) {
		return partitionState{}, false
	}
	if _, ok = s.int32(); !ok || !key(`,"leader_epoch":`) {
		return partitionState{}, false
	}
	if v.LeaderEpoch, ok = s.int32(); !ok || !key(`,"isr":`) {
		return partitionState{}, false
	}
	dst := isrs[len(isrs):]
	if cap(dst) == 0 {
		dst = make([]int32, 0, 4)
	}
	if v.ISR, ok = s.int32s(dst); !ok || !s.eat('}') || !s.end() {
		return partitionState{}, false
	}
	v.ISR = v.ISR[:len(v.ISR):len(v.ISR)]
	return v, true
}

// appendPartitionPath appends "<topicPath>/partitions/<p>" to b.
func appendPartitionPath(b []byte, topicPath string, p int32) []byte {
	b = append(b, topicPath...)
	b = append(b, "/partitions/"...)
	return strconv.AppendInt(b, int64(p), 10)
}
