package metalog

import (
	"errors"
	"fmt"
	"io"

	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
)

// ImageOptions tunes LoadImage.
type ImageOptions struct {
	// AtOffset stops replay after the record at this offset; negative
	// replays everything. A snapshot that ends beyond it is not used.
	AtOffset int64
	Reader   ReaderOptions
	// Progress, when set, is called with bytes read so far and the total.
	Progress func(done, total int64)
}

// ImageResult is a replayed image with what replay had to say about it.
type ImageResult struct {
	Image *model.Image
	Plan  *ReplayPlan
	// Records applied, and records skipped: unknown types or versions,
	// records Kafka's replay refuses (a stale broker epoch, an unknown
	// topic), and records of aborted or unfinished transactions.
	Applied, Skipped int64
	// Unknown counts undecodable records by what is wrong with them:
	// "apiKey K version V (unknown type)", "(unknown version)" or
	// "(malformed body)", "bad record frame", and for control records
	// "control TYPE (...)" or "control record with a bad key".
	Unknown map[string]int64
	// StoppedAt is the offset of the first damaged batch replay did not
	// apply (-1 when it read everything).
	StoppedAt int64
	// Warnings are problems replay survived: a torn tail, CRC failures, an
	// unfinished transaction, snapshots passed over.
	Warnings []string
	// EndOffset is one past the last offset replay read (a snapshot counts
	// as its end offset), -1 when it read nothing: an AtOffset at or
	// beyond it asked for more than the source holds.
	EndOffset int64
}

// LoadImage replays path (a metadata log dir, a __cluster_metadata-0 dir, a
// snapshot, a segment or a bootstrap.checkpoint) into an image: the newest
// usable snapshot, then every later segment batch. Memory stays
// proportional to the image: batches are streamed and dropped once applied.
func LoadImage(path string, opts ImageOptions) (*ImageResult, error) {
	d, err := OpenLogDir(path)
	if err != nil {
		return nil, err
	}
	return LoadImageDir(d, opts)
}

// LoadImageDir is LoadImage on a directory already opened, so that a
// caller that inspected the path does not scan it twice.
func LoadImageDir(d *LogDir, opts ImageOptions) (*ImageResult, error) {
	path := d.Path
	end := int64(-1)
	if opts.AtOffset >= 0 {
		end = opts.AtOffset + 1
	}
	plan := d.PlanReplayBefore(end)
	if opts.AtOffset >= 0 && plan.Snapshot == nil && plan.Bootstrap == nil &&
		(len(d.Snapshots) > 0 || len(d.Segments) > 0) &&
		(len(d.Segments) == 0 || d.LogStartOffset() > opts.AtOffset) {
		// Every snapshot ends after the offset and the log starts after
		// it: replay would read nothing, and an empty image is not the
		// cluster's state at that offset.
		log := "there is no segment"
		if len(d.Segments) > 0 {
			log = fmt.Sprintf("the log starts at offset %d", d.LogStartOffset())
		}
		return nil, &FileError{File: path, Err: fmt.Errorf("%w: no usable snapshot ends at or before offset %d and %s",
			ErrOffsetNotCovered, opts.AtOffset, log)}
	}
	res := &ImageResult{Plan: plan, Unknown: map[string]int64{}, StoppedAt: -1, EndOffset: -1}
	for _, e := range plan.Skipped {
		res.Warnings = append(res.Warnings, "snapshot passed over: "+e.Error())
	}
	if plan.Truncated {
		res.Warnings = append(res.Warnings, "the snapshot is newer than the whole log (by leader epoch): Kafka discards the log and restarts it at the snapshot, and so does replay")
	}
	if plan.Hole {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the log starts at offset %d and no snapshot reaches it: records below it are missing", d.LogStartOffset()))
	}
	var total int64
	if plan.Snapshot != nil {
		total += plan.Snapshot.Size
	} else if plan.Bootstrap != nil {
		total += plan.Bootstrap.Size
	}
	for _, s := range plan.Segments {
		total += s.Size
	}
	rp := NewReplayer()
	st := plan.Stream(StreamOptions{Reader: opts.Reader, TolerateTornTail: true})
	defer st.Close()
	var done int64
	snapshotPath := ""
	if plan.Snapshot != nil {
		snapshotPath = plan.Snapshot.Path
	}
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, ErrCRC) {
			return nil, err
		}
		if err != nil {
			// Kafka's log recovery truncates a segment at its first batch
			// that fails the CRC; replay stops at the same place rather
			// than apply damaged records.
			res.Warnings = append(res.Warnings, fmt.Sprintf("replay stopped before offset %d: %v (Kafka's recovery truncates the log there)", b.BaseOffset, err))
			res.StoppedAt = b.BaseOffset
			break
		}
		done += b.Size()
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
		inSnapshot := st.File().Path == snapshotPath && snapshotPath != ""
		epoch := b.PartitionLeaderEpoch
		it := b.Records()
		stop := false
		for it.Next() {
			rec := it.Record()
			off := rec.Offset
			if inSnapshot && plan.Snapshot.Snapshot != nil {
				// Records inside a snapshot restart at 0; they all belong
				// to the snapshot's position.
				off = plan.Snapshot.Snapshot.EndOffset - 1
			}
			res.EndOffset = max(res.EndOffset, off+1)
			if opts.AtOffset >= 0 && !inSnapshot && off > opts.AtOffset {
				stop = true
				break
			}
			pos := Position{Offset: off, Epoch: epoch, Timestamp: b.BaseTimestamp}
			if b.IsControl() {
				k, c, err := records.DecodeControl(rec.Key, rec.Value)
				if err != nil {
					res.Unknown[undecodableControl(rec.Key, k, err)]++
					continue
				}
				rp.ApplyControl(pos, c)
				continue
			}
			fr, m, err := records.DecodeMetadata(rec.Value)
			if err != nil {
				res.Skipped++
				res.Unknown[undecodableMetadata(fr, err)]++
				continue
			}
			if err := rp.Apply(pos, m); err != nil {
				// Kafka's loader reports a misplaced transaction marker as a
				// fault and skips that record; so does replay, loudly.
				res.Skipped++
				res.Warnings = append(res.Warnings, (&CorruptionError{File: st.File().Path, Position: b.Position, Offset: rec.Offset, Err: err}).Error()+" (record skipped, as Kafka's loader does)")
			}
		}
		if err := it.Err(); err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	if t := st.TornTail(); t != nil {
		res.Warnings = append(res.Warnings, "torn tail ignored, as Kafka truncates it: "+t.Error())
	}
	if p, n, open := rp.PendingTransaction(); open {
		res.Warnings = append(res.Warnings, fmt.Sprintf("metadata transaction begun at offset %d is unfinished: its %d records are not applied", p.Offset, n))
		rp.Skipped += int64(n)
	}
	img := rp.Image()
	if d.MetaProperties != nil && img.ClusterID == "" {
		img.ClusterID = d.MetaProperties.ClusterID
	}
	img.Provenance.Source = "kraft:" + path
	if d.QuorumState != nil && img.Quorum != nil && d.QuorumState.LeaderEpoch > img.Quorum.LeaderEpoch {
		img.Quorum.LeaderID, img.Quorum.LeaderEpoch = d.QuorumState.LeaderID, d.QuorumState.LeaderEpoch
	}
	res.Image = img
	res.Applied, res.Skipped = rp.Applied, res.Skipped+rp.Skipped
	return res, nil
}

// undecodableMetadata is the ImageResult.Unknown key of a data record
// records.DecodeMetadata refused.
func undecodableMetadata(fr records.Frame, err error) string {
	if errors.Is(err, records.ErrFrame) {
		return "bad record frame"
	}
	return fmt.Sprintf("apiKey %d version %d (%s)", fr.APIKey, fr.Version, decodeProblem(err))
}

// undecodableControl is the ImageResult.Unknown key of a control record
// records.DecodeControl refused.
func undecodableControl(key []byte, k records.ControlKey, err error) string {
	if _, kerr := records.ParseControlKey(key); kerr != nil {
		return "control record with a bad key"
	}
	return fmt.Sprintf("control %s (%s)", k.Type, decodeProblem(err))
}

func decodeProblem(err error) string {
	switch {
	case errors.Is(err, records.ErrUnknownType):
		return "unknown type"
	case errors.Is(err, records.ErrUnknownVersion):
		return "unknown version"
	}
	return "malformed body"
}
