package printer

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/kmeta/kmeta/model"
)

// hostile holds terminal control sequences: ESC (CSI), the C1 CSI, DEL,
// a carriage return and a bidi override.
const hostile = "x\x1b[2J\u009b2J\x7f\r\u202ey"

// TestWriteImageEscapesControlCharacters: every string that comes from the
// data (a crafted metadata log or znode tree can hold any bytes) is printed
// so that it cannot drive the terminal, in text and table output.
func TestWriteImageEscapesControlCharacters(t *testing.T) {
	h := hostile
	img := testImage()
	img.ClusterID = h
	img.Provenance.Source = h
	img.Features[h] = 1
	ep := model.Endpoint{Name: h, Host: h, Port: 1}
	img.Brokers[9] = &model.Broker{ID: 9, Rack: &h, Endpoints: []model.Endpoint{ep}, Features: []model.FeatureRange{{Name: h}}}
	img.Controllers[9] = &model.Controller{ID: 9, Endpoints: []model.Endpoint{ep}, Features: []model.FeatureRange{{Name: h}}}
	img.Topics[h] = &model.Topic{Name: h, Partitions: map[int32]*model.Partition{0: {Replicas: []int32{1}}}}
	img.Configs[model.ConfigResource{Type: model.ConfigTopic, Name: h}] = map[string]string{h: h}
	img.ClientQuotas[h] = &model.ClientQuota{Entity: []model.QuotaEntityPart{{Type: h, Name: &h}}, Values: map[string]float64{h: 1}}
	img.ACLs[model.UUID{1}] = &model.ACL{ID: model.UUID{1}, ResourceType: 2, ResourceName: h, PatternType: 3, Principal: h, Host: h, Operation: 3, PermissionType: 3}
	img.SCRAM[model.ScramKey{User: h, Mechanism: 1}] = &model.ScramCredential{User: h, Mechanism: 1, Salt: []byte(h)}
	img.DelegationTokens[h] = &model.DelegationToken{TokenID: h, Owner: h, Requester: h, Renewers: []string{h}}
	img.Quorum.Voters = append(img.Quorum.Voters, model.Voter{ID: 9, Endpoints: []model.Endpoint{ep}})
	img.ZK.Chroot = h
	img.ZK.Raw[h] = []byte(h)
	img.ZK.Warnings = append(img.ZK.Warnings, h)
	img.ZK.PendingTopicDeletions = append(img.ZK.PendingTopicDeletions, h)
	img.ZK.MissingPartitionStates = append(img.ZK.MissingPartitionStates, h)
	img.ZK.PreferredReplicaElections = append(img.ZK.PreferredReplicaElections, h)
	img.ZK.LegacyReassignments[h] = []int32{1}
	img.ZK.Notifications[h] = 1
	for _, f := range []Format{Text, Table} {
		for _, show := range []bool{false, true} {
			var b bytes.Buffer
			if err := WriteImage(&b, f, img, ImageOptions{ShowSecrets: show}); err != nil {
				t.Fatal(err)
			}
			for i, line := range bytes.Split(b.Bytes(), []byte("\n")) {
				for _, r := range string(line) {
					if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == utf8.RuneError {
						t.Errorf("%s (show secrets %v): line %d holds %U: %q", f, show, i+1, r, line)
						break
					}
				}
			}
		}
	}
}
