package model

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The Sorted* accessors return an image's collections in a total order, so
// printers, JSON and diffs never depend on map iteration. They return the
// image's own pointers (no copies); callers must not modify them.

// Feature is one finalized feature level.
type Feature struct {
	Name  string `json:"name"`
	Level int16  `json:"level"`
}

// SortedFeatures returns the finalized features by name.
func (img *Image) SortedFeatures() []Feature {
	out := make([]Feature, 0, len(img.Features))
	for name, level := range img.Features {
		out = append(out, Feature{Name: name, Level: level})
	}
	slices.SortFunc(out, func(a, b Feature) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sortedValues returns the non-nil values of m ordered by by, ties broken
// by the map key, so the order is total even when a value's own id
// disagrees with the key it is stored under.
func sortedValues[K cmp.Ordered, V any](m map[K]*V, by func(a, b *V) int) []*V {
	type kv struct {
		k K
		v *V
	}
	kvs := make([]kv, 0, len(m))
	for k, v := range m {
		if v != nil {
			kvs = append(kvs, kv{k, v})
		}
	}
	slices.SortFunc(kvs, func(a, b kv) int { return cmp.Or(by(a.v, b.v), cmp.Compare(a.k, b.k)) })
	out := make([]*V, len(kvs))
	for i, e := range kvs {
		out[i] = e.v
	}
	return out
}

// SortedBrokers returns the brokers by id.
func (img *Image) SortedBrokers() []*Broker {
	return sortedValues(img.Brokers, func(a, b *Broker) int { return cmp.Compare(a.ID, b.ID) })
}

// SortedControllers returns the controllers by id.
func (img *Image) SortedControllers() []*Controller {
	return sortedValues(img.Controllers, func(a, b *Controller) int { return cmp.Compare(a.ID, b.ID) })
}

// SortedTopics returns the topics by name.
func (img *Image) SortedTopics() []*Topic {
	return sortedValues(img.Topics, func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) })
}

// SortedPartitions returns the topic's partitions by id.
func (t *Topic) SortedPartitions() []*Partition { return t.AppendSortedPartitions(nil) }

// AppendSortedPartitions appends the topic's partitions by id to dst, so a
// printer walking many topics reuses one slice. Partition ids are nearly
// always 0..n-1 under their own keys; those are looked up in order (which
// costs less than walking the map), and anything else (a gap, a nil, an
// id that disagrees with its key) is sorted as SortedPartitions always
// did.
func (t *Topic) AppendSortedPartitions(dst []*Partition) []*Partition {
	n := len(t.Partitions)
	base := len(dst)
	dst = slices.Grow(dst, n)[:base+n]
	out := dst[base:]
	dense := true
	for i := range out {
		p := t.Partitions[int32(i)]
		if p == nil || p.ID != int32(i) {
			dense = false
			break
		}
		out[i] = p
	}
	if dense {
		return dst
	}
	return append(dst[:base], sortedValues(t.Partitions, func(a, b *Partition) int { return cmp.Compare(a.ID, b.ID) })...)
}

// ConfigEntry is one config key and value.
type ConfigEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ResourceConfigs is the config set of one resource, entries sorted by
// name.
type ResourceConfigs struct {
	Resource ConfigResource
	Entries  []ConfigEntry
}

// SortedConfigs returns the config resources by (type code, name), each
// with its entries sorted by key. Resources with no entries are kept: an
// empty set is still something a reader saw.
func (img *Image) SortedConfigs() []ResourceConfigs {
	out := make([]ResourceConfigs, 0, len(img.Configs))
	for res, kv := range img.Configs {
		out = append(out, ResourceConfigs{Resource: res, Entries: SortedConfigEntries(kv)})
	}
	slices.SortFunc(out, func(a, b ResourceConfigs) int { return CompareConfigResource(a.Resource, b.Resource) })
	return out
}

// CompareConfigResource orders config resources by type code, then name.
func CompareConfigResource(a, b ConfigResource) int {
	if c := cmp.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortedConfigEntries returns a config map's entries sorted by key.
func SortedConfigEntries(kv map[string]string) []ConfigEntry {
	out := make([]ConfigEntry, 0, len(kv))
	for k, v := range kv {
		out = append(out, ConfigEntry{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b ConfigEntry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// CanonicalQuotaEntity returns a copy of the entity's parts sorted by type
// (then name, with the default entity first), the order QuotaEntityKey
// uses.
func CanonicalQuotaEntity(parts []QuotaEntityPart) []QuotaEntityPart {
	out := slices.Clone(parts)
	slices.SortStableFunc(out, func(a, b QuotaEntityPart) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return compareOptString(a.Name, b.Name)
	})
	return out
}

// compareOptString orders nil before any string.
func compareOptString(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}

// QuotaEntityKey is the canonical text key of a client-quota entity:
// parts sorted by type, written as type=name joined by commas. Names are
// Go-quoted so that any byte sequence is unambiguous; the default entity
// (nil name) is written <default> without quotes, so it never collides with
// a real name, not even "" or "<default>". Example:
//
//	client-id=<default>,user="alice"
func QuotaEntityKey(parts []QuotaEntityPart) string {
	var b strings.Builder
	for i, p := range CanonicalQuotaEntity(parts) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Type)
		b.WriteByte('=')
		if p.Name == nil {
			b.WriteString("<default>")
		} else {
			b.WriteString(strconv.Quote(*p.Name))
		}
	}
	return b.String()
}

// SortedClientQuotas returns the client quotas by canonical entity key
// (computed from the entity, whatever the map is keyed by).
func (img *Image) SortedClientQuotas() []*ClientQuota {
	keys := make(map[*ClientQuota]string, len(img.ClientQuotas))
	for _, q := range img.ClientQuotas {
		if q != nil {
			keys[q] = QuotaEntityKey(q.Entity)
		}
	}
	return sortedValues(img.ClientQuotas, func(a, b *ClientQuota) int { return strings.Compare(keys[a], keys[b]) })
}

// QuotaValue is one quota key and value.
type QuotaValue struct {
	Name  string
	Value float64
}

// SortedQuotaValues returns quota values sorted by key.
func SortedQuotaValues(values map[string]float64) []QuotaValue {
	out := make([]QuotaValue, 0, len(values))
	for k, v := range values {
		out = append(out, QuotaValue{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b QuotaValue) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// CompareACLContent orders ACLs by what they grant: resource type, resource
// name, pattern type, principal, host, operation, permission type. The id
// is ignored (it is random per write).
func CompareACLContent(a, b *ACL) int {
	return cmp.Or(
		cmp.Compare(a.ResourceType, b.ResourceType),
		strings.Compare(a.ResourceName, b.ResourceName),
		cmp.Compare(a.PatternType, b.PatternType),
		strings.Compare(a.Principal, b.Principal),
		strings.Compare(a.Host, b.Host),
		cmp.Compare(a.Operation, b.Operation),
		cmp.Compare(a.PermissionType, b.PermissionType),
	)
}

// ACLContentID is a deterministic id made from an ACL's content, for
// sources that have no ids of their own (ZooKeeper's ACL znodes, a live
// cluster's DescribeAcls): reading the same state twice gives the same
// ids, where Kafka's KRaft ids are random per write.
func ACLContentID(a *ACL) UUID {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s\x00%s\x00%d\x00%d", a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.PermissionType)
	var id UUID
	copy(id[:], h.Sum(nil))
	return id
}

// SortedACLs returns the ACLs by content, then id.
func (img *Image) SortedACLs() []*ACL {
	type kv struct {
		k UUID
		v *ACL
	}
	kvs := make([]kv, 0, len(img.ACLs))
	for k, v := range img.ACLs {
		if v != nil {
			kvs = append(kvs, kv{k, v})
		}
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		return cmp.Or(CompareACLContent(a.v, b.v), bytes.Compare(a.v.ID[:], b.v.ID[:]), bytes.Compare(a.k[:], b.k[:]))
	})
	out := make([]*ACL, len(kvs))
	for i, e := range kvs {
		out[i] = e.v
	}
	return out
}

// SortedSCRAM returns the SCRAM credentials by (user, mechanism).
func (img *Image) SortedSCRAM() []*ScramCredential {
	type keyed struct {
		k ScramKey
		c *ScramCredential
	}
	ks := make([]keyed, 0, len(img.SCRAM))
	for k, c := range img.SCRAM {
		if c != nil {
			ks = append(ks, keyed{k, c})
		}
	}
	// Sort on the map key, which is unique, so the order is total even if a
	// credential's own fields disagree with its key.
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.k.User, b.k.User), cmp.Compare(a.k.Mechanism, b.k.Mechanism))
	})
	out := make([]*ScramCredential, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	return out
}

// SortedDelegationTokens returns the delegation tokens by token id.
func (img *Image) SortedDelegationTokens() []*DelegationToken {
	return sortedValues(img.DelegationTokens, func(a, b *DelegationToken) int { return strings.Compare(a.TokenID, b.TokenID) })
}

// sortedCopy returns a sorted copy of s, never nil.
func sortedCopy(s []string) []string {
	out := make([]string, len(s))
	copy(out, s)
	slices.Sort(out)
	return out
}
