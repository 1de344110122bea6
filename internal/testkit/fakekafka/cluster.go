package fakekafka

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A fake KRaft broker that answers every read of kmeta's live reader
// (ApiVersions, Metadata, DescribeCluster, DescribeTopicPartitions,
// ListPartitionReassignments, DescribeConfigs, DescribeAcls,
// DescribeClientQuotas, DescribeUserScramCredentials,
// DescribeDelegationToken, DescribeQuorum) for a small cluster, and
// misbehaves on the requests a test names: closes, stalls, answers a
// length that lies or bytes that are no Kafka answer, or an answer with
// counts a test chooses (100,000 voters). It proves what kmeta does with
// a hostile peer; what a real cluster answers is proven against real
// Kafka (kafkatest).

// Fault is how a fake broker misbehaves on one request.
type Fault int

// The faults.
const (
	// Answer: answer as a broker would.
	Answer Fault = iota
	// Stall: read the request and never answer (the connection stays).
	Stall
	// Hangup: close the connection instead of answering.
	Hangup
	// LongSize: a size prefix far longer than the bytes that follow,
	// then close.
	LongSize
	// NegativeSize: a negative size prefix.
	NegativeSize
	// Garbage: bytes that are no Kafka answer (an HTTP error page).
	Garbage
	// Truncated: the answer cut in half (the size prefix says the whole).
	Truncated
)

var faultNames = [...]string{"answer", "stall", "hangup", "long-size", "negative-size", "garbage", "truncated"}

func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault " + strconv.Itoa(int(f))
}

// Faults lists every fault but Answer.
var Faults = []Fault{Stall, Hangup, LongSize, NegativeSize, Garbage, Truncated}

// Cluster is what a fake broker answers for.
type Cluster struct {
	// ClusterID (default "kmetaFakeClusterAAAAAA") and NodeID (default 1)
	// are the cluster's and the broker's.
	ClusterID string
	NodeID    int32
	// Peers are other brokers Metadata and DescribeCluster list, id to
	// host:port: an address of Silent or Closed is a broker that is
	// listed but does not answer.
	Peers map[int32]string
	// Topics is how many topics (t0, t1, ...) the cluster holds, each
	// with one partition on this broker.
	Topics int
	// Voters is how many voters DescribeQuorum lists (default 1, this
	// broker's id).
	Voters int
	// Faults are the misbehaviours by request key; FaultAll, when not
	// Answer, applies to every request but ApiVersions.
	Faults   map[int16]Fault
	FaultAll Fault
	// Edit, when set, changes an answer before it is sent.
	Edit func(resp kmsg.Response)
}

// keys are the APIs a fake broker lists, answered up to kmsg's highest
// version.
var keys = []int16{3, 18, 29, 32, 41, 46, 48, 50, 55, 60, 75}

// Broker serves c on a new listener.
func Broker(t testing.TB, c Cluster) *Listener {
	t.Helper()
	if c.ClusterID == "" {
		c.ClusterID = "kmetaFakeClusterAAAAAA"
	}
	if c.NodeID == 0 {
		c.NodeID = 1
	}
	if c.Voters == 0 {
		c.Voters = 1
	}
	ln := listen(t)
	self := ln.Addr().String()
	var requests atomic.Int64
	l := serve(t, ln, func(conn net.Conn) {
		defer conn.Close()
		for {
			var size [4]byte
			if _, err := io.ReadFull(conn, size[:]); err != nil {
				return
			}
			n := binary.BigEndian.Uint32(size[:])
			if n > 16<<20 {
				return
			}
			raw := make([]byte, n)
			if _, err := io.ReadFull(conn, raw); err != nil || len(raw) < 10 {
				return
			}
			requests.Add(1)
			key, version := int16(binary.BigEndian.Uint16(raw)), int16(binary.BigEndian.Uint16(raw[2:]))
			corr := binary.BigEndian.Uint32(raw[4:])
			fault := c.Faults[key]
			if fault == Answer && key != 18 {
				fault = c.FaultAll
			}
			switch fault {
			case Stall:
				_, _ = io.Copy(io.Discard, conn)
				return
			case Hangup:
				return
			case NegativeSize:
				_, _ = conn.Write([]byte{0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 1})
				return
			case LongSize:
				_, _ = conn.Write([]byte{0x7f, 0xff, 0xff, 0x00, byte(corr >> 24), byte(corr >> 16), byte(corr >> 8), byte(corr), 0, 0})
				return
			case Garbage:
				_, _ = conn.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
				return
			}
			body, err := c.answer(self, key, version, raw)
			if err != nil {
				return
			}
			out := binary.BigEndian.AppendUint32(nil, 0)
			out = binary.BigEndian.AppendUint32(out, corr)
			if req := kmsg.RequestForKey(key); key != 18 && req != nil {
				req.SetVersion(version)
				if req.IsFlexible() {
					out = append(out, 0) // response header v1: no tagged fields
				}
			}
			out = append(out, body...)
			binary.BigEndian.PutUint32(out, uint32(len(out)-4))
			if fault == Truncated {
				out = out[:4+(len(out)-4)/2]
			}
			if _, err := conn.Write(out); err != nil || fault == Truncated {
				return
			}
		}
	})
	return l
}

// answer decodes a request and encodes the broker's answer.
func (c *Cluster) answer(self string, key, version int16, raw []byte) ([]byte, error) {
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil, fmt.Errorf("unknown key %d", key)
	}
	req.SetVersion(version)
	body := raw[8:]
	// The client id: a nullable int16-length string.
	if len(body) < 2 {
		return nil, io.ErrUnexpectedEOF
	}
	if l := int16(binary.BigEndian.Uint16(body)); l > 0 {
		if len(body) < 2+int(l) {
			return nil, io.ErrUnexpectedEOF
		}
		body = body[2+int(l):]
	} else {
		body = body[2:]
	}
	if req.IsFlexible() { // request header v2, ApiVersions' too
		var err error
		if body, err = skipTags(body); err != nil {
			return nil, err
		}
	}
	if err := req.ReadFrom(body); err != nil {
		return nil, err
	}
	resp := req.ResponseKind()
	resp.SetVersion(version)
	host, portS, _ := net.SplitHostPort(self)
	port, _ := strconv.Atoi(portS)
	type node struct {
		id   int32
		host string
		port int32
	}
	nodes := []node{{c.NodeID, host, int32(port)}}
	for id, addr := range c.Peers {
		h, p, _ := net.SplitHostPort(addr)
		pn, _ := strconv.Atoi(p)
		nodes = append(nodes, node{id, h, int32(pn)})
	}
	topicID := func(i int) [16]byte { return [16]byte{0: 1, 15: byte(i + 1), 14: byte((i + 1) >> 8)} }
	switch r := resp.(type) {
	case *kmsg.ApiVersionsResponse:
		for _, k := range keys {
			ak := kmsg.NewApiVersionsResponseApiKey()
			ak.ApiKey, ak.MaxVersion = k, kmsg.RequestForKey(k).MaxVersion()
			r.ApiKeys = append(r.ApiKeys, ak)
		}
		for name, level := range map[string]int16{"metadata.version": 27, "kraft.version": 1} {
			f := kmsg.NewApiVersionsResponseFinalizedFeature()
			f.Name, f.MaxVersionLevel, f.MinVersionLevel = name, level, level
			r.FinalizedFeatures = append(r.FinalizedFeatures, f)
			s := kmsg.NewApiVersionsResponseSupportedFeature()
			s.Name, s.MinVersion, s.MaxVersion = name, 0, level
			r.SupportedFeatures = append(r.SupportedFeatures, s)
		}
		r.FinalizedFeaturesEpoch = 42
	case *kmsg.MetadataResponse:
		r.ClusterID, r.ControllerID = &c.ClusterID, c.NodeID
		for _, n := range nodes {
			b := kmsg.NewMetadataResponseBroker()
			b.NodeID, b.Host, b.Port = n.id, n.host, n.port
			r.Brokers = append(r.Brokers, b)
		}
		if q := req.(*kmsg.MetadataRequest); q.Topics == nil || len(q.Topics) > 0 {
			for i := 0; i < c.Topics; i++ {
				name := fmt.Sprintf("t%d", i)
				mt := kmsg.NewMetadataResponseTopic()
				mt.Topic, mt.TopicID = &name, topicID(i)
				p := kmsg.NewMetadataResponseTopicPartition()
				p.Leader, p.Replicas, p.ISR = c.NodeID, []int32{c.NodeID}, []int32{c.NodeID}
				mt.Partitions = append(mt.Partitions, p)
				r.Topics = append(r.Topics, mt)
			}
		}
	case *kmsg.DescribeClusterResponse:
		r.ClusterID, r.ControllerID = c.ClusterID, c.NodeID
		for _, n := range nodes {
			b := kmsg.NewDescribeClusterResponseBroker()
			b.NodeID, b.Host, b.Port = n.id, n.host, n.port
			r.Brokers = append(r.Brokers, b)
		}
	case *kmsg.DescribeTopicPartitionsResponse:
		for i := 0; i < c.Topics; i++ {
			name := fmt.Sprintf("t%d", i)
			dt := kmsg.NewDescribeTopicPartitionsResponseTopic()
			dt.Topic, dt.TopicID = &name, topicID(i)
			p := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
			p.LeaderID, p.Replicas, p.ISR = c.NodeID, []int32{c.NodeID}, []int32{c.NodeID}
			dt.Partitions = append(dt.Partitions, p)
			r.Topics = append(r.Topics, dt)
		}
	case *kmsg.DescribeConfigsResponse:
		for _, res := range req.(*kmsg.DescribeConfigsRequest).Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = res.ResourceType, res.ResourceName
			r.Resources = append(r.Resources, rr)
		}
	case *kmsg.DescribeQuorumResponse:
		t := kmsg.NewDescribeQuorumResponseTopic()
		t.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch, p.HighWatermark = c.NodeID, 1, 100
		for i := 0; i < c.Voters; i++ {
			v := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			v.ReplicaID, v.LogEndOffset = c.NodeID+int32(i), 100
			p.CurrentVoters = append(p.CurrentVoters, v)
			if r.Version >= 2 {
				n := kmsg.NewDescribeQuorumResponseNode()
				n.NodeID = c.NodeID + int32(i)
				l := kmsg.NewDescribeQuorumResponseNodeListener()
				l.Name, l.Host, l.Port = "CONTROLLER", host, uint16(port)
				n.Listeners = append(n.Listeners, l)
				r.Nodes = append(r.Nodes, n)
			}
		}
		t.Partitions = append(t.Partitions, p)
		r.Topics = append(r.Topics, t)
	}
	// The rest (ACLs, quotas, SCRAM users, tokens, reassignments): none.
	if c.Edit != nil {
		c.Edit(resp)
	}
	return resp.AppendTo(nil), nil
}

// skipTags skips a flexible request header's tagged fields.
func skipTags(b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, io.ErrUnexpectedEOF
	}
	b = b[k:]
	for i := uint64(0); i < n; i++ {
		if _, k = binary.Uvarint(b); k <= 0 {
			return nil, io.ErrUnexpectedEOF
		}
		b = b[k:]
		size, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < size {
			return nil, io.ErrUnexpectedEOF
		}
		b = b[k+int(size):]
	}
	return b, nil
}
