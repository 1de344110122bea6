package zkread

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread/zkfile"
)

// DecodeOptions tunes Decode.
type DecodeOptions struct {
	// Lenient keeps decoding past malformed znodes: they are kept raw in
	// ZKState.Raw and listed in the returned *MalformedError, and the image
	// is returned alongside that error.
	Lenient bool
}

// Decode turns a raw tree into the common model. On a malformed znode it
// returns a *ZnodeError (wrapping ErrMalformed) naming the path, unless
// opts.Lenient: then it returns the image and a *MalformedError listing
// every malformed znode (errors.Is(err, ErrMalformed)); the image is valid
// for everything else.
func Decode(t *Tree, opts DecodeOptions) (*model.Image, error) {
	d := newDecoder(t, opts.Lenient)
	d.handled = newMarks(t)
	d.img.Warnings = model.CloneFindings(t.Findings)
	steps := []func() error{
		d.cluster, d.controller, d.brokers, d.topics, d.configs, d.acls,
		d.producerIDs, d.tokens, d.feature, d.migration, d.pending,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	d.raw()
	if len(d.malformed) > 0 {
		return d.img, &MalformedError{Errs: d.malformed}
	}
	return d.img, nil
}

type decoder struct {
	t   *Tree
	img *model.Image
	// handled holds the znodes something consumed; the rest stay raw.
	// nil (a history's decoder, which keeps nothing raw) marks nothing.
	handled   *marks
	lenient   bool
	malformed []*ZnodeError
	// pbuf builds partition paths for lookups without allocating.
	pbuf []byte
	// topicScratch holds the topic assignment being decoded; zeroDirs
	// the directories every partition shares.
	topicScratch topicScratch
	kidBuf       []zkfile.Ref // a topic's partition znodes by id
	zeroDirs     []model.UUID
	// kids, when set, lists a container's children instead of the
	// node's own list: a history decodes a tree still being replayed,
	// whose children lists are not built (see history.go).
	kids func(path string) []string
}

// newDecoder starts the image of t: empty, with t's provenance and
// ZooKeeper state.
func newDecoder(t *Tree, lenient bool) *decoder {
	d := &decoder{t: t, img: model.NewImage(), lenient: lenient}
	d.img.ZK = &model.ZKState{
		ControllerID: -1, KRaftControllerEpoch: -1,
		ControllerEpochZkVersion: -1, BrokerSequenceID: -1, FeatureStatus: -1,
		MaxStateControllerEpoch: -1,
		MaxZxid:                 t.MaxZxid, Chroot: t.Chroot,
		Warnings: append([]string(nil), t.Warnings...),
	}
	d.img.Provenance = model.Provenance{Source: t.Source, Offset: -1, Epoch: -1, Zxid: t.MaxZxid, Live: slices.Clone(t.Servers)}
	if servers, _, err := ParseConnect(strings.TrimPrefix(t.Origin, "zk://")); t.Origin != "" && err == nil {
		d.img.ZK.Servers = servers
	}
	return d
}

// marks is a set of nodes: a bit per node of an offline read's tree (by
// zkfile.Ref), a map for the rest (live, dump and hand-made trees).
type marks struct {
	bits  []uint64
	other map[*Node]struct{}
	// atomic: several decoders mark bits at once (topicsParallel).
	atomic bool
}

// nodeID is what marks a node: an offline tree's Ref, another tree's
// node.
type nodeID struct {
	r zkfile.Ref
	n *Node
}

func newMarks(t *Tree) *marks {
	if t.dt != nil {
		return &marks{bits: make([]uint64, (t.dt.Cap()+63)/64)}
	}
	return &marks{other: make(map[*Node]struct{}, len(t.nodes))}
}

func (m *marks) set(id nodeID) {
	if m == nil {
		return
	}
	if m.bits != nil {
		if id.r != zkfile.NoRef {
			if m.atomic {
				atomic.OrUint64(&m.bits[id.r/64], 1<<(id.r%64))
			} else {
				m.bits[id.r/64] |= 1 << (id.r % 64)
			}
		}
		return
	}
	if id.n != nil {
		m.other[id.n] = struct{}{}
	}
}

func (m *marks) clear(id nodeID) {
	if m == nil {
		return
	}
	if m.bits != nil {
		if id.r != zkfile.NoRef {
			if m.atomic {
				atomic.AndUint64(&m.bits[id.r/64], ^uint64(1<<(id.r%64)))
			} else {
				m.bits[id.r/64] &^= 1 << (id.r % 64)
			}
		}
		return
	}
	delete(m.other, id.n)
}

func (m *marks) hasRef(r zkfile.Ref) bool { return m.bits[r/64]&(1<<(r%64)) != 0 }

func (m *marks) hasNode(n *Node) bool {
	_, ok := m.other[n]
	return ok
}

// lookup returns the node at path (nil: none) and what marks it.
func (d *decoder) lookup(path string) (*Node, nodeID) {
	t := d.t
	if t.dt == nil {
		n := t.nodes[path]
		return n, nodeID{r: zkfile.NoRef, n: n}
	}
	r := t.ref(path)
	return t.dt.Node(r), nodeID{r: r}
}

// bad records a malformed znode. In strict mode it returns the error that
// stops decoding; lenient, it returns nil and the znode stays raw.
func (d *decoder) bad(path, msg string, err error) error {
	ze := &ZnodeError{Path: path, Msg: msg, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
	if err == nil {
		ze.Err = ErrMalformed
	}
	if o, ok := d.t.NodeOrigin(path); ok {
		ze.File, ze.Offset = o.File, o.Offset
	}
	if !d.lenient {
		return ze
	}
	d.malformed = append(d.malformed, ze)
	d.img.Warn(model.WarnLenientDecode, ze.Location(), "%s (kept raw)", ze.Error())
	if n, id := d.lookup(path); n != nil {
		d.handled.clear(id)
	}
	return nil
}

// node returns the node at path and marks it handled.
func (d *decoder) node(path string) *Node {
	n, id := d.lookup(path)
	if n != nil {
		d.handled.set(id)
	}
	return n
}

// container marks a znode that Kafka creates only to hold children. Data on
// it is unexpected, so it then stays raw.
func (d *decoder) container(path string) *Node {
	n, id := d.lookup(path)
	if n != nil && len(n.Data) == 0 {
		d.handled.set(id)
	}
	return n
}

func (d *decoder) children(path string) []string {
	n := d.container(path)
	if d.kids != nil {
		return d.kids(path)
	}
	if n != nil {
		return n.Children
	}
	return nil
}

// strictJSON unmarshals data and rejects trailing bytes. Its errors say
// where and what kind of JSON went wrong, never the bytes found there:
// the data may be a secret.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonError(err, dec.InputOffset())
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// jsonError describes a JSON decoding error without quoting the data
// (encoding/json's syntax errors quote the offending character).
func jsonError(err error, off int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Errorf("JSON %s at byte %d is a %s, not a %s", field, te.Offset, te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("JSON ends early at byte %d", off)
	}
	return fmt.Errorf("invalid JSON at byte %d", off)
}

func (d *decoder) cluster() error {
	d.container("/cluster")
	n := d.node("/cluster/id")
	if n == nil {
		return nil
	}
	var v struct {
		ID *string `json:"id"`
	}
	if err := strictJSON(n.Data, &v); err != nil || v.ID == nil {
		if err == nil {
			err = errors.New(`no "id"`)
		}
		return d.bad("/cluster/id", "cluster id", err)
	}
	d.img.ClusterID = *v.ID
	return nil
}

func (d *decoder) controller() error {
	if n := d.node("/controller"); n != nil {
		var v struct {
			BrokerID   *int32 `json:"brokerid"`
			KRaftEpoch *int32 `json:"kraftControllerEpoch"`
		}
		if err := strictJSON(n.Data, &v); err != nil || v.BrokerID == nil {
			if err == nil {
				err = errors.New(`no "brokerid"`)
			}
			if e := d.bad("/controller", "controller", err); e != nil {
				return e
			}
		} else {
			d.img.ZK.ControllerID = *v.BrokerID
			if v.KRaftEpoch != nil {
				d.img.ZK.KRaftControllerEpoch = *v.KRaftEpoch
			}
		}
	}
	if n := d.node("/controller_epoch"); n != nil {
		e, err := strconv.ParseInt(strings.TrimSpace(string(n.Data)), 10, 32)
		if err != nil {
			return d.bad("/controller_epoch", "controller epoch", err)
		}
		d.img.ZK.ControllerEpoch = int32(e)
		d.img.ZK.ControllerEpochZkVersion = n.Stat.Version
	}
	return nil
}

var securityProtocols = map[string]int16{"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}

type brokerJSON struct {
	Version     int                `json:"version"`
	Host        *string            `json:"host"`
	Port        *int32             `json:"port"`
	Endpoints   []string           `json:"endpoints"`
	ProtocolMap map[string]string  `json:"listener_security_protocol_map"`
	Rack        *string            `json:"rack"`
	Features    map[string]featRng `json:"features"`
}

type featRng struct {
	Min *int16 `json:"min_version"`
	Max *int16 `json:"max_version"`
}

func (d *decoder) brokers() error {
	d.container("/brokers")
	if n := d.node("/brokers/seqid"); n != nil {
		d.img.ZK.BrokerSequenceID = n.Stat.Version
	}
	for _, name := range d.children("/brokers/ids") {
		if err := d.broker(name); err != nil {
			return err
		}
	}
	return nil
}

// broker decodes /brokers/ids/<name> into the image.
func (d *decoder) broker(name string) error {
	path := "/brokers/ids/" + name
	n := d.node(path)
	id, err := strconv.ParseInt(name, 10, 32)
	if err != nil {
		return d.bad(path, "broker id", err)
	}
	b, err := parseBroker(int32(id), n)
	if err != nil {
		return d.bad(path, "broker registration", err)
	}
	d.img.Brokers[b.ID] = b
	return nil
}

func parseBroker(id int32, n *Node) (*model.Broker, error) {
	var v brokerJSON
	if err := strictJSON(n.Data, &v); err != nil {
		return nil, err
	}
	b := &model.Broker{ID: id, Epoch: n.Stat.Czxid, Rack: v.Rack}
	if len(v.Endpoints) == 0 && v.Host != nil && v.Port != nil {
		// Version 1: only host and port, a PLAINTEXT listener.
		v.Endpoints = []string{fmt.Sprintf("PLAINTEXT://%s:%d", *v.Host, *v.Port)}
	}
	for _, s := range v.Endpoints {
		ep, err := parseEndpoint(s, v.ProtocolMap)
		if err != nil {
			return nil, err
		}
		b.Endpoints = append(b.Endpoints, ep)
	}
	names := make([]string, 0, len(v.Features))
	for k := range v.Features {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f := v.Features[k]
		if f.Min == nil || f.Max == nil {
			return nil, fmt.Errorf("feature %q lacks min_version or max_version", k)
		}
		b.Features = append(b.Features, model.FeatureRange{Name: k, Min: *f.Min, Max: *f.Max})
	}
	return b, nil
}

// parseEndpoint parses Kafka's "LISTENER://host:port" (host may be empty or
// a bracketed IPv6 address).
func parseEndpoint(s string, protoMap map[string]string) (model.Endpoint, error) {
	var ep model.Endpoint
	i := strings.Index(s, "://")
	if i < 0 {
		return ep, fmt.Errorf("endpoint %q has no ://", s)
	}
	ep.Name = s[:i]
	hp := s[i+3:]
	j := strings.LastIndexByte(hp, ':')
	if j < 0 {
		return ep, fmt.Errorf("endpoint %q has no port", s)
	}
	port, err := strconv.ParseUint(hp[j+1:], 10, 16)
	if err != nil {
		return ep, fmt.Errorf("endpoint %q: bad port", s)
	}
	ep.Host = strings.TrimSuffix(strings.TrimPrefix(hp[:j], "["), "]")
	ep.Port = uint16(port)
	proto := ep.Name
	if protoMap != nil {
		p, ok := protoMap[ep.Name]
		if !ok {
			return ep, fmt.Errorf("endpoint %q: listener %s is not in listener_security_protocol_map", s, ep.Name)
		}
		proto = p
	}
	code, ok := securityProtocols[proto]
	if !ok {
		return ep, fmt.Errorf("endpoint %q: unknown security protocol %q", s, proto)
	}
	ep.SecurityProtocol = code
	return ep, nil
}

type topicJSON struct {
	Partitions map[string][]int32 `json:"partitions"`
	TopicID    *string            `json:"topic_id"`
	Adding     map[string][]int32 `json:"adding_replicas"`
	Removing   map[string][]int32 `json:"removing_replicas"`
}

type stateJSON struct {
	Leader              *int32  `json:"leader"`
	LeaderEpoch         *int32  `json:"leader_epoch"`
	ISR                 []int32 `json:"isr"`
	LeaderRecoveryState *int8   `json:"leader_recovery_state"`
	// ControllerEpoch is read apart: a value that is not an int32 was
	// accepted before it was read at all, and still is (as -1).
	ControllerEpoch json.RawMessage `json:"controller_epoch"`
}

func (d *decoder) topics() error {
	names := d.children("/brokers/topics")
	if d.t.dt == nil || !d.t.dt.Finished() || len(names) < parallelTopics || runtime.GOMAXPROCS(0) < 2 {
		if err := d.topicsOf(names); err != nil {
			return err
		}
	} else if err := d.topicsParallel(names); err != nil {
		return err
	}
	// Sorted once: per topic it made a read of many topics quadratic.
	sort.Strings(d.img.ZK.MissingPartitionStates)
	for _, name := range names {
		if _, ok := d.img.Topics[name]; ok && !model.LegalTopicName(name) {
			where := model.NoLocation()
			where.Znode = "/brokers/topics/" + name
			d.img.Warn(model.WarnTopicNameIllegal, &where, "%s", model.IllegalTopicNameText(name))
		}
	}
	return nil
}

// topicsOf decodes the topics named, in order.
func (d *decoder) topicsOf(names []string) error {
	for _, name := range names {
		path := "/brokers/topics/" + name
		n := d.node(path)
		t, err := d.topic(name, path, n)
		var ze *ZnodeError
		if errors.As(err, &ze) {
			return err // a malformed partition state, already located
		}
		if err != nil {
			if e := d.bad(path, "topic", err); e != nil {
				return e
			}
			continue
		}
		d.img.Topics[name] = t
	}
	return nil
}

// parallelTopics is how many topics an offline tree holds before they
// are decoded on every core: topics are independent, and at a million
// partitions their decode was half the ZooKeeper side's CPU.
var parallelTopics = 256

// topicsParallel is topicsOf on every core: the names in chunks, each
// decoded by a decoder of its own (marking nodes in the shared bitset
// atomically), and the results taken in chunk order, so that the image,
// the warnings and the malformed znodes of a lenient decode, and the
// error of a strict one, are those of topicsOf.
func (d *decoder) topicsParallel(names []string) error {
	const chunk = 64
	type part struct {
		w   *decoder
		err error
	}
	parts := make([]part, (len(names)+chunk-1)/chunk)
	d.handled.atomic = true
	defer func() { d.handled.atomic = false }()
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) || failed.Load() {
					return
				}
				w := &decoder{t: d.t, img: model.NewImage(), handled: d.handled, lenient: d.lenient}
				w.img.ZK = &model.ZKState{MaxStateControllerEpoch: -1}
				err := w.topicsOf(names[i*chunk : min((i+1)*chunk, len(names))])
				parts[i] = part{w, err}
				if err != nil {
					// A strict decode stops at its first error; no chunk
					// after this one can come before it.
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, p := range parts {
		if p.err != nil {
			return p.err
		}
		if p.w == nil {
			continue // after a failed chunk: unreachable, the loop returned
		}
		maps.Copy(d.img.Topics, p.w.img.Topics)
		d.malformed = append(d.malformed, p.w.malformed...)
		d.img.Warnings = append(d.img.Warnings, p.w.img.Warnings...)
		z := d.img.ZK
		z.MissingPartitionStates = append(z.MissingPartitionStates, p.w.img.ZK.MissingPartitionStates...)
		z.MaxStateControllerEpoch = max(z.MaxStateControllerEpoch, p.w.img.ZK.MaxStateControllerEpoch)
	}
	return nil
}

func parsePartitionMap(m map[string][]int32, what string) (map[int32][]int32, error) {
	out := make(map[int32][]int32, len(m))
	for k, v := range m {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("%s key %q is not a partition number", what, k)
		}
		if v == nil {
			v = []int32{}
		}
		out[int32(p)] = v
	}
	return out, nil
}

// parseTopic decodes a topic znode: the fast path for Kafka's usual
// shape, encoding/json (and its errors) for anything else.
func parseTopic(data []byte) (topicAssignment, error) {
	return parseTopicInto(data, &topicScratch{})
}

// parseTopicInto is parseTopic reusing sc (see fastTopicInto): the
// result holds until the next call with sc.
func parseTopicInto(data []byte, sc *topicScratch) (topicAssignment, error) {
	if v, ok := fastTopicInto(data, sc); ok {
		return v, nil
	}
	return slowTopic(data)
}

func slowTopic(data []byte) (topicAssignment, error) {
	var v topicJSON
	if err := strictJSON(data, &v); err != nil {
		return topicAssignment{}, err
	}
	if v.Partitions == nil {
		return topicAssignment{}, errors.New(`no "partitions"`)
	}
	out := topicAssignment{TopicID: v.TopicID}
	parts, err := parsePartitionMap(v.Partitions, "partitions")
	if err != nil {
		return topicAssignment{}, err
	}
	out.Partitions = sortedPartitions(parts)
	if out.Adding, err = parsePartitionMap(v.Adding, "adding_replicas"); err != nil {
		return topicAssignment{}, err
	}
	if out.Removing, err = parsePartitionMap(v.Removing, "removing_replicas"); err != nil {
		return topicAssignment{}, err
	}
	return out, nil
}

// parseState decodes a partition state znode, as parseTopic does.
func parseState(data []byte) (partitionState, error) {
	return parseStateInto(data, nil)
}

// parseStateInto is parseState with the ISR read into isrs's free
// capacity where it fits (see fastStateInto).
func parseStateInto(data []byte, isrs []int32) (partitionState, error) {
	if v, ok := fastStateInto(data, isrs); ok {
		return v, nil
	}
	return slowState(data)
}

func slowState(data []byte) (partitionState, error) {
	var s stateJSON
	if err := strictJSON(data, &s); err != nil {
		return partitionState{}, err
	}
	if s.Leader == nil || s.LeaderEpoch == nil || s.ISR == nil {
		return partitionState{}, errors.New("state lacks leader, leader_epoch or isr")
	}
	ce := int32(-1)
	if s.ControllerEpoch != nil && json.Unmarshal(s.ControllerEpoch, &ce) != nil {
		ce = -1
	}
	return partitionState{Leader: *s.Leader, LeaderEpoch: *s.LeaderEpoch, ISR: s.ISR, LeaderRecoveryState: s.LeaderRecoveryState, ControllerEpoch: ce}, nil
}

func (d *decoder) topic(name, path string, n *Node) (*model.Topic, error) {
	// The assignment's maps and lists are the decoder's scratch: the
	// partitions made here copy what they keep.
	v, err := parseTopicInto(n.Data, &d.topicScratch)
	if err != nil {
		return nil, err
	}
	t := &model.Topic{Name: name, Partitions: make(map[int32]*model.Partition, len(v.Partitions))}
	if v.TopicID != nil {
		id, err := model.ParseUUID(*v.TopicID)
		if err != nil {
			return nil, err
		}
		t.ID = id
	}
	// An offline tree's partitions are found under their container, by
	// name, not from the root by path.
	parts := zkfile.NoRef
	offline := d.t.dt != nil && d.t.dt.Finished()
	if offline {
		d.pbuf = append(append(d.pbuf[:0], path...), "/partitions"...)
		// By Ref: a Node would copy the container's children's names,
		// garbage that at a million partitions was 5% of the peak.
		if parts = d.t.ref(string(d.pbuf)); parts != zkfile.NoRef && len(d.t.dt.Data(parts)) == 0 {
			d.handled.set(nodeID{r: parts})
		}
	} else {
		d.container(path + "/partitions")
	}
	// In partition order, so a lenient decode lists malformed states
	// deterministically. One allocation for the topic's partitions, one
	// for their replicas and one for their directories.
	order := v.Partitions
	nrep := 0
	for _, e := range order {
		nrep += len(e.Replicas)
	}
	// The container's children by partition id, from one walk of them,
	// rather than a search of them by name for each partition: the
	// search touched a node of the tree's at each of its steps. Ids far
	// sparser than the partitions are searched for as before.
	var byID []zkfile.Ref
	if offline && parts != zkfile.NoRef && len(order) > 0 {
		if n := int(order[len(order)-1].ID) + 1; n <= 2*len(order)+64 {
			byID = slices.Grow(d.kidBuf[:0], n)[:n]
			for i := range byID {
				byID[i] = zkfile.NoRef
			}
			dt := d.t.dt
			// Kids are in name order, so the first of two equal names
			// is the one the search finds.
			for _, k := range dt.Kids(parts) {
				if id, ok := partitionKey(dt.Name(k)); ok && int(id) < n && byID[id] == zkfile.NoRef {
					byID[id] = k
				}
			}
			d.kidBuf = byID
		}
	}
	ps := make([]model.Partition, len(order))
	reps := make([]int32, 0, nrep)
	// The ISRs of the topic in one array: at most the replicas, usually.
	isrs := make([]int32, 0, nrep)
	for i, e := range order {
		pid, replicas := e.ID, e.Replicas
		reps = append(reps, replicas...)
		replicas = reps[len(reps)-len(replicas) : len(reps) : len(reps)]
		p := &ps[i]
		*p = model.Partition{
			ID: pid, Replicas: replicas,
			AddingReplicas: cloneOrEmpty(lookup(v.Adding, pid)), RemovingReplicas: cloneOrEmpty(lookup(v.Removing, pid)),
			// Kafka's migration writes PartitionRecord v0: no directories,
			// which KRaft reads as MIGRATING for every replica.
			Directories: d.migrating(len(replicas)),
		}
		d.pbuf = appendPartitionPath(d.pbuf[:0], path, pid)
		var data []byte
		var version int32
		found := false
		if offline {
			dt := d.t.dt
			var pr zkfile.Ref
			if byID != nil {
				pr = byID[pid]
			} else {
				name := d.pbuf[len(path)+len("/partitions/"):]
				pr = dt.Child(parts, unsafe.String(&name[0], len(name)))
			}
			if pr != zkfile.NoRef {
				if len(dt.Data(pr)) == 0 {
					d.handled.set(nodeID{r: pr})
				}
				if sr := dt.Child(pr, "state"); sr != zkfile.NoRef {
					d.handled.set(nodeID{r: sr})
					data, version, found = dt.Data(sr), dt.Stat(sr).Version, true
				}
			}
			d.pbuf = append(d.pbuf, "/state"...)
		} else {
			d.container(string(d.pbuf))
			d.pbuf = append(d.pbuf, "/state"...)
			if sn := d.node(string(d.pbuf)); sn != nil {
				data, version, found = sn.Data, sn.Stat.Version, true
			}
		}
		ok, err := d.partitionState(name, p, data, version, found, &isrs)
		if err != nil {
			return nil, err
		}
		if ok {
			t.Partitions[pid] = p
		}
	}
	return t, nil
}

// partitionState sets p's leader, ISR, epochs and leader recovery state
// from its state znode (data and version; found false: there is none),
// found at d.pbuf; a missing one as Kafka's migration reads it. The ISR
// goes into the free capacity of *isrs when it fits there (nil: an array
// of its own). false: the state is malformed and the decode lenient (the
// partition is left out).
func (d *decoder) partitionState(topic string, p *model.Partition, data []byte, version int32, found bool, isrs *[]int32) (bool, error) {
	p.LeaderRecoveryState = 0
	if !found {
		// As Kafka's migration does for a missing state znode.
		p.ISR = append([]int32{}, p.Replicas...)
		p.Leader = model.NoLeader
		if len(p.Replicas) > 0 {
			p.Leader = p.Replicas[0]
		}
		p.LeaderEpoch, p.PartitionEpoch = 0, 0
		d.img.ZK.MissingPartitionStates = append(d.img.ZK.MissingPartitionStates, topic+"-"+strconv.Itoa(int(p.ID)))
		return true, nil
	}
	var buf []int32
	if isrs != nil {
		buf = *isrs
	}
	s, err := parseStateInto(data, buf)
	if err != nil {
		return false, d.bad(string(d.pbuf), "partition state", err)
	}
	p.Leader, p.LeaderEpoch, p.ISR = s.Leader, s.LeaderEpoch, s.ISR
	if n := len(s.ISR); n > 0 && cap(buf)-len(buf) >= n && &buf[:len(buf)+1][len(buf)] == &s.ISR[0] {
		*isrs = buf[:len(buf)+n]
	}
	if s.LeaderRecoveryState != nil {
		p.LeaderRecoveryState = *s.LeaderRecoveryState
	}
	d.img.ZK.MaxStateControllerEpoch = max(d.img.ZK.MaxStateControllerEpoch, s.ControllerEpoch)
	p.PartitionEpoch = version
	return true, nil
}

// migrating returns n zero directories (MIGRATING), capped at n: one
// array shared by every partition of the image. Nothing writes into an
// image's lists in place (see metalog's partitionArena), and an append
// copies.
func (d *decoder) migrating(n int) []model.UUID {
	if n > len(d.zeroDirs) {
		d.zeroDirs = make([]model.UUID, max(n, 16))
	}
	return d.zeroDirs[:n:n]
}

// lookup is m[k], without hashing k when m is empty (a topic's
// reassignment maps, nearly always).
func lookup(m map[int32][]int32, k int32) []int32 {
	if len(m) == 0 {
		return nil
	}
	return m[k]
}

// cloneOrEmpty is a copy of s, empty (not nil) when s is nil.
func cloneOrEmpty(s []int32) []int32 {
	if len(s) == 0 {
		return orEmpty(s)
	}
	return slices.Clone(s)
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// configJSON is /config/<type>/<entity>: {"version":1,"config":{k: v}}.
func parseConfig(n *Node) (map[string]string, error) {
	if len(n.Data) == 0 {
		return nil, nil
	}
	var v struct {
		Config map[string]*string `json:"config"`
	}
	if err := strictJSON(n.Data, &v); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(v.Config))
	for k, val := range v.Config {
		if val == nil {
			return nil, fmt.Errorf("config %q is null", k)
		}
		out[k] = *val
	}
	return out, nil
}

// desanitize undoes Kafka's Sanitizer (URL encoding of the user, client-id
// and ip znode names of quotas, and of principals in delegation tokens);
// Java's URLDecoder also turns '+' into a space.
func desanitize(s string) (string, error) { return url.QueryUnescape(s) }

const defaultEntity = "<default>"

func (d *decoder) configs() error {
	d.container("/config")
	for _, name := range d.children("/config/topics") {
		if err := d.config(model.ConfigTopic, name); err != nil {
			return err
		}
	}
	for _, name := range d.children("/config/brokers") {
		if err := d.config(model.ConfigBroker, name); err != nil {
			return err
		}
	}
	for _, u := range d.children("/config/users") {
		path := "/config/users/" + u
		if err := d.quota(path, true, part{"user", u}); err != nil {
			return err
		}
		for _, c := range d.children(path + "/clients") {
			if err := d.quota(path+"/clients/"+c, false, part{"user", u}, part{"client-id", c}); err != nil {
				return err
			}
		}
	}
	for _, c := range d.children("/config/clients") {
		if err := d.quota("/config/clients/"+c, false, part{"client-id", c}); err != nil {
			return err
		}
	}
	for _, ip := range d.children("/config/ips") {
		if err := d.quota("/config/ips/"+ip, false, part{"ip", ip}); err != nil {
			return err
		}
	}
	if n := d.container("/config/changes"); n != nil {
		d.notifications("config_change", "/config/changes")
	}
	return nil
}

// config decodes /config/topics/<name> or /config/brokers/<name> (typ)
// into the image; an empty config is none.
func (d *decoder) config(typ model.ConfigResourceType, name string) error {
	dir, what, res := "/config/topics/", "topic config", name
	if typ == model.ConfigBroker {
		dir, what = "/config/brokers/", "broker config"
		if name == defaultEntity {
			res = ""
		}
	}
	path := dir + name
	cfg, err := parseConfig(d.node(path))
	if err != nil {
		return d.bad(path, what, err)
	}
	if len(cfg) > 0 {
		d.img.Configs[model.ConfigResource{Type: typ, Name: res}] = cfg
	}
	return nil
}

// part is one part of a quota entity: its type and its znode name, which
// ZooKeeper-mode Kafka stores sanitized for every type (an IPv6 address as
// 2001%3Adb8%3A%3A1), and Kafka's migration desanitizes for every type
// (ZkConfigMigrationClient's buildClientQuotaEntityData).
type part struct {
	typ, name string
}

var scramMechanisms = map[string]int8{"SCRAM-SHA-256": model.ScramSHA256, "SCRAM-SHA-512": model.ScramSHA512}

// quota decodes a /config/users|clients|ips entity: SCRAM credentials (users
// only) and quota values. A user znode may exist only to hold /clients.
func (d *decoder) quota(path string, scram bool, parts ...part) error {
	n := d.node(path)
	cfg, err := parseConfig(n)
	if err != nil {
		return d.bad(path, "quota config", err)
	}
	entity := make([]model.QuotaEntityPart, len(parts))
	for i, p := range parts {
		entity[i].Type = p.typ
		if p.name == defaultEntity {
			continue
		}
		name, err := desanitize(p.name)
		if err != nil {
			return d.bad(path, "entity name", err)
		}
		entity[i].Name = &name
	}
	values := map[string]float64{}
	var creds []*model.ScramCredential
	for k, v := range cfg {
		if mech, ok := scramMechanisms[k]; ok && scram {
			c, err := parseScram(v)
			if err != nil {
				return d.bad(path, k, err)
			}
			c.Mechanism = mech
			creds = append(creds, c)
			continue
		}
		f, err := parseJavaDouble(v)
		if err != nil {
			// Not a quota: an unknown SCRAM mechanism, or a key Kafka does
			// not know. Either may hold a secret: name the key only.
			what := "is not a number"
			if strings.HasPrefix(strings.ToUpper(k), "SCRAM-") {
				what = "is not a SCRAM mechanism Kafka knows (SCRAM-SHA-256, SCRAM-SHA-512)"
			}
			return d.bad(path, "config "+k, fmt.Errorf("value (%d bytes) %s", len(v), what))
		}
		values[k] = f
	}
	for _, c := range creds {
		if entity[0].Name == nil {
			return d.bad(path, "SCRAM credential", errors.New("the default user cannot hold SCRAM credentials"))
		}
		c.User = *entity[0].Name
		d.img.SCRAM[model.ScramKey{User: c.User, Mechanism: c.Mechanism}] = c
	}
	if len(values) > 0 {
		d.img.ClientQuotas[model.QuotaEntityKey(entity)] = &model.ClientQuota{Entity: entity, Values: values}
	}
	return nil
}

// parseJavaDouble accepts what Java's Double.parseDouble does for the
// values Kafka writes: surrounding blanks, an optional d/f suffix, NaN and
// Infinity.
func parseJavaDouble(s string) (float64, error) {
	t := strings.TrimSpace(s)
	switch t {
	case "NaN", "+NaN", "-NaN":
		return math.NaN(), nil
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	if n := len(t); n > 1 && strings.ContainsRune("dDfF", rune(t[n-1])) && !strings.HasPrefix(strings.ToLower(t), "0x") {
		t = t[:n-1]
	}
	if strings.ContainsAny(t, "iInN_") { // Go-only spellings: inf, nan, 1_000
		return 0, fmt.Errorf("%q is not a number", s)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

// parseScram parses "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>";
// Kafka requires exactly these four keys.
func parseScram(s string) (*model.ScramCredential, error) {
	if strings.HasPrefix(s, "[redacted ") {
		// A dump written without --show-secrets (model.RedactedScram): the
		// credential's fingerprint and iterations, without salt and keys.
		head, it, hasIt := strings.Cut(s, ",iterations=")
		c := &model.ScramCredential{Fingerprint: strings.TrimSuffix(strings.TrimPrefix(head, "[redacted "), "]")}
		if hasIt {
			n, err := strconv.ParseInt(it, 10, 32)
			if err != nil {
				return nil, errors.New("redacted SCRAM credential: iterations is not a 32-bit integer")
			}
			c.Iterations = int32(n)
		}
		return c, nil
	}
	// Errors name fields by position and length, or by the four names
	// Kafka uses: any other text may be key material.
	kv := map[string]string{}
	for i, f := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("SCRAM field %d (of %d bytes) has no '='", i+1, len(f))
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("SCRAM field %d repeats the name of an earlier field", i+1)
		}
		kv[k] = v
	}
	if len(kv) != 4 {
		return nil, fmt.Errorf("SCRAM credential has %d fields, want salt, stored_key, server_key, iterations", len(kv))
	}
	c := &model.ScramCredential{}
	var err error
	for k, dst := range map[string]*[]byte{"salt": &c.Salt, "stored_key": &c.StoredKey, "server_key": &c.ServerKey} {
		v, ok := kv[k]
		if !ok {
			return nil, fmt.Errorf("SCRAM credential lacks %s", k)
		}
		if *dst, err = base64.StdEncoding.DecodeString(v); err != nil {
			return nil, fmt.Errorf("SCRAM %s (%d bytes) is not standard base64", k, len(v))
		}
	}
	it, ok := kv["iterations"]
	if !ok {
		return nil, errors.New("SCRAM credential lacks iterations")
	}
	n, err := strconv.ParseInt(it, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("SCRAM iterations (%d bytes) is not a 32-bit integer", len(it))
	}
	c.Iterations = int32(n)
	return c, nil
}

// ACL code tables (Kafka's enums), keyed by the PascalCase name ZooKeeper
// stores upper-cased. Kafka's SecurityUtils matches the PascalCase name or
// its upper-case form after upper-casing the input, so any case works but
// an underscore does not: "DESCRIBE_CONFIGS" is UNKNOWN to Kafka, never
// DescribeConfigs.
var (
	aclResourceTypes = map[string]int8{"TOPIC": 2, "GROUP": 3, "CLUSTER": 4, "TRANSACTIONALID": 5, "DELEGATIONTOKEN": 6, "USER": 7}
	aclOperations    = map[string]int8{"ALL": 2, "READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7, "DESCRIBE": 8,
		"CLUSTERACTION": 9, "DESCRIBECONFIGS": 10, "ALTERCONFIGS": 11, "IDEMPOTENTWRITE": 12, "CREATETOKENS": 13,
		"DESCRIBETOKENS": 14, "TWOPHASECOMMIT": 15}
	aclPermissions = map[string]int8{"DENY": 2, "ALLOW": 3}
)

func enumKey(s string) string { return strings.ToUpper(s) }

const (
	patternLiteral  int8 = 3
	patternPrefixed int8 = 4
)

func (d *decoder) acls() error {
	d.container("/kafka-acl-extended")
	if err := d.aclTree("/kafka-acl", patternLiteral); err != nil {
		return err
	}
	if err := d.aclTree("/kafka-acl-extended/prefixed", patternPrefixed); err != nil {
		return err
	}
	d.notifications("acl_change", "/kafka-acl-changes")
	d.notifications("acl_extended_change", "/kafka-acl-extended-changes")
	return nil
}

func (d *decoder) aclTree(root string, pattern int8) error {
	d.container(root)
	for _, typ := range d.children(root) {
		rt, ok := aclResourceTypes[enumKey(typ)]
		if !ok {
			// Kafka reads such a directory as resource type UNKNOWN and
			// finds nothing under it; it stays raw here, visibly.
			continue
		}
		for _, name := range d.children(root + "/" + typ) {
			if err := d.aclNode(root+"/"+typ+"/"+name, rt, name, pattern); err != nil {
				return err
			}
		}
	}
	return nil
}

// aclNode decodes the ACLs of one resource: the znode at path, of
// resource type rt, pattern and name.
func (d *decoder) aclNode(path string, rt int8, name string, pattern int8) error {
	n := d.node(path)
	var v struct {
		ACLs []struct {
			Principal      *string `json:"principal"`
			PermissionType *string `json:"permissionType"`
			Operation      *string `json:"operation"`
			Host           *string `json:"host"`
		} `json:"acls"`
	}
	if err := strictJSON(n.Data, &v); err != nil {
		return d.bad(path, "acls", err)
	}
	var acls []*model.ACL
	for i, a := range v.ACLs {
		if a.Principal == nil || a.PermissionType == nil || a.Operation == nil || a.Host == nil {
			return d.bad(path, "acls", fmt.Errorf("acl %d lacks a field", i))
		}
		op, ok1 := aclOperations[enumKey(*a.Operation)]
		perm, ok2 := aclPermissions[enumKey(*a.PermissionType)]
		if !ok1 || !ok2 || !strings.Contains(*a.Principal, ":") {
			return d.bad(path, "acls", fmt.Errorf("acl %d: operation %q, permission %q or principal %q not understood", i, *a.Operation, *a.PermissionType, *a.Principal))
		}
		acl := &model.ACL{ResourceType: rt, ResourceName: name, PatternType: pattern,
			Principal: *a.Principal, Host: *a.Host, Operation: op, PermissionType: perm}
		acl.ID = model.ACLContentID(acl)
		acls = append(acls, acl)
	}
	for _, a := range acls {
		d.img.ACLs[a.ID] = a
	}
	return nil
}

func (d *decoder) producerIDs() error {
	n := d.node("/latest_producer_id_block")
	if n == nil || len(n.Data) == 0 {
		return nil
	}
	var v struct {
		Broker   *int32          `json:"broker"`
		BlockEnd json.RawMessage `json:"block_end"`
	}
	err := strictJSON(n.Data, &v)
	var end int64
	if err == nil {
		if v.Broker == nil || v.BlockEnd == nil {
			err = errors.New("lacks broker or block_end")
		} else {
			// Kafka writes the block bounds as JSON strings.
			s := strings.Trim(string(v.BlockEnd), `"`)
			end, err = strconv.ParseInt(s, 10, 64)
		}
	}
	if err != nil {
		return d.bad("/latest_producer_id_block", "producer id block", err)
	}
	d.img.ProducerIDs = &model.ProducerIDs{NextProducerID: end + 1, BrokerID: *v.Broker, BrokerEpoch: -1}
	return nil
}

func (d *decoder) tokens() error {
	d.container("/delegation_token")
	for _, id := range d.children("/delegation_token/tokens") {
		if err := d.token(id); err != nil {
			return err
		}
	}
	d.notifications("token_change", "/delegation_token/token_changes")
	return nil
}

// token decodes /delegation_token/tokens/<id>.
func (d *decoder) token(id string) error {
	path := "/delegation_token/tokens/" + id
	n := d.node(path)
	var v struct {
		Owner     *string  `json:"owner"`
		Requester *string  `json:"tokenRequester"`
		Renewers  []string `json:"renewers"`
		Issue     *int64   `json:"issueTimestamp"`
		Max       *int64   `json:"maxTimestamp"`
		Expiry    *int64   `json:"expiryTimestamp"`
		TokenID   *string  `json:"tokenId"`
	}
	err := strictJSON(n.Data, &v)
	if err == nil && (v.Owner == nil || v.Issue == nil || v.Max == nil || v.Expiry == nil || v.TokenID == nil) {
		err = errors.New("token lacks owner, timestamps or tokenId")
	}
	var tok *model.DelegationToken
	if err == nil {
		tok = &model.DelegationToken{TokenID: *v.TokenID, IssueTimestamp: *v.Issue, MaxTimestamp: *v.Max, ExpirationTimestamp: *v.Expiry, Renewers: []string{}}
		if tok.Owner, err = desanitize(*v.Owner); err == nil {
			tok.Requester = tok.Owner
			if v.Requester != nil {
				tok.Requester, err = desanitize(*v.Requester)
			}
		}
		for _, r := range v.Renewers {
			if err != nil {
				break
			}
			var dr string
			dr, err = desanitize(r)
			tok.Renewers = append(tok.Renewers, dr)
		}
	}
	if err != nil {
		return d.bad(path, "delegation token", err)
	}
	d.img.DelegationTokens[tok.TokenID] = tok
	return nil
}

func (d *decoder) feature() error {
	n := d.node("/feature")
	if n == nil {
		return nil
	}
	var v struct {
		Status   *int32 `json:"status"`
		Features map[string]struct {
			Max *int16 `json:"max_version_level"`
		} `json:"features"`
	}
	err := strictJSON(n.Data, &v)
	if err == nil && v.Status == nil {
		err = errors.New(`no "status"`)
	}
	for k, f := range v.Features {
		if err == nil && f.Max == nil {
			err = fmt.Errorf("feature %q lacks max_version_level", k)
		}
	}
	if err != nil {
		return d.bad("/feature", "features", err)
	}
	d.img.ZK.FeatureStatus = *v.Status
	for k, f := range v.Features {
		d.img.Features[k] = *f.Max
	}
	return nil
}

func (d *decoder) migration() error {
	n := d.node("/migration")
	if n == nil {
		return nil
	}
	if len(bytes.TrimSpace(n.Data)) == 0 || string(bytes.TrimSpace(n.Data)) == "null" {
		// zookeeper-security-migration can leave /migration with no data
		// (KAFKA-19480); Kafka's migration then hangs on it, so it is a
		// state to report, not a malformed znode.
		d.img.Migration = &model.Migration{HasZNode: true, ZNodeNull: true, KRaftControllerID: -1, KRaftControllerEpoch: -1,
			KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1, ZNodeVersion: n.Stat.Version}
		return nil
	}
	var v struct {
		ID     *int32 `json:"kraft_controller_id"`
		Epoch  *int32 `json:"kraft_controller_epoch"`
		Offset *int64 `json:"kraft_metadata_offset"`
		MEpoch *int32 `json:"kraft_metadata_epoch"`
	}
	err := strictJSON(n.Data, &v)
	if err == nil && (v.ID == nil || v.Epoch == nil || v.Offset == nil || v.MEpoch == nil) {
		err = errors.New("migration state lacks a field")
	}
	if err != nil {
		return d.bad("/migration", "migration state", err)
	}
	d.img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: *v.ID, KRaftControllerEpoch: *v.Epoch,
		KRaftMetadataOffset: *v.Offset, KRaftMetadataEpoch: *v.MEpoch, ZNodeVersion: n.Stat.Version}
	return nil
}

type topicPartitionJSON struct {
	Topic     *string `json:"topic"`
	Partition *int32  `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

func (d *decoder) pending() error {
	d.container("/admin")
	for _, t := range d.children("/admin/delete_topics") {
		d.node("/admin/delete_topics/" + t)
		d.img.ZK.PendingTopicDeletions = append(d.img.ZK.PendingTopicDeletions, t)
	}
	if n := d.node("/admin/reassign_partitions"); n != nil {
		var v struct {
			Partitions []topicPartitionJSON `json:"partitions"`
		}
		err := strictJSON(n.Data, &v)
		m := map[string][]int32{}
		for _, p := range v.Partitions {
			if err == nil && (p.Topic == nil || p.Partition == nil || p.Replicas == nil) {
				err = errors.New("entry lacks topic, partition or replicas")
			}
			if err == nil {
				m[fmt.Sprintf("%s-%d", *p.Topic, *p.Partition)] = p.Replicas
			}
		}
		if err != nil {
			if e := d.bad("/admin/reassign_partitions", "reassignment", err); e != nil {
				return e
			}
		} else {
			d.img.ZK.LegacyReassignments = m
		}
	}
	if n := d.node("/admin/preferred_replica_election"); n != nil {
		var v struct {
			Partitions []topicPartitionJSON `json:"partitions"`
		}
		err := strictJSON(n.Data, &v)
		var out []string
		for _, p := range v.Partitions {
			if err == nil && (p.Topic == nil || p.Partition == nil) {
				err = errors.New("entry lacks topic or partition")
			}
			if err == nil {
				out = append(out, fmt.Sprintf("%s-%d", *p.Topic, *p.Partition))
			}
		}
		if err != nil {
			if e := d.bad("/admin/preferred_replica_election", "preferred replica election", err); e != nil {
				return e
			}
		} else {
			sort.Strings(out)
			d.img.ZK.PreferredReplicaElections = out
		}
	}
	d.notifications("isr_change", "/isr_change_notification")
	d.notifications("log_dir_event", "/log_dir_event_notification")
	// Pre-created by every Kafka broker; nothing to decode.
	d.container("/consumers")
	return nil
}

// notifications counts (and consumes) the sequential children of a
// notification queue znode.
func (d *decoder) notifications(kind, path string) {
	kids := d.children(path)
	if !d.t.Has(path) {
		return
	}
	for _, k := range kids {
		d.node(path + "/" + k)
	}
	if len(kids) > 0 {
		if d.img.ZK.Notifications == nil {
			d.img.ZK.Notifications = map[string]int32{}
		}
		d.img.ZK.Notifications[kind] = int32(len(kids))
	}
}

// raw keeps every znode nothing consumed, except ZooKeeper's own /zookeeper
// subtree (present only without a chroot).
func (d *decoder) raw() {
	keep := func(p string, data []byte) {
		if d.img.ZK.Raw == nil {
			d.img.ZK.Raw = map[string][]byte{}
		}
		d.img.ZK.Raw[p] = data
	}
	t := d.t
	if t.dt == nil {
		_, root := d.lookup("/")
		d.handled.set(root)
		// Raw is a map: no need to sort the paths.
		for p, n := range t.nodes {
			if d.handled.hasNode(n) || p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/") {
				continue
			}
			if len(n.Data) == 0 && len(n.Children) > 0 {
				// A pure container whose children are kept raw themselves.
				continue
			}
			keep(p, n.Data)
		}
		return
	}
	// An offline tree: the nodes are walked by Ref, and a path is made
	// only for the few kept raw.
	dt := t.dt
	d.handled.set(nodeID{r: t.root})
	var walk func(r zkfile.Ref)
	walk = func(r zkfile.Ref) {
		kids := dt.Kids(r)
		if !d.handled.hasRef(r) && (len(dt.Data(r)) > 0 || len(kids) == 0) {
			// A copy: the image must not keep the tree's arena alive.
			keep(t.relPath(r), bytes.Clone(dt.Data(r)))
		}
		for _, k := range kids {
			if r == t.root && dt.Name(k) == "zookeeper" {
				continue
			}
			walk(k)
		}
	}
	walk(t.root)
}

// relPath is the path of an offline tree's node r, relative to its root.
func (t *Tree) relPath(r zkfile.Ref) string {
	p := t.dt.Path(r)
	if rel, ok := relPath(p, t.rootPath); ok {
		return rel
	}
	return p
}

func (t *Tree) childrenOf(path string) []string {
	if n := t.Get(path); n != nil {
		return n.Children
	}
	return nil
}
