package quorum

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// Errors of Rebuild. Each message names the file and offset it is about.
var (
	// ErrRefused: the rebuild would lose or invent committed metadata
	// (a copy further by the vote rule, a damaged copy, copies that
	// disagree on an offset they share).
	ErrRefused = errors.New("rebuild refused")
	// ErrBadInput: the options cannot describe a quorum.
	ErrBadInput = errors.New("bad rebuild input")
	// ErrTargetNotEmpty: an output dir holds files (use Force).
	ErrTargetNotEmpty = errors.New("target holds files")
)

// RebuildOptions describe a rebuild.
type RebuildOptions struct {
	// From is the chosen copy: a controller's or a broker's metadata log
	// dir (or its __cluster_metadata-0 dir). It is only read.
	From string
	// Others are the other copies still at hand: the rebuild is refused
	// when one is further than From by Raft's vote rule, or disagrees
	// with it on an offset both hold, unless AcceptLoss names the offsets
	// given up.
	Others []string
	// Controllers are the new quorum's voters (ID@HOST:PORT[:DIRECTORY_ID]).
	Controllers []controllers.Spec
	// AcceptLoss names the offsets given up, as the refusal prints them
	// ("FIRST-LAST", inclusive).
	AcceptLoss string
	// Release is the Kafka release the new controllers run ("": the
	// software the copy's registrations show): it chooses the record
	// versions (features' catalog).
	Release string
	// Out receives one metadata log dir per controller, controller-<id>.
	Out string
	// NewDirectoryID makes a fresh directory.id (tests fix it); default
	// random.
	NewDirectoryID func() model.UUID
}

// RebuildPlan is what Rebuild will write, as data: printed by --dry-run,
// executed by Write.
type RebuildPlan struct {
	Source    string `json:"source"`
	ClusterID string `json:"clusterId"`
	// EndOffset and Epoch are the copy's end (exclusive) and last epoch:
	// the snapshot id every controller gets.
	EndOffset       int64  `json:"endOffset"`
	Epoch           int32  `json:"epoch"`
	MetadataVersion string `json:"metadataVersion"`
	Catalog         string `json:"catalog"`
	// KRaftVersion 1 writes KRaftVersion and Voters control records in
	// the snapshot (a dynamic quorum); 0 writes none (static voters come
	// from controller.quorum.voters).
	KRaftVersion int16           `json:"kraftVersion"`
	Records      int64           `json:"records"`
	Controllers  []RebuildTarget `json:"controllers"`
	Loss         []Loss          `json:"loss"`
	Brokers      []SettingChange `json:"brokers"`
	Findings     []model.Finding `json:"findings"`
	img          *model.Image    `json:"-"`
	versions     metalog.RecordVersions
	// impliedLevel: the copy sets no metadata.version (a log before 3.3)
	// and is rebuilt as it is, at 3.0-IV1 (MetadataVersion says so).
	impliedLevel bool
	voters       []model.Voter
}

// RebuildTarget is one new controller's metadata log dir.
type RebuildTarget struct {
	ID          int32      `json:"id"`
	Endpoint    string     `json:"endpoint"`
	DirectoryID model.UUID `json:"directoryId"`
	Dir         string     `json:"dir"`
	Files       []string   `json:"files"`
}

// Loss is a range of offsets another copy holds and the rebuild gives up
// (accepted with AcceptLoss).
type Loss struct {
	Copy  string `json:"copy"`
	First int64  `json:"first"`
	Last  int64  `json:"last"`
	epoch int32
}

func (l Loss) String() string { return fmt.Sprintf("%d-%d", l.First, l.Last) }

// SettingChange is a setting every broker must change to reach the new
// quorum.
type SettingChange struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// copyPos is what the vote rule and the refusals look at in one copy.
type copyPos struct {
	path  string
	res   *metalog.ImageResult
	dir   *metalog.LogDir
	end   int64
	epoch int32
	// damage is the refusal of a damaged copy ("" when clean): the file,
	// offset and byte where it is, and what.
	damage string
	// damagedFile is the damaged file when the damage is the file as a
	// whole (meta.properties, quorum-state, a FIFO), not a batch in it.
	damagedFile string
}

func loadCopy(path string) (*copyPos, error) {
	d, err := metalog.OpenLogDir(path)
	if err != nil {
		return nil, err
	}
	res, err := metalog.LoadImageDir(d, metalog.ImageOptions{AtOffset: -1})
	if err != nil {
		return nil, err
	}
	c := &copyPos{path: path, res: res, dir: d, end: res.EndOffset, epoch: res.LastEpoch}
	if dmg := res.Damage; dmg != nil || res.Image.IsPartial() {
		where := "it"
		if dmg != nil && dmg.Where != nil {
			where = damageWhere(*dmg.Where)
			if dmg.Where.Offset < 0 {
				c.damagedFile = dmg.Where.File
			}
		} else if dmg == nil {
			for _, w := range res.Warnings {
				if model.Partial(w) && w.Where != nil {
					where = damageWhere(*w.Where)
					break
				}
			}
		}
		msg := "damaged"
		if dmg != nil {
			msg = dmg.Message
		}
		c.damage = fmt.Sprintf("the copy %s is damaged: %s: %s", path, where, msg)
	}
	return c, nil
}

// damageWhere says where a copy is damaged: a batch's offset and byte,
// or the file (with its line) when the damage is the file as a whole.
func damageWhere(l model.Location) string {
	if l.Offset >= 0 && l.Position >= 0 {
		return fmt.Sprintf("%s at offset %d (byte %d)", l.File, l.Offset, l.Position)
	}
	return l.String()
}

// checkCopies refuses a rebuild from the first of dirs (chosen, loaded)
// when it would give up records another copy, or the chosen copy itself,
// holds, unless acceptLoss names exactly the offsets given up; it returns
// the losses accepted. Records are given up when another copy is further
// by Raft's vote rule, when a damaged copy (the chosen one included)
// wrote offsets past where the chosen copy's usable log ends (its damage
// hides what they held), and never silently. Copies that disagree on an
// offset both hold are refused whatever acceptLoss says: a rebuild would
// pick a history. The copies are compared by Survey (end offsets and last
// epochs after Kafka's recovery, damage cut off, batch by batch
// divergence).
func checkCopies(dirs []string, chosenCopy *copyPos, acceptLoss string) ([]Loss, error) {
	chosenPath := dirs[0]
	sv, err := Survey(dirs)
	if err != nil {
		return nil, err
	}
	chosen := sv.Copies[0]
	for _, d := range sv.Divergences {
		if d.A != 0 && d.B != 0 {
			continue
		}
		return nil, fmt.Errorf("%w: the copies disagree at offset %d: %s holds a batch of epoch %d to offset %d (crc %d, byte %d), %s one of epoch %d to offset %d (crc %d, byte %d); one of them diverged and a rebuild would pick a history: compare them with kmeta quorum survey",
			ErrRefused, d.Offset, d.AtA.File, d.AtA.Epoch, d.AtA.LastOffset, d.AtA.CRC, d.AtA.Position,
			d.AtB.File, d.AtB.Epoch, d.AtB.LastOffset, d.AtB.CRC, d.AtB.Position)
	}
	end := chosenCopy.end
	var losses []Loss
	var why []string
	if chosenCopy.damage != "" {
		if chosenCopy.damagedFile != "" {
			return nil, fmt.Errorf("%w: %s; a rebuild needs a clean copy (kmeta log check names every damage): rebuild from another copy, or from a copy of this dir with %s repaired",
				ErrRefused, chosenCopy.damage, chosenCopy.damagedFile)
		}
		if chosen.WrittenEndOffset <= end {
			// Nothing past the usable end to name: the damage is in what
			// the image rests on, or hides how far the log goes (a
			// damaged batch length), so no offset range gives it up.
			return nil, fmt.Errorf("%w: %s; a rebuild needs a clean copy (kmeta log check names every damage); no --accept-loss range can name what the damage hides: rebuild from another copy, or from a copy of this dir whose damaged file is cut at the damage",
				ErrRefused, chosenCopy.damage)
		}
		l := Loss{Copy: chosenPath, First: end, Last: chosen.WrittenEndOffset - 1, epoch: chosen.LastEpoch}
		losses = append(losses, l)
		why = append(why, fmt.Sprintf("%s; its offsets %s are past the damage and a rebuild from it gives them up", chosenCopy.damage, l))
	}
	for _, o := range sv.Copies[1:] {
		further := o.LastEpoch > chosen.LastEpoch || o.LastEpoch == chosen.LastEpoch && o.EndOffset > chosen.EndOffset
		if further {
			// A higher epoch on a log no longer than the chosen one: the
			// records of that epoch are what the chosen copy lacks.
			first := end
			if o.EndOffset <= end {
				first = o.EndOffset - 1
			}
			l := Loss{Copy: o.Dir, First: first, Last: o.EndOffset - 1, epoch: o.LastEpoch}
			losses = append(losses, l)
			why = append(why, fmt.Sprintf("%s holds offsets %s (last epoch %d, end %d) that %s (last epoch %d, end %d) does not",
				l.Copy, l, l.epoch, l.Last+1, chosenPath, chosen.LastEpoch, chosen.EndOffset))
		}
		if o.Integrity == IntegrityDamaged && o.WrittenEndOffset > max(end, o.EndOffset) {
			// What a damaged copy wrote past its damage cannot be read,
			// and may be records the chosen copy lacks.
			l := Loss{Copy: o.Dir, First: max(end, o.EndOffset), Last: o.WrittenEndOffset - 1, epoch: o.LastEpoch}
			losses = append(losses, l)
			why = append(why, fmt.Sprintf("%s is damaged (%s at %s) and wrote offsets %s that %s (end %d) does not hold",
				o.Dir, o.Problem.Code, locText(o.Problem.Where), l, chosenPath, end))
		}
	}
	if len(losses) > 0 {
		lo, hi := losses[0].First, losses[0].Last
		for _, l := range losses {
			lo, hi = min(lo, l.First), max(hi, l.Last)
		}
		want := fmt.Sprintf("%d-%d", lo, hi)
		switch acceptLoss {
		case want:
			return losses, nil
		case "":
			return nil, fmt.Errorf("%w: %s; rebuild from the copy further by Raft's vote rule, or give --accept-loss %s to give those offsets up",
				ErrRefused, strings.Join(why, "; "), want)
		}
		return nil, fmt.Errorf("%w: --accept-loss %s does not name the offsets this rebuild gives up, %s (%s); give --accept-loss %s to give exactly those up",
			ErrRefused, acceptLoss, want, strings.Join(why, "; "), want)
	}
	if acceptLoss != "" {
		return nil, fmt.Errorf("%w: --accept-loss %s given, but no copy holds records %s lacks", ErrBadInput, acceptLoss, chosenPath)
	}
	return nil, nil
}

// locText names a finding's place: file, byte position and offset.
func locText(w *model.Location) string {
	if w == nil {
		return "an unknown place"
	}
	return fmt.Sprintf("%s byte %d offset %d", w.File, w.Position, w.Offset)
}

// PlanRebuild reads the copies and plans the new quorum. It writes
// nothing.
func PlanRebuild(o RebuildOptions) (*RebuildPlan, error) {
	if o.From == "" {
		return nil, fmt.Errorf("%w: no copy to rebuild from (--from)", ErrBadInput)
	}
	if len(o.Controllers) == 0 {
		return nil, fmt.Errorf("%w: no controllers (--controllers ID@HOST:PORT[:DIRECTORY_ID],...)", ErrBadInput)
	}
	if o.Out == "" {
		return nil, fmt.Errorf("%w: no output directory (--out)", ErrBadInput)
	}
	if err := outsideInputs(o.Out, append([]string{o.From}, o.Others...)); err != nil {
		return nil, err
	}
	chosen, err := loadCopy(o.From)
	if err != nil {
		return nil, err
	}
	losses, err := checkCopies(append([]string{o.From}, o.Others...), chosen, o.AcceptLoss)
	if err != nil {
		return nil, err
	}
	if chosen.end < 0 {
		return nil, fmt.Errorf("%w: the copy %s holds no metadata", ErrRefused, o.From)
	}
	img := chosen.res.Image
	// A log written before 3.3 sets no metadata.version: Kafka reads it
	// as 3.0-IV1, and so is it rebuilt (the snapshot, as the log, holds
	// no level: a 3.x controller reads it the same way).
	mv, implied := features.MetadataVersionOf(img)
	if mv == 0 {
		return nil, fmt.Errorf("%w: %s holds no record up to offset %d: nothing to rebuild from", ErrRefused, o.From, chosen.end-1)
	}

	var cat *features.Catalog
	switch {
	case o.Release != "":
		if cat, err = features.CatalogFor(o.Release); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
	case implied:
		// Only the 3.x line loads a log below 3.3-IV3.
		cat, _ = features.CatalogFor("3.9")
	default:
		cat, _ = features.CatalogForImage(img)
	}
	lvl, ok := cat.ByLevel(mv)
	if !ok {
		return nil, fmt.Errorf("%w: metadata.version %d is not a level of Kafka %s", ErrRefused, mv, cat.Software)
	}
	clusterID := img.ClusterID
	if mp := chosen.dir.MetaProperties; mp != nil && mp.ClusterID != "" {
		if mp.ClusterIDProblem != nil {
			// Every new controller would get it, and every broker refuse
			// them.
			return nil, fmt.Errorf("%w: %s: %v; the brokers' meta.properties hold the cluster's id: repair the copy's meta.properties first", ErrRefused, o.From, mp.ClusterIDProblem)
		}
		clusterID = mp.ClusterID
	}
	if clusterID == "" {
		return nil, fmt.Errorf("%w: %s has no meta.properties with a cluster.id", ErrRefused, o.From)
	}
	p := &RebuildPlan{Source: o.From, ClusterID: clusterID, EndOffset: chosen.end, Epoch: chosen.epoch,
		MetadataVersion: lvl.Name, Catalog: cat.Software, Loss: losses, Brokers: []SettingChange{}, Findings: []model.Finding{},
		img: img, versions: func(k int16) (int16, bool) { return cat.RecordVersion(mv, k) }, impliedLevel: implied}
	if p.Loss == nil {
		p.Loss = []Loss{}
	}
	var oldVoters []model.Voter
	listener := controllers.Listener
	if q := img.Quorum; q != nil {
		p.KRaftVersion = q.KRaftVersion
		oldVoters = q.Voters
		for _, v := range q.Voters {
			if len(v.Endpoints) > 0 {
				listener = v.Endpoints[0].Name
				break
			}
		}
	}
	newID := o.NewDirectoryID
	if newID == nil {
		newID = randomDirectoryID
	}
	for _, c := range o.Controllers {
		dirID := c.DirectoryID
		if !c.DirectoryGiven {
			dirID = newID()
		}
		t := RebuildTarget{ID: c.ID, Endpoint: c.Host + ":" + strconv.Itoa(c.Port), DirectoryID: dirID,
			Dir: controllers.Dir(o.Out, c.ID)}
		t.Files = []string{metalog.MetaPropertiesFileName,
			filepath.Join(metalog.MetadataPartitionDir, metalog.SnapshotID{EndOffset: p.EndOffset, Epoch: p.Epoch}.FileName())}
		if sameDir(t.Dir, o.From) || slices.ContainsFunc(o.Others, func(s string) bool { return sameDir(t.Dir, s) }) {
			return nil, fmt.Errorf("%w: %s is a source copy; the rebuild never writes over a source", ErrBadInput, t.Dir)
		}
		p.Controllers = append(p.Controllers, t)
		p.voters = append(p.voters, model.Voter{ID: c.ID, DirectoryID: dirID,
			Endpoints: []model.Endpoint{{Name: listener, Host: c.Host, Port: uint16(c.Port)}}})
	}
	// Count what the snapshot will hold, and fail now on what the level
	// cannot express, not halfway through the writes.
	err = metalog.ImageRecords(img, metalog.ImageRecordOptions{Versions: p.versions, Snapshot: true, ImpliedLevel: implied}, func(m records.Metadata) error {
		if _, ok := p.versions(m.APIKey()); !ok {
			return fmt.Errorf("%w: %T at metadata.version %s", metalog.ErrCannotWrite, m, lvl.Name)
		}
		p.Records++
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.Brokers = brokerSettings(p.KRaftVersion, oldVoters, img, o.Controllers)
	return p, nil
}

// brokerSettings says what brokers must change: nothing when the new
// voters are the old ones at the same endpoints; else the one setting
// the quorum's kind reads (controller.quorum.voters for a static quorum,
// controller.quorum.bootstrap.servers for a dynamic one).
func brokerSettings(kraftVersion int16, old []model.Voter, img *model.Image, cs []controllers.Spec) []SettingChange {
	oldEndpoint := func(v model.Voter) (string, bool) {
		eps := v.Endpoints
		if len(eps) == 0 {
			// Static voters' endpoints live in the config, not the log; the
			// controller's registration names its listeners.
			if c := img.Controllers[v.ID]; c != nil {
				eps = c.Endpoints
			}
		}
		if len(eps) == 0 {
			return "", false
		}
		return eps[0].Host + ":" + strconv.Itoa(int(eps[0].Port)), true
	}
	same := len(old) == len(cs)
	var oldVoters, oldServers []string
	for _, v := range old {
		ep, ok := oldEndpoint(v)
		if !ok {
			ep = "?"
			same = false
		}
		oldVoters = append(oldVoters, fmt.Sprintf("%d@%s", v.ID, ep))
		oldServers = append(oldServers, ep)
		i := slices.IndexFunc(cs, func(c controllers.Spec) bool { return c.ID == v.ID })
		if i < 0 || cs[i].Host+":"+strconv.Itoa(cs[i].Port) != ep {
			same = false
		}
	}
	if same {
		return []SettingChange{}
	}
	if kraftVersion >= 1 {
		return []SettingChange{{Name: "controller.quorum.bootstrap.servers", From: strings.Join(oldServers, ","), To: controllers.BootstrapServers(cs)}}
	}
	return []SettingChange{{Name: "controller.quorum.voters", From: strings.Join(oldVoters, ","), To: controllers.Voters(cs)}}
}

// outsideInputs refuses an output dir that is an input copy or lies
// inside one (a rebuild would write into a surviving copy), whatever the
// spelling: both are compared once symlinks are resolved, as far as the
// output path exists.
func outsideInputs(out string, inputs []string) error {
	o := resolvePath(out)
	for _, in := range inputs {
		i := resolvePath(in)
		if rel, err := filepath.Rel(i, o); err == nil && (rel == "." || rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
			return fmt.Errorf("%w: --out %s is inside the copy %s; the rebuild never writes into a source: give an output dir outside every copy", ErrBadInput, out, in)
		}
	}
	return nil
}

// resolvePath is path made absolute with symlinks resolved in the part
// of it that exists (the rest, not yet created, is appended as given).
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// randomDirectoryID is a fresh directory.id as Kafka makes one: random,
// not one of the reserved ids (the first 100), not starting with '-'.
func randomDirectoryID() model.UUID {
	for {
		var u model.UUID
		if _, err := rand.Read(u[:]); err != nil {
			panic(err) // crypto/rand never fails on Linux
		}
		if s := u.String(); !strings.HasPrefix(s, "-") && !reservedID(u) {
			return u
		}
	}
}

func reservedID(u model.UUID) bool {
	for _, b := range u[:15] {
		if b != 0 {
			return false
		}
	}
	return u[15] < 100
}

// WriteOptions say how Write writes.
type WriteOptions struct {
	// Force writes into output dirs that hold files, replacing kmeta's.
	Force bool
	// DryRun writes nothing.
	DryRun bool
}

// View is the image the plan rebuilds from (its brokers, partitions and
// their leaders), for what follows the rebuild (the brokers' roll).
func (p *RebuildPlan) View() *model.Image { return p.img }

// Write writes each controller's metadata log dir: the snapshot first,
// then meta.properties, which makes the dir "formatted" for Kafka (a
// crash between leaves a dir Kafka refuses to start on, and a rerun with
// Force completes it). Every file is written atomically.
func (p *RebuildPlan) Write(o WriteOptions) error {
	if p.img == nil {
		return fmt.Errorf("%w: the plan was not made by PlanRebuild", ErrBadInput)
	}
	for _, t := range p.Controllers {
		if err := checkTarget(t.Dir, o.Force); err != nil {
			return err
		}
	}
	if o.DryRun {
		return nil
	}
	var hdr []metalog.ControlRecord
	if p.KRaftVersion >= 1 {
		var err error
		if hdr, err = metalog.VotersControlRecords(p.voters); err != nil {
			return err
		}
	}
	ts := p.img.Provenance.Timestamp.UnixMilli()
	if p.img.Provenance.Timestamp.IsZero() {
		ts = 0
	}
	for _, t := range p.Controllers {
		part := filepath.Join(t.Dir, metalog.MetadataPartitionDir)
		if err := metalog.MkdirAll(part, 0o755); err != nil {
			return err
		}
		snap := filepath.Join(t.Dir, t.Files[1])
		if _, err := metalog.WriteImageSnapshot(snap, p.img, p.versions, metalog.SnapshotOptions{Epoch: p.Epoch, Timestamp: ts,
			LastContainedLogTimestamp: ts, HeaderRecords: hdr, ImpliedLevel: p.impliedLevel, Write: metalog.WriteOptions{Overwrite: o.Force}}); err != nil {
			return err
		}
		meta := javaprops.Format("Written by kmeta quorum rebuild from "+p.Source, map[string]string{
			"version": "1", "node.id": strconv.Itoa(int(t.ID)), "cluster.id": p.ClusterID, "directory.id": t.DirectoryID.String()})
		f, err := metalog.CreateAtomic(filepath.Join(t.Dir, metalog.MetaPropertiesFileName), metalog.WriteOptions{Overwrite: o.Force})
		if err != nil {
			return err
		}
		if _, err := f.Write(meta); err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// checkTarget refuses an output dir that holds anything, unless force.
func checkTarget(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 && !force {
		return fmt.Errorf("%w: %s holds %s (use --force to write beside it)", ErrTargetNotEmpty, dir, ents[0].Name())
	}
	return nil
}
