package migrate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

// Broker step finding codes.
const (
	CodeBrokerNoMeta           = "broker-no-meta-properties"
	CodeBrokerBadMeta          = "broker-bad-meta-properties"
	CodeBrokerClusterID        = "broker-cluster-id"
	CodeBrokerKRaftMetadata    = "broker-has-kraft-metadata"
	CodeBrokerUnknown          = "broker-not-in-plan"
	CodeBadPartitionDir        = "bad-partition-dir"
	CodePartitionDuplicate     = "partition-in-two-dirs"
	CodeStrayPartition         = "stray-partition"
	CodePartitionNotAssigned   = "partition-not-assigned"
	CodePartitionSkipped       = "partition-of-skipped-topic"
	CodeTopicIDMismatch        = "partition-metadata-topic-id"
	CodePartitionMetaMissing   = "partition-metadata-missing"
	CodeSpecialPartitionDir    = "special-partition-dir"
	CodeBrokerConverted        = "broker-dir-converted"
	CodeBrokerAlreadyConverted = "broker-dir-already-converted"
	CodeBrokerBackupDiffers    = "broker-backup-differs"
	CodeOldRecordFormat        = "old-record-format"
)

// BrokerOptions configure the broker step.
type BrokerOptions struct {
	// LogDirs are log.dirs of the brokers on this host (one broker's JBOD
	// dirs, or several brokers' dirs).
	LogDirs []string
	// AllowStray leaves partition dirs the plan does not account for;
	// Kafka then renames them *-stray on first start.
	AllowStray bool
	DryRun     bool
	// FileHook, when set, is called at every file boundary.
	FileHook FileHook
}

// BrokerDir is one log dir as found.
type BrokerDir struct {
	Path       string `json:"path"`
	BrokerID   int32  `json:"brokerId"`
	Version    int    `json:"metaPropertiesVersion"`
	ClusterID  string `json:"clusterId"`
	Partitions int    `json:"partitions"`
	// MissingMetadata counts partition dirs without partition.metadata.
	MissingMetadata int `json:"missingPartitionMetadata"`
}

// BrokerReport is the outcome of the broker step.
type BrokerReport struct {
	Dirs     []BrokerDir     `json:"dirs"`
	Files    []FileResult    `json:"files"`
	Findings []model.Finding `json:"findings"`
	Blocked  bool            `json:"blocked"`
}

type brokerWrite struct {
	path, kind, summary string
	data                []byte
	overwrite           bool
}

// CheckLogDirs refuses log dirs that are not there (or no directory)
// before anything is planned or read: a mistyped --log-dirs is a usage
// error (ErrBadInput), not a broker dir with problems.
func CheckLogDirs(dirs []string) error {
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%w: log dir %s: no such directory", ErrBadInput, d)
		case err != nil:
			return fmt.Errorf("%w: log dir %s: %w", ErrBadInput, d, err)
		case !st.IsDir():
			return fmt.Errorf("%w: log dir %s: not a directory", ErrBadInput, d)
		}
	}
	return nil
}

// ConvertBrokers checks every given ZooKeeper-mode broker log dir against
// the plan and, when nothing is wrong, makes each a KRaft broker dir:
// partition.metadata written where missing, then meta.properties v0
// backed up and rewritten as v1 (node.id, cluster.id, directory.id). Log
// data is never touched. Any mismatch refuses the whole step before
// anything is written.
func ConvertBrokers(p *Plan, o BrokerOptions) (*BrokerReport, error) {
	if err := CheckLogDirs(o.LogDirs); err != nil {
		return nil, err
	}
	r := &BrokerReport{Dirs: []BrokerDir{}, Files: []FileResult{}, Findings: []model.Finding{}}
	// add reports a finding of a check; relaxed takes its relaxed
	// severity (the operator allowed what it is about).
	add := func(code string, relaxed bool, entity, msg, fix string) {
		chk := check(code)
		f := finding(chk, ClassBrokers, entity, msg, fix)
		if relaxed {
			f = chk.Relax(f)
		}
		r.Findings = append(r.Findings, f)
	}
	topics := map[string]*PlanTopic{}
	replicas := map[string]map[int32][]int32{}
	for i := range p.Topics {
		tp := &p.Topics[i]
		topics[tp.Name] = tp
		replicas[tp.Name] = make(map[int32][]int32, len(tp.Partitions))
		for _, pp := range tp.Partitions {
			replicas[tp.Name][pp.ID] = pp.Replicas
		}
	}
	planBrokers := map[int32]bool{}
	for _, b := range p.Brokers {
		planBrokers[b] = true
	}
	// seen[broker]["topic-N"] = dir, for the same partition in two dirs.
	seen := map[int32]map[string]string{}
	var writes []brokerWrite
	strayFix := check(CodeStrayPartition).Fix

	for _, dir := range o.LogDirs {
		dir = filepath.Clean(dir)
		ent := "log dir " + dir
		mpPath := filepath.Join(dir, metaPropertiesFile)
		mp, err := metalog.ReadMetaProperties(mpPath)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				add(CodeBrokerNoMeta, false, ent, "no meta.properties: not a ZooKeeper-mode broker dir that has started",
					check(CodeBrokerNoMeta).Fix)
			} else {
				add(CodeBrokerBadMeta, false, ent, err.Error(), check(CodeBrokerBadMeta).Fix)
			}
			continue
		}
		bd := BrokerDir{Path: dir, BrokerID: mp.NodeID, Version: mp.Version, ClusterID: mp.ClusterID}
		ent = fmt.Sprintf("broker %d log dir %s", mp.NodeID, dir)
		switch {
		case mp.ClusterID == "":
			add(CodeBrokerClusterID, false, ent, "meta.properties has no cluster.id (written by a very old release)",
				fmt.Sprintf("check this dir belongs to cluster %s, then add cluster.id=%s to it", p.ClusterID, p.ClusterID))
		case mp.ClusterID != p.ClusterID:
			add(CodeBrokerClusterID, false, ent, fmt.Sprintf("cluster.id %s differs from ZooKeeper's %s", mp.ClusterID, p.ClusterID),
				check(CodeBrokerClusterID).Fix)
		}
		if !planBrokers[mp.NodeID] {
			add(CodeBrokerUnknown, false, ent, fmt.Sprintf("broker %d holds no replica in ZooKeeper's assignment", mp.NodeID), "")
		}
		if _, err := os.Stat(filepath.Join(dir, "__cluster_metadata-0")); err == nil {
			add(CodeBrokerKRaftMetadata, false, ent, "the dir already holds KRaft metadata (__cluster_metadata-0) beside ZooKeeper-mode data",
				check(CodeBrokerKRaftMetadata).Fix)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		if seen[mp.NodeID] == nil {
			seen[mp.NodeID] = map[string]string{}
		}
		for _, e := range ents {
			if !e.IsDir() || e.Name() == "__cluster_metadata-0" {
				continue
			}
			name := e.Name()
			pent := fmt.Sprintf("broker %d partition dir %s", mp.NodeID, filepath.Join(dir, name))
			if strings.HasSuffix(name, "-delete") || strings.HasSuffix(name, "-future") || strings.HasSuffix(name, "-stray") {
				add(CodeSpecialPartitionDir, false, pent, "left as it is: Kafka deletes (-delete), resumes (-future) or keeps aside (-stray) such dirs itself", "")
				continue
			}
			i := strings.LastIndexByte(name, '-')
			pid, err := strconv.ParseInt(name[i+1:], 10, 32)
			if i <= 0 || err != nil || pid < 0 {
				add(CodeBadPartitionDir, false, pent, "not a topic-partition dir: Kafka takes the whole log dir offline on it",
					check(CodeBadPartitionDir).Fix)
				continue
			}
			topic := name[:i]
			if prev, dup := seen[mp.NodeID][name]; dup {
				add(CodePartitionDuplicate, false, pent, fmt.Sprintf("partition %s is also in %s", name, prev),
					check(CodePartitionDuplicate).Fix)
				continue
			}
			seen[mp.NodeID][name] = dir
			bd.Partitions++
			pt := topics[topic]
			if pt == nil {
				add(CodeStrayPartition, o.AllowStray, pent, fmt.Sprintf("ZooKeeper knows no topic %s", topic), strayFix)
				continue
			}
			if pt.Skipped {
				add(CodePartitionSkipped, false, pent, fmt.Sprintf("topic %s is pending deletion and not migrated: Kafka sets this dir aside as stray", topic), "")
				continue
			}
			if !slices.Contains(replicas[topic][int32(pid)], mp.NodeID) {
				add(CodePartitionNotAssigned, o.AllowStray, pent, fmt.Sprintf("ZooKeeper does not assign %s to broker %d", name, mp.NodeID), strayFix)
				continue
			}
			if n := oldFormatSegments(filepath.Join(dir, name)); n > 0 {
				add(CodeOldRecordFormat, false, pent,
					fmt.Sprintf("%d segments start with record format v0/v1 batches (magic below 2), written under an old message.format.version", n),
					check(CodeOldRecordFormat).Fix)
			}
			pmPath := filepath.Join(dir, name, partitionMetadata)
			pm, err := metalog.ReadPartitionMetadata(pmPath)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				bd.MissingMetadata++
				writes = append(writes, brokerWrite{path: pmPath, kind: "partition.metadata",
					summary: "topic_id " + pt.ID.String(), data: partitionMetadataBytes(pt.ID)})
			case err != nil:
				add(CodeBadPartitionDir, false, pent, err.Error(), "remove the damaged partition.metadata; kmeta then writes it")
			case pm.TopicID != pt.ID:
				add(CodeTopicIDMismatch, false, pent, fmt.Sprintf("partition.metadata topic_id %s differs from ZooKeeper's %s", pm.TopicID, pt.ID),
					"the dir holds an older incarnation of the topic: move it away")
			}
		}
		if bd.MissingMetadata > 0 {
			add(CodePartitionMetaMissing, false, ent, fmt.Sprintf("%d partition dirs have no partition.metadata: kmeta writes ZooKeeper's topic ids", bd.MissingMetadata), "")
		}
		// meta.properties last: it is what says the dir is converted.
		switch {
		case mp.Version == 1 && mp.ClusterID == p.ClusterID:
			add(CodeBrokerAlreadyConverted, false, ent, "meta.properties is already version 1", "")
		case mp.Version == 0:
			raw, err := model.ReadInput(mpPath, model.InputSmallMeta)
			if err != nil {
				return nil, err
			}
			bak := mpPath + backupSuffix
			if exists, same, err := sameContent(bak, raw); err != nil {
				return nil, err
			} else if exists && !same {
				add(CodeBrokerBackupDiffers, false, ent, bak+" exists and differs from meta.properties", check(CodeBrokerBackupDiffers).Fix)
			}
			dirID := mp.DirectoryID
			if !mp.HasDirectoryID || dirID == model.DirMigrating || dirID == model.DirUnassigned || dirID == model.DirLost {
				abs, _ := filepath.Abs(dir)
				dirID = derivedUUID("directory.id", p.ClusterID, strconv.Itoa(int(mp.NodeID)), abs)
			}
			meta := javaprops.Format("Written by kmeta migrate brokers; the ZooKeeper-mode file is "+filepath.Base(bak), map[string]string{
				"version": "1", "node.id": strconv.Itoa(int(mp.NodeID)), "cluster.id": p.ClusterID, "directory.id": dirID.String(),
			})
			writes = append(writes,
				brokerWrite{path: bak, kind: "backup", summary: "the ZooKeeper-mode meta.properties, unchanged", data: raw},
				brokerWrite{path: mpPath, kind: "meta.properties", overwrite: true,
					summary: fmt.Sprintf("version 0 -> 1: node.id=%d cluster.id=%s directory.id=%s", mp.NodeID, p.ClusterID, dirID), data: meta})
			add(CodeBrokerConverted, false, ent, "meta.properties version 0 becomes version 1 (backup kept)", "")
		}
		r.Dirs = append(r.Dirs, bd)
	}
	model.SortFindings(r.Findings)
	r.Blocked = model.CountSeverity(r.Findings, model.SevError) > 0
	if r.Blocked {
		return r, fmt.Errorf("%w: %d problems, nothing written", ErrBrokerDir, model.CountSeverity(r.Findings, model.SevError))
	}
	// partition.metadata first, then per dir backup and meta.properties.
	slices.SortStableFunc(writes, func(a, b brokerWrite) int {
		return cmp.Compare(writeRank(a.kind), writeRank(b.kind))
	})
	for _, w := range writes {
		act, err := putFileProgress(w.path, w.data, w.overwrite, o.DryRun, 0, nil, o.FileHook)
		if err != nil {
			return r, err
		}
		r.Files = append(r.Files, FileResult{Path: w.path, Kind: w.kind, Action: act, Bytes: len(w.data), Summary: w.summary})
	}
	return r, nil
}

func writeRank(kind string) int {
	switch kind {
	case "partition.metadata":
		return 0
	case "backup":
		return 1
	}
	return 2
}

// partitionMetadataBytes is partition.metadata as Kafka writes it.
func partitionMetadataBytes(id model.UUID) []byte {
	return []byte("version: 0\ntopic_id: " + id.String())
}

// oldFormatSegments counts the segments of a partition dir whose first
// batch has magic 0 or 1: only the framing is read (offset 8, length 4,
// magic at byte 16), never the records.
func oldFormatSegments(dir string) int {
	ms, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	n := 0
	for _, m := range ms {
		f, _, err := model.OpenRegular(m)
		if err != nil {
			continue
		}
		var h [17]byte
		if _, err := io.ReadFull(f, h[:]); err == nil && h[16] < 2 {
			n++
		}
		f.Close()
	}
	return n
}
