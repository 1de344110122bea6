package printer

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kmeta/kmeta/model"
)

// ImageOptions control how an image is printed.
type ImageOptions struct {
	// ShowSecrets prints SCRAM salts and keys and sensitive config values
	// as stored. Off by default: the image is printed through
	// (*model.Image).Redacted.
	ShowSecrets bool
	// HTML says when and by which version an html report was made.
	HTML HTMLOptions
	// Charts and Sections are what the html report adds after the
	// image's own pictures and tables: what the image's source says
	// beyond the image (a KRaft log's records over offsets and time).
	Charts   []Chart
	Sections []Section
}

// WriteImage prints img in format f: text (WriteImageText), table
// (WriteImageTable), json ((*model.Image).WriteIndentedJSON, streamed) or
// html (ImageDocument's report page).
func WriteImage(w io.Writer, f Format, img *model.Image, opt ImageOptions) error {
	if img == nil {
		return fmt.Errorf("printer: nil image")
	}
	if !opt.ShowSecrets {
		img = img.RedactedView() // read-only here: topics need no copy
	}
	var write func(io.Writer, *model.Image) error
	switch f {
	case Text:
		write = WriteImageText
	case Table:
		write = WriteImageTable
	case JSON:
		write = func(w io.Writer, img *model.Image) error { return img.WriteIndentedJSON(w, "  ") }
	case HTML:
		// The same redacted view the json printer gets: the page never
		// redacts on its own.
		write = func(w io.Writer, img *model.Image) error { return writeImageHTML(w, img, opt) }
	default:
		return fmt.Errorf("printer: unknown format %q", f)
	}
	// Formatting on this goroutine, writing on another.
	aw := newAsyncWriter(w)
	err := write(aw, img)
	if cerr := aw.Close(); err == nil {
		err = cerr
	}
	return err
}

// Formatting shared by the text and table printers.

func int32List(s []int32) string { return string(appendInt32List(nil, s)) }

// appendInt32List appends s as [1,2,3].
func appendInt32List(b []byte, s []int32) []byte {
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, ']')
}

// appendDirName appends a directory id. KIP-858's reserved ids get names,
// as they otherwise print as AAAAAAAAAAAAAAAAAAAAAA-like strings nobody
// recognises.
func appendDirName(b []byte, u model.UUID) []byte {
	switch u {
	case model.DirMigrating:
		return append(b, "MIGRATING"...)
	case model.DirUnassigned:
		return append(b, "UNASSIGNED"...)
	case model.DirLost:
		return append(b, "LOST"...)
	}
	return base64.RawURLEncoding.AppendEncode(b, u[:])
}

// appendDirList appends s as [MIGRATING,AQEAAAAAAAAAAAAAAAAAAA].
func appendDirList(b []byte, s []model.UUID) []byte {
	b = append(b, '[')
	for i, u := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDirName(b, u)
	}
	return append(b, ']')
}

func uuidList(s []model.UUID) string {
	parts := make([]string, len(s))
	for i, u := range s {
		parts[i] = u.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// endpoint prints a listener as NAME://HOST:PORT(PROTOCOL). An endpoint
// whose listener name the source did not report (the admin API gives
// the address only) is PROTOCOL://HOST:PORT, as a listener named after
// its protocol is written in advertised.listeners.
func endpoint(e model.Endpoint) string {
	host := e.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	if e.Name == "" {
		return fmt.Sprintf("%s://%s:%d", model.SecurityProtocolName(e.SecurityProtocol), Clean(host), e.Port)
	}
	return fmt.Sprintf("%s://%s:%d(%s)", Clean(e.Name), Clean(host), e.Port, model.SecurityProtocolName(e.SecurityProtocol))
}

// notReportedText is what a text line or a table cell shows for a field
// the source does not report (one token, so that lines split into
// fields): never the field's zero value.
const notReportedText = "not-reported"

// NotReportedText is notReportedText, for documents built elsewhere.
const NotReportedText = notReportedText

// reportsAll says whether img reports every field of fs.
func reportsAll(img *model.Image, fs ...model.Field) bool {
	for _, f := range fs {
		if !img.Reports(f) {
			return false
		}
	}
	return true
}

// reported is v, or not-reported when img does not report f.
func reported(img *model.Image, f model.Field, v string) string {
	if !img.Reports(f) {
		return notReportedText
	}
	return v
}

// fieldList joins field names.
func fieldList(fs []model.Field) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// endpointsOf prints a node's endpoints; where the source reports only
// some (the admin API names the one a client reached), it says so.
func endpointsOf(img *model.Image, eps []model.Endpoint, f model.Field) string {
	if img.Reports(f) {
		return endpointList(eps)
	}
	if len(eps) == 0 {
		return notReportedText
	}
	return endpointList(eps) + " (other listeners not reported)"
}

// voterOf prints a voter, its directory id and endpoints as the source
// reports them.
func voterOf(img *model.Image, v model.Voter) string {
	s := fmt.Sprintf("voter %d directory=%s", v.ID, reported(img, model.FieldQuorumVoterDirectoryIDs, v.DirectoryID.String()))
	switch {
	case !img.Reports(model.FieldQuorumVoterEndpoints):
		s += " endpoints=" + notReportedText
	case len(v.Endpoints) > 0:
		s += " endpoints=" + endpointList(v.Endpoints)
	}
	return s
}

func endpointList(eps []model.Endpoint) string {
	parts := make([]string, len(eps))
	for i, e := range eps {
		parts[i] = endpoint(e)
	}
	return strings.Join(parts, " ")
}

func featureRanges(fs []model.FeatureRange) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s:%d-%d", Clean(f.Name), f.Min, f.Max)
	}
	return strings.Join(parts, " ")
}

func optString(p *string) string {
	if p == nil {
		return "<none>"
	}
	return strconv.Quote(*p)
}

// millis prints a Kafka millisecond timestamp in UTC.
func millis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// formatFloat prints quota values as Kafka's tools do for the usual
// magnitudes: 1048576, 12.5 (no exponent below 1e21).
func formatFloat(v float64) string {
	if math.Abs(v) >= 1e21 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func quotaValues(q *model.ClientQuota) string {
	vals := model.SortedQuotaValues(q.Values)
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = Clean(v.Name) + "=" + formatFloat(v.Value)
	}
	return strings.Join(parts, " ")
}

func provenance(p model.Provenance) string {
	var b strings.Builder
	fmt.Fprintf(&b, "source=%s offset=%d epoch=%d", Clean(p.Source), p.Offset, p.Epoch)
	if !p.Timestamp.IsZero() {
		fmt.Fprintf(&b, " timestamp=%s", p.Timestamp.UTC().Format(time.RFC3339Nano))
	}
	if p.Zxid != 0 {
		fmt.Fprintf(&b, " zxid=0x%x", p.Zxid)
	}
	return b.String()
}

// scramSecretOf is scramSecret where img reports SCRAM secrets at all.
func scramSecretOf(img *model.Image, s *model.ScramCredential) string {
	if !img.Reports(model.FieldSCRAMSecrets) {
		return "secret=" + notReportedText
	}
	return scramSecret(s)
}

func scramSecret(s *model.ScramCredential) string {
	if s.Fingerprint != "" && s.Salt == nil && s.StoredKey == nil && s.ServerKey == nil {
		return "fingerprint=" + s.Fingerprint
	}
	if s.Withheld() {
		// The source never gave the secret (a live cluster gives the
		// mechanism and iterations only): no fingerprint, which would
		// make every such credential look like one equal secret.
		return "secret=" + notReportedText
	}
	// Standard base64, as Kafka writes them (ScramCredentialUtils in a
	// ZooKeeper user znode, the JSON of a UserScramCredentialRecord) and
	// as this image's JSON holds them: one encoding in every output.
	b64 := base64.StdEncoding.EncodeToString
	return "salt=" + b64(s.Salt) + " storedKey=" + b64(s.StoredKey) + " serverKey=" + b64(s.ServerKey)
}

func producerIDs(p *model.ProducerIDs) string {
	return fmt.Sprintf("next=%d broker=%d brokerEpoch=%d", p.NextProducerID, p.BrokerID, p.BrokerEpoch)
}

func migration(m *model.Migration) string {
	var parts []string
	if m.HasState {
		parts = append(parts, "state="+m.State.String())
	} else {
		parts = append(parts, "state=<none>")
	}
	if m.HasZNode {
		parts = append(parts, fmt.Sprintf("znode: kraftControllerId=%d kraftControllerEpoch=%d kraftMetadataOffset=%d kraftMetadataEpoch=%d version=%d",
			m.KRaftControllerID, m.KRaftControllerEpoch, m.KRaftMetadataOffset, m.KRaftMetadataEpoch, m.ZNodeVersion))
	} else {
		parts = append(parts, "znode=<none>")
	}
	return strings.Join(parts, " ")
}

func quorum(q *model.Quorum) string {
	return fmt.Sprintf("leader=%d leaderEpoch=%d kraft.version=%d", q.LeaderID, q.LeaderEpoch, q.KRaftVersion)
}

func zkState(z *model.ZKState) string {
	chroot := z.Chroot
	if chroot == "" {
		chroot = "/"
	}
	return fmt.Sprintf("chroot=%s controller=%d controllerEpoch=%d controllerEpochZkVersion=%d kraftControllerEpoch=%d brokerSequenceId=%d featureStatus=%d maxZxid=0x%x",
		Clean(chroot), z.ControllerID, z.ControllerEpoch, z.ControllerEpochZkVersion, z.KRaftControllerEpoch,
		z.BrokerSequenceID, z.FeatureStatus, z.MaxZxid)
}

// zkLists returns the ZooKeeper-only lists as (label, value) pairs, empty
// ones left out, each list sorted (znode children have no order).
func zkLists(z *model.ZKState) [][2]string {
	var out [][2]string
	list := func(label string, s []string) {
		if len(s) > 0 {
			out = append(out, [2]string{label, strings.Join(cleanAll(sortedCopy(s)), " ")})
		}
	}
	list("pending topic deletions", z.PendingTopicDeletions)
	list("missing partition states", z.MissingPartitionStates)
	list("preferred replica elections", z.PreferredReplicaElections)
	if len(z.LegacyReassignments) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(z.LegacyReassignments)) {
			parts = append(parts, Clean(k)+"="+int32List(z.LegacyReassignments[k]))
		}
		out = append(out, [2]string{"legacy reassignments", strings.Join(parts, " ")})
	}
	if len(z.Notifications) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(z.Notifications)) {
			parts = append(parts, fmt.Sprintf("%s=%d", Clean(k), z.Notifications[k]))
		}
		out = append(out, [2]string{"pending notifications", strings.Join(parts, " ")})
	}
	// Warnings keep the order they were raised in.
	for _, w := range z.Warnings {
		out = append(out, [2]string{"warning", Clean(w)})
	}
	return out
}

func aclLine(a *model.ACL) string {
	return fmt.Sprintf("%s %s %s on %s:%s:%s from host %s id=%s",
		model.ACLPermissionTypeName(a.PermissionType), Clean(a.Principal), model.ACLOperationName(a.Operation),
		model.ACLResourceTypeName(a.ResourceType), model.ACLPatternTypeName(a.PatternType), Clean(a.ResourceName),
		Clean(a.Host), a.ID)
}

func configResource(r model.ConfigResource) string {
	name := r.Name
	if name == "" {
		name = "<default>"
	} else {
		name = Clean(name)
	}
	return r.Type.String() + " " + name
}
