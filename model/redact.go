package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// sensitiveSuffixes are config key endings whose values are secrets. A
// suffix match catches listener- and mechanism-prefixed forms such as
// listener.name.sasl_ssl.plain.sasl.jaas.config. The list covers Kafka's
// password-typed dynamic broker configs (ssl.keystore.password,
// ssl.key.password, ssl.truststore.password, ssl.keystore.key,
// ssl.keystore.certificate.chain, ssl.truststore.certificates; reference
// §6.5.3), SASL JAAS configs, the secret keys (password.encoder.secret,
// delegation.token.secret.key, ...), and 4.4.0's OAuth client secret and
// sasl.oauthbearer.assertion.private.key.passphrase.
var sensitiveSuffixes = []string{
	"password",
	"passphrase",
	".key",
	"secret",
	"sasl.jaas.config",
	"ssl.keystore.key",
	"ssl.keystore.certificate.chain",
	"ssl.truststore.certificates",
}

// IsSensitiveConfig reports whether a config key holds a secret that
// printers must redact. Kafka's keys are lower case; the match ignores case
// so that a hand-written key cannot slip through.
func IsSensitiveConfig(name string) bool {
	n := strings.ToLower(name)
	for _, s := range sensitiveSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
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
// credential keeps its fingerprint), sensitive config values become
// RedactedValue(value), and so do secrets in raw znodes (see
// RedactRawZnode). The receiver is not modified. Redacting twice
// gives the same result as redacting once.
func (img *Image) Redacted() *Image {
	out := img.Clone()
	for _, c := range out.SCRAM {
		if c == nil {
			continue
		}
		if c.Salt != nil || c.StoredKey != nil || c.ServerKey != nil || c.Fingerprint == "" {
			c.Fingerprint = ScramFingerprint(c)
		}
		c.Salt, c.StoredKey, c.ServerKey = nil, nil, nil
	}
	for _, kv := range out.Configs {
		for k, v := range kv {
			if IsSensitiveConfig(k) && !isRedacted(v) {
				kv[k] = RedactedValue(v)
			}
		}
	}
	if out.ZK != nil {
		for p, data := range out.ZK.Raw {
			out.ZK.Raw[p] = RedactRawZnode(p, data)
		}
	}
	return out
}

// RedactRawZnode redacts the data of a znode: one the ZooKeeper decoder kept
// raw. Such a znode can be a Kafka config znode after all: read from the
// ZooKeeper root while Kafka lives in a chroot, or kept raw by a lenient
// decode because something else in it was malformed; it then holds SCRAM
// credentials ("SCRAM-SHA-512": "salt=…,stored_key=…,server_key=…") or
// sensitive configs. In JSON data every value under a sensitive key
// (IsSensitiveConfig, or a SCRAM mechanism) becomes RedactedValue, at any
// depth; the rest stays readable. Data under config/users/ or
// config/brokers/ (the znodes Kafka hides from other ZooKeeper users) that
// is not a JSON object, and any data still holding a SCRAM key field, is
// replaced whole.
func RedactRawZnode(path string, data []byte) []byte {
	if len(data) == 0 || isRedacted(string(data)) {
		return data
	}
	out := data
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	isJSON := dec.Decode(&doc) == nil && !dec.More()
	if isJSON && jsonHasSecretKey(data) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(redactJSONValue(doc)) == nil {
			out = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}
	}
	_, isObject := doc.(map[string]any)
	sensitivePath := strings.Contains(path, "/config/users/") || strings.Contains(path, "/config/brokers/")
	if (sensitivePath && !(isJSON && isObject)) || bytes.Contains(out, []byte("stored_key=")) || bytes.Contains(out, []byte("server_key=")) {
		return []byte(RedactedValue(string(data)))
	}
	return out
}

// isSecretKey: a config key whose value is a secret, or a SCRAM
// credential ("SCRAM-SHA-256", "SCRAM-SHA-512").
func isSecretKey(k string) bool {
	return IsSensitiveConfig(k) || strings.HasPrefix(strings.ToUpper(k), "SCRAM-")
}

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
				if !isRedacted(s) {
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

// jsonHasSecretKey reports whether any object key in valid JSON text is a
// secret key. It walks the tokens rather than a decoded map so that a
// repeated key (which decoding would collapse) is seen too.
func jsonHasSecretKey(data []byte) bool {
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

func isRedacted(v string) bool {
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
		ClusterID:        img.ClusterID,
		Features:         cloneMap(img.Features),
		Brokers:          cloneMapWith(img.Brokers, cloneBroker),
		Controllers:      cloneMapWith(img.Controllers, cloneController),
		Topics:           cloneMapWith(img.Topics, cloneTopic),
		ClientQuotas:     cloneMapWith(img.ClientQuotas, cloneClientQuota),
		ACLs:             cloneMapWith(img.ACLs, clonePtr[ACL]),
		SCRAM:            cloneMapWith(img.SCRAM, cloneScram),
		DelegationTokens: cloneMapWith(img.DelegationTokens, cloneToken),
		ProducerIDs:      clonePtr(img.ProducerIDs),
		Migration:        clonePtr(img.Migration),
		Quorum:           cloneQuorum(img.Quorum),
		ZK:               cloneZK(img.ZK),
		Provenance:       img.Provenance,
		Warnings:         CloneFindings(img.Warnings),
	}
	if img.Configs != nil {
		out.Configs = make(map[ConfigResource]map[string]string, len(img.Configs))
		for res, kv := range img.Configs {
			out.Configs[res] = cloneMap(kv)
		}
	}
	return out
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
