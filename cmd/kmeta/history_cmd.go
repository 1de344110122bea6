package main

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/history"
	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/metalog/records"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
	"github.com/kmeta/kmeta/zkread"
)

func init() { register(historyCommand) }

const historyHelp = "Replays the source once, from its snapshot on (the snapshot's state is the starting point), and lists\n" +
	"every change of every entity: topics, partitions, brokers, controllers, configs (topic, broker,\n" +
	"cluster default), client quotas, ACLs, SCRAM credentials, delegation tokens, features, the quorum, the\n" +
	"producer-id block, the migration state. Each change says when (the batch's or the transaction's\n" +
	"time), where (the offset, or the zxid and znode), the record or operation, the entity as kmeta diff\n" +
	"names it, and each field before → after. Secrets show as their hash unless --show-secrets.\n\n" +
	"A KRaft change whose offset N is not the first of its batch, or which belongs to a metadata\n" +
	"transaction, says its point before (\"offset 1234 (point before: 1231)\"): Kafka publishes an image\n" +
	"only at a batch's end (or just before a transaction), so SOURCE@offset=N-1 is refused there, and the\n" +
	"point before is what image, diff and restore take for the state without the change.\n\n" +
	"A ZooKeeper change also shows what only ZooKeeper holds, as diff's zookeeper class does: a topic's\n" +
	"pendingDeletion (/admin/delete_topics), a partition's legacyReassignment and stateZnodeMissing (the\n" +
	"controller has not yet written its state znode: its leader and ISR are the fill-in of Kafka's\n" +
	"migration, and the controller's write of the znode is a change).\n\n" +
	"-o json writes one JSON object per change (JSON lines): offset and pointBefore (KRaft) or zxid and\n" +
	"znode (ZooKeeper), time (RFC 3339), record, kind, entity, action (created, changed, deleted), before\n" +
	"and after (the fields that changed). text and json stream as the replay goes, so memory is the\n" +
	"image's whatever the log's length; table and html hold the selected changes (html lists the first\n" +
	"2000 and draws all).\n\n" +
	"--entity KIND[:GLOB] selects (repeatable; KIND one of topic, partition, broker, controller, config,\n" +
	"quota, acl, scram, token, feature, quorum, producer-ids, migration; GLOB matches the entity's name as\n" +
	"diff prints it without the kind, e.g. 'orders-*', 'TOPIC orders', or a short name: a config's resource,\n" +
	"an ACL's resource or principal, a SCRAM user; topic:GLOB takes the topic's partitions and config along).\n" +
	"--field GLOB keeps those fields. --since and --until bound the window: an RFC 3339 time, a duration\n" +
	"back from now (24h), or an offset (KRaft) or zxid (ZooKeeper, 0x-hex or decimal); both ends included.\n\n" +
	"Exit 0 when the history was read, 1 when it rests on damaged or partial input (the warnings say\n" +
	"what) or when --since reaches before the snapshot it starts from (\"not covered\": the changes up to\n" +
	"the snapshot are its state, not listed), 2 when the source could not be read.\n\n" +
	"SOURCE is kraft:DIR (a metadata log dir, its snapshots and segments) or zkdata:DIR (a ZooKeeper data\n" +
	"dir, its snapshot and transaction logs); zkdata:A,B,C, several data dirs of one ensemble, reads the\n" +
	"newest once the others are shown to be prefixes of its history. SOURCE@offset=N or @zxid=N ends the\n" +
	"replay there."

func historyCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: "entity", Usage: "only entities `KIND[:GLOB]` (repeatable)"},
		&cli.StringSliceFlag{Name: "field", Usage: "only fields matching `GLOB` (repeatable)"},
		&cli.StringFlag{Name: "since", Usage: "from `TIME|DURATION|OFFSET` (RFC 3339, 24h back from now, or an offset or zxid)"},
		&cli.StringFlag{Name: "until", Usage: "up to `TIME|DURATION|OFFSET`, included"},
	}
	flags = append(flags, reportFlags()...)
	flags = append(flags, kraftSourceFlags()...)
	flags = append(flags, zkSourceFlags()...)
	return &cli.Command{
		Name:        "history",
		Usage:       "the metadata log as an audit trail: every change of every entity, when, where, before → after",
		ArgsUsage:   "SOURCE",
		Description: historyHelp + "\n\n" + htmlHelp,
		Flags:       flags,
		Action:      historyRun,
	}
}

// historyOptions reads the selection flags; filters describe them for
// the summary.
func historyOptions(c *cli.Context) (history.Options, []string, error) {
	opts := history.Options{ShowSecrets: showSecrets(c), Fields: c.StringSlice("field")}
	var filters []string
	for _, e := range c.StringSlice("entity") {
		s, err := verify.ParseSelector(e)
		if err != nil {
			return opts, nil, usageErrorf(c, "--entity: %v", err)
		}
		opts.Entities = append(opts.Entities, s)
		filters = append(filters, "--entity "+e)
	}
	for _, f := range opts.Fields {
		filters = append(filters, "--field "+f)
	}
	now := time.Now()
	for _, b := range []struct {
		name string
		dst  *history.Bound
	}{{"since", &opts.Since}, {"until", &opts.Until}} {
		v := c.String(b.name)
		if v == "" {
			continue
		}
		bd, err := parseBound(v, now)
		if err != nil {
			return opts, nil, usageErrorf(c, "--%s %q: %v", b.name, v, err)
		}
		*b.dst = bd
		filters = append(filters, "--"+b.name+" "+v)
	}
	return opts, filters, nil
}

// parseBound reads a window's end: an offset or zxid (decimal or 0x-hex),
// an RFC 3339 time or date, or a duration back from now.
func parseBound(s string, now time.Time) (history.Bound, error) {
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		if n < 0 {
			return history.Bound{}, fmt.Errorf("an offset or zxid is 0 or more")
		}
		return history.Bound{Position: n, HasPosition: true}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return history.Bound{Time: t}, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return history.Bound{Time: now.Add(-d)}, nil
	}
	return history.Bound{}, fmt.Errorf("want an RFC 3339 time (2026-01-02T15:04:05Z), a date, a duration back from now (24h) or an offset or zxid")
}

func historyRun(c *cli.Context) error {
	raw, err := oneArg(c, "SOURCE")
	if err != nil {
		return err
	}
	opts, filters, err := historyOptions(c)
	if err != nil {
		return err
	}
	spec, err := parseSource(c, raw)
	if err != nil {
		return err
	}
	zkData := spec.World == model.WorldZooKeeper && spec.ZK.Access == zkread.AccessDataDir
	if spec.World != model.WorldKRaft && !zkData {
		return usageErrorf(c, "history reads a KRaft metadata log (kraft:DIR, its snapshots and segments) or ZooKeeper data dirs (zkdata:DIR, their snapshots and transaction logs); %s is neither: it holds no history", printer.Clean(raw))
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return err
	}
	if len(spec.DataDirs) > 1 {
		// Several data dirs of one ensemble: proven one history, the
		// newest holds all of it.
		res, err := loadPointWith(c, spec, source.Options{})
		if err != nil {
			return err
		}
		for _, d := range res.DataDirs {
			if d.Used {
				verbosef(c, "%s: the newest data dir is %s (zxid %#x); the others are prefixes of its history", raw, d.Path, d.MaxZxid)
				if spec, err = parseSource(c, "zkdata:"+d.Path); err != nil {
					return err
				}
			}
		}
	}
	format := outputFormat(c)
	w := bufio.NewWriterSize(stdout(c), 1<<20)
	var (
		buf    []byte
		enc    history.Encoder
		text   report.HistoryText
		rows   [][]string
		listed []history.Change
		tl     = report.NewHistoryTimeline()
	)
	j := history.New(opts, func(ch *history.Change) error {
		var err error
		switch format {
		case printer.JSON:
			buf = append(enc.Append(buf[:0], ch), '\n')
			_, err = w.Write(buf)
		case printer.Table:
			rows = report.HistoryRows(rows, ch)
		case printer.HTML:
			tl.Add(ch.Kind, ch.Time)
			if len(listed) < report.HistoryListed {
				listed = append(listed, ch.Clone())
			}
		default:
			buf = append(text.Append(buf[:0], ch), '\n')
			_, err = w.Write(buf)
		}
		return err
	})
	sum := report.HistorySummary{Source: spec.String(), World: spec.World, Filters: filters, Since: opts.Since}
	var so source.Options
	if spec.World == model.WorldKRaft {
		so = kraftHistory(j, &sum)
	} else {
		so = zkHistory(j, &sum)
	}
	defer lessGC()()
	res, err := loadPointWith(c, spec, so)
	if err != nil {
		return err
	}
	if err := j.Err(); err != nil {
		return err
	}
	sum.Seen, sum.Reported, sum.First, sum.Last, sum.Kinds = j.Seen, j.Reported, j.First, j.Last, j.Kinds
	sum.Partial = res.Image.IsPartial()
	switch format {
	case printer.HTML:
		if err := w.Flush(); err != nil {
			return err
		}
		return emit(c, report.HistoryReport(sum, listed, tl))
	case printer.Table:
		if err := printer.WriteRows(w, printer.Table, printer.Rows{Columns: report.HistoryColumns, Rows: rows}); err != nil {
			return err
		}
		w.WriteString("\n")
		fallthrough
	case printer.Text:
		if format == printer.Text && sum.Reported > 0 {
			w.WriteString("\n")
		}
		for _, l := range sum.Lines() {
			w.WriteString(l + "\n")
		}
	default:
		for _, l := range sum.Lines() {
			verbosef(c, "%s", l)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := partialResult(raw, res.Image); err != nil {
		return err
	}
	if u := sum.Uncovered(); u != "" {
		return findingsf("%s: not covered: %s", printer.Clean(raw), u)
	}
	return nil
}

// kraftHistory feeds j from a KRaft log's replay: before each record the
// entities it touches (metalog's Touches), after it the image. The
// snapshot's records are the starting point.
func kraftHistory(j *history.Judge, sum *report.HistorySummary) source.Options {
	var refs []model.EntityRef
	var touches []history.Touch
	// cur is the point of the record Before was handed; Observe, which
	// follows for the same record, reports its changes there.
	var cur history.Point
	point := func(r *metalog.Replayer, pos metalog.Position, rec records.Message) history.Point {
		_, control := rec.(records.Control)
		p := history.Point{World: model.WorldKRaft, Offset: pos.Offset, Before: r.PointBefore(pos, control)}
		if pos.Timestamp > 0 && pos.Timestamp <= 253402300799999 {
			p.Time = time.UnixMilli(pos.Timestamp).UTC()
		}
		return p
	}
	return source.Options{
		Oldest: true,
		Before: func(r *metalog.Replayer, pos metalog.Position, rec records.Message) {
			if pos.Snapshot {
				// A snapshot's records are the state up to it; the
				// bootstrap snapshot (offset -1) has no log before it.
				sum.Start, sum.HasStart, sum.Folded = pos.Offset, true, pos.Offset >= 0
				return
			}
			pt := point(r, pos, rec)
			if sum.AfterStart.IsZero() {
				sum.AfterStart = pt.Time
			}
			cur = pt
			if !j.InWindow(pt) {
				j.Before(nil, pt, nil)
				return
			}
			refs = r.Touches(rec, refs[:0])
			touches = touches[:0]
			name := rec.RecordName()
			for _, ref := range refs {
				touches = append(touches, history.Touch{Ref: ref, Record: name})
			}
			j.Before(r.Image(), pt, touches)
		},
		Observe: func(img *model.Image, pos metalog.Position, _ records.Message) {
			if !pos.Snapshot {
				j.After(img, cur)
			}
		},
	}
}

// zkHistory feeds j from a ZooKeeper data dir's replay: before each
// transaction the entities its znodes touch, after it the image. The
// tree the replay starts from is the starting point.
func zkHistory(j *history.Judge, sum *report.HistorySummary) source.Options {
	var touches []history.Touch
	point := func(s zkread.Step) history.Point {
		return history.Point{World: model.WorldZooKeeper, Offset: -1, Zxid: s.Zxid, Time: s.Time}
	}
	return source.Options{
		ZKBefore: func(img *model.Image, s zkread.Step) {
			if sum.AfterStart.IsZero() {
				sum.AfterStart = s.Time
			}
			touches = touches[:0]
			for _, ch := range s.Changes {
				for _, ref := range ch.Refs {
					touches = append(touches, history.Touch{Ref: ref, Record: ch.Op, Znode: ch.Znode})
				}
			}
			j.Before(img, point(s), touches)
		},
		ZKStep: func(img *model.Image, s zkread.Step) {
			if slices.ContainsFunc(s.Changes, func(ch zkread.Change) bool { return ch.What == zkread.TouchedAll }) {
				// The snapshot's tree folds the transactions up to it; a
				// start at the transaction that created Kafka's chroot
				// (it has a time) folds nothing of Kafka's.
				sum.Start, sum.HasStart, sum.Folded = s.Zxid, true, s.Time.IsZero() && s.Zxid > 0
				return
			}
			j.After(img, point(s))
		},
	}
}
