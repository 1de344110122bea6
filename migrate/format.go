package migrate

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
)

// FormatOptions say which controllers FormatControllers formats, for
// which cluster and at which metadata.version.
type FormatOptions struct {
	// Out is the directory the controller-ID dirs are written under.
	Out         string
	Controllers []ControllerSpec
	ClusterID   string
	// Level is the metadata.version the bootstrap finalizes, from
	// Catalog (the features the release turns on by default come with
	// it, as kafka-storage format --release-version writes them).
	Level   features.Level
	Catalog *features.Catalog
	// Source names what the ids come from, in meta.properties' comment.
	Source string
	Force  bool
	DryRun bool
}

// FormatControllers writes, per controller, what kafka-storage format
// writes for a static quorum: DIR/controller-ID/bootstrap.checkpoint
// holding only the release's FeatureLevelRecords, and meta.properties v1
// with the cluster id and the node id. It is the format of an online
// migration's controllers (a controller started on it with
// zookeeper.metadata.migration.enable=true writes PRE_MIGRATION and waits
// for the brokers), made from ZooKeeper's own cluster id and the brokers'
// IBP so the two mismatches that strand real migrations (a formatted
// cluster id that is not /cluster/id, a metadata.version that is not the
// brokers' IBP) cannot happen.
func FormatControllers(o FormatOptions) ([]FileResult, error) {
	if o.Out == "" || o.ClusterID == "" || len(o.Controllers) == 0 || o.Catalog == nil {
		return nil, fmt.Errorf("%w: format needs an output dir, a cluster id, controllers and a catalog", ErrBadInput)
	}
	boot, err := o.Catalog.BootstrapRecords(o.Level.Name)
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, f := range boot {
		m := &records.FeatureLevelRecord{Name: f.Name, FeatureLevel: f.Level}
		v, ok := o.Catalog.RecordVersion(o.Level.Level, m.APIKey())
		if !ok {
			return nil, fmt.Errorf("%w: FeatureLevelRecord at metadata.version %s", ErrCannotExpress, o.Level.Name)
		}
		b, err := records.EncodeMetadata(nil, m, v)
		if err != nil {
			return nil, err
		}
		recs = append(recs, Record{APIKey: m.APIKey(), Version: v, Value: b})
	}
	data, err := bootstrapBytes(recs, nil)
	if err != nil {
		return nil, err
	}
	var out []FileResult
	for _, c := range o.Controllers {
		if !c.DirectoryGiven {
			c.DirectoryID = derivedUUID("directory.id", o.ClusterID, strconv.Itoa(int(c.ID)), "metadata")
		}
		dir := ControllerDir(o.Out, c.ID)
		if err := checkTargetDir(dir, o.Force); err != nil {
			return out, err
		}
		meta := formatProperties("Written by kmeta from "+o.Source, map[string]string{
			"version": "1", "node.id": strconv.Itoa(int(c.ID)), "cluster.id": o.ClusterID, "directory.id": c.DirectoryID.String(),
		})
		if !o.DryRun {
			if err := metalog.MkdirAll(dir, 0o755); err != nil {
				return out, err
			}
		}
		for _, f := range []struct {
			name, kind, summary string
			data                []byte
		}{
			{bootstrapFile, "bootstrap.checkpoint", fmt.Sprintf("%d feature levels at metadata.version %s", len(recs), o.Level.Name), data},
			{metaPropertiesFile, "meta.properties", fmt.Sprintf("version=1 node.id=%d cluster.id=%s directory.id=%s", c.ID, o.ClusterID, c.DirectoryID), meta},
		} {
			path := filepath.Join(dir, f.name)
			act, err := putFileProgress(path, f.data, o.Force, o.DryRun, 0, nil, nil)
			if err != nil {
				return out, err
			}
			out = append(out, FileResult{Path: path, Kind: f.kind, Action: act, Bytes: len(f.data), Summary: f.summary})
		}
	}
	return out, nil
}
