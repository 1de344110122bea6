package migrate

import (
	"fmt"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

// FormatOptions say which controllers FormatControllers formats, for
// which cluster and at which metadata.version.
type FormatOptions struct {
	// Out is the directory the controller-ID dirs are written under.
	Out         string
	Controllers []controllers.Spec
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
// with the cluster id and the node id (apply's writer, with an empty
// image). It is the format of an online migration's controllers (a
// controller started on it with zookeeper.metadata.migration.enable=true
// writes PRE_MIGRATION and waits for the brokers), made from ZooKeeper's
// own cluster id and the brokers' IBP so the two mismatches that strand
// real migrations (a formatted cluster id that is not /cluster/id, a
// metadata.version that is not the brokers' IBP) cannot happen.
func FormatControllers(o FormatOptions) ([]FileResult, error) {
	if o.Out == "" || o.ClusterID == "" || len(o.Controllers) == 0 || o.Catalog == nil {
		return nil, fmt.Errorf("%w: format needs an output dir, a cluster id, controllers and a catalog", ErrBadInput)
	}
	boot, err := o.Catalog.BootstrapRecords(o.Level.Name)
	if err != nil {
		return nil, err
	}
	fs := make([]FeatureLevel, 0, len(boot))
	for _, f := range boot {
		fs = append(fs, FeatureLevel{Name: f.Name, Level: f.Level})
	}
	recs, err := emit(model.NewImage(), emitOptions{level: o.Level, catalog: o.Catalog, features: fs})
	if err != nil {
		return nil, err
	}
	data, err := bootstrapBytes(recs, nil)
	if err != nil {
		return nil, err
	}
	var out []FileResult
	for _, c := range o.Controllers {
		if !c.DirectoryGiven {
			c.DirectoryID = defaultDirectoryID(o.ClusterID, c.ID)
		}
		frs, err := writeControllerDir(controllerDir{out: o.Out, c: c, clusterID: o.ClusterID, made: "from " + o.Source,
			bootName: bootstrapFile, bootKind: "bootstrap.checkpoint", boot: data,
			bootSummary: fmt.Sprintf("%d feature levels at metadata.version %s", len(recs), o.Level.Name),
			force:       o.Force, dryRun: o.DryRun})
		out = append(out, frs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
