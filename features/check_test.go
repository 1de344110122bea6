package features

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/model"
)

// richImage holds one of every kind of content that needs a minimum level.
func richImage(mv int16) *model.Image {
	img := model.NewImage()
	img.Features[MetadataVersionFeature] = mv
	img.Features[ELRVersion] = 1
	img.Features[GroupVersion] = 1
	for i := 0; i < 12; i++ {
		img.SCRAM[model.ScramKey{User: fmt.Sprintf("u%d", i), Mechanism: model.ScramSHA256}] = &model.ScramCredential{}
	}
	img.DelegationTokens["t1"] = &model.DelegationToken{TokenID: "t1"}
	img.Controllers[3000] = &model.Controller{ID: 3000}
	img.Brokers[1] = &model.Broker{ID: 1, InControlledShutdown: true, IsMigratingZkBroker: true, LogDirs: []model.UUID{{1}}}
	img.Brokers[2] = &model.Broker{ID: 2}
	topic := &model.Topic{Name: "t", Partitions: map[int32]*model.Partition{}}
	for i := int32(0); i < 340; i++ {
		p := &model.Partition{ID: i, ELR: []int32{1}}
		if i < 2 {
			p.Directories = []model.UUID{model.DirMigrating, {7}}
		}
		if i == 5 {
			p.LeaderRecoveryState = model.Recovering
		}
		topic.Partitions[i] = p
	}
	// Directories all MIGRATING need nothing.
	topic.Partitions[400] = &model.Partition{ID: 400, Directories: []model.UUID{model.DirMigrating}}
	img.Topics["t"] = topic
	img.ACLs[model.UUID{1}] = &model.ACL{Host: "10.0.0.0/8"}
	img.ACLs[model.UUID{2}] = &model.ACL{Host: "*"}
	img.Migration = &model.Migration{HasState: true, State: model.MigrationPostMigration}
	return img
}

func TestRequirements(t *testing.T) {
	got := Requirements(richImage(33))
	want := []string{
		"cidr-acls 32 1: 1 ACL with a CIDR host needs at least 4.4-IV1",
		"elr-state 23 340: ELR state on 340 partitions needs at least 4.0-IV1",
		"feature-dependency eligible.leader.replicas.version 23 1: eligible.leader.replicas.version=1 needs metadata.version at least 4.0-IV1",
		"broker-log-dirs 17 1: 1 broker with registered log directories needs at least 3.7-IV2",
		"partition-directories 17 2: 2 partitions with assigned log directories need at least 3.7-IV2",
		"controller-registrations 15 1: 1 controller registration needs at least 3.7-IV0",
		"delegation-tokens 14 1: 1 delegation token needs at least 3.6-IV2",
		"scram-credentials 11 12: 12 SCRAM credentials need at least 3.5-IV2",
		"migrating-zk-brokers 8 1: 1 migrating ZooKeeper broker needs at least 3.4-IV0",
		"zk-migration-state 8 1: ZooKeeper migration state POST_MIGRATION needs at least 3.4-IV0",
		"in-controlled-shutdown 7 1: 1 broker in controlled shutdown needs at least 3.3-IV3",
		"finalized-features 4 2: 2 finalized features (eligible.leader.replicas.version, group.version) need at least 3.3-IV0",
		"leader-recovering 3 1: 1 partition recovering its leader needs at least 3.2-IV0",
	}
	var lines []string
	for _, r := range got {
		s := r.Kind
		if r.Subject != "" {
			s += " " + r.Subject
		}
		lines = append(lines, fmt.Sprintf("%s %d %d: %s", s, r.Minimum.Level, r.Count, r.Reason))
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("Requirements:\n got %q\nwant %q", lines, want)
	}
	// 3.9: ELR at 22, and no CIDR rule.
	for _, r := range Catalog39().Requirements(richImage(21)) {
		if r.Kind == ReqCIDRACLs {
			t.Errorf("3.9 catalog reports %v", r)
		}
		if r.Kind == ReqELRState && r.Minimum.Level != 22 {
			t.Errorf("3.9 ELR requirement %v", r)
		}
	}
	if Requirements(nil) != nil || len(Requirements(model.NewImage())) != 0 {
		t.Error("empty image has requirements")
	}
}

func kinds(v Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		// The old severities survive as labels: a loss and a refusal are
		// both errors, told apart by the code.
		label := map[model.Severity]string{model.SevError: "block", model.SevWarning: "warn", model.SevInfo: "info"}[f.Severity]
		if IsLoss(f) {
			label = "loss"
		}
		if f.Class != Class {
			label = "wrong-class"
		}
		out = append(out, label+":"+f.Code)
	}
	return out
}

func lvl(t *testing.T, c *Catalog, s string) Level {
	t.Helper()
	l, err := c.LevelFor(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCheck(t *testing.T) {
	plain := func(mv int16) *model.Image {
		img := model.NewImage()
		img.Features[MetadataVersionFeature] = mv
		return img
	}
	migrating := func(mv int16, s model.ZkMigrationState) *model.Image {
		img := plain(mv)
		img.Migration = &model.Migration{HasState: true, State: s}
		return img
	}
	elrImage := func(mv int16) *model.Image {
		img := plain(mv)
		img.Features[ELRVersion] = 1
		img.Topics["t"] = &model.Topic{Partitions: map[int32]*model.Partition{0: {ELR: []int32{2}}}}
		return img
	}
	tests := []struct {
		name      string
		c         *Catalog
		img       *model.Image
		target    string
		opts      CheckOptions
		direction string
		allowed   bool
		lossy     bool
		kinds     []string
	}{
		{"upgrade 3.9 to 4.4", Default(), plain(21), "4.4", CheckOptions{}, "upgrade", true, false, nil},
		{"downgrade across no Δmeta", Default(), plain(27), "4.0-IV2", CheckOptions{}, "downgrade", true, false, nil},
		{"downgrade across Δmeta", Default(), plain(33), "4.4-IV0", CheckOptions{}, "downgrade", false, false,
			[]string{"block:downgrade-metadata-changed"}},
		{"unchanged", Default(), plain(25), "4.0", CheckOptions{}, "unchanged", true, false, []string{"info:unchanged"}},
		{"rich downgrade", Default(), richImage(33), "3.5-IV1", CheckOptions{}, "downgrade", false, true, []string{
			"block:downgrade-metadata-changed",
			"loss:lossy-broker-log-dirs", "loss:lossy-cidr-acls", "loss:lossy-controller-registrations",
			"loss:lossy-delegation-tokens", "loss:lossy-elr-state", "loss:lossy-partition-directories", "loss:lossy-scram-credentials",
			// model.SortFindings: findings with an entity after those without.
			"block:feature-dependency"}},
		{"ELR feature blocks 26 to 22", Default(), elrImage(26), "4.0-IV0", CheckOptions{}, "downgrade", false, true,
			[]string{"block:downgrade-metadata-changed", "loss:lossy-elr-state", "block:feature-dependency"}},
		{"unstable refused", Default(), plain(33), "4.5-IV0", CheckOptions{}, "upgrade", false, false, []string{"block:unstable-level"}},
		{"unstable allowed", Default(), plain(33), "4.5-IV0", CheckOptions{AllowUnstable: true}, "upgrade", true, false, []string{"warn:unstable-level"}},
		{"4.x minimum", Default(), plain(7), "3.3-IV2", CheckOptions{}, "downgrade", false, false,
			[]string{"block:below-minimum", "block:downgrade-metadata-changed", "warn:not-loadable-by-4x"}},
		{"3.9 old cluster upgrade", Catalog39(), plain(5), "3.3-IV3", CheckOptions{}, "upgrade", true, false, nil},
		{"3.9 below bootstrap minimum", Catalog39(), plain(5), "3.2", CheckOptions{}, "downgrade", false, false,
			[]string{"block:below-minimum", "block:downgrade-metadata-changed", "warn:not-loadable-by-4x"}},
		{"migration blocks upgrade", Catalog39(), migrating(20, model.MigrationMigration), "3.9", CheckOptions{}, "upgrade", false, false,
			[]string{"block:migration-in-progress"}},
		{"pre-migration blocks", Catalog39(), migrating(21, model.MigrationPreMigration), "3.8", CheckOptions{}, "downgrade", false, false,
			[]string{"block:migration-in-progress"}},
		{"post-migration is fine", Catalog39(), migrating(20, model.MigrationPostMigration), "3.9", CheckOptions{}, "upgrade", true, false, nil},
		{"ZK image first level", Catalog39(), migrating(0, model.MigrationNone), "3.9", CheckOptions{}, "initial", true, false,
			[]string{"info:no-metadata-version"}},
		{"3.9 unstable ELR level", Catalog39(), plain(21), "4.0-IV0", CheckOptions{}, "upgrade", false, false, []string{"block:unstable-level"}},
		{"unknown current level", Default(), plain(40), "4.4", CheckOptions{}, "downgrade", false, false, []string{"block:current-level-unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.c.Check(tt.img, lvl(t, tt.c, tt.target), tt.opts)
			if v.Direction != tt.direction || v.Allowed != tt.allowed || v.Lossy != tt.lossy {
				t.Errorf("direction %s allowed %v lossy %v; want %s %v %v\n%+v", v.Direction, v.Allowed, v.Lossy, tt.direction, tt.allowed, tt.lossy, v.Findings)
			}
			got := kinds(v)
			if fmt.Sprint(got) != fmt.Sprint(tt.kinds) {
				t.Errorf("findings %q, want %q", got, tt.kinds)
			}
		})
	}
}

func TestCheckDetails(t *testing.T) {
	v := Check(richImage(33), lvl(t, Default(), "3.5-IV1"), CheckOptions{})
	if v.RequiredMinimum == nil || v.RequiredMinimum.Name != "4.4-IV1" {
		t.Errorf("RequiredMinimum = %v", v.RequiredMinimum)
	}
	if !v.LoadableBy4x || !v.CurrentLoadableBy4x {
		t.Errorf("loadable %v %v", v.LoadableBy4x, v.CurrentLoadableBy4x)
	}
	for _, f := range v.Findings {
		switch f.Code {
		case KindMetadataChanged:
			// Δmeta levels in (10, 33]: 11 13 14 15 17 23 30 32 33.
			if !strings.Contains(f.Message, "crosses 9 level(s) that changed the metadata format (3.5-IV2, ") {
				t.Errorf("%+v", f)
			}
		case "lossy-scram-credentials":
			if f.Message != "12 SCRAM credentials need at least 3.5-IV2; it cannot be written at 3.5-IV1" {
				t.Errorf("%+v", f)
			}
		case "lossy-elr-state":
			if !strings.HasPrefix(f.Message, "ELR state on 340 partitions ") {
				t.Errorf("%+v", f)
			}
		}
	}
	// Deterministic JSON: map iteration must not leak.
	a, _ := json.Marshal(v)
	for i := 0; i < 20; i++ {
		b, _ := json.Marshal(Check(richImage(33), lvl(t, Default(), "3.5-IV1"), CheckOptions{}))
		if string(a) != string(b) {
			t.Fatal("Check output is not deterministic")
		}
	}
	// A level from another catalog is not silently accepted.
	l22, _ := Catalog39().ByLevel(23)
	v = Default().Check(model.NewImage(), l22, CheckOptions{})
	if v.Allowed || kinds(v)[0] != "block:unknown-level" {
		t.Errorf("foreign level: %v", kinds(v))
	}
	// Nil image behaves as empty.
	if v := Check(nil, LatestProduction(), CheckOptions{}); !v.Allowed || v.Direction != "initial" {
		t.Errorf("nil image: %+v", v)
	}
}

func TestValidateFeatures(t *testing.T) {
	c := Default()
	tests := []struct {
		in   map[string]int16
		want []string
	}{
		{map[string]int16{MetadataVersionFeature: 33, ELRVersion: 1, ShareVersion: 2}, nil},
		{map[string]int16{MetadataVersionFeature: 22, ELRVersion: 1}, []string{"feature-dependency"}},
		{map[string]int16{MetadataVersionFeature: 33, ShareVersion: 3}, []string{"unknown-feature-level"}},
		{map[string]int16{MetadataVersionFeature: 33, "no.such": 1}, []string{"unknown-feature"}},
		{map[string]int16{MetadataVersionFeature: 99}, []string{"unknown-level"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range c.ValidateFeatures(tt.in, CheckOptions{}) {
			got = append(got, f.Code)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ValidateFeatures(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// 3.9 (Kafka 3.9.2's format, see TestKafka39Format): transaction.version
	// 1 is unstable there; with unstable levels enabled it still needs
	// metadata.version >= 3.3-IV0, which is also the bootstrap minimum.
	c39 := Catalog39()
	for _, tt := range []struct {
		in       map[string]int16
		unstable bool
		want     []string
	}{
		{map[string]int16{MetadataVersionFeature: 3, TransactionVersion: 1}, true, []string{KindBelowMinimum, KindFeatureDependency}},
		{map[string]int16{MetadataVersionFeature: 21, TransactionVersion: 1}, false, []string{KindUnstableLevel}},
		{map[string]int16{MetadataVersionFeature: 21, TransactionVersion: 2}, true, nil},
		{map[string]int16{MetadataVersionFeature: 22}, false, []string{KindUnstableLevel}},
		{map[string]int16{MetadataVersionFeature: 22, TransactionVersion: 2}, true, nil},
		{map[string]int16{MetadataVersionFeature: 4, TransactionVersion: 0}, false, nil},
	} {
		var got []string
		for _, f := range c39.ValidateFeatures(tt.in, CheckOptions{AllowUnstable: tt.unstable}) {
			got = append(got, f.Code)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("3.9 ValidateFeatures(%v, unstable=%v) = %v, want %v", tt.in, tt.unstable, got, tt.want)
		}
	}
}
