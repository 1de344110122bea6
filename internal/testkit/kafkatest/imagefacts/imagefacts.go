// Package imagefacts is the kmeta side of kafkatest.KafkaImageFacts: it
// renders a *model.Image as the lines Kafka's own MetadataDelta replay
// prints, so that a test compares kmeta's replay with Kafka's line by line.
// It is a package of its own, not part of kafkatest, because model's and
// records' tests import kafkatest and this package imports both.
package imagefacts

import (
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Lines renders a kmeta image in kafkatest.KafkaImageFacts' line form:
// sorted "ENTITY|FIELD=VALUE" lines, one per fact, each ending in a
// newline.
func Lines(img *model.Image) string {
	var out []string
	fact := func(e, f string, v any) { out = append(out, fmt.Sprintf("%s|%s=%v", e, f, v)) }
	ints := func(v []int32) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(int(x))
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	strs := func(v []string) string { return "[" + strings.Join(v, ",") + "]" }
	uuids := func(us []model.UUID) string {
		s := make([]string, len(us))
		for i, u := range us {
			s[i] = u.String()
		}
		return strs(s)
	}
	for n, l := range img.Features {
		fact("finalized features", n, l)
	}
	for id, b := range img.Brokers {
		e := "broker " + strconv.Itoa(int(id))
		fact(e, "epoch", b.Epoch)
		fact(e, "incarnationId", b.IncarnationID)
		fact(e, "fenced", b.Fenced)
		fact(e, "inControlledShutdown", b.InControlledShutdown)
		rack := ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		fact(e, "rack", rack)
		var eps, fs []string
		for _, ep := range b.Endpoints {
			eps = append(eps, fmt.Sprintf("%s://%s:%d(%s)", ep.Name, ep.Host, ep.Port, model.SecurityProtocolName(ep.SecurityProtocol)))
		}
		for _, f := range b.Features {
			fs = append(fs, fmt.Sprintf("%s[%d,%d]", f.Name, f.Min, f.Max))
		}
		sort.Strings(eps)
		sort.Strings(fs)
		fact(e, "endpoints", strs(eps))
		fact(e, "logDirs", uuids(b.LogDirs))
		fact(e, "features", strs(fs))
	}
	for name, t := range img.Topics {
		fact("topic "+name, "id", t.ID)
		for id, p := range t.Partitions {
			e := "partition " + name + "-" + strconv.Itoa(int(id))
			fact(e, "replicas", ints(p.Replicas))
			fact(e, "addingReplicas", ints(p.AddingReplicas))
			fact(e, "removingReplicas", ints(p.RemovingReplicas))
			fact(e, "directories", uuids(p.Directories))
			fact(e, "leader", p.Leader)
			fact(e, "isr", ints(p.ISR))
			fact(e, "elr", ints(p.ELR))
			fact(e, "lastKnownElr", ints(p.LastKnownELR))
			fact(e, "leaderEpoch", p.LeaderEpoch)
			fact(e, "partitionEpoch", p.PartitionEpoch)
			fact(e, "leaderRecoveryState", p.LeaderRecoveryState)
		}
	}
	for r, kv := range img.Configs {
		name := r.Name
		if name == "" {
			name = "<default>"
		}
		for k, v := range kv {
			fact("config "+r.Type.String()+" "+name, k, v)
		}
	}
	for _, q := range img.ClientQuotas {
		for k, v := range q.Values {
			fact("quota "+model.QuotaEntityKey(q.Entity), k, string(records.AppendJavaDouble(nil, v)))
		}
	}
	for _, a := range img.ACLs {
		out = append(out, fmt.Sprintf("acl %s:%s:%s %s@%s %s %s|", model.ACLResourceTypeName(a.ResourceType), model.ACLPatternTypeName(a.PatternType),
			a.ResourceName, a.Principal, a.Host, model.ACLOperationName(a.Operation), model.ACLPermissionTypeName(a.PermissionType)))
	}
	b64 := base64.StdEncoding.EncodeToString
	for _, c := range img.SCRAM {
		e := "scram " + c.User + " " + model.ScramMechanismName(c.Mechanism)
		fact(e, "iterations", c.Iterations)
		fact(e, "credential", b64(c.Salt)+":"+b64(c.StoredKey)+":"+b64(c.ServerKey))
	}
	for id, tk := range img.DelegationTokens {
		e := "token " + id
		ren := slices.Clone(tk.Renewers)
		sort.Strings(ren)
		fact(e, "owner", tk.Owner)
		fact(e, "requester", tk.Requester)
		fact(e, "renewers", strs(ren))
		fact(e, "issueTimestamp", tk.IssueTimestamp)
		fact(e, "maxTimestamp", tk.MaxTimestamp)
		fact(e, "expirationTimestamp", tk.ExpirationTimestamp)
	}
	for id, c := range img.Controllers {
		e := "controller " + strconv.Itoa(int(id))
		fact(e, "incarnationId", c.IncarnationID)
		fact(e, "zkMigrationReady", c.ZkMigrationReady)
	}
	if img.ProducerIDs != nil && img.ProducerIDs.NextProducerID >= 0 {
		fact("producer-ids", "nextProducerId", img.ProducerIDs.NextProducerID)
	}
	sort.Strings(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}
