package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// oracleJSON is the document as the struct-based encoder wrote it before
// streaming: imageJSON with its topics filled, through encoding/json.
func oracleJSON(t *testing.T, img *Image, indent string) []byte {
	t.Helper()
	doc := img.jsonDoc()
	for _, tp := range img.SortedTopics() {
		tj := topicJSON{Name: tp.Name, ID: tp.ID, Partitions: []partitionJSON{}}
		for _, p := range tp.SortedPartitions() {
			tj.Partitions = append(tj.Partitions, partitionJSON{
				ID: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch,
				Replicas: p.Replicas, ISR: p.ISR, ELR: p.ELR, LastKnownELR: p.LastKnownELR,
				AddingReplicas: p.AddingReplicas, RemovingReplicas: p.RemovingReplicas,
				LeaderRecoveryState:     LeaderRecoveryStateName(p.LeaderRecoveryState),
				LeaderRecoveryStateCode: p.LeaderRecoveryState, Directories: p.Directories,
				OfflineReplicas: p.OfflineReplicas,
			})
		}
		doc.Topics = append(doc.Topics, tj)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if indent == "" {
		return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return b.Bytes()
}

// streamTestImage has every section and the edge cases of the hand-written
// part: nil and empty lists, odd topic names, unknown enum codes,
// directories (more distinct ones than the writer caches), empty topics.
func streamTestImage() *Image {
	img := NewImage()
	img.ClusterID = "c<&>\u2028"
	img.Features["metadata.version"] = 21
	img.Brokers[1] = &Broker{ID: 1, Endpoints: []Endpoint{{Name: "PLAINTEXT", Host: "h", Port: 9092}}, Rack: strp("r")}
	img.Controllers[3000] = &Controller{ID: 3000}
	names := []string{"orders", "", "tab\there", "quote\"back\\slash", "ünïcode", "bad\xffutf8", "line\u2028sep", "<html>&"}
	for i, n := range names {
		tp := &Topic{Name: n, ID: UUID{byte(i), 0xfe}, Partitions: map[int32]*Partition{}}
		for p := int32(0); p < int32(i); p++ {
			tp.Partitions[p] = &Partition{ID: p, Replicas: []int32{1, 2, 3}[:p%4], ISR: []int32{p}, Leader: p - 1,
				LeaderEpoch: math.MaxInt32, PartitionEpoch: math.MinInt32, LeaderRecoveryState: int8(p % 3),
				AddingReplicas: []int32{}}
			if p%2 == 0 {
				tp.Partitions[p].ELR, tp.Partitions[p].LastKnownELR = []int32{}, []int32{4, 5}
				tp.Partitions[p].Directories = []UUID{DirUnassigned, {1, 2, 3}}
			} else {
				tp.Partitions[p].RemovingReplicas = []int32{7}
				tp.Partitions[p].Directories = []UUID{}
				tp.Partitions[p].OfflineReplicas = []int32{2, 3}[:p%3]
			}
		}
		img.Topics[fmt.Sprint(i)] = tp
	}
	// 105 distinct directory lists, each seen twice or more, which the
	// writer's 64-slot cache of list texts keeps, evicts and mixes up in
	// its slots; short and empty ones, and lists of five, not cached.
	dirs := &Topic{Name: "dirs", ID: UUID{0xd}, Partitions: map[int32]*Partition{}}
	for p := int32(0); p < 260; p++ {
		dirs.Partitions[p] = &Partition{ID: p, Replicas: []int32{1, 2, 3},
			Directories: []UUID{{byte(p % 7), 1}, {byte(p % 5), 2}, DirLost, {byte(p % 3), 3}}}
		switch p % 10 {
		case 3:
			dirs.Partitions[p].Directories = dirs.Partitions[p].Directories[:p%4]
		case 7:
			dirs.Partitions[p].Directories = append(dirs.Partitions[p].Directories, UUID{byte(p)})
		}
	}
	img.Topics["dirs"] = dirs
	img.Configs[ConfigResource{ConfigTopic, "orders"}] = map[string]string{"a": "1", "b": "<x>"}
	img.ClientQuotas["x"] = &ClientQuota{Entity: []QuotaEntityPart{{"user", strp("u")}}, Values: map[string]float64{"r": math.NaN()}}
	img.ACLs[UUID{1}] = &ACL{ID: UUID{1}, ResourceType: 2, ResourceName: "t", PatternType: 3, Principal: "User:<x>", Host: "*", Operation: 3, PermissionType: 3}
	img.Migration = &Migration{HasState: true}
	img.Quorum = &Quorum{LeaderID: 1, Voters: []Voter{{ID: 1}}}
	img.ZK = &ZKState{Chroot: "/k", Raw: map[string][]byte{"/a": []byte(`{"x":1}`), "/b": {0xff}}}
	loc := At("f", 1, 2)
	img.Warn(WarnTornTail, &loc, "torn %d", 1)
	img.MarkNotReported(FieldPartitionEpoch, FieldBrokerEpoch)
	return img
}

// TestStreamingJSONMatchesEncodingJSON: the streamed document, compact and
// indented, is byte for byte what encoding/json writes for the document.
func TestStreamingJSONMatchesEncodingJSON(t *testing.T) {
	for name, img := range map[string]*Image{"full": streamTestImage(), "empty": NewImage(), "zero": {}} {
		for _, indent := range []string{"", "  ", "\t"} {
			want := oracleJSON(t, img, indent)
			var got bytes.Buffer
			var err error
			if indent == "" {
				err = img.WriteJSON(&got)
			} else {
				err = img.WriteIndentedJSON(&got, indent)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s, indent %q:\ngot\n%s\nwant\n%s", name, indent, got.Bytes(), want)
			}
			if indent == "" {
				m, err := img.MarshalJSON()
				if err != nil || !bytes.Equal(m, want) {
					t.Fatalf("MarshalJSON differs (%v)", err)
				}
			}
		}
	}
}

func BenchmarkWriteIndentedJSON(b *testing.B) {
	img := NewImage()
	for i := range 1000 {
		tp := &Topic{Name: fmt.Sprintf("topic-%05d", i), ID: UUID{byte(i), byte(i >> 8)}, Partitions: map[int32]*Partition{}}
		for p := int32(0); p < 100; p++ {
			tp.Partitions[p] = &Partition{ID: p, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 1,
				Directories: []UUID{{1}, {2}, {3}}}
		}
		img.Topics[tp.Name] = tp
	}
	var n countWriter
	b.ReportAllocs()
	for b.Loop() {
		if err := img.WriteIndentedJSON(&n, "  "); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(n) / int64(b.N))
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
