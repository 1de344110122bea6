package kafkaread

// This is the one file of the product that sends a request which changes
// a cluster (see the package doc; internal/testkit/house keeps every other
// file to reads). Each function here says what it writes.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/model"
)

// FeatureUpdate is one feature of an UpdateFeatures request.
type FeatureUpdate struct {
	Feature string
	Level   int16
	// UpgradeType is the wire value: 1 UPGRADE, 2 SAFE_DOWNGRADE,
	// 3 UNSAFE_DOWNGRADE.
	UpgradeType int8
}

// FeatureResult is Kafka's answer for one feature.
type FeatureResult struct {
	Feature string `json:"feature"`
	// Error is Kafka's error name ("" when accepted) and Message its
	// message.
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

// Accepted says whether Kafka accepted the feature's update.
func (r FeatureResult) Accepted() bool { return r.Error == "" }

// ChangeFeatures sends UpdateFeatures: with validateOnly the controller
// runs every check and writes nothing; without, it WRITES the new levels
// (FeatureLevelRecords, or kraft.version's control records). Results come
// per feature as Kafka answers them: v0–v1 per feature; v2 (3.9+) answers
// only with a top-level error, which then applies to every feature (Kafka
// applies a request whole or not at all). An error is returned only when
// the request could not be sent or answered.
func (c *Client) ChangeFeatures(ctx context.Context, updates []FeatureUpdate, validateOnly bool) ([]FeatureResult, error) {
	if err := c.need(57, 1); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.Version = min(c.APIs[57][1], req.MaxVersion())
	req.ValidateOnly = validateOnly
	req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
	for _, u := range updates {
		fu := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
		fu.Feature, fu.MaxVersionLevel, fu.UpgradeType = u.Feature, u.Level, u.UpgradeType
		req.FeatureUpdates = append(req.FeatureUpdates, fu)
	}
	send := c.request
	if c.cfg.Controllers {
		// A controller that is not the active one answers NOT_CONTROLLER:
		// send to the active controller, as Kafka's admin client does.
		to, err := c.activeController(ctx)
		if err != nil {
			return nil, err
		}
		if to != c {
			defer to.Close()
		}
		send = to.request
	}
	resp, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	r := resp.(*kmsg.UpdateFeaturesResponse)
	top, topMsg := "", ""
	if e := kerr.ErrorForCode(r.ErrorCode); e != nil {
		top = errName(e)
		if r.ErrorMessage != nil {
			topMsg = *r.ErrorMessage
		}
	}
	byName := map[string]FeatureResult{}
	for _, res := range r.Results {
		fr := FeatureResult{Feature: res.Feature}
		if e := kerr.ErrorForCode(res.ErrorCode); e != nil {
			fr.Error = errName(e)
			if res.ErrorMessage != nil {
				fr.Message = *res.ErrorMessage
			}
		}
		byName[res.Feature] = fr
	}
	out := make([]FeatureResult, 0, len(updates))
	for _, u := range updates {
		fr, ok := byName[u.Feature]
		if !ok {
			fr = FeatureResult{Feature: u.Feature}
		}
		if top != "" && fr.Error == "" {
			fr.Error, fr.Message = top, topMsg
		}
		out = append(out, fr)
	}
	return out, nil
}

func errName(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Message
	}
	return err.Error()
}

// activeController returns a client of the active controller: c itself
// when it is the one answering, else a new connection with the same
// settings (the caller closes it).
func (c *Client) activeController(ctx context.Context) (*Client, error) {
	nodes, active, err := c.describeCluster(ctx, 2)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if n.id != active {
			continue
		}
		if n.addr == c.Addr {
			return c, nil
		}
		cfg := c.cfg
		cfg.Bootstrap = []string{n.addr}
		return Dial(ctx, cfg)
	}
	if active < 0 {
		return c, nil
	}
	return nil, fmt.Errorf("%w: the active controller %d is not among the controllers %s lists", ErrUnreachable, active, c.Addr)
}

// The requests of kmeta restore. Each restores one kind of thing the
// metadata log holds; validateOnly (where Kafka has it) runs every check
// and writes nothing. Results come in the order of the request's items,
// each Kafka's answer for that item ("" Error: accepted). An error is
// returned only when the request could not be sent or answered.

// WriteResult is Kafka's answer for one item of a write.
type WriteResult struct {
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

// Accepted says whether Kafka accepted the item.
func (r WriteResult) Accepted() bool { return r.Error == "" }

func writeResult(code int16, msg *string) WriteResult {
	var r WriteResult
	if e := kerr.ErrorForCode(code); e != nil {
		r.Error = errName(e)
		if msg != nil {
			r.Message = *msg
		}
	}
	return r
}

// missing is the answer for an item Kafka's response left out.
var missing = WriteResult{Error: "NO_ANSWER", Message: "the response has no entry for it"}

// TopicCreate is one topic of a CreateTopics request: Partitions and
// ReplicationFactor, or Assignment (replicas by partition, from 0).
type TopicCreate struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	Assignment        [][]int32
	Configs           map[string]string
}

// CreateTopicsFor sends CreateTopics: it WRITES new topics (empty, with
// their configs) unless validateOnly.
func (c *Client) CreateTopicsFor(ctx context.Context, topics []TopicCreate, validateOnly bool) ([]WriteResult, error) {
	if err := c.need(19, 1); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.ValidateOnly = validateOnly
	req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
	for _, t := range topics {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Name, t.Partitions, t.ReplicationFactor
		if len(t.Assignment) > 0 {
			rt.NumPartitions, rt.ReplicationFactor = -1, -1
			for p, rs := range t.Assignment {
				a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
				a.Partition, a.Replicas = int32(p), rs
				rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
			}
		}
		for _, k := range writeKeys(t.Configs) {
			cfg := kmsg.NewCreateTopicsRequestTopicConfig()
			v := t.Configs[k]
			cfg.Name, cfg.Value = k, &v
			rt.Configs = append(rt.Configs, cfg)
		}
		req.Topics = append(req.Topics, rt)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	by := map[string]WriteResult{}
	for _, t := range resp.(*kmsg.CreateTopicsResponse).Topics {
		by[t.Topic] = writeResult(t.ErrorCode, t.ErrorMessage)
	}
	out := make([]WriteResult, len(topics))
	for i, t := range topics {
		r, ok := by[t.Name]
		if !ok {
			r = missing
		}
		out[i] = r
	}
	return out, nil
}

// PartitionsGrow is one topic of a CreatePartitions request: its new
// partition count (Kafka places the new replicas).
type PartitionsGrow struct {
	Topic string
	Count int32
}

// CreatePartitionsFor sends CreatePartitions: it WRITES new partitions
// unless validateOnly.
func (c *Client) CreatePartitionsFor(ctx context.Context, grows []PartitionsGrow, validateOnly bool) ([]WriteResult, error) {
	if err := c.need(37, 0); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.ValidateOnly = validateOnly
	req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
	for _, g := range grows {
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = g.Topic, g.Count
		req.Topics = append(req.Topics, t)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	by := map[string]WriteResult{}
	for _, t := range resp.(*kmsg.CreatePartitionsResponse).Topics {
		by[t.Topic] = writeResult(t.ErrorCode, t.ErrorMessage)
	}
	out := make([]WriteResult, len(grows))
	for i, g := range grows {
		r, ok := by[g.Topic]
		if !ok {
			r = missing
		}
		out[i] = r
	}
	return out, nil
}

// ConfigAlter is one resource of an IncrementalAlterConfigs request:
// the keys to set and those to delete.
type ConfigAlter struct {
	Resource model.ConfigResource
	Set      map[string]string
	Delete   []string
}

// AlterConfigsFor sends IncrementalAlterConfigs: it WRITES the configs
// (SET and DELETE) unless validateOnly. A broker's own configs go to that
// broker, as Kafka's admin client sends them.
func (c *Client) AlterConfigsFor(ctx context.Context, alters []ConfigAlter, validateOnly bool) ([]WriteResult, error) {
	if err := c.need(44, 0); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	for _, a := range alters {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceType(a.Resource.Type), a.Resource.Name
		for _, k := range writeKeys(a.Set) {
			cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			v := a.Set[k]
			cfg.Name, cfg.Op, cfg.Value = k, kmsg.IncrementalAlterConfigOpSet, &v
			r.Configs = append(r.Configs, cfg)
		}
		for _, k := range a.Delete {
			cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			cfg.Name, cfg.Op = k, kmsg.IncrementalAlterConfigOpDelete
			r.Configs = append(r.Configs, cfg)
		}
		req.Resources = append(req.Resources, r)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	by := map[model.ConfigResource]WriteResult{}
	for _, r := range resp.(*kmsg.IncrementalAlterConfigsResponse).Resources {
		by[model.ConfigResource{Type: model.ConfigResourceType(r.ResourceType), Name: r.ResourceName}] = writeResult(r.ErrorCode, r.ErrorMessage)
	}
	out := make([]WriteResult, len(alters))
	for i, a := range alters {
		r, ok := by[a.Resource]
		if !ok {
			r = missing
		}
		out[i] = r
	}
	return out, nil
}

// QuotaAlter is one entity of an AlterClientQuotas request.
type QuotaAlter struct {
	Entity []model.QuotaEntityPart
	Set    map[string]float64
	Remove []string
}

// AlterQuotasFor sends AlterClientQuotas: it WRITES the quotas unless
// validateOnly.
func (c *Client) AlterQuotasFor(ctx context.Context, alters []QuotaAlter, validateOnly bool) ([]WriteResult, error) {
	if err := c.need(49, 0); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrAlterClientQuotasRequest()
	req.ValidateOnly = validateOnly
	for _, a := range alters {
		e := kmsg.NewAlterClientQuotasRequestEntry()
		for _, p := range a.Entity {
			ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
			ent.Type, ent.Name = p.Type, p.Name
			e.Entity = append(e.Entity, ent)
		}
		for _, k := range writeKeys(a.Set) {
			op := kmsg.NewAlterClientQuotasRequestEntryOp()
			op.Key, op.Value = k, a.Set[k]
			e.Ops = append(e.Ops, op)
		}
		for _, k := range a.Remove {
			op := kmsg.NewAlterClientQuotasRequestEntryOp()
			op.Key, op.Remove = k, true
			e.Ops = append(e.Ops, op)
		}
		req.Entries = append(req.Entries, e)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	by := map[string]WriteResult{}
	for _, e := range resp.(*kmsg.AlterClientQuotasResponse).Entries {
		parts := make([]model.QuotaEntityPart, len(e.Entity))
		for i, p := range e.Entity {
			parts[i] = model.QuotaEntityPart{Type: p.Type, Name: p.Name}
		}
		by[model.QuotaEntityKey(parts)] = writeResult(e.ErrorCode, e.ErrorMessage)
	}
	out := make([]WriteResult, len(alters))
	for i, a := range alters {
		r, ok := by[model.QuotaEntityKey(a.Entity)]
		if !ok {
			r = missing
		}
		out[i] = r
	}
	return out, nil
}

// AddACLs sends CreateAcls: it WRITES the ACLs. Kafka has no
// validate-only for ACLs.
func (c *Client) AddACLs(ctx context.Context, acls []model.ACL) ([]WriteResult, error) {
	if err := c.need(30, 1); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrCreateACLsRequest()
	for _, a := range acls {
		cr := kmsg.NewCreateACLsRequestCreation()
		cr.ResourceType, cr.ResourceName, cr.ResourcePatternType = kmsg.ACLResourceType(a.ResourceType), a.ResourceName, kmsg.ACLResourcePatternType(a.PatternType)
		cr.Principal, cr.Host = a.Principal, a.Host
		cr.Operation, cr.PermissionType = kmsg.ACLOperation(a.Operation), kmsg.ACLPermissionType(a.PermissionType)
		req.Creations = append(req.Creations, cr)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	rs := resp.(*kmsg.CreateACLsResponse).Results
	out := make([]WriteResult, len(acls))
	for i := range acls {
		out[i] = missing
		if i < len(rs) {
			out[i] = writeResult(rs[i].ErrorCode, rs[i].ErrorMessage)
		}
	}
	return out, nil
}

// RemoveACLs sends DeleteAcls with one exact filter per ACL (its
// resource, pattern type, principal, host, operation and permission, as
// given: a literal filter matches only that ACL): it WRITES. Kafka has
// no validate-only for ACLs. A filter that matched nothing is an answer
// of its own (Error NO_MATCH): the ACL was gone already.
func (c *Client) RemoveACLs(ctx context.Context, acls []model.ACL) ([]WriteResult, error) {
	if err := c.need(31, 1); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrDeleteACLsRequest()
	for _, a := range acls {
		f := kmsg.NewDeleteACLsRequestFilter()
		name, principal, host := a.ResourceName, a.Principal, a.Host
		f.ResourceType, f.ResourceName, f.ResourcePatternType = kmsg.ACLResourceType(a.ResourceType), &name, kmsg.ACLResourcePatternType(a.PatternType)
		f.Principal, f.Host = &principal, &host
		f.Operation, f.PermissionType = kmsg.ACLOperation(a.Operation), kmsg.ACLPermissionType(a.PermissionType)
		req.Filters = append(req.Filters, f)
	}
	resp, err := c.request(ctx, req)
	if err != nil {
		return nil, err
	}
	rs := resp.(*kmsg.DeleteACLsResponse).Results
	out := make([]WriteResult, len(acls))
	for i := range acls {
		out[i] = missing
		if i < len(rs) {
			out[i] = writeResult(rs[i].ErrorCode, rs[i].ErrorMessage)
			if out[i].Accepted() && len(rs[i].MatchingACLs) == 0 {
				out[i] = WriteResult{Error: "NO_MATCH", Message: "no ACL matched: it was gone already"}
			}
		}
	}
	return out, nil
}

func writeKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
