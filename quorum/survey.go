package quorum

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/voters"
)

// The codes of Survey's findings (class "quorum"). Survey also reports
// voters.CodeDirectoryIDMismatch, as voters.Judge does.
const (
	CodeCopiesDiverge  = "copies-diverge"
	CodeCopyDamaged    = "copy-damaged"
	CodeCopyTornTail   = "copy-torn-tail"
	CodeCopyBehind     = "copy-behind"
	CodeRebuildGivesUp = "rebuild-gives-up"
)

// Role is what a copy's node is, as far as its dir tells. process.roles is
// not in meta.properties, so it is inferred: a node the voter set names is
// a controller, a dir holding a broker's data files (its offset
// checkpoints, topic partitions) is a broker's.
type Role string

// The roles.
const (
	RoleController Role = "controller"
	RoleBroker     Role = "broker"
	RoleCombined   Role = "broker,controller"
	RoleUnknown    Role = "unknown"
)

// Integrity is metalog's check verdict on a copy.
type Integrity string

// The verdicts.
const (
	// IntegrityClean: check found no error and no torn tail.
	IntegrityClean Integrity = "clean"
	// IntegrityTornTail: the last segment ends inside a batch, what a
	// crash (or a copy taken while Kafka appends) leaves; Kafka's recovery
	// truncates it, so the copy is usable up to there.
	IntegrityTornTail Integrity = "torn-tail"
	// IntegrityDamaged: check found corruption (a CRC mismatch, bad
	// framing, a gap...): the copy is usable only before it.
	IntegrityDamaged Integrity = "damaged"
)

// LeaderChange is a LeaderChangeMessage a copy holds: the first record of
// a leader's epoch, evidence that a majority elected that leader with the
// log up to that offset.
type LeaderChange struct {
	Offset         int64   `json:"offset"`
	Epoch          int32   `json:"epoch"`
	LeaderID       int32   `json:"leaderId"`
	Voters         []int32 `json:"voters"`
	GrantingVoters []int32 `json:"grantingVoters"`
	File           string  `json:"file"`
	Position       int64   `json:"position"`
}

// BatchAt names one batch of a copy's log: where it is and what
// identifies it among copies (Raft replicates batches byte for byte, so
// equal batches have equal offsets, epochs and CRCs).
type BatchAt struct {
	File       string `json:"file"`
	Position   int64  `json:"position"`
	BaseOffset int64  `json:"baseOffset"`
	LastOffset int64  `json:"lastOffset"`
	Epoch      int32  `json:"epoch"`
	CRC        uint32 `json:"crc"`
}

// Copy is one surviving copy of the metadata log: a controller's or a
// broker's metadata log dir.
type Copy struct {
	Dir string `json:"dir"`
	// NodeID, ClusterID and DirectoryID are meta.properties' (-1, "" and
	// nil when it is absent or lacks them).
	NodeID      int32       `json:"nodeId"`
	ClusterID   string      `json:"clusterId,omitempty"`
	DirectoryID *model.UUID `json:"directoryId,omitempty"`
	Role        Role        `json:"role"`
	// RoleEvidence says what the role was inferred from.
	RoleEvidence string `json:"roleEvidence"`
	// LogStartOffset is the first offset of its segments (-1 without).
	LogStartOffset int64 `json:"logStartOffset"`
	// EndOffset is the offset after its last usable record, and LastEpoch
	// that record's batch epoch: what the node would present in a vote
	// after Kafka's recovery (a torn tail or damage cut off, the log
	// restarted at a newer snapshot). An empty log is 0 and epoch 0.
	EndOffset int64 `json:"endOffset"`
	LastEpoch int32 `json:"lastEpoch"`
	// WrittenEndOffset is the offset after the last batch on disk,
	// damaged or not (check's log end offset; -1 without data).
	WrittenEndOffset int64 `json:"writtenEndOffset"`
	// Snapshot is the newest clean snapshot (not the bootstrap one). A
	// snapshot is only taken at or below the high watermark, so its end
	// offset is CommittedEnd: every offset below it was committed.
	Snapshot     *metalog.SnapshotID `json:"snapshot,omitempty"`
	CommittedEnd int64               `json:"committedEnd"`
	// QuorumState is quorum-state as read (nil when absent): the leader and
	// epoch this node last knew, and for a static quorum the voters.
	QuorumState *metalog.QuorumState `json:"quorumState,omitempty"`
	// LeaderChanges are the LeaderChangeMessages of its usable log, in
	// offset order.
	LeaderChanges []LeaderChange `json:"leaderChanges"`
	KRaftVersion  int16          `json:"kraftVersion"`
	// Voters are the voters it believes in, and VotersFrom where they come
	// from: the last VotersRecord (log or snapshot), quorum-state's
	// currentVoters (a static quorum), or the last LeaderChange; "" when
	// none says.
	Voters     []model.Voter `json:"voters"`
	VotersFrom string        `json:"votersFrom"`
	Integrity  Integrity     `json:"integrity"`
	// Problem is check's finding behind a verdict other than clean: the
	// first damage, or the torn tail, with file, byte position and offset.
	Problem *model.Finding `json:"problem,omitempty"`

	batches []batchRef
	files   []string
	root    string
}

// batchRef is a usable segment batch, kept small: a log holds millions.
type batchRef struct {
	base, last, pos int64
	epoch           int32
	crc             uint32
	file            int32
}

func (c *Copy) at(b batchRef) *BatchAt {
	return &BatchAt{File: c.files[b.file], Position: b.pos, BaseOffset: b.base, LastOffset: b.last, Epoch: b.epoch, CRC: b.crc}
}

// Divergence is the first offset two copies both hold where their batches
// differ (base offset, last offset, epoch or CRC).
type Divergence struct {
	// A and B are indexes in SurveyResult.Copies, A < B.
	A      int   `json:"a"`
	B      int   `json:"b"`
	Offset int64 `json:"offset"`
	// AtA and AtB are each copy's batch holding Offset.
	AtA *BatchAt `json:"atA"`
	AtB *BatchAt `json:"atB"`
	// Committed is set when Offset is below a copy's CommittedEnd: the
	// copies disagree on a committed record, which Raft never allows.
	Committed bool `json:"committed"`
}

// Range is offsets [From, To) that a rebuild from the best copy gives up:
// only copy Copy holds them (Diverged: it holds different records there
// than the best copy does).
type Range struct {
	Copy     int    `json:"copy"`
	Dir      string `json:"dir"`
	From     int64  `json:"from"`
	To       int64  `json:"to"`
	Diverged bool   `json:"diverged"`
}

// SurveyResult is Survey's answer.
type SurveyResult struct {
	// Copies are in the order given.
	Copies []Copy `json:"copies"`
	// Best is the index of the copy to rebuild from: Raft's vote rule
	// (highest last epoch, then highest end offset). Tied lists the other
	// copies equal to it by the rule, and BestRule says how it was chosen.
	Best     int    `json:"best"`
	Tied     []int  `json:"tied"`
	BestRule string `json:"bestRule"`
	// Agree is set when every pair of copies holds the same batches at
	// every offset both hold; Divergences lists the first differing
	// offset of each pair that does not.
	Agree       bool         `json:"agree"`
	Divergences []Divergence `json:"divergences"`
	// CommittedEnd is the highest CommittedEnd of the copies.
	CommittedEnd int64 `json:"committedEnd"`
	// GivenUp are the offsets only other copies hold, per copy (none when
	// the best copy is the most advanced and agrees with every other).
	GivenUp []Range `json:"givenUp"`
	// CleanRebuild: no two copies diverge and the best copy is undamaged;
	// NotClean says why not.
	CleanRebuild bool            `json:"cleanRebuild"`
	NotClean     []string        `json:"notClean"`
	Findings     []model.Finding `json:"findings"`
}

// Failing says whether the survey calls for exit 1: a rebuild would not be
// clean, or a finding at warning or above (divergence, damage, a copy
// behind the best).
func (r *SurveyResult) Failing() bool {
	return !r.CleanRebuild || model.CountSeverity(r.Findings, model.SevError)+model.CountSeverity(r.Findings, model.SevWarning) > 0
}

// Survey reads each dir (a controller's or a broker's metadata log dir,
// or its __cluster_metadata-0 dir) read-only, through metalog's check, and
// compares them: which copy a quorum rebuild should start from, what it
// would give up, and whether it can be clean. Copies of one node taken at
// different moments are fine. It fails only when a dir cannot be read,
// holds no metadata log, is given twice, or belongs to another cluster.
func Survey(dirs []string) (*SurveyResult, error) {
	ds := make([]*metalog.LogDir, 0, len(dirs))
	for _, dir := range dirs {
		d, err := metalog.OpenLogDir(dir)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return SurveyLogDirs(ds)
}

// SurveyLogDirs is Survey on dirs already opened with metalog.OpenLogDir.
func SurveyLogDirs(dirs []*metalog.LogDir) (*SurveyResult, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("quorum: no metadata log dir given")
	}
	res := &SurveyResult{Copies: make([]Copy, 0, len(dirs)), Tied: []int{}, Divergences: []Divergence{},
		GivenUp: []Range{}, NotClean: []string{}, Findings: []model.Finding{}}
	seen := map[string]string{}
	cluster, clusterDir := "", ""
	for _, d := range dirs {
		dir := d.Path
		c, err := scanCopy(d)
		if err != nil {
			return nil, err
		}
		// The same dir by another spelling, or a root and its partition
		// dir, is one copy.
		key := c.root
		if key == "" {
			key = dir
		}
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s and %s are the same copy: give each metadata log dir once", prev, dir)
		}
		seen[key] = dir
		if c.ClusterID != "" {
			if cluster != "" && c.ClusterID != cluster {
				return nil, fmt.Errorf("%s belongs to cluster %s and %s to cluster %s: give copies of one cluster's metadata log", clusterDir, cluster, dir, c.ClusterID)
			}
			cluster, clusterDir = c.ClusterID, dir
		}
		res.Copies = append(res.Copies, *c)
		res.CommittedEnd = max(res.CommittedEnd, c.CommittedEnd)
	}
	res.chooseBest()
	res.compare()
	res.givenUp()
	res.inferRoles()
	mps := map[string]*metalog.MetaProperties{}
	for _, d := range dirs {
		mps[d.Path] = d.MetaProperties
	}
	res.metaPropertiesFindings(mps)
	res.judge()
	return res, nil
}

// voteRank orders copies by Raft's vote rule: last epoch, then end offset.
func voteRank(a, b *Copy) int {
	if c := cmp.Compare(a.LastEpoch, b.LastEpoch); c != 0 {
		return c
	}
	return cmp.Compare(a.EndOffset, b.EndOffset)
}

// chooseBest applies the vote rule. Copies equal by it hold the same log
// end, so the choice among them matters only for what they hold besides:
// an undamaged copy first, then a voter's (its quorum-state is a voter's),
// then the first given.
func (r *SurveyResult) chooseBest() {
	best := 0
	for i := 1; i < len(r.Copies); i++ {
		if voteRank(&r.Copies[i], &r.Copies[best]) > 0 {
			best = i
		}
	}
	var tied []int
	for i := range r.Copies {
		if voteRank(&r.Copies[i], &r.Copies[best]) == 0 {
			tied = append(tied, i)
		}
	}
	// Voters are known only once the best is: rank voters by the voter
	// set any tied copy believes in (they agree when the copies do).
	voters := map[int32]bool{}
	for _, i := range tied {
		for _, v := range r.Copies[i].Voters {
			voters[v.ID] = true
		}
	}
	tieRank := func(i int) int {
		c := &r.Copies[i]
		rank := 0
		if c.Integrity == IntegrityDamaged {
			rank += 2
		}
		if !voters[c.NodeID] {
			rank++
		}
		return rank
	}
	best = slices.MinFunc(tied, func(a, b int) int {
		if c := cmp.Compare(tieRank(a), tieRank(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	r.Best = best
	b := &r.Copies[best]
	r.BestRule = fmt.Sprintf("Raft's vote rule: the highest last epoch (%d), then the highest end offset (%d)", b.LastEpoch, b.EndOffset)
	for _, i := range tied {
		if i != best {
			r.Tied = append(r.Tied, i)
		}
	}
	if len(r.Tied) > 0 {
		names := make([]string, len(r.Tied))
		for k, i := range r.Tied {
			names[k] = r.Copies[i].Dir
		}
		r.BestRule += fmt.Sprintf("; tied with %s, broken by: undamaged first, then a voter's copy, then the first given", strings.Join(names, ", "))
	}
}

// compare walks every pair of copies' usable segment batches by offset
// and records the first batch both hold that differs.
func (r *SurveyResult) compare() {
	for i := range r.Copies {
		for j := i + 1; j < len(r.Copies); j++ {
			if d, ok := firstDifference(&r.Copies[i], &r.Copies[j]); ok {
				d.A, d.B = i, j
				d.Committed = d.Offset < r.CommittedEnd
				r.Divergences = append(r.Divergences, d)
			}
		}
	}
	r.Agree = len(r.Divergences) == 0
}

func firstDifference(a, b *Copy) (Divergence, bool) {
	i, j := 0, 0
	for i < len(a.batches) && j < len(b.batches) {
		x, y := a.batches[i], b.batches[j]
		switch {
		case x.last < y.base: // only a holds it (b's log starts later)
			i++
		case y.last < x.base:
			j++
		case x.base != y.base || x.last != y.last || x.epoch != y.epoch || x.crc != y.crc:
			return Divergence{Offset: max(x.base, y.base), AtA: a.at(x), AtB: b.at(y)}, true
		default:
			i++
			j++
		}
	}
	return Divergence{}, false
}

func (r *SurveyResult) divergence(a, b int) (Divergence, bool) {
	if a > b {
		a, b = b, a
	}
	for _, d := range r.Divergences {
		if d.A == a && d.B == b {
			return d, true
		}
	}
	return Divergence{}, false
}

// givenUp lists, per other copy, the offsets it holds that the best copy
// does not hold as it does: past the best copy's end, or from where the
// two diverge.
func (r *SurveyResult) givenUp() {
	best := &r.Copies[r.Best]
	for i := range r.Copies {
		if i == r.Best {
			continue
		}
		c := &r.Copies[i]
		from, diverged := best.EndOffset, false
		if d, ok := r.divergence(r.Best, i); ok {
			from, diverged = d.Offset, true
		}
		if c.EndOffset > from {
			r.GivenUp = append(r.GivenUp, Range{Copy: i, Dir: c.Dir, From: from, To: c.EndOffset, Diverged: diverged})
		}
	}
}

// brokerFiles are what a broker's LogManager writes in each of its log
// dirs; a dedicated controller's raft log has no LogManager.
var brokerFiles = []string{"recovery-point-offset-checkpoint", "replication-offset-checkpoint",
	"log-start-offset-checkpoint", "cleaner-offset-checkpoint", ".kafka_cleanshutdown"}

// partitionDir is a topic partition's dir name (topic-N, also when marked
// for deletion or a future replica).
var partitionDir = regexp.MustCompile(`^.+-[0-9]+(\.[0-9a-f]+-(delete|future|stray))?$`)

func brokerEvidence(root string) string {
	if root == "" {
		return ""
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if !e.IsDir() && slices.Contains(brokerFiles, e.Name()) {
			return e.Name()
		}
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != metalog.MetadataPartitionDir && partitionDir.MatchString(e.Name()) {
			return "partition dir " + e.Name()
		}
	}
	return ""
}

// inferRoles names each copy's role from the best copy's voter set and
// the dir's own files.
func (r *SurveyResult) inferRoles() {
	voters := map[int32]bool{}
	from := r.Copies[r.Best].VotersFrom
	for _, v := range r.Copies[r.Best].Voters {
		voters[v.ID] = true
	}
	if len(voters) == 0 {
		for _, c := range r.Copies {
			if len(c.Voters) > 0 {
				for _, v := range c.Voters {
					voters[v.ID] = true
				}
				from = c.VotersFrom + " of " + c.Dir
				break
			}
		}
	}
	for i := range r.Copies {
		c := &r.Copies[i]
		voter := c.NodeID >= 0 && voters[c.NodeID]
		broker := brokerEvidence(c.root)
		switch {
		case voter && broker != "":
			c.Role, c.RoleEvidence = RoleCombined, fmt.Sprintf("node %d is a voter (%s) and the dir holds %s", c.NodeID, from, broker)
		case voter:
			c.Role, c.RoleEvidence = RoleController, fmt.Sprintf("node %d is a voter (%s)", c.NodeID, from)
		case broker != "":
			c.Role, c.RoleEvidence = RoleBroker, "the dir holds "+broker
		case c.NodeID < 0 && c.Integrity == IntegrityDamaged && c.Problem != nil && c.Problem.Where != nil && filepath.Base(c.Problem.Where.File) == metalog.MetaPropertiesFileName:
			c.Role, c.RoleEvidence = RoleUnknown, "meta.properties cannot be read: "+c.Problem.Message
		case c.NodeID < 0:
			c.Role, c.RoleEvidence = RoleUnknown, "no meta.properties node id"
		case len(voters) == 0:
			c.Role, c.RoleEvidence = RoleUnknown, "no copy names the voters, and the dir holds no broker data"
		default:
			c.Role, c.RoleEvidence = RoleUnknown, fmt.Sprintf("node %d is not a voter and the dir holds no broker data: a broker with its own metadata.log.dir, or a controller outside the voter set", c.NodeID)
		}
	}
}

func (r *SurveyResult) add(code, entity, fix string, where *model.Location, format string, args ...any) {
	r.Findings = append(r.Findings, newFinding(code, entity, fix, where, format, args...))
}

func copyEntity(c *Copy) string {
	if c.NodeID >= 0 {
		return fmt.Sprintf("copy %s (node %d)", c.Dir, c.NodeID)
	}
	return "copy " + c.Dir
}

func batchText(b *BatchAt) string {
	return fmt.Sprintf("%s position %d (batch %d-%d, epoch %d, crc %d)", b.File, b.Position, b.BaseOffset, b.LastOffset, b.Epoch, b.CRC)
}

// judge makes the findings and the clean-rebuild verdict.
func (r *SurveyResult) judge() {
	best := &r.Copies[r.Best]
	for i := range r.Copies {
		c := &r.Copies[i]
		entity := copyEntity(c)
		switch c.Integrity {
		case IntegrityDamaged:
			r.add(CodeCopyDamaged, entity, "", c.Problem.Where,
				"damaged (%s: %s): usable only up to offset %d (epoch %d); the %d offsets after it are not", c.Problem.Code, c.Problem.Message, c.EndOffset, c.LastEpoch, max(c.WrittenEndOffset-c.EndOffset, 0))
		case IntegrityTornTail:
			r.add(CodeCopyTornTail, entity, "", c.Problem.Where,
				"the last segment ends inside a batch (%s), as a crash or a copy taken while Kafka appends leaves it; Kafka truncates it, the copy ends at offset %d", c.Problem.Message, c.EndOffset)
		}
		if i != r.Best && voteRank(c, best) < 0 {
			r.add(CodeCopyBehind, entity, "", nil,
				"behind the best copy %s: last epoch %d and end offset %d against %d and %d", best.Dir, c.LastEpoch, c.EndOffset, best.LastEpoch, best.EndOffset)
		}
	}
	for _, d := range r.Divergences {
		a, b := &r.Copies[d.A], &r.Copies[d.B]
		what := "above every snapshot's end, so not known committed: an uncommitted tail Raft would truncate on the copy that lost the election"
		if d.Committed {
			what = fmt.Sprintf("below offset %d, which a snapshot shows committed: Raft never lets committed records differ", r.CommittedEnd)
		}
		w := model.At(d.AtA.File, d.AtA.Position, d.Offset)
		f := newFinding(CodeCopiesDiverge, copyEntity(a), "", &w,
			"%s and %s differ from offset %d on (%s): %s against %s", a.Dir, b.Dir, d.Offset, what, batchText(d.AtA), batchText(d.AtB))
		if d.Committed {
			f = checkOf(CodeCopiesDiverge).Escalate(f)
		}
		r.Findings = append(r.Findings, f)
	}
	for _, g := range r.GivenUp {
		c := &r.Copies[g.Copy]
		how := "only it holds them"
		if g.Diverged {
			how = "it holds other records there than the best copy"
		}
		r.add(CodeRebuildGivesUp, copyEntity(c), "", nil,
			"a rebuild from %s gives up offsets %d to %d of %s: %s", best.Dir, g.From, g.To-1, c.Dir, how)
	}
	// A voter whose own dir is given but whose directory id is not the
	// voter set's (kraft.version 1): the mismatch that stops Kafka from
	// counting it as that voter.
	if best.KRaftVersion >= 1 {
		for _, v := range best.Voters {
			for i := range r.Copies {
				c := &r.Copies[i]
				if c.NodeID == v.ID && c.DirectoryID != nil && *c.DirectoryID != v.DirectoryID {
					r.Findings = append(r.Findings, voters.DirectoryIDMismatch(v.ID, v.DirectoryID, c.Dir, *c.DirectoryID))
				}
			}
		}
	}
	if !r.Agree {
		r.NotClean = append(r.NotClean, fmt.Sprintf("%d pair(s) of copies diverge", len(r.Divergences)))
	}
	if best.Integrity == IntegrityDamaged {
		r.NotClean = append(r.NotClean, fmt.Sprintf("the best copy %s is damaged", best.Dir))
	}
	r.CleanRebuild = len(r.NotClean) == 0
	model.SortFindings(r.Findings)
}

// scanner gathers a copy's batches and raft control records while
// metalog's checker reads its files.
type scanner struct {
	c *Copy
	// segDamaged: the segment chain met damage; later batches are past
	// the point Kafka's recovery truncates to.
	segDamaged bool
	segLast    batchRef
	haveSeg    bool
	// voters and kraft.version seen in the usable log, with their offsets;
	// per snapshot file those of its control batch.
	voters     []model.Voter
	votersAt   int64
	haveVoters bool
	kraft      int16
	kraftAt    int64
	haveKraft  bool
	snapCtl    map[string]snapControl
}

type snapControl struct {
	voters     []model.Voter
	haveVoters bool
	kraft      int16
	haveKraft  bool
}

func scanCopy(d *metalog.LogDir) (*Copy, error) {
	dir := d.Path
	if d.Root == "" && d.PartitionDir == "" {
		return nil, fmt.Errorf("%s is a file: give a metadata log dir (the dir holding meta.properties and %s/)", dir, metalog.MetadataPartitionDir)
	}
	c := &Copy{Dir: dir, NodeID: -1, LogStartOffset: d.LogStartOffset(), QuorumState: d.QuorumState,
		LeaderChanges: []LeaderChange{}, Voters: []model.Voter{}, root: d.Root, Role: RoleUnknown}
	if mp := d.MetaProperties; mp != nil {
		c.NodeID, c.ClusterID = mp.NodeID, mp.ClusterID
		if mp.HasDirectoryID {
			id := mp.DirectoryID
			c.DirectoryID = &id
		}
	}
	s := &scanner{c: c, snapCtl: map[string]snapControl{}}
	chk := metalog.NewChecker(d, metalog.CheckOptions{Strict: true})
	segs := d.Segments
	for _, f := range d.DataFiles() {
		chk.BeginFile(f)
		err := s.file(chk, f)
		if err != nil && f.Kind == metalog.KindSegment &&
			!(errors.Is(err, metalog.ErrTornTail) && f.Path == segs[len(segs)-1].Path) {
			s.segDamaged = true
		}
		chk.EndFile(err)
	}
	rep := chk.Report()
	c.WrittenEndOffset = rep.LogEndOffset
	c.Integrity = IntegrityClean
	if dmg := rep.Damage(); dmg != nil {
		c.Integrity, c.Problem = IntegrityDamaged, dmg
	} else if i := slices.IndexFunc(rep.Findings, func(f model.Finding) bool { return f.Code == metalog.KindTornTail }); i >= 0 {
		c.Integrity, c.Problem = IntegrityTornTail, &rep.Findings[i]
	}
	s.finish(d, rep)
	return c, nil
}

// file reads one data file through the checker; it returns the reader's
// terminal error (nil at a clean end).
func (s *scanner) file(chk *metalog.Checker, f metalog.DataFile) error {
	r, err := metalog.OpenReader(f.Path, metalog.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	fileIdx := int32(len(s.c.files))
	s.c.files = append(s.c.files, f.Path)
	snapBad := false
	var ctl snapControl
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, metalog.ErrCRC) {
			return err
		}
		damaged := chk.Batch(b, err)
		switch f.Kind {
		case metalog.KindSegment:
			if damaged {
				s.segDamaged = true
			}
			if s.segDamaged {
				continue
			}
			ref := batchRef{base: b.BaseOffset, last: b.LastOffset(), pos: b.Position, epoch: b.PartitionLeaderEpoch, crc: b.CRC, file: fileIdx}
			s.c.batches = append(s.c.batches, ref)
			s.segLast, s.haveSeg = ref, true
			if b.IsControl() {
				s.segmentControl(f, b)
			}
		case metalog.KindSnapshot:
			if damaged {
				snapBad = true
			}
			if !snapBad && b.IsControl() {
				controls(b, func(_ int64, m records.Control) {
					switch m := m.(type) {
					case *records.VotersRecord:
						ctl.voters, ctl.haveVoters = votersOf(m), true
					case *records.KRaftVersionRecord:
						ctl.kraft, ctl.haveKraft = m.KRaftVersion, true
					}
				})
			}
		}
	}
	if f.Kind == metalog.KindSnapshot && !snapBad {
		s.snapCtl[f.Path] = ctl
	}
	return nil
}

// controls calls fn with each raft control record of a control batch
// that decodes (an undecodable one is check's to report).
func controls(b *metalog.Batch, fn func(offset int64, m records.Control)) {
	it := b.Records()
	for it.Next() {
		rec := it.Record()
		if _, m, err := records.DecodeControl(rec.Key, rec.Value); err == nil {
			fn(rec.Offset, m)
		}
	}
}

func votersOf(m *records.VotersRecord) []model.Voter {
	vs := make([]model.Voter, 0, len(m.Voters))
	for _, v := range m.Voters {
		mv := model.Voter{ID: v.VoterId, DirectoryID: v.VoterDirectoryId}
		for _, e := range v.Endpoints {
			mv.Endpoints = append(mv.Endpoints, model.Endpoint{Name: e.Name, Host: e.Host, Port: e.Port})
		}
		vs = append(vs, mv)
	}
	return vs
}

func (s *scanner) segmentControl(f metalog.DataFile, b *metalog.Batch) {
	controls(b, func(off int64, m records.Control) {
		switch m := m.(type) {
		case *records.LeaderChangeMessage:
			lc := LeaderChange{Offset: off, Epoch: b.PartitionLeaderEpoch, LeaderID: m.LeaderId,
				Voters: []int32{}, GrantingVoters: []int32{}, File: f.Path, Position: b.Position}
			for _, v := range m.Voters {
				lc.Voters = append(lc.Voters, v.VoterId)
			}
			for _, v := range m.GrantingVoters {
				lc.GrantingVoters = append(lc.GrantingVoters, v.VoterId)
			}
			s.c.LeaderChanges = append(s.c.LeaderChanges, lc)
		case *records.VotersRecord:
			s.voters, s.votersAt, s.haveVoters = votersOf(m), off, true
		case *records.KRaftVersionRecord:
			s.kraft, s.kraftAt, s.haveKraft = m.KRaftVersion, off, true
		}
	})
}

// finish settles the copy's end, epoch, committed evidence and voters.
func (s *scanner) finish(d *metalog.LogDir, rep *metalog.Report) {
	c := s.c
	clean := func(path string) bool {
		return !slices.ContainsFunc(rep.Findings, func(f model.Finding) bool {
			return f.Severity == model.SevError && f.Where != nil && f.Where.File == path
		})
	}
	// The newest clean snapshot, and the one whose control records hold
	// the voters (the bootstrap snapshot 0-0 counts there: with
	// kraft.version 1 it holds the first voter set).
	var snap, ctlSnap *metalog.DataFile
	for i := len(d.Snapshots) - 1; i >= 0; i-- {
		f := &d.Snapshots[i]
		if f.Snapshot == nil || !clean(f.Path) {
			continue
		}
		if _, ok := s.snapCtl[f.Path]; ok && ctlSnap == nil {
			ctlSnap = f
		}
		if snap == nil && f.Snapshot.EndOffset > 0 {
			snap = f
		}
	}
	c.EndOffset, c.LastEpoch = 0, 0
	if s.haveSeg {
		c.EndOffset, c.LastEpoch = s.segLast.last+1, s.segLast.epoch
	}
	if snap != nil {
		id := *snap.Snapshot
		c.Snapshot, c.CommittedEnd = &id, id.EndOffset
		// Kafka restarts the log at a snapshot newer than it
		// (truncateToLatestSnapshot).
		if !s.haveSeg || id.Epoch > c.LastEpoch || (id.Epoch == c.LastEpoch && id.EndOffset > c.EndOffset) {
			c.EndOffset, c.LastEpoch = id.EndOffset, id.Epoch
		}
	}
	c.KRaftVersion = 0
	if ctlSnap != nil {
		at := ctlSnap.Snapshot.EndOffset - 1
		ctl := s.snapCtl[ctlSnap.Path]
		if ctl.haveVoters && (!s.haveVoters || s.votersAt < at) {
			s.voters, s.votersAt, s.haveVoters = ctl.voters, at, true
			c.VotersFrom = "VotersRecord in " + ctlSnap.Path
		}
		if ctl.haveKraft && (!s.haveKraft || s.kraftAt < at) {
			s.kraft, s.kraftAt, s.haveKraft = ctl.kraft, at, true
		}
	}
	if s.haveKraft {
		c.KRaftVersion = s.kraft
	}
	switch {
	case s.haveVoters:
		c.Voters = s.voters
		if c.VotersFrom == "" {
			c.VotersFrom = fmt.Sprintf("VotersRecord at offset %d", s.votersAt)
		}
	case c.QuorumState != nil && len(c.QuorumState.CurrentVoters) > 0:
		for _, v := range c.QuorumState.CurrentVoters {
			c.Voters = append(c.Voters, model.Voter{ID: v.VoterID})
		}
		c.VotersFrom = "quorum-state"
	case len(c.LeaderChanges) > 0 && len(c.LeaderChanges[len(c.LeaderChanges)-1].Voters) > 0:
		lc := c.LeaderChanges[len(c.LeaderChanges)-1]
		for _, id := range lc.Voters {
			c.Voters = append(c.Voters, model.Voter{ID: id})
		}
		c.VotersFrom = fmt.Sprintf("LeaderChange at offset %d", lc.Offset)
	}
	slices.SortFunc(c.Voters, func(a, b model.Voter) int { return cmp.Compare(a.ID, b.ID) })
}
