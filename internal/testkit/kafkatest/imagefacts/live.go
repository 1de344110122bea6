package imagefacts

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
	"github.com/kmeta/kmeta/model"
)

// The admin view's side of a live image comparison. AdminView renders
// the harness's admin view (Kafka's admin API: the oracle) and Live a live
// image (kafkaread, or `kmeta image kafka://` read back) as the same
// sorted fact lines, "KEY = VALUE", one per item: cluster id, unfenced
// brokers, topic ids, each partition's leader, epoch, replicas, ISR and
// offline replicas, every dynamic config (a sensitive one as <nil>), ACLs,
// quota values, SCRAM mechanism and iterations, delegation tokens and the
// finalized features. The tests of kafkaread and of cmd/kmeta compare the
// two with one rendering, so they cannot drift apart.

// AdminView renders the admin view as fact lines.
func AdminView(v *kafkatest.AdminView) []string {
	f := map[string]string{"cluster": v.ClusterID}
	f["brokers"] = fmt.Sprint(v.Brokers)
	for _, tp := range v.Topics {
		f["topic "+tp.Name+" id"] = tp.ID
		for _, p := range tp.Partitions {
			f[PartitionKey(tp.Name, p.Partition)] = PartitionFact(p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas)
		}
	}
	configs := func(what string, kv map[string]*string) {
		for k, v := range kv {
			s := "<nil>"
			if v != nil {
				s = strconv.Quote(*v)
			}
			f["config "+what+" "+k] = s
		}
	}
	for n, kv := range v.TopicConfigs {
		configs("topic "+n, kv)
	}
	for n, kv := range v.BrokerConfigs {
		configs("broker "+n, kv)
	}
	configs("broker <default>", v.BrokerDefaultConfigs)
	for _, a := range v.ACLs {
		f[ACLKey(a.ResourceType, a.ResourceName, a.PatternType, a.Principal, a.Host, a.Operation, a.Permission)] = "1"
	}
	for _, q := range v.Quotas {
		var parts []model.QuotaEntityPart
		for _, e := range q.Entity {
			parts = append(parts, model.QuotaEntityPart{Type: e.Type, Name: e.Name})
		}
		for k, val := range q.Values {
			f["quota "+model.QuotaEntityKey(parts)+" "+k] = fmt.Sprint(val)
		}
	}
	for _, u := range v.SCRAMUsers {
		for _, c := range u.Credentials {
			f["scram "+u.User+" "+c.Mechanism] = fmt.Sprint(c.Iterations)
		}
	}
	for _, tk := range v.DelegationTokens {
		f["token "+tk.TokenID] = TokenFact(tk.Owner, tk.Requester, tk.Renewers, tk.IssueTimestamp, tk.ExpiryTimestamp, tk.MaxTimestamp)
	}
	for n, l := range v.Features {
		// ApiVersions lists kraft.version and features at level 0; a
		// live image, as Kafka's image, holds neither.
		if n != "kraft.version" && l != 0 {
			f["feature "+n] = fmt.Sprint(l)
		}
	}
	return SortedLines(f)
}

// Live renders a live image as fact lines.
func Live(img *model.Image) []string {
	f := map[string]string{"cluster": img.ClusterID}
	var brokers []int32
	for id, b := range img.Brokers {
		if !b.Fenced {
			brokers = append(brokers, id)
		}
	}
	slices.Sort(brokers)
	f["brokers"] = fmt.Sprint(brokers)
	for _, tp := range img.Topics {
		f["topic "+tp.Name+" id"] = base64.RawURLEncoding.EncodeToString(tp.ID[:])
		for _, p := range tp.Partitions {
			f[PartitionKey(tp.Name, p.ID)] = PartitionFact(p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas)
		}
	}
	for res, kv := range img.Configs {
		for k, v := range kv {
			f[ConfigKey(res, k)] = ConfigFact(v)
		}
	}
	for _, a := range img.ACLs {
		f[ACLKey(model.ACLResourceTypeName(a.ResourceType), a.ResourceName, model.ACLPatternTypeName(a.PatternType),
			a.Principal, a.Host, model.ACLOperationName(a.Operation), model.ACLPermissionTypeName(a.PermissionType))] = "1"
	}
	for _, q := range img.ClientQuotas {
		for k, val := range q.Values {
			f["quota "+model.QuotaEntityKey(q.Entity)+" "+k] = fmt.Sprint(val)
		}
	}
	for _, s := range img.SCRAM {
		f["scram "+s.User+" "+model.ScramMechanismName(s.Mechanism)] = fmt.Sprint(s.Iterations)
	}
	for _, tk := range img.DelegationTokens {
		f["token "+tk.TokenID] = TokenFact(tk.Owner, tk.Requester, tk.Renewers, tk.IssueTimestamp, tk.ExpirationTimestamp, tk.MaxTimestamp)
	}
	for n, l := range img.Features {
		f["feature "+n] = fmt.Sprint(l)
	}
	return SortedLines(f)
}

// The pieces of a fact line, for a test that reads a live image another
// way (kmeta's JSON document) and must render it as Live does.

// PartitionKey is the key of a partition's fact.
func PartitionKey(topic string, partition int32) string {
	return fmt.Sprintf("partition %s-%d", topic, partition)
}

// PartitionFact is a partition's fact; a nil offline list is an empty one
// (the admin API does not tell them apart).
func PartitionFact(leader, epoch int32, replicas, isr, offline []int32) string {
	if offline == nil {
		offline = []int32{}
	}
	return fmt.Sprintf("leader %d epoch %d replicas %v isr %v offline %v", leader, epoch, replicas, isr, offline)
}

// ConfigKey is the key of a config fact: the broker default resource (a
// broker named "") is "broker <default>".
func ConfigKey(res model.ConfigResource, key string) string {
	what := "topic " + res.Name
	switch {
	case res.Type == model.ConfigBroker && res.Name == "":
		what = "broker <default>"
	case res.Type == model.ConfigBroker:
		what = "broker " + res.Name
	}
	return "config " + what + " " + key
}

// ConfigFact is a config value's fact: a value the source does not report
// (model.NotReported) is <nil>, as the admin API's null.
func ConfigFact(v string) string {
	if v == model.NotReported {
		return "<nil>"
	}
	return strconv.Quote(v)
}

// ACLKey is the key of an ACL's fact, from Kafka's upper-case names.
func ACLKey(resourceType, resourceName, patternType, principal, host, operation, permission string) string {
	return "acl " + strings.Join([]string{resourceType, resourceName, patternType, principal, host, operation, permission}, " ")
}

// TokenFact is a delegation token's fact; renewers are sorted.
func TokenFact(owner, requester string, renewers []string, issue, expiry, max int64) string {
	r := slices.Sorted(slices.Values(renewers))
	if r == nil {
		r = []string{}
	}
	return fmt.Sprintf("owner %s requester %s renewers %v issue %d expiry %d max %d", owner, requester, r, issue, expiry, max)
}

// SortedLines is a map of facts as sorted "key = value" lines, the form
// every comparison of facts here diffs.
func SortedLines(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+" = "+v)
	}
	sort.Strings(out)
	return out
}
