package online

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Rollback states a watch reports.
const (
	// RollbackSafe: a rollback is valid and ZooKeeper holds what KRaft
	// holds (verify agrees), or nothing was copied yet.
	RollbackSafe = "safe"
	// RollbackUnsafe: valid, but ZooKeeper lacks what KRaft holds now: a
	// rollback would lose it.
	RollbackUnsafe = "unsafe"
	// RollbackUnknown: valid, and ZooKeeper was not compared with KRaft
	// (no KRaft source that reports topics and configs).
	RollbackUnknown = "unknown"
	// RollbackNone: no rollback from this phase (PreKRaft on).
	RollbackNone = "none"
)

// WatchPoint is one observation of a migration as migrate status --watch
// prints it.
type WatchPoint struct {
	Phase Phase `json:"phase"`
	// Brokers: up in ZooKeeper (/brokers/ids), registered with KRaft
	// (unfenced), and registered as migrating ZooKeeper brokers; KRaft
	// lists are nil when the KRaft source does not report registrations.
	InZooKeeper []int32 `json:"inZooKeeper"`
	InKRaft     []int32 `json:"inKRaft"`
	Migrating   []int32 `json:"migrating"`
	// Records the copy wrote (-1: the source cannot say; only a
	// controller's log dir can).
	Records int64 `json:"records"`
	// Agree is verify's verdict of ZooKeeper against KRaft in dual-write
	// (nil: not compared), Differences its count.
	Agree       *bool `json:"agree"`
	Differences int   `json:"differences"`
	// ZKOffset is the KRaft offset ZooKeeper's /migration records as
	// written (-1: none), KRaftOffset the KRaft view's last offset (-1:
	// no KRaft source).
	ZKOffset    int64 `json:"zkOffset"`
	KRaftOffset int64 `json:"kraftOffset"`
	// Rollback is RollbackSafe, RollbackUnsafe, RollbackUnknown or
	// RollbackNone.
	Rollback string `json:"rollback"`
	// Waiting is what the phase still waits for (status's).
	Waiting []string `json:"waiting"`
}

// WatchEvent is one printed line: a point whose content changed, what
// changed in words, and the watch's verdict so far.
type WatchEvent struct {
	Time    time.Time  `json:"time"`
	Point   WatchPoint `json:"point"`
	Changes []string   `json:"changes"`
	// Reached: the phase asked for (--until) is reached.
	Reached bool `json:"reached,omitempty"`
	// Failed says what went wrong ("" nothing): a broker out for longer
	// than the grace, ZooKeeper behind KRaft for longer than allowed.
	Failed string `json:"failed,omitempty"`
}

// WatchOptions tune a Watch.
type WatchOptions struct {
	// Until is the phase that ends the watch (exit 0); HasUntil says it
	// was given.
	Until    Phase
	HasUntil bool
	// Grace is how long a broker may be out (not in ZooKeeper nor
	// registered with KRaft: a restart) before the watch fails.
	Grace time.Duration
	// MaxBehind is how long ZooKeeper may disagree with KRaft in
	// dual-write before the watch fails.
	MaxBehind time.Duration
}

// Watch follows a migration one status at a time. It is pure: the
// caller reads the sources and passes each Status with the time it was
// read.
type Watch struct {
	opts WatchOptions
	prev *WatchPoint
	// seen are the brokers ever seen up; out since when each is out.
	seen        map[int32]bool
	out         map[int32]time.Time
	behindSince time.Time
}

// NewWatch starts a watch.
func NewWatch(opts WatchOptions) *Watch {
	return &Watch{opts: opts, seen: map[int32]bool{}, out: map[int32]time.Time{}}
}

// Point reduces a status to what the watch prints; kraftOffset is the
// KRaft view's last offset (-1 when there is none).
func Point(st *Status, kraftOffset int64) WatchPoint {
	p := WatchPoint{Phase: st.Phase, InZooKeeper: []int32{}, Records: -1, Agree: st.Agree, Differences: st.Differences,
		ZKOffset: -1, KRaftOffset: kraftOffset, Waiting: slices.Clone(st.WaitingFor)}
	kraftKnown := false
	for _, b := range st.Brokers {
		if b.InZooKeeper {
			p.InZooKeeper = append(p.InZooKeeper, b.ID)
		}
		if b.KRaft == "not-reported" {
			continue
		}
		kraftKnown = true
		if p.InKRaft == nil {
			p.InKRaft, p.Migrating = []int32{}, []int32{}
		}
		if (b.KRaft == "kraft" || b.KRaft == "migrating") && !b.Fenced {
			p.InKRaft = append(p.InKRaft, b.ID)
		}
		if b.KRaft == "migrating" {
			p.Migrating = append(p.Migrating, b.ID)
		}
	}
	if !kraftKnown {
		p.InKRaft, p.Migrating = nil, nil
	}
	if st.Migrated != nil {
		p.Records = st.Migrated.Records
	}
	if m := st.ZooKeeper.Migration; m != nil && !m.ZNodeNull {
		p.ZKOffset = m.KRaftMetadataOffset
	}
	switch {
	case Phases[st.Phase].RollbackTo < 0:
		p.Rollback = RollbackNone
	case !Phases[st.Phase].DualWrites:
		// KRaft has written nothing ZooKeeper lacks.
		p.Rollback = RollbackSafe
	case st.Agree == nil:
		p.Rollback = RollbackUnknown
	case *st.Agree:
		p.Rollback = RollbackSafe
	default:
		p.Rollback = RollbackUnsafe
	}
	return p
}

// Next takes the status read at now and returns the event to print, or
// nil when nothing but offsets changed and the watch goes on.
func (w *Watch) Next(p WatchPoint, now time.Time) *WatchEvent {
	ev := &WatchEvent{Time: now.UTC(), Point: p, Changes: []string{}}
	prev := w.prev
	w.prev = &p
	if prev == nil {
		ev.Changes = append(ev.Changes, "watching: "+p.Phase.String())
	} else {
		if prev.Phase != p.Phase {
			ev.Changes = append(ev.Changes, fmt.Sprintf("phase %s → %s", prev.Phase, p.Phase))
		}
		if prev.Rollback != p.Rollback {
			ev.Changes = append(ev.Changes, rollbackChange(prev.Rollback, p))
		}
		if prev.Records != p.Records && p.Records >= 0 {
			ev.Changes = append(ev.Changes, fmt.Sprintf("%d records migrated", p.Records))
		}
		if !slices.Equal(prev.Migrating, p.Migrating) && p.Migrating != nil {
			ev.Changes = append(ev.Changes, fmt.Sprintf("migrating brokers %s", watchIDs(p.Migrating)))
		}
		if prev.Differences != p.Differences && p.Agree != nil && !*p.Agree {
			ev.Changes = append(ev.Changes, fmt.Sprintf("ZooKeeper and KRaft differ (%d differences)", p.Differences))
		}
	}
	// Brokers: who went out, who came back.
	up := map[int32]bool{}
	for _, id := range p.InZooKeeper {
		up[id] = true
	}
	for _, id := range p.InKRaft {
		up[id] = true
	}
	for id := range up {
		w.seen[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(w.seen)) {
		_, wasOut := w.out[id]
		switch {
		case up[id] && wasOut:
			ev.Changes = append(ev.Changes, fmt.Sprintf("broker %d back after %s", id, now.Sub(w.out[id]).Round(time.Second)))
			delete(w.out, id)
		case !up[id] && !wasOut && w.canSee(p):
			w.out[id] = now
			ev.Changes = append(ev.Changes, fmt.Sprintf("broker %d out: %s", id, outWhere(p)))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(w.out)) {
		if d := now.Sub(w.out[id]); w.opts.Grace > 0 && d > w.opts.Grace && ev.Failed == "" {
			ev.Failed = fmt.Sprintf("broker %d has been out for %s (more than --grace %s): %s", id, d.Round(time.Second), w.opts.Grace, outWhere(p))
		}
	}
	if p.Agree != nil && !*p.Agree {
		if w.behindSince.IsZero() {
			w.behindSince = now
		}
		if d := now.Sub(w.behindSince); w.opts.MaxBehind > 0 && d > w.opts.MaxBehind && ev.Failed == "" {
			ev.Failed = fmt.Sprintf("ZooKeeper has differed from KRaft for %s (more than --max-behind %s, %d differences): dual-write is not keeping up; a rollback now loses what ZooKeeper lacks",
				d.Round(time.Second), w.opts.MaxBehind, p.Differences)
		}
	} else {
		w.behindSince = time.Time{}
	}
	if w.opts.HasUntil && (p.Phase == w.opts.Until || w.opts.Until != ZooKeeper && p.Phase > w.opts.Until) {
		ev.Reached = true
		ev.Changes = append(ev.Changes, "reached "+w.opts.Until.String())
	}
	if len(ev.Changes) == 0 && ev.Failed == "" {
		return nil
	}
	return ev
}

// canSee says whether the point can show a broker out: ZooKeeper shows
// ZooKeeper-mode brokers, but once brokers may have rolled onto KRaft
// (dual-write on) only a KRaft source that reports registrations (a
// controller's log dir) tells a broker that is out from one that left
// ZooKeeper as a KRaft broker.
func (w *Watch) canSee(p WatchPoint) bool {
	return p.InKRaft != nil || p.Phase < KRaftDualWriting
}

func outWhere(p WatchPoint) string {
	if p.InKRaft == nil {
		return "not in /brokers/ids"
	}
	return "not in /brokers/ids, not registered (unfenced) with KRaft"
}

func rollbackChange(from string, p WatchPoint) string {
	switch p.Rollback {
	case RollbackNone:
		return fmt.Sprintf("rollback no longer possible: %s (%s)", p.Phase, p.Phase.noRollback())
	case RollbackUnsafe:
		return fmt.Sprintf("rollback no longer safe: ZooKeeper lacks what KRaft holds (%d differences)", p.Differences)
	case RollbackSafe:
		if from == RollbackUnsafe {
			return "rollback safe again: ZooKeeper agrees with KRaft"
		}
		return "rollback safe"
	}
	return "rollback safety unknown: ZooKeeper is not compared with KRaft (give --kraft kraft:DIR of a controller)"
}

// Line is the event as one line of text.
func (e *WatchEvent) Line() string {
	p := e.Point
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-18s zk brokers %s", e.Time.Format("15:04:05"), p.Phase, watchIDs(p.InZooKeeper))
	if p.InKRaft != nil {
		fmt.Fprintf(&b, ", kraft %s, migrating %s", watchIDs(p.InKRaft), watchIDs(p.Migrating))
	}
	if p.Records >= 0 {
		fmt.Fprintf(&b, "; %d records migrated", p.Records)
	}
	switch {
	case p.Agree == nil:
	case *p.Agree:
		b.WriteString("; zk = kraft")
	default:
		fmt.Fprintf(&b, "; zk ≠ kraft (%d)", p.Differences)
	}
	if p.ZKOffset >= 0 || p.KRaftOffset >= 0 {
		fmt.Fprintf(&b, "; /migration offset %s, kraft %s", watchOffset(p.ZKOffset), watchOffset(p.KRaftOffset))
	}
	fmt.Fprintf(&b, "; rollback %s", p.Rollback)
	if len(e.Changes) > 0 {
		b.WriteString(" — " + strings.Join(e.Changes, "; "))
	}
	if e.Failed != "" {
		b.WriteString(" — FAILED: " + e.Failed)
	}
	return b.String()
}

func watchOffset(o int64) string {
	if o < 0 {
		return "-"
	}
	return fmt.Sprint(o)
}

func watchIDs(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
