package kafkaread

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta/kmeta/model"
)

// Warning codes of a live image: what it lacks, and why. A section with
// such a warning is also listed in Image.NotReported, so that nobody reads
// its emptiness as a fact.
const (
	// WarnNotAuthorized: the principal may not read a section or one of
	// its resources (DescribeAcls denied, one topic's configs denied).
	WarnNotAuthorized = "live-not-authorized"
	// WarnNotAnswered: the node asked does not answer a section: an API
	// its release lacks, a controller asked for what only brokers know, a
	// broker that did not answer, delegation tokens over a connection
	// without SASL.
	WarnNotAnswered = "live-not-answered"
)

// notReportedByAPI are the fields the admin API never reports: they live
// in the metadata log (registrations, partition records) and no request
// of a client returns them.
var notReportedByAPI = []model.Field{
	model.FieldBrokerEpoch, model.FieldBrokerIncarnationID, model.FieldBrokerLogDirs,
	model.FieldBrokerCordonedLogDirs, model.FieldBrokerControlledShutdown, model.FieldBrokerMigrating,
	model.FieldBrokerEndpoints,
	model.FieldPartitionEpoch, model.FieldPartitionLeaderRecovery, model.FieldPartitionDirectories,
	model.FieldProducerIDs, model.FieldMigration,
}

// topicConfigBatch is how many topics one DescribeConfigs asks about: a
// topic's answer is some forty entries, so a batch is about a megabyte.
const topicConfigBatch = 500

// Image reads everything the admin API exposes into a model.Image,
// sending only requests that read.
//
//   - Cluster id and brokers (DescribeCluster; v2, Kafka 4.0+, lists fenced
//     brokers too), each broker's supported features (ApiVersions to it);
//     the controllers (DescribeCluster for controllers) only with
//     --bootstrap-controller, since brokers do not describe them.
//   - Topics, ids and partitions: DescribeTopicPartitions (Kafka 3.8+,
//     with ELR and last known ELR), else Metadata; reassignments
//     (ListPartitionReassignments). Partitions carry OfflineReplicas.
//   - Dynamic topic, broker and cluster-default broker configs
//     (DescribeConfigs, sources DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG,
//     DYNAMIC_DEFAULT_BROKER_CONFIG: what the metadata log holds), and
//     each broker's static configs (its answer with synonyms, source
//     STATIC_BROKER_CONFIG: Image.StaticConfigs); a sensitive value, which
//     Kafka answers as null, is model.NotReported. A broker that does not
//     answer for its own configs (stopped) is named by a warning and in
//     Image.UnreportedConfigs; the rest is still read.
//   - Client quotas, ACLs, SCRAM users (mechanism and iterations; never
//     salts and keys), delegation tokens (only over SASL: Kafka refuses
//     them to other connections), finalized features (ApiVersions;
//     kraft.version is the quorum's).
//   - The quorum: leader, epoch, voters with directory ids and endpoints
//     (DescribeQuorum; v2, Kafka 3.9, has the ids and endpoints) and the
//     finalized kraft.version.
//
// What the API cannot report is listed in Image.NotReported. A section
// the principal may not read, or the node does not answer, is marked
// there too and named by a warning (WarnNotAuthorized, WarnNotAnswered);
// the rest is read. Topics the principal may not describe are left out
// of Kafka's answers without an error, so a principal without DESCRIBE
// on every topic sees fewer topics and nothing says so: read with a
// principal that may describe the cluster's topics.
//
// Provenance.Offset is the answering node's FinalizedFeaturesEpoch: in
// KRaft, the offset of the last record in that node's metadata image, the
// point of the log the answers stand for (other brokers may be a little
// behind or ahead). Epoch is -1: the admin API does not say it.
func (c *Client) Image(ctx context.Context) (*model.Image, error) {
	img := model.NewImage()
	img.MarkNotReported(notReportedByAPI...)
	r := &imageRead{c: c, img: img}
	if err := r.features(ctx); err != nil {
		return nil, err
	}
	img.Provenance = model.Provenance{Source: "kafka://" + strings.Join(c.cfg.Bootstrap, ","), Offset: r.epoch, Epoch: -1, Live: slices.Clone(c.cfg.Bootstrap)}
	if c.cfg.Controllers {
		if err := r.controllers(ctx); err != nil {
			return nil, err
		}
		if err := r.quorum(ctx); err != nil {
			return nil, err
		}
		r.unanswered("brokers, topics, configs, client quotas, ACLs, SCRAM users and delegation tokens",
			"controllers (--bootstrap-controller) answer for the quorum and features only; read the brokers (kafka://BROKER:PORT) for the rest",
			model.FieldBrokers, model.FieldBrokerFeatures, model.FieldBrokerFenced, model.FieldTopics, model.FieldPartitionELR,
			model.FieldPartitionReassignment, model.FieldTopicConfigs, model.FieldBrokerConfigs, model.FieldClientQuotas,
			model.FieldACLs, model.FieldSCRAM, model.FieldSCRAMSecrets, model.FieldDelegationTokens)
		return img, nil
	}
	img.MarkNotReported(model.FieldControllers)
	for _, step := range []func(context.Context) error{
		r.brokers, r.topics, r.reassignments, r.brokerFeatures, r.configs,
		r.quotas, r.acls, r.scram, r.tokens, r.quorum,
	} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return img, nil
}

type imageRead struct {
	c     *Client
	img   *model.Image
	epoch int64
	// controllerCluster is DescribeCluster's answer for controllers (with
	// --bootstrap-controller): it names the quorum's leader.
	controllerCluster *kmsg.DescribeClusterResponse
}

// warn records a gap: a finding naming the API and the resource, and the
// fields it leaves unreported.
func (r *imageRead) warn(code, api, entity, msg string, fields ...model.Field) {
	if api != "" {
		msg = api + ": " + msg
	}
	// Field names what the gap leaves unreported, so that a consumer
	// that cannot use a field can say which node or section lacks it.
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f)
	}
	r.img.Warnings = append(r.img.Warnings, model.Finding{Code: code, Severity: model.SevWarning, Class: "live",
		Entity: entity, Field: strings.Join(names, ","), Message: msg})
	r.img.MarkNotReported(fields...)
}

func (r *imageRead) unanswered(what, why string, fields ...model.Field) {
	r.warn(WarnNotAnswered, "", what, why+"; "+what+" are not reported", fields...)
}

// gap turns an error of a section's request into a warning when it is
// one the rest of the image survives: the principal may not (ErrDenied,
// or an authorization error code) or the node does not answer the API
// (ErrMissingAPI). Any other error ends the read.
func (r *imageRead) gap(api, entity string, err error, fields ...model.Field) error {
	var ke *kerr.Error
	switch {
	case errors.Is(err, ErrNotKafka):
		// A peer that lies or breaks the protocol is no gap.
		return fmt.Errorf("%s: %w", entity, err)
	case errors.Is(err, ErrDenied), errors.As(err, &ke) && isAuthz(ke.Code):
		r.warn(WarnNotAuthorized, api, entity, fmt.Sprintf("not authorized (%v); not reported", err), fields...)
		return nil
	case errors.Is(err, ErrMissingAPI), errors.As(err, &ke) && ke.Code == kerr.UnsupportedVersion.Code:
		r.warn(WarnNotAnswered, api, entity, fmt.Sprintf("not answered (%v); not reported", err), fields...)
		return nil
	}
	return fmt.Errorf("%s: %w", entity, err)
}

func isAuthz(code int16) bool {
	switch code {
	case kerr.ClusterAuthorizationFailed.Code, kerr.TopicAuthorizationFailed.Code,
		kerr.GroupAuthorizationFailed.Code, kerr.TransactionalIDAuthorizationFailed.Code,
		kerr.DelegationTokenAuthorizationFailed.Code, kerr.SecurityDisabled.Code:
		return true
	}
	return false
}

// codeErr is the error of a response's error code and message, nil for 0.
func codeErr(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	var ke *kerr.Error
	if err == nil || msg == nil || *msg == "" || errors.As(err, &ke) && ke.Description == *msg {
		return err
	}
	return fmt.Errorf("%w: %s", err, *msg)
}

// features reads the finalized features anew from the answering node
// (Dial's answer may be older than this read).
func (r *imageRead) features(ctx context.Context) error {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta", "1"
	rctx, cancel := r.c.bounded(ctx)
	resp, err := r.c.seed.Request(rctx, req)
	cancel()
	if err != nil {
		return fmt.Errorf("ApiVersions: %w", r.c.classify(r.c.Addr, err))
	}
	av := resp.(*kmsg.ApiVersionsResponse)
	if err := kerr.ErrorForCode(av.ErrorCode); err != nil {
		return fmt.Errorf("ApiVersions: %w", r.c.classify(r.c.Addr, err))
	}
	r.c.noteVersions(av)
	r.epoch = av.FinalizedFeaturesEpoch
	for _, f := range av.FinalizedFeatures {
		// kraft.version is the quorum's (model.Image.Features); a level
		// of 0 is a feature that is off, which the log does not hold.
		if f.Name == "kraft.version" || f.MaxVersionLevel == 0 {
			continue
		}
		r.img.Features[f.Name] = f.MaxVersionLevel
	}
	return nil
}

// endpoint is the one address the admin API gives for a node: on the
// listener the client asked through. Its name is not reported.
func (r *imageRead) endpoint(host string, port int32) model.Endpoint {
	return model.Endpoint{Host: host, Port: uint16(port), SecurityProtocol: protocolCode(r.c.sec.protocol)}
}

func protocolCode(p string) int16 {
	switch p {
	case "SSL":
		return 1
	case "SASL_PLAINTEXT":
		return 2
	case "SASL_SSL":
		return 3
	}
	return 0
}

func (r *imageRead) controllers(ctx context.Context) error {
	if err := r.c.need(60, 1); err != nil {
		return err
	}
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 2 // controllers (KIP-919)
	resp, err := r.c.request(ctx, req)
	if err != nil {
		return err
	}
	dc := resp.(*kmsg.DescribeClusterResponse)
	if err := codeErr(dc.ErrorCode, dc.ErrorMessage); err != nil {
		if errors.Is(err, kerr.UnsupportedVersion) {
			err = fmt.Errorf("%w (it answered %w)", ErrControllerNotLoaded, err)
		}
		return fmt.Errorf("DescribeCluster (controllers) at %s: %w", r.c.Addr, err)
	}
	r.img.ClusterID, r.controllerCluster = dc.ClusterID, dc
	r.img.MarkNotReported(model.FieldControllerIncarnationID, model.FieldControllerEndpoints)
	// Each controller's supported ranges, from its own ApiVersions (what
	// it registered; kafka-features checks a change against them); its
	// answer also says whether it runs with the ZooKeeper migration
	// (ZkMigrationReady), which no other API reports. All are asked at
	// once: controllers that do not answer cost one node's bound.
	type asked struct {
		s       map[string][2]int16
		zkReady bool
		err     error
	}
	answers := make([]asked, len(dc.Brokers))
	var wg sync.WaitGroup
	for i, b := range dc.Brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := clusterNode{id: b.NodeID, addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))}
			a := &answers[i]
			a.s, a.zkReady, a.err = r.c.nodeVersions(ctx, n, true)
		}()
	}
	wg.Wait()
	for i, b := range dc.Brokers {
		ctl := &model.Controller{ID: b.NodeID, Endpoints: []model.Endpoint{r.endpoint(b.Host, b.Port)}}
		r.img.Controllers[b.NodeID] = ctl
		s, zkReady, err := answers[i].s, answers[i].zkReady, answers[i].err
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.warn(WarnNotAnswered, "ApiVersions", "controller "+strconv.Itoa(int(b.NodeID)),
				fmt.Sprintf("the controller did not answer (%v); controllers' supported features and migration flags are not reported", err),
				model.FieldControllerFeatures, model.FieldControllerZkMigrationReady)
			continue
		}
		ctl.ZkMigrationReady = zkReady
		ctl.Features = make([]model.FeatureRange, 0, len(s))
		for name, rg := range s {
			ctl.Features = append(ctl.Features, model.FeatureRange{Name: name, Min: rg[0], Max: rg[1]})
		}
		slices.SortFunc(ctl.Features, func(x, y model.FeatureRange) int { return strings.Compare(x.Name, y.Name) })
	}
	return nil
}

func (r *imageRead) brokers(ctx context.Context) error {
	// A Metadata request without topics proves the answering broker
	// answers it; franz-go learns the brokers (to route the requests
	// only one broker answers) through the same broker when first asked.
	mreq := kmsg.NewPtrMetadataRequest()
	mreq.Topics = []kmsg.MetadataRequestTopic{}
	if _, err := r.c.request(ctx, mreq); err != nil {
		return err
	}
	if err := r.c.need(60, 0); err != nil {
		return err
	}
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 1
	req.IncludeFencedBrokers = true
	resp, err := r.c.request(ctx, req)
	if err != nil {
		return err
	}
	dc := resp.(*kmsg.DescribeClusterResponse)
	if err := codeErr(dc.ErrorCode, dc.ErrorMessage); err != nil {
		return fmt.Errorf("DescribeCluster at %s: %w", r.c.Addr, err)
	}
	r.img.ClusterID = dc.ClusterID
	for _, b := range dc.Brokers {
		r.img.Brokers[b.NodeID] = &model.Broker{ID: b.NodeID, Endpoints: []model.Endpoint{r.endpoint(b.Host, b.Port)},
			Rack: b.Rack, Fenced: b.IsFenced}
	}
	if dc.Version < 2 {
		r.warn(WarnNotAnswered, "DescribeCluster", "fenced brokers",
			fmt.Sprintf("v%d lists unfenced brokers only (v2, Kafka 4.0, lists fenced ones); fenced brokers are not reported", dc.Version),
			model.FieldBrokerFenced)
	}
	return nil
}

// brokerFeatures asks every broker for its supported feature ranges
// (ApiVersions), as it registered them: all at once, so that brokers
// that do not answer cost one node's bound, not one each.
func (r *imageRead) brokerFeatures(ctx context.Context) error {
	ids := slices.Sorted(maps.Keys(r.img.Brokers))
	resps := make([]kmsg.Response, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := kmsg.NewPtrApiVersionsRequest()
			req.ClientSoftwareName, req.ClientSoftwareVersion = "kmeta", "1"
			resps[i], errs[i] = r.c.brokerRequest(ctx, id, req)
		}()
	}
	wg.Wait()
	for i, id := range ids {
		b := r.img.Brokers[id]
		resp, err := resps[i], errs[i]
		if err == nil {
			av := resp.(*kmsg.ApiVersionsResponse)
			if err = kerr.ErrorForCode(av.ErrorCode); err == nil {
				b.Features = make([]model.FeatureRange, 0, len(av.SupportedFeatures))
				for _, f := range av.SupportedFeatures {
					b.Features = append(b.Features, model.FeatureRange{Name: f.Name, Min: f.MinVersion, Max: f.MaxVersion})
				}
				slices.SortFunc(b.Features, func(x, y model.FeatureRange) int { return strings.Compare(x.Name, y.Name) })
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.warn(WarnNotAnswered, "ApiVersions", "broker "+strconv.Itoa(int(id)),
			fmt.Sprintf("the broker did not answer (%v); brokers' supported features are not reported", err),
			model.FieldBrokerFeatures)
	}
	return nil
}

// quorum reads the quorum (DescribeQuorum, which a broker forwards to the
// active controller). A principal without DESCRIBE on the cluster, or a
// cluster that does not answer, leaves it not reported, with a warning.
func (r *imageRead) quorum(ctx context.Context) error {
	const api, ent = "DescribeQuorum", "the quorum"
	if err := r.c.need(55, 0); err != nil {
		return r.gap(api, ent, err, model.FieldQuorum)
	}
	q, err := r.c.describeQuorum(ctx, r.controllerCluster)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrNotKafka) {
			return err
		}
		var ke *kerr.Error
		if errors.Is(err, ErrDenied) || errors.As(err, &ke) && isAuthz(ke.Code) {
			return r.gap(api, ent, err, model.FieldQuorum)
		}
		// No leader to answer (an election), a controller that did not:
		// the rest of the image stands.
		r.warn(WarnNotAnswered, api, ent, fmt.Sprintf("not answered (%v); not reported", err), model.FieldQuorum)
		return nil
	}
	quorum, missing := imageQuorum(q, r.c.Finalized[kraftVersionFeature])
	r.img.Quorum = quorum
	r.img.MarkNotReported(missing...)
	return nil
}

// checkTopicName refuses a topic name Kafka never accepts (its names are
// 1 to 249 of [a-zA-Z0-9._-]): a peer that answers one is no Kafka node,
// and the name would be printed.
func (r *imageRead) checkTopicName(name string) error {
	if model.LegalTopicName(name) {
		return nil
	}
	return fmt.Errorf("%w: %s names a topic %q, which no Kafka accepts (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-')", ErrNotKafka, r.c.Addr, name)
}

func (r *imageRead) topic(name string, id [16]byte) *model.Topic {
	t := r.img.Topics[name]
	if t == nil {
		t = &model.Topic{Name: name, ID: model.UUID(id), Partitions: map[int32]*model.Partition{}}
		r.img.Topics[name] = t
	}
	return t
}

// topics reads every topic: with DescribeTopicPartitions where the
// cluster has it (it reports ELR), else with one Metadata request.
func (r *imageRead) topics(ctx context.Context) error {
	if v, ok := r.c.APIs[75]; ok && v[1] >= 0 {
		return r.topicsDTP(ctx)
	}
	r.warn(WarnNotAnswered, "DescribeTopicPartitions", "partitions",
		"the cluster does not answer it (Kafka 3.8+ does); ELR and last known ELR are not reported", model.FieldPartitionELR)
	if err := r.c.need(3, 10); err != nil {
		return err
	}
	req := kmsg.NewPtrMetadataRequest() // nil Topics: all
	resp, err := r.c.request(ctx, req)
	if err != nil {
		return err
	}
	md := resp.(*kmsg.MetadataResponse)
	for i := range md.Topics {
		mt := &md.Topics[i]
		name := ""
		if mt.Topic != nil {
			name = *mt.Topic
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
			if err := r.topicErr("Metadata", name, err); err != nil {
				return err
			}
			continue
		}
		if err := r.checkTopicName(name); err != nil {
			return err
		}
		t := r.topic(name, mt.TopicID)
		for _, p := range mt.Partitions {
			t.Partitions[p.Partition] = r.partition(p.Partition, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas, nil, nil)
		}
	}
	return nil
}

func (r *imageRead) topicErr(api, name string, err error) error {
	var ke *kerr.Error
	if errors.As(err, &ke) && isAuthz(ke.Code) {
		r.warn(WarnNotAuthorized, api, "topic "+name, fmt.Sprintf("not authorized (%v); the topic is not reported", err), model.FieldTopics)
		return nil
	}
	if errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID) {
		return nil // deleted between the listing and the answer
	}
	r.warn(WarnNotAnswered, api, "topic "+name, fmt.Sprintf("%v; the topic is not reported", err), model.FieldTopics)
	return nil
}

func (r *imageRead) partition(id, leader, epoch int32, replicas, isr, offline, elr, lastELR []int32) *model.Partition {
	p := &model.Partition{ID: id, Leader: leader, LeaderEpoch: epoch, Replicas: orEmpty(replicas), ISR: orEmpty(isr),
		AddingReplicas: []int32{}, RemovingReplicas: []int32{}}
	if len(offline) > 0 {
		p.OfflineReplicas = offline
	}
	// The API answers an empty list both where the metadata log holds
	// none (null: ELR off) and where it holds an empty one. With ELR on
	// (eligible.leader.replicas.version >= 1) the controller tracks it:
	// an empty answer is tracked and empty. Off, nil says "not tracked".
	if len(elr) > 0 || r.img.Features["eligible.leader.replicas.version"] >= 1 && elr != nil {
		p.ELR = orEmpty(elr)
	}
	if len(lastELR) > 0 || r.img.Features["eligible.leader.replicas.version"] >= 1 && lastELR != nil {
		p.LastKnownELR = orEmpty(lastELR)
	}
	return p
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func (r *imageRead) topicsDTP(ctx context.Context) error {
	var cursor *kmsg.DescribeTopicPartitionsRequestCursor
	for {
		req := kmsg.NewPtrDescribeTopicPartitionsRequest() // no Topics: all
		// The broker caps the page at max.request.partition.size.limit
		// (2000 by default).
		req.ResponsePartitionLimit = math.MaxInt32
		req.Cursor = cursor
		resp, err := r.c.request(ctx, req)
		if err != nil {
			return err
		}
		dr := resp.(*kmsg.DescribeTopicPartitionsResponse)
		for i := range dr.Topics {
			dt := &dr.Topics[i]
			name := ""
			if dt.Topic != nil {
				name = *dt.Topic
			}
			if err := kerr.ErrorForCode(dt.ErrorCode); err != nil {
				if err := r.topicErr("DescribeTopicPartitions", name, err); err != nil {
					return err
				}
				continue
			}
			// A topic may span two pages: its partitions are added to it.
			if err := r.checkTopicName(name); err != nil {
				return err
			}
			t := r.topic(name, dt.TopicID)
			for _, p := range dt.Partitions {
				t.Partitions[p.Partition] = r.partition(p.Partition, p.LeaderID, p.LeaderEpoch, p.Replicas, p.ISR,
					p.OfflineReplicas, p.EligibleLeaderReplicas, p.LastKnownELR)
			}
		}
		if dr.NextCursor == nil {
			return nil
		}
		next := &kmsg.DescribeTopicPartitionsRequestCursor{Topic: dr.NextCursor.Topic, Partition: dr.NextCursor.Partition}
		if cursor != nil && cursor.Topic == next.Topic && cursor.Partition == next.Partition {
			return fmt.Errorf("DescribeTopicPartitions: the broker answered the same cursor (%s-%d) twice", next.Topic, next.Partition)
		}
		cursor = next
	}
}

// reassignments adds the replicas being added and removed.
func (r *imageRead) reassignments(ctx context.Context) error {
	const api = "ListPartitionReassignments"
	if _, ok := r.c.APIs[46]; !ok {
		return r.gap(api, "partition reassignments", r.c.need(46, 0), model.FieldPartitionReassignment)
	}
	req := kmsg.NewPtrListPartitionReassignmentsRequest() // nil Topics: all
	req.TimeoutMillis = int32(r.c.cfg.timeout().Milliseconds())
	resp, err := r.c.request(ctx, req)
	if err == nil {
		lr := resp.(*kmsg.ListPartitionReassignmentsResponse)
		err = codeErr(lr.ErrorCode, lr.ErrorMessage)
		if err == nil {
			for _, t := range lr.Topics {
				tp := r.img.Topics[t.Topic]
				if tp == nil {
					continue
				}
				for _, p := range t.Partitions {
					if mp := tp.Partitions[p.Partition]; mp != nil {
						mp.AddingReplicas, mp.RemovingReplicas = orEmpty(p.AddingReplicas), orEmpty(p.RemovingReplicas)
					}
				}
			}
			return nil
		}
	}
	return r.gap(api, "partition reassignments", err, model.FieldPartitionReassignment)
}

// configs reads the dynamic configs of every topic, every broker and the
// cluster default.
func (r *imageRead) configs(ctx context.Context) error {
	if err := r.c.need(32, 1); err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(r.img.Topics))
	for start := 0; start < len(names); start += topicConfigBatch {
		batch := names[start:min(start+topicConfigBatch, len(names))]
		req := kmsg.NewPtrDescribeConfigsRequest()
		for _, n := range batch {
			res := kmsg.NewDescribeConfigsRequestResource()
			res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, n
			req.Resources = append(req.Resources, res)
		}
		if err := r.describeConfigs(ctx, req, model.FieldTopicConfigs); err != nil {
			return err
		}
	}
	// A broker's configs are answered by that broker only; the default
	// by any. With synonyms, a broker's answer also holds its static
	// configs (STATIC_BROKER_CONFIG), which no metadata record has.
	ids := slices.Sorted(maps.Keys(r.img.Brokers))
	for _, id := range ids {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.IncludeSynonyms = true
		res := kmsg.NewDescribeConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(id))
		req.Resources = append(req.Resources, res)
		if err := r.describeConfigs(ctx, req, model.FieldBrokerConfigs); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// A broker that is down or fenced does not answer: its
			// configs (dynamic and static) are not reported, the others'
			// and the default still are, so that what needs only those
			// can still be judged.
			r.warn(WarnNotAnswered, "DescribeConfigs", "broker "+strconv.Itoa(int(id)),
				fmt.Sprintf("%v; broker %d's configs (dynamic and server.properties) are not reported", err, id))
			r.img.MarkConfigsUnreported(model.ConfigResource{Type: model.ConfigBroker, Name: strconv.Itoa(int(id))})
		}
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeBroker
	req.Resources = append(req.Resources, res)
	return r.describeConfigs(ctx, req, model.FieldBrokerConfigs)
}

func resourceEntity(t kmsg.ConfigResourceType, name string) string {
	switch {
	case t == kmsg.ConfigResourceTypeTopic:
		return "topic " + name
	case name == "":
		return "broker <default>"
	}
	return "broker " + name
}

func (r *imageRead) describeConfigs(ctx context.Context, req *kmsg.DescribeConfigsRequest, field model.Field) error {
	const api = "DescribeConfigs"
	resp, err := r.c.request(ctx, req)
	if err != nil {
		ent := "configs"
		if len(req.Resources) == 1 {
			ent = "configs of " + resourceEntity(req.Resources[0].ResourceType, req.Resources[0].ResourceName)
		}
		return r.gap(api, ent, err, field)
	}
	for _, rc := range resp.(*kmsg.DescribeConfigsResponse).Resources {
		ent := "configs of " + resourceEntity(rc.ResourceType, rc.ResourceName)
		if err := codeErr(rc.ErrorCode, rc.ErrorMessage); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				continue // deleted since it was listed
			}
			if err := r.gap(api, ent, err, field); err != nil {
				return err
			}
			continue
		}
		var res model.ConfigResource
		var source kmsg.ConfigSource
		switch {
		case rc.ResourceType == kmsg.ConfigResourceTypeTopic:
			res, source = model.ConfigResource{Type: model.ConfigTopic, Name: rc.ResourceName}, kmsg.ConfigSourceDynamicTopicConfig
		case rc.ResourceName == "":
			res, source = model.ConfigResource{Type: model.ConfigBroker}, kmsg.ConfigSourceDynamicDefaultBrokerConfig
		default:
			res, source = model.ConfigResource{Type: model.ConfigBroker, Name: rc.ResourceName}, kmsg.ConfigSourceDynamicBrokerConfig
		}
		var kv map[string]string
		// A broker's own answer with synonyms: its server.properties
		// keys (each key's STATIC_BROKER_CONFIG synonyms, the key's own
		// value among them), known even when it sets none.
		var static map[string]string
		if rc.ResourceType == kmsg.ConfigResourceTypeBroker && rc.ResourceName != "" && req.IncludeSynonyms {
			static = map[string]string{}
		}
		for _, e := range rc.Configs {
			if static != nil {
				if e.Source == kmsg.ConfigSourceStaticBrokerConfig {
					static[e.Name] = r.configValue(e.Value, e.IsSensitive)
				}
				for _, syn := range e.ConfigSynonyms {
					if syn.Source == kmsg.ConfigSourceStaticBrokerConfig {
						static[syn.Name] = r.configValue(syn.Value, e.IsSensitive)
					}
				}
			}
			if e.Source != source {
				continue
			}
			if kv == nil {
				kv = map[string]string{}
			}
			kv[e.Name] = r.configValue(e.Value, e.IsSensitive)
		}
		if kv != nil {
			r.img.Configs[res] = kv
		}
		if static != nil {
			if id, err := strconv.ParseInt(rc.ResourceName, 10, 32); err == nil {
				r.img.SetStaticConfigs(int32(id), static)
			}
		}
	}
	return nil
}

// configValue is a config value as DescribeConfigs answers it: a
// sensitive one is null, which the view holds as model.NotReported.
func (r *imageRead) configValue(v *string, sensitive bool) string {
	switch {
	case v != nil:
		return *v
	case sensitive:
		r.img.MarkNotReported(model.FieldSensitiveConfigs)
		return model.NotReported
	}
	return ""
}

func (r *imageRead) quotas(ctx context.Context) error {
	const api, ent = "DescribeClientQuotas", "client quotas"
	if _, ok := r.c.APIs[48]; !ok {
		return r.gap(api, ent, r.c.need(48, 0), model.FieldClientQuotas)
	}
	req := kmsg.NewPtrDescribeClientQuotasRequest() // no components, not strict: every entity
	resp, err := r.c.request(ctx, req)
	if err == nil {
		qr := resp.(*kmsg.DescribeClientQuotasResponse)
		if err = codeErr(qr.ErrorCode, qr.ErrorMessage); err == nil {
			for _, e := range qr.Entries {
				q := &model.ClientQuota{Values: make(map[string]float64, len(e.Values))}
				for _, p := range e.Entity {
					q.Entity = append(q.Entity, model.QuotaEntityPart{Type: p.Type, Name: p.Name})
				}
				for _, v := range e.Values {
					q.Values[v.Key] = v.Value
				}
				r.img.ClientQuotas[model.QuotaEntityKey(q.Entity)] = q
			}
			return nil
		}
	}
	return r.gap(api, ent, err, model.FieldClientQuotas)
}

func (r *imageRead) acls(ctx context.Context) error {
	const api, ent = "DescribeAcls", "ACLs"
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType = kmsg.ACLResourceTypeAny
	req.ResourcePatternType = kmsg.ACLResourcePatternTypeAny
	req.Operation = kmsg.ACLOperationAny
	req.PermissionType = kmsg.ACLPermissionTypeAny
	resp, err := r.c.request(ctx, req)
	if err == nil {
		ar := resp.(*kmsg.DescribeACLsResponse)
		if err = codeErr(ar.ErrorCode, ar.ErrorMessage); err == nil {
			for _, res := range ar.Resources {
				for _, a := range res.ACLs {
					acl := &model.ACL{ResourceType: int8(res.ResourceType), ResourceName: res.ResourceName,
						PatternType: int8(res.ResourcePatternType), Principal: a.Principal, Host: a.Host,
						Operation: int8(a.Operation), PermissionType: int8(a.PermissionType)}
					acl.ID = model.ACLContentID(acl)
					r.img.ACLs[acl.ID] = acl
				}
			}
			return nil
		}
	}
	return r.gap(api, ent, err, model.FieldACLs)
}

func (r *imageRead) scram(ctx context.Context) error {
	const api, ent = "DescribeUserScramCredentials", "SCRAM users"
	if _, ok := r.c.APIs[50]; !ok {
		return r.gap(api, ent, r.c.need(50, 0), model.FieldSCRAM, model.FieldSCRAMSecrets)
	}
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	// An empty list asks for every user, as null does; null makes Kafka
	// (4.4.0 and before) fail with a NullPointerException while building
	// the error answer for a principal that may not describe the cluster,
	// and close the connection instead of saying so.
	req.Users = []kmsg.DescribeUserSCRAMCredentialsRequestUser{}
	resp, err := r.c.request(ctx, req)
	if err == nil {
		sr := resp.(*kmsg.DescribeUserSCRAMCredentialsResponse)
		if err = codeErr(sr.ErrorCode, sr.ErrorMessage); err == nil {
			for _, u := range sr.Results {
				if err := codeErr(u.ErrorCode, u.ErrorMessage); err != nil {
					if err := r.gap(api, "SCRAM user "+u.User, err, model.FieldSCRAM); err != nil {
						return err
					}
					continue
				}
				for _, ci := range u.CredentialInfos {
					k := model.ScramKey{User: u.User, Mechanism: ci.Mechanism}
					r.img.SCRAM[k] = &model.ScramCredential{User: u.User, Mechanism: ci.Mechanism, Iterations: ci.Iterations}
				}
			}
			// Salts and keys never leave the cluster.
			r.img.MarkNotReported(model.FieldSCRAMSecrets)
			return nil
		}
	}
	return r.gap(api, ent, err, model.FieldSCRAM, model.FieldSCRAMSecrets)
}

func (r *imageRead) tokens(ctx context.Context) error {
	const api, ent = "DescribeDelegationToken", "delegation tokens"
	if r.c.sec.sasl == nil {
		r.warn(WarnNotAnswered, api, ent, fmt.Sprintf("Kafka describes delegation tokens only to a SASL-authenticated connection, and this one is %s; delegation tokens are not reported", r.c.sec.protocol),
			model.FieldDelegationTokens)
		return nil
	}
	if _, ok := r.c.APIs[41]; !ok {
		return r.gap(api, ent, r.c.need(41, 0), model.FieldDelegationTokens)
	}
	req := kmsg.NewPtrDescribeDelegationTokenRequest() // nil Owners: all
	resp, err := r.c.request(ctx, req)
	if err == nil {
		dr := resp.(*kmsg.DescribeDelegationTokenResponse)
		err = kerr.ErrorForCode(dr.ErrorCode)
		switch {
		case err == nil:
			for _, d := range dr.TokenDetails {
				t := &model.DelegationToken{TokenID: d.TokenID, Owner: principal(d.PrincipalType, d.PrincipalName),
					Requester:      principal(d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName),
					IssueTimestamp: d.IssueTimestamp, MaxTimestamp: d.MaxTimestamp, ExpirationTimestamp: d.ExpiryTimestamp,
					Renewers: make([]string, 0, len(d.Renewers))}
				if d.TokenRequesterPrincipalName == "" {
					t.Requester = "" // not said before v3 (Kafka 3.3)
				}
				for _, rn := range d.Renewers {
					t.Renewers = append(t.Renewers, principal(rn.PrincipalType, rn.PrincipalName))
				}
				r.img.DelegationTokens[t.TokenID] = t
			}
			return nil
		case errors.Is(err, kerr.DelegationTokenRequestNotAllowed), errors.Is(err, kerr.DelegationTokenAuthDisabled):
			r.warn(WarnNotAnswered, api, ent, fmt.Sprintf("%v; delegation tokens are not reported", err), model.FieldDelegationTokens)
			return nil
		}
	}
	return r.gap(api, ent, err, model.FieldDelegationTokens)
}

func principal(typ, name string) string {
	if typ == "" {
		typ = "User"
	}
	return typ + ":" + name
}
