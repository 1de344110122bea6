package model

import (
	"slices"
	"testing"
)

func TestQuotaEntityKey(t *testing.T) {
	alice := strp("alice")
	empty := strp("")
	dflt := strp("<default>")
	tests := []struct {
		parts []QuotaEntityPart
		want  string
	}{
		{nil, ""},
		{[]QuotaEntityPart{{"user", alice}}, `user="alice"`},
		{[]QuotaEntityPart{{"user", nil}}, `user=<default>`},
		{[]QuotaEntityPart{{"user", empty}}, `user=""`},
		{[]QuotaEntityPart{{"user", dflt}}, `user="<default>"`},
		// Sorted by type whatever the input order.
		{[]QuotaEntityPart{{"user", alice}, {"client-id", nil}}, `client-id=<default>,user="alice"`},
		{[]QuotaEntityPart{{"client-id", nil}, {"user", alice}}, `client-id=<default>,user="alice"`},
		// Names with separators cannot forge another entity.
		{[]QuotaEntityPart{{"user", strp(`a",client-id="b`)}}, `user="a\",client-id=\"b"`},
		{[]QuotaEntityPart{{"ip", strp("10.0.0.1")}}, `ip="10.0.0.1"`},
	}
	for _, tt := range tests {
		if got := QuotaEntityKey(tt.parts); got != tt.want {
			t.Errorf("QuotaEntityKey(%v) = %s, want %s", tt.parts, got, tt.want)
		}
	}
	// The input is not reordered in place.
	in := []QuotaEntityPart{{"user", alice}, {"client-id", nil}}
	QuotaEntityKey(in)
	if in[0].Type != "user" {
		t.Error("QuotaEntityKey reordered its argument")
	}
}

func TestSortedAccessors(t *testing.T) {
	img := NewImage()
	for _, id := range []int32{3, -1, 10, 2} {
		img.Brokers[id] = &Broker{ID: id}
		img.Controllers[id+3000] = &Controller{ID: id + 3000}
	}
	img.Brokers[99] = nil // a nil entry is skipped, not a panic
	for _, n := range []string{"b", "a", "_c", "B"} {
		img.Topics[n] = &Topic{Name: n, Partitions: map[int32]*Partition{2: {ID: 2}, 0: {ID: 0}, 10: {ID: 10}, 1: {ID: 1}}}
	}
	img.Features["z"] = 1
	img.Features["metadata.version"] = 21
	img.Features["a.version"] = 0

	ids := func(bs []*Broker) (out []int32) {
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return
	}
	if got, want := ids(img.SortedBrokers()), []int32{-1, 2, 3, 10}; !slices.Equal(got, want) {
		t.Errorf("brokers %v, want %v", got, want)
	}
	var cids []int32
	for _, c := range img.SortedControllers() {
		cids = append(cids, c.ID)
	}
	if want := []int32{2999, 3002, 3003, 3010}; !slices.Equal(cids, want) {
		t.Errorf("controllers %v, want %v", cids, want)
	}
	var names []string
	for _, tp := range img.SortedTopics() {
		names = append(names, tp.Name)
	}
	if want := []string{"B", "_c", "a", "b"}; !slices.Equal(names, want) {
		t.Errorf("topics %v, want %v", names, want)
	}
	var pids []int32
	for _, p := range img.Topics["a"].SortedPartitions() {
		pids = append(pids, p.ID)
	}
	if want := []int32{0, 1, 2, 10}; !slices.Equal(pids, want) {
		t.Errorf("partitions %v, want %v", pids, want)
	}
	if got, want := img.SortedFeatures(), []Feature{{"a.version", 0}, {"metadata.version", 21}, {"z", 1}}; !slices.Equal(got, want) {
		t.Errorf("features %v, want %v", got, want)
	}
}

func TestSortedConfigs(t *testing.T) {
	img := NewImage()
	img.Configs[ConfigResource{ConfigBroker, "1"}] = map[string]string{"b": "2", "a": "1"}
	img.Configs[ConfigResource{ConfigBroker, ""}] = map[string]string{"x": "y"}
	img.Configs[ConfigResource{ConfigTopic, "z"}] = map[string]string{}
	img.Configs[ConfigResource{ConfigClientMetrics, "m"}] = map[string]string{"k": "v"}
	got := img.SortedConfigs()
	var res []ConfigResource
	for _, rc := range got {
		res = append(res, rc.Resource)
	}
	want := []ConfigResource{{ConfigTopic, "z"}, {ConfigBroker, ""}, {ConfigBroker, "1"}, {ConfigClientMetrics, "m"}}
	if !slices.Equal(res, want) {
		t.Errorf("resources %v, want %v", res, want)
	}
	if e := got[2].Entries; !slices.Equal(e, []ConfigEntry{{"a", "1"}, {"b", "2"}}) {
		t.Errorf("entries %v", e)
	}
	if got[0].Entries == nil || len(got[0].Entries) != 0 {
		t.Errorf("empty config set: %#v", got[0].Entries)
	}
}

func TestSortedACLsByContentThenID(t *testing.T) {
	img := NewImage()
	mk := func(id byte, rt int8, name string, pt int8, principal, host string, op, perm int8) {
		img.ACLs[UUID{id}] = &ACL{ID: UUID{id}, ResourceType: rt, ResourceName: name, PatternType: pt,
			Principal: principal, Host: host, Operation: op, PermissionType: perm}
	}
	mk(1, 2, "t", 3, "User:b", "*", 3, 3)
	mk(2, 2, "t", 3, "User:a", "*", 3, 3)
	mk(3, 4, "kafka-cluster", 3, "User:a", "*", 9, 3)
	mk(4, 2, "t", 4, "User:a", "*", 3, 3)
	mk(5, 2, "s", 3, "User:z", "*", 3, 3)
	mk(6, 2, "t", 3, "User:a", "*", 3, 2)
	mk(7, 2, "t", 3, "User:a", "*", 3, 3) // same content as 2: id breaks the tie
	mk(0, 2, "t", 3, "User:a", "*", 3, 3)
	mk(8, 2, "t", 3, "User:a", "10.0.0.1", 3, 3)
	mk(9, 2, "t", 3, "User:a", "*", 2, 3)
	var got []byte
	for _, a := range img.SortedACLs() {
		got = append(got, a.ID[0])
	}
	// type 2 first: name s, then t; within t LITERAL(3) before PREFIXED(4);
	// then principal, host ("*" < "10..."), operation, permission, id.
	want := []byte{5, 9, 6, 0, 2, 7, 8, 1, 4, 3}
	if !slices.Equal(got, want) {
		t.Errorf("ACL order %v, want %v", got, want)
	}
}

func TestSortedQuotasScramTokens(t *testing.T) {
	img := NewImage()
	img.ClientQuotas["k1"] = &ClientQuota{Entity: []QuotaEntityPart{{"user", strp("bob")}}}
	img.ClientQuotas["k2"] = &ClientQuota{Entity: []QuotaEntityPart{{"user", nil}}}
	img.ClientQuotas["k3"] = &ClientQuota{Entity: []QuotaEntityPart{{"user", strp("alice")}, {"client-id", strp("c")}}}
	img.ClientQuotas["k4"] = &ClientQuota{Entity: []QuotaEntityPart{{"ip", strp("1.2.3.4")}}}
	var keys []string
	for _, q := range img.SortedClientQuotas() {
		keys = append(keys, QuotaEntityKey(q.Entity))
	}
	want := []string{`client-id="c",user="alice"`, `ip="1.2.3.4"`, `user="bob"`, `user=<default>`}
	if !slices.Equal(keys, want) {
		t.Errorf("quotas %q, want %q", keys, want)
	}
	if got := SortedQuotaValues(map[string]float64{"b": 2, "a": 1}); !slices.Equal(got, []QuotaValue{{"a", 1}, {"b", 2}}) {
		t.Errorf("quota values %v", got)
	}

	for _, k := range []ScramKey{{"bob", 2}, {"alice", 2}, {"bob", 1}, {"alice", 1}} {
		img.SCRAM[k] = &ScramCredential{User: k.User, Mechanism: k.Mechanism}
	}
	var sc []ScramKey
	for _, c := range img.SortedSCRAM() {
		sc = append(sc, ScramKey{c.User, c.Mechanism})
	}
	if want := []ScramKey{{"alice", 1}, {"alice", 2}, {"bob", 1}, {"bob", 2}}; !slices.Equal(sc, want) {
		t.Errorf("scram %v, want %v", sc, want)
	}

	for _, id := range []string{"t2", "t10", "t1"} {
		img.DelegationTokens[id] = &DelegationToken{TokenID: id}
	}
	var tok []string
	for _, d := range img.SortedDelegationTokens() {
		tok = append(tok, d.TokenID)
	}
	if want := []string{"t1", "t10", "t2"}; !slices.Equal(tok, want) {
		t.Errorf("tokens %v, want %v", tok, want)
	}
}

// AppendSortedPartitions places dense ids in one pass and falls back to
// sorting otherwise; either way it is SortedPartitions' order (by id, ties
// by key, nils left out), appended after what dst holds.
func TestAppendSortedPartitions(t *testing.T) {
	p := func(id int32) *Partition { return &Partition{ID: id} }
	for name, ps := range map[string]map[int32]*Partition{
		"dense":             {0: p(0), 1: p(1), 2: p(2), 3: p(3)},
		"gap":               {0: p(0), 1: p(1), 5: p(5)},
		"nil":               {0: p(0), 1: nil, 2: p(2)},
		"id disagrees":      {0: p(1), 1: p(0), 2: p(2)},
		"same id twice":     {0: p(1), 1: p(1), 2: p(0)},
		"negative":          {-1: p(-1), 0: p(0), 1: p(1)},
		"empty":             {},
		"one, not at zero":  {7: p(7)},
		"dense but shifted": {1: p(1), 2: p(2), 3: p(3)},
	} {
		tp := &Topic{Partitions: ps}
		// The reference: every non-nil value, by id, then key.
		type kv struct {
			k int32
			v *Partition
		}
		var ref []kv
		for k, v := range ps {
			if v != nil {
				ref = append(ref, kv{k, v})
			}
		}
		slices.SortFunc(ref, func(a, b kv) int {
			if a.v.ID != b.v.ID {
				return int(a.v.ID - b.v.ID)
			}
			return int(a.k - b.k)
		})
		head := p(99)
		got := tp.AppendSortedPartitions([]*Partition{head})
		if len(got) != len(ref)+1 || got[0] != head {
			t.Fatalf("%s: got %d partitions after dst, want %d", name, len(got)-1, len(ref))
		}
		for i, e := range ref {
			if got[i+1] != e.v {
				t.Errorf("%s: partition %d is %+v, want %+v (key %d)", name, i, *got[i+1], *e.v, e.k)
			}
		}
		if s := tp.SortedPartitions(); !slices.Equal(s, got[1:]) {
			t.Errorf("%s: SortedPartitions %v differs from AppendSortedPartitions", name, s)
		}
	}
}
