package migrate

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

// Sentinel errors.
var (
	// ErrBlocked: the plan has blockers that no override lifts.
	ErrBlocked = errors.New("migrate: plan is blocked")
	// ErrCannotExpress: the target metadata.version cannot hold a record.
	ErrCannotExpress = errors.New("migrate: not expressible at the target metadata.version")
	// ErrSourceChanged: the source is not the one the plan was made from.
	ErrSourceChanged = errors.New("migrate: source changed since the plan")
	// ErrBadInput: a flag or a plan file is malformed.
	ErrBadInput = errors.New("migrate: bad input")
	// ErrTargetNotEmpty: a file to write exists with other content.
	ErrTargetNotEmpty = errors.New("migrate: target exists with other content")
	// ErrBrokerDir: a broker log dir cannot be converted safely.
	ErrBrokerDir = errors.New("migrate: broker log dir refused")
	// ErrSecretWithheld: a record would carry a secret's stand-in (a
	// redaction, or a value the source did not report) instead of the
	// secret. Preflight blocks such a source first (CodeSecretsWithheld);
	// this is the record writer's own refusal.
	ErrSecretWithheld = errors.New("migrate: a secret is redacted or not reported in the source")
)

// PlanFormat identifies the plan file format.
const PlanFormat = "kmeta-migrate-plan/1"

// Overrides: each lifts exactly one blocker class, and the blocker's Fix
// names it.
const (
	// OverrideDropPendingDeletions: do not migrate topics pending deletion
	// (as Kafka's own migration since 3.6.1); their partition dirs are
	// left for Kafka to set aside as stray.
	OverrideDropPendingDeletions = "drop-pending-deletions"
	// OverrideKeepReassignments: copy in-flight reassignments (adding and
	// removing replicas) as they are, as Kafka's own migration does; the
	// KRaft controller resumes them.
	OverrideKeepReassignments = "keep-reassignments"
	// OverrideDropSCRAM: write no SCRAM credentials (the level cannot).
	OverrideDropSCRAM = "drop-scram"
	// OverrideDropTokens: write no delegation tokens (the level cannot).
	OverrideDropTokens = "drop-delegation-tokens"
	// OverrideCopyEncryptedPasswords: copy encrypted password configs
	// verbatim, as Kafka's migration does without password.encoder.secret.
	OverrideCopyEncryptedPasswords = "copy-encrypted-passwords"
	// OverrideRegisteredBrokers: go on although brokers are registered in
	// a live ZooKeeper.
	OverrideRegisteredBrokers = "ignore-registered-brokers"
	// OverrideMigrationZnode: go on although /migration exists.
	OverrideMigrationZnode = "ignore-migration-znode"
)

// Overrides lists every override name.
var Overrides = []string{OverrideCopyEncryptedPasswords, OverrideDropPendingDeletions, OverrideDropSCRAM,
	OverrideDropTokens, OverrideMigrationZnode, OverrideRegisteredBrokers, OverrideKeepReassignments}

// Finding codes of plan, apply and brokers.
const (
	CodeLevelUnsupported      = "level-unsupported"
	CodeNoClusterID           = "no-cluster-id"
	CodeEmptySource           = "empty-source"
	CodePartialSource         = "partial-source"
	CodePendingDeletion       = "pending-deletion"
	CodeReassignmentInFlight  = "reassignment-in-flight"
	CodeSCRAMUnsupported      = "scram-unsupported"
	CodeTokensUnsupported     = "tokens-unsupported"
	CodeEncryptedPassword     = "encrypted-password"
	CodeBrokersRegistered     = "brokers-registered"
	CodeMigrationZnode        = "migration-znode-exists"
	CodeNoControllers         = "no-controllers"
	CodeControllerIDConflict  = "controller-id-conflict"
	CodeTooManyRecords        = "too-many-records"
	CodeRegistrationsInSnap   = "registrations-in-data-dir"
	CodeMissingPartitionState = "zk-partition-state-missing"
	CodeConfigRemoved         = "config-removed-in-4x"
	CodeTopicCaseCollision    = "topic-case-collision"
	CodeLegacyAdminZnode      = "legacy-admin-znode"
	CodeTopicIDAssigned       = "topic-id-assigned"
	CodeBrokersToConvert      = "brokers-to-convert"
	CodeOverrideUsed          = "override-used"
	CodePasswordDecrypted     = "password-decrypted"
	CodeELRDeferred           = "elr-deferred"
	CodeZKConsumerOffsets     = "zk-consumer-offsets"
	CodeDynamicQuorumLevel    = "dynamic-quorum-level"
	CodeZKDataDirUsed         = "zk-data-dir-used"
	CodeZKDataDirsDiverge     = "zk-data-dirs-diverge"
	CodeSecretsWithheld       = "secrets-withheld"
	CodeConfigWithoutTopic    = "config-without-topic"
)

// Quorum modes (Plan.Quorum).
const (
	// QuorumStatic: kraft.version 0, controller.quorum.voters on every
	// node, bootstrap.checkpoint in each controller's metadata dir.
	QuorumStatic = "static"
	// QuorumDynamic: kraft.version 1 (KIP-853) with initial voters, as
	// kafka-storage format --initial-controllers writes it:
	// __cluster_metadata-0/00000000000000000000-0000000000.checkpoint
	// holding KRaftVersionRecord and VotersRecord, and
	// controller.quorum.bootstrap.servers on every node.
	QuorumDynamic = "dynamic"
)

// ParseQuorum checks a --quorum value; "" is the default, static.
func ParseQuorum(s string) (string, error) {
	switch s {
	case "", QuorumStatic:
		return QuorumStatic, nil
	case QuorumDynamic:
		return QuorumDynamic, nil
	}
	return "", fmt.Errorf("%w: quorum %q: want %s or %s", ErrBadInput, s, QuorumStatic, QuorumDynamic)
}

// Options are what a plan is made from besides the image.
type Options struct {
	// Source is the source string as given, shown in the plan.
	Source string
	// SourceFile is Source as a plan file records it for apply: its paths
	// absolute, so the file applies from any directory ("": Source).
	SourceFile string
	// Live is true for a live ZooKeeper ensemble (registered brokers then
	// mean running brokers).
	Live bool
	// MetadataVersion is the target level or release ("4.4", "4.0-IV3").
	MetadataVersion string
	Controllers     []controllers.Spec
	// Quorum is QuorumStatic (the default) or QuorumDynamic.
	Quorum string
	// ClusterID replaces a missing /cluster/id (the id the brokers'
	// meta.properties hold).
	ClusterID string
	// PasswordEncoderSecret decrypts encrypted password configs.
	PasswordEncoderSecret string
	// Overrides lifts blockers by name (see the Override constants).
	Overrides []string
	// Progress, when set, is told how many partitions have become
	// records so far, of how many.
	Progress func(done, total int64)
	// ZKDataDirs, when the source named several data dirs of one
	// ensemble, is what each held (internal/source reads the newest).
	ZKDataDirs []ZKDataDir
}

// ZKDataDir is one of several ZooKeeper data dirs a plan read.
type ZKDataDir struct {
	Path    string `json:"path"`
	MaxZxid int64  `json:"maxZxid"`
	Used    bool   `json:"used"`
	// Diverged says how the dir is not a prefix of the newest one's
	// history ("" when it is).
	Diverged string `json:"diverged,omitempty"`
}

// FeatureLevel is one FeatureLevelRecord the plan writes.
type FeatureLevel struct {
	Name  string `json:"name"`
	Level int16  `json:"level"`
}

// PlanTopic is what the broker step checks partition dirs against.
type PlanTopic struct {
	Name       string          `json:"name"`
	ID         model.UUID      `json:"id"`
	Partitions []PlanPartition `json:"partitions"`
	// Skipped topics are not migrated (pending deletion, overridden).
	Skipped bool `json:"skipped,omitempty"`
}

// PlanPartition lists the brokers that may hold a partition.
type PlanPartition struct {
	ID       int32   `json:"partition"`
	Replicas []int32 `json:"replicas"`
}

// Step is one file apply writes.
type Step struct {
	Node    int32  `json:"node"`
	File    string `json:"file"` // relative to apply's --out
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
}

// Plan is the preflight and the exact content apply writes. It is data:
// plan prints it, apply executes it, so the two cannot drift.
type Plan struct {
	Format string `json:"format"`
	Source string `json:"source"`
	// fileSource is Options.SourceFile: what WritePlan records as source.
	fileSource      string
	SourceZxid      int64             `json:"sourceZxid"`
	ClusterID       string            `json:"clusterId"`
	MetadataVersion features.LevelRef `json:"metadataVersion"`
	// Features are the FeatureLevelRecords, metadata.version first.
	Features []FeatureLevel `json:"features"`
	// Quorum is QuorumStatic (kraft.version 0) or QuorumDynamic
	// (kraft.version 1 with the controllers as initial voters).
	Quorum       string             `json:"quorum"`
	KRaftVersion int16              `json:"kraftVersion"`
	Controllers  []controllers.Spec `json:"controllers"`
	Overrides    []string           `json:"overrides"`
	// Brokers are the broker ids the assignments name: each must be
	// converted with `migrate brokers` before the cluster starts.
	Brokers  []int32         `json:"brokers"`
	Records  RecordSummary   `json:"records"`
	Steps    []Step          `json:"steps"`
	Topics   []PlanTopic     `json:"topics"`
	Findings []model.Finding `json:"findings"`
	// Blocked is true when an error-severity finding stands.
	Blocked bool `json:"blocked"`

	records []Record
}

// RecordList returns the records the plan writes (nil for a plan read
// from a file: Replan computes them again).
func (p *Plan) RecordList() []Record { return p.records }

// maxAtomicRecords is QuorumController.MAX_RECORDS_PER_BATCH: below
// features.LevelTransactions the bootstrap records go in one atomic
// batch, which Kafka refuses above this count.
const maxAtomicRecords = 10000

// NewPlan checks img against the target and computes what apply writes:
// it runs the preflight steps in order. It returns an error only when it
// cannot plan at all (a bad override or quorum, a level the catalog cannot
// bootstrap); blockers are findings, and Plan.Blocked says whether any
// stands.
func NewPlan(img *model.Image, opts Options) (*Plan, error) {
	var err error
	p := &Plan{Format: PlanFormat, Source: opts.Source, fileSource: opts.SourceFile, SourceZxid: img.Provenance.Zxid,
		Controllers: slices.Clone(opts.Controllers), Overrides: []string{}}
	if p.Controllers == nil {
		p.Controllers = []controllers.Spec{}
	}
	over := map[string]bool{}
	for _, o := range opts.Overrides {
		if !slices.Contains(Overrides, o) {
			return nil, fmt.Errorf("%w: unknown override %q (known: %s)", ErrBadInput, o, strings.Join(Overrides, ", "))
		}
		over[o] = true
	}
	p.Overrides = slices.Sorted(maps.Keys(over))
	if p.Quorum, err = ParseQuorum(opts.Quorum); err != nil {
		return nil, err
	}
	if p.Quorum == QuorumDynamic {
		p.KRaftVersion = 1
	}
	c := &planCtx{img: img, opts: opts, cat: features.Default(), p: p, over: over,
		eo: emitOptions{skipTopics: map[string]bool{}, dropConfigs: map[string]bool{},
			topicIDs: map[string]model.UUID{}, configValues: map[string]string{}, skipSCRAM: map[model.ScramKey]bool{}}}
	for _, step := range preflight {
		if err := step.run(c); err != nil {
			return nil, err
		}
		if c.done {
			break
		}
	}
	p.finish()
	return p, nil
}

func (p *Plan) finish() {
	if p.Findings == nil {
		p.Findings = []model.Finding{}
	}
	if p.Topics == nil {
		p.Topics = []PlanTopic{}
	}
	if p.Steps == nil {
		p.Steps = []Step{}
	}
	if p.Features == nil {
		p.Features = []FeatureLevel{}
	}
	if p.Brokers == nil {
		p.Brokers = []int32{}
	}
	if p.Records.ByType == nil {
		p.Records.ByType = []RecordCount{}
	}
	model.SortFindings(p.Findings)
	p.Blocked = model.CountSeverity(p.Findings, model.SevError) > 0
}

// Blockers returns the error-severity findings.
func (p *Plan) Blockers() []model.Finding {
	var out []model.Finding
	for _, f := range p.Findings {
		if f.Severity == model.SevError {
			out = append(out, f)
		}
	}
	return out
}

// ForBrokers is the plan as migrate brokers judges it. A broker's log
// dirs take the cluster id, the assignment and the topic ids from the
// plan, never the quorum (meta.properties v1 of a broker names no voter),
// so no-controllers, which a plan made with --zk alone holds, is left out:
// listed, it would read as a blocker the step then ignored. Every other
// blocker stays one.
func (p *Plan) ForBrokers() *Plan {
	q := *p
	q.Findings = slices.DeleteFunc(slices.Clone(p.Findings), func(f model.Finding) bool { return f.Code == CodeNoControllers })
	q.Blocked = model.CountSeverity(q.Findings, model.SevError) > 0
	return &q
}

// levelName is the catalog's name of a level features names (every such
// level is in the catalog: TestNamedLevels).
func levelName(cat *features.Catalog, n int16) string {
	l, _ := cat.ByLevel(n)
	return l.Name
}

func displayName(n string) string {
	if n == "" {
		return "<default>"
	}
	return n
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ", ")
}

// derivedUUID is a Kafka Uuid derived from parts, so that plan and apply,
// and a rerun after a crash, write the same ids. It avoids what Kafka
// reserves (the first 100 ids, msb 0) and never starts with '-'.
func derivedUUID(parts ...string) model.UUID {
	h := sha256.Sum256([]byte("kmeta-migrate\x00" + strings.Join(parts, "\x00")))
	var u model.UUID
	copy(u[:], h[:16])
	if u[0] == 0 {
		u[0] = 1
	}
	if base64.RawURLEncoding.EncodeToString(u[:1])[0] == '-' {
		u[0] &^= 0x80
	}
	return u
}

// zkConsumerOffsets lists the groups with offsets under
// /consumers/<group>/offsets/<topic>/<partition> (kept raw by zkread: Kafka
// never reads them) and counts the offsets.
func zkConsumerOffsets(raw map[string][]byte) (groups []string, offsets int) {
	seen := map[string]bool{}
	for p := range raw {
		rest, ok := strings.CutPrefix(p, "/consumers/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		if len(parts) != 4 || parts[1] != "offsets" {
			continue
		}
		offsets++
		if !seen[parts[0]] {
			seen[parts[0]] = true
			groups = append(groups, parts[0])
		}
	}
	slices.Sort(groups)
	return groups, offsets
}
