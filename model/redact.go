package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// IsSensitiveConfig reports whether a config key holds a secret when the
// resource type is not known: it is sensitive (SensitiveConfig) for every
// resource type that holds configs, so a password-typed key or a key no
// resource type knows. Callers that know the type (a ConfigRecord, a
// config znode) use SensitiveConfig.
func IsSensitiveConfig(name string) bool {
	return SensitiveConfig(ConfigBroker, name) && SensitiveConfig(ConfigTopic, name) && SensitiveConfig(ConfigGroup, name)
}

// RedactedValue is what a sensitive config value is replaced with: a
// short hash, so that equal values stay visibly equal across views and
// runs. 48 bits identify a value; they do not protect a weak password
// from a dictionary attack, which is why --show-secrets is the only way
// to print more.
func RedactedValue(value string) string {
	sum := sha256.Sum256([]byte(value))
	return "[redacted sha256:" + hex.EncodeToString(sum[:6]) + "]"
}

// ScramFingerprint is the short hash that stands for a SCRAM credential's
// salt, stored key and server key in a redacted image. Each part is length
// prefixed so that different splits of the same bytes differ.
func ScramFingerprint(c *ScramCredential) string {
	h := sha256.New()
	var n [4]byte
	for _, b := range [][]byte{c.Salt, c.StoredKey, c.ServerKey} {
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:6])
}

// Redacted returns a deep copy of the image with secrets replaced: SCRAM
// salts and keys are dropped and Fingerprint set (an already redacted
// credential keeps its fingerprint), sensitive config values
// (SensitiveConfig for the resource's type) become RedactedValue(value)
// (a stand-in, SecretWithheld, stays as it is),
// and so do secrets in raw znodes (see RedactRawZnode). The receiver is
// not modified. Redacting twice gives the same result as redacting once.
func (img *Image) Redacted() *Image {
	out := img.Clone()
	for _, c := range out.SCRAM {
		if c == nil {
			continue
		}
		// A credential whose secret the source never gave (a live
		// cluster's) gets no fingerprint: one of nothing would make
		// every such credential look like one equal secret.
		if !c.Withheld() {
			c.Fingerprint = ScramFingerprint(c)
		}
		c.Salt, c.StoredKey, c.ServerKey = nil, nil, nil
	}
	for res, kv := range out.Configs {
		redactConfigs(res.Type, kv)
	}
	for _, kv := range out.StaticConfigs {
		redactConfigs(ConfigBroker, kv)
	}
	if out.ZK != nil {
		for p, data := range out.ZK.Raw {
			out.ZK.Raw[p] = RedactRawZnode(p, data)
		}
	}
	return out
}

// RedactedConfigs returns a copy of the configs of a resource of type t
// with each sensitive value (SensitiveConfig) replaced by RedactedValue,
// as Redacted does for an image's configs: for configs that are not in an
// image (a server.properties file).
func RedactedConfigs(t ConfigResourceType, kv map[string]string) map[string]string {
	out := cloneMap(kv)
	redactConfigs(t, out)
	return out
}

func redactConfigs(t ConfigResourceType, kv map[string]string) {
	for k, v := range kv {
		// A stand-in stays as it is: hashing NotReported would make every
		// unreported value look like one equal secret.
		if SensitiveConfig(t, k) && !SecretWithheld(v) {
			kv[k] = RedactedValue(v)
		}
	}
}

// configZnode matches the config entity znodes, relative to the chroot or
// read from the ZooKeeper root (any prefix): /config/topics/<t>,
// /config/brokers/<id>, /config/users/<u>[/clients/<c>],
// /config/clients/<c>, /config/ips/<ip>.
var configZnode = regexp.MustCompile(`(?:^|/)config/(topics|brokers|users|clients|ips)/[^/]+(/clients/[^/]+)?$`)

// quotaKeys are the keys Kafka accepts in a client quota entity's config
// (QuotaConfig: the user/client-id rates, and connection_creation_rate for
// ips); in a user znode the SCRAM mechanisms hold credentials.
var quotaKeys = map[string]bool{
	"producer_byte_rate": true, "consumer_byte_rate": true, "request_percentage": true,
	"controller_mutation_rate": true, "connection_creation_rate": true,
}

// RedactedScram is what a SCRAM credential's znode value becomes in a
// redacted dump: its fingerprint (ScramFingerprint) and its iterations,
// which are not secret: "[redacted sha256:<12 hex>],iterations=<n>". A
// redacted dump read back then gives the same fingerprint and iterations
// as reading the credential itself.
func RedactedScram(c *ScramCredential) string {
	return "[redacted " + ScramFingerprint(c) + "],iterations=" + strconv.Itoa(int(c.Iterations))
}

// redactScramValue redacts a SCRAM mechanism's value: a well-formed
// credential keeps its fingerprint and iterations, anything else is
// hashed whole.
func redactScramValue(v string) string {
	if IsRedacted(v) || isRedactedScram(v) {
		return v
	}
	var c ScramCredential
	fields := map[string]string{}
	for _, f := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(f, "=")
		if _, dup := fields[k]; !ok || dup {
			return RedactedValue(v)
		}
		fields[k] = val
	}
	var err error
	for k, dst := range map[string]*[]byte{"salt": &c.Salt, "stored_key": &c.StoredKey, "server_key": &c.ServerKey} {
		if *dst, err = base64.StdEncoding.DecodeString(fields[k]); err != nil || fields[k] == "" {
			return RedactedValue(v)
		}
	}
	n, err := strconv.ParseInt(fields["iterations"], 10, 32)
	if err != nil || len(fields) != 4 {
		return RedactedValue(v)
	}
	c.Iterations = int32(n)
	return RedactedScram(&c)
}

func isRedactedScram(v string) bool {
	head, it, ok := strings.Cut(v, ",iterations=")
	if !ok || !IsRedacted(head) {
		return false
	}
	_, err := strconv.ParseInt(it, 10, 32)
	return err == nil
}

// RedactRawZnode redacts the data of a znode as printers and dumps show
// it: the same rule as configs in the image, applied to Kafka's JSON.
//
//   - A config entity znode (configZnode, relative or under a chroot):
//     data {"version":…,"config":{key: value}}: each value under a key
//     SensitiveConfig hides for the path's resource type (topics,
//     brokers) becomes RedactedValue; in users/clients/ips znodes every
//     key that is not a quota key is hidden, SCRAM mechanisms as
//     RedactedScram. A config entity znode that is not a JSON object, or
//     whose "config" is not an object, is hashed whole: it cannot be told
//     apart from a secret.
//   - Any JSON anywhere: values under password-typed keys (at any depth)
//     and SCRAM mechanism keys are hidden.
//   - Data still holding a SCRAM key field (stored_key=, server_key=) is
//     hashed whole.
func RedactRawZnode(path string, data []byte) []byte {
	if len(data) == 0 || IsRedacted(string(data)) {
		return data
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	isJSON := dec.Decode(&doc) == nil && !dec.More()
	if _, err := dec.Token(); isJSON && err != io.EOF {
		isJSON = false
	}
	m := configZnode.FindStringSubmatch(path)
	obj, isObject := doc.(map[string]any)
	whole := func() []byte { return []byte(RedactedValue(string(data))) }
	if m != nil && !(isJSON && isObject) {
		return whole()
	}
	if !isJSON {
		if bytes.Contains(data, []byte("stored_key=")) || bytes.Contains(data, []byte("server_key=")) {
			return whole()
		}
		return data
	}
	changed := false
	if m != nil {
		if cfg, ok := obj["config"]; ok {
			kv, ok := cfg.(map[string]any)
			if s, isStr := cfg.(string); !ok && !(isStr && IsRedacted(s)) {
				b, _ := json.Marshal(cfg)
				obj["config"] = RedactedValue(string(b))
				changed = true
			}
			for k, v := range kv {
				var hide bool
				switch m[1] {
				case "topics":
					hide = SensitiveConfig(ConfigTopic, k)
				case "brokers":
					hide = SensitiveConfig(ConfigBroker, k)
				default:
					hide = !quotaKeys[k]
				}
				if !hide {
					continue
				}
				s, isStr := v.(string)
				switch {
				case isStr && isScramKey(k):
					kv[k] = redactScramValue(s)
				case isStr && IsRedacted(s):
					continue
				case isStr:
					kv[k] = RedactedValue(s)
				default:
					b, _ := json.Marshal(v)
					kv[k] = RedactedValue(string(b))
				}
				changed = true
			}
		}
	}
	if hasSecretKey(data) {
		doc = redactJSONValue(doc)
		changed = true
	}
	out := data
	if changed {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(doc) != nil {
			return whole()
		}
		out = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	if bytes.Contains(out, []byte("stored_key=")) || bytes.Contains(out, []byte("server_key=")) {
		return whole()
	}
	return out
}

// isSecretKey: a key whose value is a secret wherever it appears in JSON:
// password-typed, or a SCRAM credential ("SCRAM-SHA-256", ...).
func isSecretKey(k string) bool { return IsPasswordConfig(k) || isScramKey(k) }

func isScramKey(k string) bool { return strings.HasPrefix(strings.ToUpper(k), "SCRAM-") }

// redactJSONValue replaces the values of secret keys in decoded JSON.
func redactJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if !isSecretKey(k) {
				x[k] = redactJSONValue(val)
				continue
			}
			if s, ok := val.(string); ok {
				switch {
				case isScramKey(k):
					x[k] = redactScramValue(s)
				case !IsRedacted(s):
					x[k] = RedactedValue(s)
				}
				continue
			}
			b, _ := json.Marshal(val)
			x[k] = RedactedValue(string(b))
		}
	case []any:
		for i := range x {
			x[i] = redactJSONValue(x[i])
		}
	}
	return v
}

// hasSecretKey reports whether any object key in valid JSON text is a
// secret key. It walks the tokens rather than a decoded map so that a
// repeated key (which decoding would collapse) is seen too.
func hasSecretKey(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct{ object, wantKey bool }
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				if isSecretKey(t) {
					return true
				}
				stack[n-1].wantKey = false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// IsRedacted reports whether v is in RedactedValue's form, as a redacted
// image or dump holds it instead of the secret: "[redacted sha256:" and
// 12 characters and "]", nothing more. A value that only starts like one
// is a value like any other (it is redacted again, and compared as is).
func IsRedacted(v string) bool {
	return strings.HasPrefix(v, "[redacted sha256:") && strings.HasSuffix(v, "]") && len(v) == len("[redacted sha256:]")+12
}

// Clone returns a deep copy of the image: no map, slice or pointer is
// shared with the receiver. nil and empty slices stay as they were (the
// difference matters for ELR).
func (img *Image) Clone() *Image {
	if img == nil {
		return nil
	}
	out := &Image{
		ClusterID:         img.ClusterID,
		Features:          cloneMap(img.Features),
		Brokers:           cloneMapWith(img.Brokers, cloneBroker),
		Controllers:       cloneMapWith(img.Controllers, cloneController),
		Topics:            cloneMapWith(img.Topics, cloneTopic),
		ClientQuotas:      cloneMapWith(img.ClientQuotas, cloneClientQuota),
		ACLs:              cloneMapWith(img.ACLs, clonePtr[ACL]),
		SCRAM:             cloneMapWith(img.SCRAM, cloneScram),
		DelegationTokens:  cloneMapWith(img.DelegationTokens, cloneToken),
		ProducerIDs:       clonePtr(img.ProducerIDs),
		Migration:         clonePtr(img.Migration),
		Quorum:            cloneQuorum(img.Quorum),
		ZK:                cloneZK(img.ZK),
		Provenance:        cloneProvenance(img.Provenance),
		Warnings:          CloneFindings(img.Warnings),
		NotReported:       slices.Clone(img.NotReported),
		UnreportedConfigs: slices.Clone(img.UnreportedConfigs),
	}
	if img.StaticConfigs != nil {
		out.StaticConfigs = make(map[int32]map[string]string, len(img.StaticConfigs))
		for id, kv := range img.StaticConfigs {
			out.StaticConfigs[id] = cloneMap(kv)
		}
	}
	if img.Configs != nil {
		out.Configs = make(map[ConfigResource]map[string]string, len(img.Configs))
		for res, kv := range img.Configs {
			out.Configs[res] = cloneMap(kv)
		}
	}
	return out
}

func cloneProvenance(p Provenance) Provenance {
	p.Live = slices.Clone(p.Live)
	return p
}

// cloneMap copies a map of plain values, keeping nil as nil.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	return maps.Clone(m)
}

func cloneMapWith[K comparable, V any](m map[K]*V, clone func(*V) *V) map[K]*V {
	if m == nil {
		return nil
	}
	out := make(map[K]*V, len(m))
	for k, v := range m {
		out[k] = clone(v)
	}
	return out
}

// clonePtr copies a struct without pointer, slice or map fields.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func cloneString(p *string) *string { return clonePtr(p) }

func cloneBroker(b *Broker) *Broker {
	if b == nil {
		return nil
	}
	c := *b
	c.Endpoints = slices.Clone(b.Endpoints)
	c.Features = slices.Clone(b.Features)
	c.Rack = cloneString(b.Rack)
	c.LogDirs = slices.Clone(b.LogDirs)
	c.CordonedLogDirs = slices.Clone(b.CordonedLogDirs)
	return &c
}

func cloneController(ctl *Controller) *Controller {
	if ctl == nil {
		return nil
	}
	c := *ctl
	c.Endpoints = slices.Clone(ctl.Endpoints)
	c.Features = slices.Clone(ctl.Features)
	return &c
}

func cloneTopic(t *Topic) *Topic {
	if t == nil {
		return nil
	}
	c := *t
	c.Partitions = cloneMapWith(t.Partitions, clonePartition)
	return &c
}

func clonePartition(p *Partition) *Partition {
	if p == nil {
		return nil
	}
	c := *p
	c.Replicas = slices.Clone(p.Replicas)
	c.ISR = slices.Clone(p.ISR)
	c.ELR = slices.Clone(p.ELR)
	c.LastKnownELR = slices.Clone(p.LastKnownELR)
	c.RemovingReplicas = slices.Clone(p.RemovingReplicas)
	c.AddingReplicas = slices.Clone(p.AddingReplicas)
	c.Directories = slices.Clone(p.Directories)
	c.OfflineReplicas = slices.Clone(p.OfflineReplicas)
	return &c
}

func cloneClientQuota(q *ClientQuota) *ClientQuota {
	if q == nil {
		return nil
	}
	c := &ClientQuota{Values: cloneMap(q.Values)}
	if q.Entity != nil {
		c.Entity = make([]QuotaEntityPart, len(q.Entity))
		for i, p := range q.Entity {
			c.Entity[i] = QuotaEntityPart{Type: p.Type, Name: cloneString(p.Name)}
		}
	}
	return c
}

func cloneScram(s *ScramCredential) *ScramCredential {
	if s == nil {
		return nil
	}
	c := *s
	c.Salt = slices.Clone(s.Salt)
	c.StoredKey = slices.Clone(s.StoredKey)
	c.ServerKey = slices.Clone(s.ServerKey)
	return &c
}

func cloneToken(t *DelegationToken) *DelegationToken {
	if t == nil {
		return nil
	}
	c := *t
	c.Renewers = slices.Clone(t.Renewers)
	return &c
}

func cloneQuorum(q *Quorum) *Quorum {
	if q == nil {
		return nil
	}
	c := *q
	if q.Voters != nil {
		c.Voters = make([]Voter, len(q.Voters))
		for i, v := range q.Voters {
			v.Endpoints = slices.Clone(v.Endpoints)
			c.Voters[i] = v
		}
	}
	return &c
}

func cloneZK(z *ZKState) *ZKState {
	if z == nil {
		return nil
	}
	c := *z
	c.PendingTopicDeletions = slices.Clone(z.PendingTopicDeletions)
	c.Servers = slices.Clone(z.Servers)
	c.Warnings = slices.Clone(z.Warnings)
	c.MissingPartitionStates = slices.Clone(z.MissingPartitionStates)
	c.PreferredReplicaElections = slices.Clone(z.PreferredReplicaElections)
	c.Notifications = cloneMap(z.Notifications)
	if z.LegacyReassignments != nil {
		c.LegacyReassignments = make(map[string][]int32, len(z.LegacyReassignments))
		for k, v := range z.LegacyReassignments {
			c.LegacyReassignments[k] = slices.Clone(v)
		}
	}
	if z.Raw != nil {
		c.Raw = make(map[string][]byte, len(z.Raw))
		for k, v := range z.Raw {
			c.Raw[k] = slices.Clone(v)
		}
	}
	return &c
}

// SensitiveConfig reports whether Kafka's DescribeConfigs would mark a
// config of this resource type sensitive (and hide its value): the key's
// ConfigDef type is PASSWORD, or Kafka does not know the key at all
// (KafkaConfig.maybeSensitive: "if we can't determine the config entry
// type, treat it as a sensitive config to be safe"). Keys match exactly,
// as Kafka's maps do: "ssl.key.password " with a trailing space and
// "SSL.KEY.PASSWORD" are unknown keys, so sensitive.
//
//   - broker: KafkaConfig.configType: the key itself (KafkaConfig's and
//     the dynamic broker ConfigDef); else a listener override
//     "listener.name.<listener>.<rest>" takes the type of <rest>, or of
//     the mechanism config <rest> ends with (sasl.jaas.config and the
//     others of DynamicBrokerConfig's listener mechanism configs, as in
//     listener.name.sasl_ssl.plain.sasl.jaas.config).
//   - topic: LogConfig.configType; group: GroupConfig.configType.
//   - broker logger and client metrics: never sensitive.
//   - any other type: sensitive (KafkaConfig.loggableValue's default).
//
// The key table (configkeys.go) is generated from Kafka 3.9.2's and
// 4.4.0's own ConfigDefs, and the rule is checked against
// KafkaConfig.loggableValue of both releases (TestConfigKeyTable).
func SensitiveConfig(t ConfigResourceType, name string) bool {
	return sensitiveIn(knownConfigKeys, t, name)
}

// listenerMechanismConfigs are the broker configs a listener override may
// prefix with a SASL mechanism (DynamicBrokerConfig's
// LISTENER_MECHANISM_CONFIGS, the same in 3.9 and 4.4).
var listenerMechanismConfigs = []string{
	"sasl.jaas.config",
	"sasl.login.callback.handler.class",
	"sasl.login.class",
	"sasl.server.callback.handler.class",
	"connections.max.reauth.ms",
}

func sensitiveIn(keys map[ConfigResourceType]map[string]bool, t ConfigResourceType, name string) bool {
	switch t {
	case ConfigBrokerLogger, ConfigClientMetrics:
		return false
	case ConfigTopic, ConfigGroup:
		pw, ok := keys[t][name]
		return !ok || pw
	case ConfigBroker:
		if pw, ok := keys[t][name]; ok {
			return pw
		}
		base, ok := listenerBase(name)
		if !ok {
			return true
		}
		for _, m := range listenerMechanismConfigs {
			if strings.HasSuffix(base, m) {
				base = m
				break
			}
		}
		pw, ok := keys[t][base]
		return !ok || pw
	}
	return true
}

// listenerBase matches Java's "listener\.name\.[^.]*\.(.*)" over the whole
// key and returns the group: '.' in a Java regex matches no line
// terminator.
func listenerBase(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "listener.name.")
	if !ok {
		return "", false
	}
	i := strings.IndexByte(rest, '.')
	if i < 0 {
		return "", false
	}
	base := rest[i+1:]
	if strings.ContainsAny(base, "\n\r\u0085\u2028\u2029") {
		return "", false
	}
	return base, true
}
