// Package features knows Kafka's metadata.version levels and the other
// finalized features, and applies Kafka's rules for moving between them.
//
// # Where the facts come from
//
// The tables were read from Kafka's own code and tools (never copied):
// MetadataVersion, Feature and the *Version enums of 4.4.0 and 4.3.1,
// MetadataVersion and Features of 3.9.2, `kafka-features version-mapping`
// and `feature-dependencies`, `kafka-storage format`, and the image writers'
// loss checks (BrokerRegistration, PartitionRegistration, ClusterImage,
// ScramImage, DelegationTokenImage). The real-Kafka tests compare the
// tables with those tools on every run; testdata/features/kafka-4.4.0.json
// keeps their output for the unit tests.
//
// # Catalogs
//
// Levels are keyed by their number, never by comparing version strings.
// Two catalogs exist because Kafka renumbered unstable levels:
//
//   - "3.9" (Kafka 3.9.2): levels 1 (3.0-IV1) to 23. 22 = 4.0-IV0 was
//     unstable and carried ELR (didMetadataChange), 23 = 4.0-IV1 unstable
//     and empty. Latest production 21 (3.9-IV0). It loads any level ≥ 1 and
//     bootstraps/finalizes ≥ 4 (3.3-IV0). Registered features:
//     kraft.version, transaction.version (production level 0).
//   - "4.x" (Kafka 4.4.0): levels 1 to 34. 23 = 4.0-IV1 carries ELR. Levels
//     1–6 are listed for naming only: 4.x loads, bootstraps and finalizes
//     only ≥ 7 (3.3-IV3). Latest production 33 (4.4-IV2); 34 (4.5-IV0) is
//     unstable.
//
// CatalogFor("4.0" … "4.3") cuts the 4.x catalog at that release's latest
// production level (25, 27, 29, 30).
//
// # Levels Kafka 4.3 and 4.4 added (not in the 4.2 reference)
//
//	30 4.3-IV0  Δmeta  cordoned log dirs: RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3
//	31 4.4-IV0         share.version 2 bootstraps here
//	32 4.4-IV1  Δmeta  CIDR ranges in ACL hosts (isCidrAclSupported)
//	33 4.4-IV2  Δmeta  UnregisterControllerRecord (apiKey 29)
//	34 4.5-IV0         unstable placeholder
//
// share.version gained level 2 (bootstrap 4.4-IV0). kraft.version 1 has no
// declared dependency in 4.4.0's feature-dependencies (the reference said
// it needs metadata.version ≥ 21); it is still the default only from 21.
//
// # Bootstrap
//
// Bootstrap(X) is what `kafka-features version-mapping --release-version X`
// prints: metadata.version plus every production feature at
// defaultLevel(X) = the highest level whose bootstrap metadata.version ≤ X.
// BootstrapRecords(X) is what format writes: metadata.version first, then
// the features above 0 sorted by name, never kraft.version.
//
// Kafka 4.4.0's format no longer writes bootstrap.checkpoint: it writes the
// same records as the snapshot
// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint (header
// control batch, one batch of FeatureLevelRecords v0, footer).
//
// # Record versions
//
// RecordVersion(mv, apiKey) follows the MetadataVersion helpers:
// RegisterBroker v4 ≥ 30 (4.x), v3 ≥ 17, v2 ≥ 8, v1 ≥ 7, else v0;
// Partition/PartitionChange v2 from the ELR level, v1 ≥ 17; BRCR only ≥ 6
// (v3 ≥ 30 in 4.x, v2 ≥ 17, v1 ≥ 7); Fence/Unfence only < 6; SCRAM ≥ 11;
// transactions ≥ 13; delegation tokens ≥ 14; RegisterController ≥ 15;
// ClearElr from the ELR level (4.x only); UnregisterController ≥ 33;
// FeatureLevel ≥ 4; NoOp ≥ 5; ZkMigrationState ≥ 8 in 3.9 and never written
// by 4.x. Everything else is v0 at every level.
//
// # Gating (Check)
//
// Kafka's controller refuses a metadata.version downgrade when any level in
// (target, current] has didMetadataChange, and has no unsafe downgrade. It
// refuses any change while the ZooKeeper migration state is PRE_MIGRATION
// or MIGRATION. Unstable levels need unstable.feature.versions.enable.
// Content needing a higher level than the target (Requirements) is what the
// image writer would lose; ELR state is dropped silently by Kafka.
//
// ValidateFeatures is the same gate for a whole set of levels (format's
// --release-version plus --feature, or an UpdateFeatures request): levels
// above a feature's latest production level, and unstable metadata.version
// levels, are refused unless unstable.feature.versions.enable (Kafka 3.9.2's
// format says "No feature:transaction.version with feature level 1", its
// controller "does not support this feature"); metadata.version below the
// bootstrap minimum is refused; dependencies must hold (4.4.0:
// eligible.leader.replicas.version 1 "depends on metadata.version level 23").
//
// TestKafkaGating and TestKafka39Format check all of this against live
// Kafka 4.4.0 and 3.9.2; testdata/features/README.md has the outcomes.
package features
