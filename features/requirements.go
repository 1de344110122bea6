package features

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Requirement is one reason an image's content needs a minimum
// metadata.version.
type Requirement struct {
	// Kind is a stable identifier, e.g. "scram-credentials".
	Kind string `json:"kind"`
	// Subject narrows Kind where needed (a feature name), else "".
	Subject string   `json:"subject,omitempty"`
	Minimum LevelRef `json:"minimum"`
	Count   int      `json:"count"`
	Reason  string   `json:"reason"`
	// Silent is true when Kafka's image writer drops this content below
	// Minimum without reporting a loss (ELR state).
	Silent bool `json:"silent,omitempty"`
}

// Requirement kinds.
const (
	ReqFinalizedFeatures       = "finalized-features"
	ReqFeatureDependency       = "feature-dependency"
	ReqLeaderRecovering        = "leader-recovering"
	ReqInControlledShutdown    = "in-controlled-shutdown"
	ReqMigratingZkBrokers      = "migrating-zk-brokers"
	ReqZkMigrationState        = "zk-migration-state"
	ReqScramCredentials        = "scram-credentials"
	ReqDelegationTokens        = "delegation-tokens"
	ReqControllerRegistrations = "controller-registrations"
	ReqBrokerLogDirs           = "broker-log-dirs"
	ReqPartitionDirectories    = "partition-directories"
	ReqELRState                = "elr-state"
	ReqCIDRACLs                = "cidr-acls"
)

// Requirements is Default().Requirements.
func Requirements(img *model.Image) []Requirement { return catalog4x().Requirements(img) }

// Requirements lists what the content of img needs from metadata.version,
// highest minimum first (ties by kind and subject). A nil image needs
// nothing.
func (c *Catalog) Requirements(img *model.Image) []Requirement {
	if img == nil {
		return nil
	}
	var out []Requirement
	add := func(kind, subject string, min int16, count int, silent bool, what string) {
		if count == 0 {
			return
		}
		out = append(out, Requirement{
			Kind: kind, Subject: subject, Minimum: c.ref(min), Count: count, Silent: silent,
			Reason: fmt.Sprintf("%s at least %s", what, c.name(min)),
		})
	}
	count := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}

	// Finalized features other than metadata.version need FeatureLevelRecord
	// (3.3-IV0), and each level's own dependencies.
	var feats []string
	for name, lvl := range img.Features {
		if name != MetadataVersionFeature && lvl > 0 {
			feats = append(feats, name)
		}
	}
	sort.Strings(feats)
	add(ReqFinalizedFeatures, "", LevelFeatureLevelRecord, len(feats), false,
		count(len(feats), "finalized feature ("+strings.Join(feats, ", ")+") needs", "finalized features ("+strings.Join(feats, ", ")+") need"))
	for _, name := range feats {
		f, ok := c.Feature(name)
		lvl := img.Features[name]
		if !ok || lvl > f.MaxLevel() {
			continue
		}
		for _, d := range f.Levels[lvl].Dependencies {
			if d.Feature == MetadataVersionFeature {
				add(ReqFeatureDependency, name, d.Level, 1, false, fmt.Sprintf("%s=%d needs metadata.version", name, lvl))
			}
		}
	}

	var recovering, elr, dirs int
	for _, t := range img.Topics {
		for _, p := range t.Partitions {
			if p.LeaderRecoveryState == model.Recovering {
				recovering++
			}
			if len(p.ELR) > 0 || len(p.LastKnownELR) > 0 {
				elr++
			}
			for _, d := range p.Directories {
				if d != model.DirMigrating {
					dirs++
					break
				}
			}
		}
	}
	add(ReqLeaderRecovering, "", LevelLeaderRecovery, recovering, false, count(recovering, "partition recovering its leader needs", "partitions recovering their leader need"))
	add(ReqPartitionDirectories, "", LevelJBOD, dirs, false, count(dirs, "partition with assigned log directories needs", "partitions with assigned log directories need"))
	add(ReqELRState, "", c.ELRLevel, elr, true, "ELR state on "+count(elr, "partition", "partitions")+" needs")

	var shutdown, migrating, logDirs int
	for _, b := range img.Brokers {
		if b.InControlledShutdown {
			shutdown++
		}
		if b.IsMigratingZkBroker {
			migrating++
		}
		if len(b.LogDirs) > 0 {
			logDirs++
		}
	}
	add(ReqInControlledShutdown, "", LevelControlledShutdown, shutdown, false, count(shutdown, "broker in controlled shutdown needs", "brokers in controlled shutdown need"))
	add(ReqMigratingZkBrokers, "", LevelZkMigration, migrating, false, count(migrating, "migrating ZooKeeper broker needs", "migrating ZooKeeper brokers need"))
	add(ReqBrokerLogDirs, "", LevelJBOD, logDirs, false, count(logDirs, "broker with registered log directories needs", "brokers with registered log directories need"))

	if m := img.Migration; m != nil && m.HasState && m.State != model.MigrationNone {
		add(ReqZkMigrationState, "", LevelZkMigration, 1, false, "ZooKeeper migration state "+m.State.String()+" needs")
	}
	add(ReqScramCredentials, "", LevelScram, len(img.SCRAM), false, count(len(img.SCRAM), "SCRAM credential needs", "SCRAM credentials need"))
	add(ReqDelegationTokens, "", LevelDelegationTokens, len(img.DelegationTokens), false, count(len(img.DelegationTokens), "delegation token needs", "delegation tokens need"))
	add(ReqControllerRegistrations, "", LevelControllerRegistration, len(img.Controllers), false, count(len(img.Controllers), "controller registration needs", "controller registrations need"))

	if c.Name == "4.x" {
		cidr := 0
		for _, a := range img.ACLs {
			if strings.Contains(a.Host, "/") {
				cidr++
			}
		}
		add(ReqCIDRACLs, "", LevelCIDRACLs, cidr, false, count(cidr, "ACL with a CIDR host needs", "ACLs with a CIDR host need"))
	}

	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Minimum.Level != b.Minimum.Level {
			return a.Minimum.Level > b.Minimum.Level
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Subject < b.Subject
	})
	return out
}
