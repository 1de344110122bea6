package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// ApplyOptions say where and how apply writes.
type ApplyOptions struct {
	// Out is the directory that receives one metadata log dir per
	// controller, named controller-<id>.
	Out string
	// Nodes limits apply to these controller ids (all when empty).
	Nodes []int32
	// Force replaces files that hold other content and accepts
	// controller dirs holding other files.
	Force  bool
	DryRun bool
	// Progress, when set, is told the bytes written so far and the bytes
	// to write in all (files left as they are count as written).
	Progress func(done, total int64)
	// FileHook, when set, is called at every file boundary.
	FileHook FileHook
}

// ReplanOptions are what Replan takes besides the image and the old plan:
// what the plan file cannot hold (the secret) or what describes this read.
type ReplanOptions struct {
	Source string
	// SourceFile is Options.SourceFile.
	SourceFile            string
	Live                  bool
	PasswordEncoderSecret string
	ZKDataDirs            []ZKDataDir
	Progress              func(done, total int64)
}

// Replan recomputes a plan read from a file against the image its source
// holds now. It fails with ErrSourceChanged when ZooKeeper moved on or the
// records differ: apply executes exactly the plan that was printed.
func Replan(img *model.Image, old *Plan, ro ReplanOptions) (*Plan, error) {
	if old.Format != PlanFormat {
		return nil, fmt.Errorf("%w: plan format %q, want %q", ErrBadInput, old.Format, PlanFormat)
	}
	opts := Options{Source: ro.Source, SourceFile: ro.SourceFile, Live: ro.Live, MetadataVersion: old.MetadataVersion.Name, Controllers: old.Controllers, Quorum: old.Quorum,
		PasswordEncoderSecret: ro.PasswordEncoderSecret, Overrides: old.Overrides, ZKDataDirs: ro.ZKDataDirs, Progress: ro.Progress}
	if img.ClusterID == "" {
		opts.ClusterID = old.ClusterID
	}
	p, err := NewPlan(img, opts)
	if err != nil {
		return nil, err
	}
	if p.SourceZxid != old.SourceZxid {
		return nil, fmt.Errorf("%w: the plan was made at zxid %#x, the source is now at %#x; plan again", ErrSourceChanged, old.SourceZxid, p.SourceZxid)
	}
	if p.Records.SHA256 != old.Records.SHA256 || p.ClusterID != old.ClusterID {
		return nil, fmt.Errorf("%w: the records to write differ from the plan's (sha256 %s, plan %s); plan again", ErrSourceChanged, p.Records.SHA256, old.Records.SHA256)
	}
	return p, nil
}

// checkNodes refuses a node that is no controller of the plan: writing
// nothing for it would look like success.
func checkNodes(p *Plan, nodes []int32) error {
	ids := make([]string, len(p.Controllers))
	for i, c := range p.Controllers {
		ids[i] = strconv.Itoa(int(c.ID))
	}
	for _, n := range nodes {
		if !slices.ContainsFunc(p.Controllers, func(c controllers.Spec) bool { return c.ID == n }) {
			return fmt.Errorf("%w: node %d is no controller of the plan (its controllers: %s)", ErrBadInput, n, strings.Join(ids, ", "))
		}
	}
	return nil
}

// Apply writes, for each controller of the plan, a metadata log dir that
// Kafka starts on: bootstrap.checkpoint holding the whole image, then
// meta.properties. meta.properties goes last because it is what makes a
// dir "formatted": a crash before it leaves a dir Kafka refuses to start
// on, and a rerun completes it. A blocked plan is refused.
func Apply(p *Plan, o ApplyOptions) ([]FileResult, error) {
	if p.Blocked {
		return nil, fmt.Errorf("%w: %d blockers (see the plan's findings)", ErrBlocked, len(p.Blockers()))
	}
	if p.records == nil && p.Records.Total > 0 {
		return nil, fmt.Errorf("%w: the plan has no records; make it with NewPlan or Replan", ErrBadInput)
	}
	if o.Out == "" {
		return nil, fmt.Errorf("%w: no output directory", ErrBadInput)
	}
	if err := checkNodes(p, o.Nodes); err != nil {
		return nil, err
	}
	var header []metalog.ControlRecord
	bootName, bootKind := bootstrapFile, "bootstrap.checkpoint"
	if p.Quorum == QuorumDynamic {
		var err error
		if header, err = quorumControlRecords(p.Controllers); err != nil {
			return nil, err
		}
		bootName, bootKind = filepath.FromSlash(bootstrapSnapshotPath), "bootstrap snapshot"
	}
	boot, err := bootstrapBytes(p.records, header)
	if err != nil {
		return nil, err
	}
	var out []FileResult
	var done, total int64
	for _, c := range p.Controllers {
		if len(o.Nodes) == 0 || slices.Contains(o.Nodes, c.ID) {
			total += int64(len(boot))
		}
	}
	progress := func(n int) {
		done += int64(n)
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	for _, c := range p.Controllers {
		if len(o.Nodes) > 0 && !slices.Contains(o.Nodes, c.ID) {
			continue
		}
		bootSummary := fmt.Sprintf("%d records at metadata.version %s", p.Records.Total, p.MetadataVersion.Name)
		if p.Quorum == QuorumDynamic {
			bootSummary = fmt.Sprintf("kraft.version 1, %d voters, %s", len(p.Controllers), bootSummary)
		}
		frs, err := writeControllerDir(controllerDir{out: o.Out, c: c, clusterID: p.ClusterID, made: "migrate apply from " + p.Source,
			bootName: bootName, bootKind: bootKind, bootSummary: bootSummary, boot: boot,
			force: o.Force, dryRun: o.DryRun, progress: progress, hook: o.FileHook})
		out = append(out, frs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// controllerDir is one controller's metadata dir as apply and
// FormatControllers write it: the bootstrap file and meta.properties v1.
type controllerDir struct {
	out       string
	c         controllers.Spec
	clusterID string
	// made says what wrote it, in meta.properties' comment.
	made                            string
	bootName, bootKind, bootSummary string
	boot                            []byte
	force, dryRun                   bool
	progress                        func(int)
	hook                            FileHook
}

// writeControllerDir writes DIR/controller-ID/: refused over a dir Kafka
// already ran in (checkTargetDir), each file atomic.
func writeControllerDir(d controllerDir) ([]FileResult, error) {
	c := d.c
	dir := controllers.Dir(d.out, c.ID)
	if err := checkTargetDir(dir, d.force); err != nil {
		return nil, err
	}
	meta := javaprops.Format("Written by kmeta "+d.made, map[string]string{
		"version": "1", "node.id": strconv.Itoa(int(c.ID)), "cluster.id": d.clusterID, "directory.id": c.DirectoryID.String(),
	})
	var out []FileResult
	for _, f := range []struct {
		name, kind, summary string
		data                []byte
	}{
		{d.bootName, d.bootKind, d.bootSummary, d.boot},
		{metaPropertiesFile, "meta.properties", fmt.Sprintf("version=1 node.id=%d cluster.id=%s directory.id=%s", c.ID, d.clusterID, c.DirectoryID), meta},
	} {
		path := filepath.Join(dir, f.name)
		if !d.dryRun {
			if err := metalog.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return out, err
			}
		}
		var report func(int)
		if f.name == d.bootName {
			report = d.progress
		}
		act, err := putFileProgress(path, f.data, d.force, d.dryRun, 0, report, d.hook)
		if err != nil {
			return out, err
		}
		out = append(out, FileResult{Path: path, Kind: f.kind, Action: act, Bytes: len(f.data), Summary: f.summary})
	}
	return out, nil
}

// defaultDirectoryID is a controller's directory.id when none is given:
// derived from the cluster id and the node id, so a rerun writes the
// same files.
func defaultDirectoryID(clusterID string, id int32) model.UUID {
	return derivedUUID("directory.id", clusterID, strconv.Itoa(int(id)), "metadata")
}

// quorumControlRecords are the control records of a dynamic quorum's
// bootstrap snapshot, after its SnapshotHeader in the first batch, as
// kafka-storage format --initial-controllers writes them: KRaftVersionRecord
// {kraft.version 1} and VotersRecord with every controller (its
// directory.id, its CONTROLLER endpoint, kraft.version 0 to 1 supported).
func quorumControlRecords(cs []controllers.Spec) ([]metalog.ControlRecord, error) {
	voters := make([]model.Voter, 0, len(cs))
	for _, c := range cs {
		if c.Port <= 0 || c.Port > 65535 {
			return nil, fmt.Errorf("%w: controller %d: port %d", ErrBadInput, c.ID, c.Port)
		}
		voters = append(voters, model.Voter{ID: c.ID, DirectoryID: c.DirectoryID,
			Endpoints: []model.Endpoint{{Name: controllers.Listener, Host: c.Host, Port: uint16(c.Port)}}})
	}
	return metalog.VotersControlRecords(voters)
}

// checkTargetDir refuses a controller dir that holds anything but what
// apply writes (and its own temporary files), unless force.
func checkTargetDir(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if n == bootstrapFile || n == metaPropertiesFile || isPart(n) {
			continue
		}
		if n == metadataPartitionDir && e.IsDir() {
			// Only the bootstrap snapshot apply writes: anything else
			// (segments, quorum-state) means Kafka already ran here.
			sub, err := os.ReadDir(filepath.Join(dir, n))
			if err != nil {
				return err
			}
			for _, se := range sub {
				if sn := se.Name(); sn != bootstrapSnapshotFile && !isPart(sn) && !force {
					return fmt.Errorf("%w: %s holds %s (use --force to write beside it)", ErrTargetNotEmpty, filepath.Join(dir, n), sn)
				}
			}
			continue
		}
		if !force {
			return fmt.Errorf("%w: %s holds %s (use --force to write beside it)", ErrTargetNotEmpty, dir, n)
		}
	}
	return nil
}

// bootstrapBytes encodes bootstrap.checkpoint, or with header records a
// dynamic quorum's bootstrap snapshot, as kafka-storage format does: a
// control batch with the SnapshotHeader and the header records, data
// batches of at most 8 MiB from the next offset, a SnapshotFooter control
// batch; epoch 0, timestamps 0 so that the file depends on its records
// only.
func bootstrapBytes(recs []Record, header []metalog.ControlRecord) ([]byte, error) {
	hdr := append([]metalog.ControlRecord{{Type: metalog.ControlSnapshotHeader, Value: metalog.EncodeSnapshotHeader(0)}}, header...)
	// Size the file once (records, their framing, a header per 8 MiB
	// batch): at a million partitions, growing it by doubling would copy
	// hundreds of MiB.
	est := 4096
	for _, r := range recs {
		est += len(r.Value) + 24
	}
	est += (est/(metalog.MaxKRaftBatchBytes-metalog.HeaderSize) + 1) * metalog.HeaderSize
	for _, h := range hdr {
		est += len(h.Value) + 32
	}
	buf, err := metalog.AppendControlBatch(make([]byte, 0, est), metalog.BatchParams{}, hdr)
	if err != nil {
		return nil, err
	}
	next := int64(len(hdr))
	// Leave room for the batch header and each record's framing.
	const limit = metalog.MaxKRaftBatchBytes - metalog.HeaderSize
	var batch [][]byte
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var err error
		buf, err = metalog.AppendDataBatch(buf, metalog.BatchParams{BaseOffset: next}, batch)
		next += int64(len(batch))
		batch, size = batch[:0], 0
		return err
	}
	for _, r := range recs {
		n := len(r.Value) + 24
		if size+n > limit {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		batch = append(batch, r.Value)
		size += n
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return metalog.AppendControlBatch(buf, metalog.BatchParams{BaseOffset: next},
		[]metalog.ControlRecord{{Type: metalog.ControlSnapshotFooter, Value: metalog.EncodeSnapshotFooter()}})
}
