package migrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/internal/testkit/fstree"
	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// brokerPlan is a plan for baseImage: topic t (id 010203...) with
// partition 0 on brokers 1 and 2.
func brokerPlan(t *testing.T) *Plan {
	t.Helper()
	p, err := NewPlan(baseImage(), Options{Source: "test", MetadataVersion: "4.4", Controllers: ctrl})
	if err != nil || p.Blocked {
		t.Fatalf("%v %v", err, p.Blockers())
	}
	return p
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// zkBrokerDir makes a ZooKeeper-mode broker log dir as Kafka 3.x leaves it.
func zkBrokerDir(t *testing.T, dir string, id int, clusterID string, withPM bool) {
	t.Helper()
	writeTestFile(t, filepath.Join(dir, "meta.properties"), fmt.Sprintf("#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=%d\nversion=0\ncluster.id=%s\n", id, clusterID))
	writeTestFile(t, filepath.Join(dir, "t-0", "00000000000000000000.log"), "segment bytes")
	if withPM {
		writeTestFile(t, filepath.Join(dir, "t-0", "partition.metadata"), "version: 0\ntopic_id: "+model.UUID{1, 2, 3}.String())
	}
	writeTestFile(t, filepath.Join(dir, "recovery-point-offset-checkpoint"), "0\n1\nt 0 0\n")
}

func TestConvertBrokers(t *testing.T) {
	p := brokerPlan(t)
	dir := t.TempDir()
	zkBrokerDir(t, dir, 1, p.ClusterID, false)
	seg, _ := os.ReadFile(filepath.Join(dir, "t-0", "00000000000000000000.log"))
	orig, _ := os.ReadFile(filepath.Join(dir, "meta.properties"))
	r, err := ConvertBrokers(p, BrokerOptions{LogDirs: []string{dir}})
	if err != nil {
		t.Fatalf("%v %v", err, r.Findings)
	}
	mp, err := metalog.ReadMetaProperties(filepath.Join(dir, "meta.properties"))
	if err != nil || mp.Version != 1 || mp.NodeID != 1 || mp.ClusterID != p.ClusterID || !mp.HasDirectoryID {
		t.Fatalf("converted meta.properties: %+v %v", mp, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "meta.properties"+backupSuffix)); string(b) != string(orig) {
		t.Error("the backup is not the original meta.properties")
	}
	pm, err := metalog.ReadPartitionMetadata(filepath.Join(dir, "t-0", "partition.metadata"))
	if err != nil || pm.TopicID != (model.UUID{1, 2, 3}) {
		t.Errorf("partition.metadata: %+v %v", pm, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "t-0", "00000000000000000000.log")); string(b) != string(seg) {
		t.Error("log data changed")
	}
	// A rerun finds everything done and writes nothing.
	h := fstree.Hash(t, dir)
	r, err = ConvertBrokers(p, BrokerOptions{LogDirs: []string{dir}})
	if err != nil || fstree.Hash(t, dir) != h {
		t.Fatalf("rerun: %v, changed=%v", err, fstree.Hash(t, dir) != h)
	}
	for _, f := range r.Files {
		if f.Action != ActionUnchanged {
			t.Errorf("rerun wrote %s", f.Path)
		}
	}
}

// TestBrokerBadInput: each kind of bad broker dir is named with its code
// and nothing at all is written.
func TestBrokerBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		code  string
		setup func(t *testing.T, dirs []string, clusterID string)
		ndirs int
		stray bool // AllowStray lifts it
	}{
		{name: "cluster id differs", code: CodeBrokerClusterID, setup: func(t *testing.T, d []string, _ string) {
			zkBrokerDir(t, d[0], 1, "AAAAAAAAAAAAAAAAAAAAAQ", true)
		}},
		{name: "no cluster id (very old release)", code: CodeBrokerClusterID, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "meta.properties"), "broker.id=1\nversion=0\n")
		}},
		{name: "no meta.properties", code: CodeBrokerNoMeta, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			os.Remove(filepath.Join(d[0], "meta.properties"))
		}},
		{name: "KRaft metadata beside ZooKeeper-mode data", code: CodeBrokerKRaftMetadata, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "__cluster_metadata-0", "00000000000000000000.log"), "")
		}},
		{name: "topic ZooKeeper does not know", code: CodeStrayPartition, stray: true, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "gone-0", "00000000000000000000.log"), "x")
		}},
		{name: "partition not assigned to this broker", code: CodePartitionNotAssigned, stray: true, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 3, c, true)
		}},
		{name: "partition beyond the topic's partitions", code: CodePartitionNotAssigned, stray: true, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "t-7", "00000000000000000000.log"), "x")
		}},
		{name: "topic id differs from ZooKeeper's", code: CodeTopicIDMismatch, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "t-0", "partition.metadata"), "version: 0\ntopic_id: "+model.UUID{9, 9}.String())
		}},
		{name: "same partition in two dirs of one broker", code: CodePartitionDuplicate, ndirs: 2, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			zkBrokerDir(t, d[1], 1, c, true)
		}},
		{name: "a dir that is no partition", code: CodeBadPartitionDir, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			os.MkdirAll(filepath.Join(d[0], "lost+found"), 0o755)
		}},
		{name: "backup exists with other content", code: CodeBrokerBackupDiffers, setup: func(t *testing.T, d []string, c string) {
			zkBrokerDir(t, d[0], 1, c, true)
			writeTestFile(t, filepath.Join(d[0], "meta.properties"+backupSuffix), "something else")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := brokerPlan(t)
			n := max(tc.ndirs, 1)
			var dirs []string
			for range n {
				dirs = append(dirs, t.TempDir())
			}
			tc.setup(t, dirs, p.ClusterID)
			var hashes []string
			for _, d := range dirs {
				hashes = append(hashes, fstree.Hash(t, d))
			}
			r, err := ConvertBrokers(p, BrokerOptions{LogDirs: dirs})
			if !errors.Is(err, ErrBrokerDir) {
				t.Fatalf("want ErrBrokerDir, got %v", err)
			}
			var got *model.Finding
			for i := range r.Findings {
				if r.Findings[i].Code == tc.code && r.Findings[i].Severity == model.SevError {
					got = &r.Findings[i]
				}
			}
			if got == nil || got.Fix == "" {
				t.Fatalf("want error %s with a fix, got %v", tc.code, r.Findings)
			}
			for i, d := range dirs {
				if fstree.Hash(t, d) != hashes[i] {
					t.Fatal("a refused conversion wrote something")
				}
			}
			if tc.stray {
				r, err := ConvertBrokers(p, BrokerOptions{LogDirs: dirs, AllowStray: true})
				if err != nil {
					t.Fatalf("--allow-stray: %v %v", err, r.Findings)
				}
				if !strings.Contains(fmt.Sprint(r.Findings), tc.code) {
					t.Errorf("--allow-stray must still name %s", tc.code)
				}
			}
		})
	}
}

func TestKRaftConfig(t *testing.T) {
	in := map[string]string{"broker.id": "2", "zookeeper.connect": "zk:2181/kafka", "zookeeper.set.acl": "true",
		"listeners": "PLAINTEXT://:9092", "inter.broker.protocol.version": "3.9", "log.message.format.version": "3.0",
		"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:admin",
		"delegation.token.master.key": "s3cr3t", "log.dirs": "/data", "control.plane.listener.name": "CP"}
	out, fs, err := KRaftConfig(in, ConfigOptions{Role: RoleBroker, NodeID: -1, Controllers: ctrl})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"node.id": "2", "process.roles": "broker", "controller.listener.names": "CONTROLLER",
		"controller.quorum.voters": "3000@127.0.0.1:9093", "authorizer.class.name": StandardAuthorizer,
		"delegation.token.secret.key": "s3cr3t", "log.dirs": "/data", "listeners": "PLAINTEXT://:9092",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT",
		"super.users":                    "User:admin"}
	if fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("broker config:\n got %v\nwant %v", out, want)
	}
	for _, k := range []string{"broker.id", "zookeeper.connect", "inter.broker.protocol.version", "log.message.format.version",
		"delegation.token.master.key", "control.plane.listener.name", "authorizer.class.name"} {
		if !strings.Contains(fmt.Sprint(fs), "setting "+k) {
			t.Errorf("no finding names %s", k)
		}
	}
	out, fs, err = KRaftConfig(in, ConfigOptions{Role: RoleController, NodeID: 3000, Controllers: ctrl, MetadataDir: "/meta"})
	if err != nil {
		t.Fatal(err)
	}
	if out["listeners"] != "CONTROLLER://127.0.0.1:9093" || out["log.dirs"] != "/meta" || out["process.roles"] != "controller" ||
		out["super.users"] != "User:admin" || out["delegation.token.secret.key"] != "s3cr3t" || out["listener.security.protocol.map"] != "CONTROLLER:PLAINTEXT" {
		t.Errorf("controller config: %v", out)
	}
	if !strings.Contains(fmt.Sprint(fs), CodeControllerAccess) {
		t.Error("super.users without User:ANONYMOUS must be flagged on a controller")
	}
	if _, _, err := KRaftConfig(in, ConfigOptions{Role: RoleController, NodeID: 7, Controllers: ctrl, MetadataDir: "/m"}); !errors.Is(err, ErrBadInput) {
		t.Errorf("a controller id not in the quorum: %v", err)
	}
	// The rendered file reads back as the same properties.
	back, err := javaprops.Parse(FormatConfig(map[string]string{"a b": " x=y\\z", "k": "é\u00ff"}, "test"))
	if err != nil || back["a b"] != " x=y\\z" || back["k"] != "é\u00ff" {
		t.Errorf("properties round trip: %q %v", back, err)
	}
}
