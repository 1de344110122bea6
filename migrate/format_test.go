package migrate

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/metalog"
)

// FormatControllers' bootstrap.checkpoint holds exactly the release's
// feature levels, as kafka-storage format writes them, and nothing of an
// image: a migrating controller copies the rest from ZooKeeper itself.
// (That 3.5.2 and 3.9.2 controllers start on it and migrate is cmd/kmeta's
// TestOnlineMigrationWalkKafka and make drill's walk on 3.5.2.)
func TestFormatControllersBootstrap(t *testing.T) {
	cat := features.Catalog39()
	for _, rel := range []string{"3.5-IV2", "3.9"} {
		l, err := cat.LevelFor(rel)
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		cs := []controllers.Spec{{ID: 3000, Host: "h", Port: 9093}, {ID: 3001, Host: "h", Port: 9094}}
		if _, err := FormatControllers(FormatOptions{Out: out, Controllers: cs, ClusterID: "Y_M1NY68Tu2c3nV89agwIw", Level: l, Catalog: cat, Source: "test"}); err != nil {
			t.Fatal(err)
		}
		recs, err := cat.BootstrapRecords(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int16{}
		for _, r := range recs {
			want[r.Name] = r.Level
		}
		for _, c := range cs {
			dir := controllers.Dir(out, c.ID)
			res, err := metalog.LoadImage(filepath.Join(dir, bootstrapFile), metalog.ImageOptions{AtOffset: -1})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Image.Features
			if !maps.Equal(got, want) || len(res.Image.Topics)+len(res.Image.Configs) != 0 {
				t.Fatalf("%s controller %d: features %v, want %v; topics %d", rel, c.ID, got, want, len(res.Image.Topics))
			}
			mp, err := metalog.ReadMetaProperties(filepath.Join(dir, metaPropertiesFile))
			if err != nil || mp.NodeID != c.ID || mp.ClusterID != "Y_M1NY68Tu2c3nV89agwIw" || mp.DirectoryID != defaultDirectoryID("Y_M1NY68Tu2c3nV89agwIw", c.ID) {
				t.Fatalf("meta.properties %+v %v", mp, err)
			}
		}
	}
}
