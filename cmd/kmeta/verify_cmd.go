package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/verify"
)

func init() { register(verifyCommand) }

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "prove that the KRaft metadata holds exactly what ZooKeeper holds (exit 0 equal, 1 different, 2 could not run)",
		Description: "Reads both views concurrently and compares them class by class with the rules of Kafka's\n" +
			"ZooKeeper-to-KRaft migration (ACLs by content, <default> entities, pending deletions,\n" +
			"encrypted password configs, producer-id blocks, IBP against metadata.version, /migration),\n" +
			"plus readiness findings only a comparison shows. A view resting on partial input (replay\n" +
			"stopped, records skipped, lenient decode, a live tree that changed) is never reported as\n" +
			"equal: exit 2 unless --allow-partial.\n\nClasses: " + strings.Join(verify.Classes, ", ") + "\n\n" + sourceHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "zk", Usage: "the ZooKeeper `SOURCE` (zk://, zkdata:, zkdump:)", Required: true},
			&cli.StringFlag{Name: "kraft", Usage: "the KRaft `SOURCE` (kraft:)", Required: true},
			&cli.StringSliceFlag{Name: "ignore", Usage: "leave `CLASS` out of the verdict (repeatable); the summary says what was ignored"},
			&cli.BoolFlag{Name: "allow-partial", Usage: "compare even when a view rests on partial input"},
			&cli.StringSliceFlag{Name: "broker-log-dirs", Usage: "broker log `DIR`s whose partition.metadata topic ids are checked against ZooKeeper (comma separated or repeated)"},
		}, sourceFlags()...),
		Action: func(c *cli.Context) error {
			if _, err := checkArgs(c, 0, 0, "no arguments (use --zk and --kraft)"); err != nil {
				return err
			}
			pms, err := readPartitionMetadata(c.StringSlice("broker-log-dirs"))
			if err != nil {
				return err
			}
			return compareSources(c, "verify", c.String("zk"), c.String("kraft"), func(l, r source.Spec) error {
				if l.World != model.WorldZooKeeper {
					return usageErrorf(c, "--zk %s is not a ZooKeeper source", l.Raw)
				}
				if r.World != model.WorldKRaft {
					return usageErrorf(c, "--kraft %s is not a KRaft source", r.Raw)
				}
				return nil
			}, pms)
		},
	}
}

// comparedView is one loaded side.
type comparedView struct {
	res     *source.Result
	partial []string
}

// compareSources loads two sources concurrently, compares them and prints
// the report. check validates the parsed specs.
func compareSources(c *cli.Context, verb, leftRaw, rightRaw string, check func(l, r source.Spec) error, pms []verify.PartitionMetadata) error {
	ls, err := source.Parse(leftRaw)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	rs, err := source.Parse(rightRaw)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	if err := check(ls, rs); err != nil {
		return err
	}
	ignore := c.StringSlice("ignore")
	for _, cl := range ignore {
		if !verify.ValidClass(cl) {
			return usageErrorf(c, "--ignore %s: %v", cl, verify.ErrUnknownClass)
		}
	}
	var views [2]comparedView
	var errs [2]error
	var wg sync.WaitGroup
	for i, raw := range []string{leftRaw, rightRaw} {
		wg.Go(func() {
			res, err := loadSource(c, raw)
			if err != nil {
				errs[i] = fmt.Errorf("reading %s: %w", raw, err)
				return
			}
			views[i] = comparedView{res: res, partial: partialReasons(res)}
		})
	}
	wg.Wait()
	// An unreadable source is never "no differences".
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return err
	}
	rep, err := verify.Compare(views[0].res.Image, views[1].res.Image, verify.Options{
		Left:              verify.Side{World: ls.World, Name: ls.String()},
		Right:             verify.Side{World: rs.World, Name: rs.String()},
		Ignore:            ignore,
		PartitionMetadata: pms,
	})
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	partial := len(views[0].partial) > 0 || len(views[1].partial) > 0
	allow := c.Bool("allow-partial")
	if err := writeReport(c, verb, rep, views, partial, allow); err != nil {
		return err
	}
	if partial && !allow {
		return fmt.Errorf("a view rests on partial input, so %s does not call the views equal (see the report; --allow-partial compares anyway)", verb)
	}
	if rep.Differ() {
		return errFindingsReported
	}
	return nil
}

// partialReasons says what a loaded view rests on, when it may lack
// content its source held: the image's typed warnings that model.Partial
// counts (replay stopped at a damaged batch, records skipped, a coverage
// hole, a live tree that changed, a lenient decode, a damaged ZooKeeper
// log, a file of the source that could not be used).
func partialReasons(res *source.Result) []string {
	var out []string
	for _, w := range res.Image.Warnings {
		if model.Partial(w) {
			where := ""
			if w.Where != nil {
				where = " (" + w.Where.String() + ")"
			}
			out = append(out, w.Code+where+": "+w.Message)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readPartitionMetadata reads <dir>/<topic>-<n>/partition.metadata in
// every broker log dir given.
func readPartitionMetadata(dirs []string) ([]verify.PartitionMetadata, error) {
	var out []verify.PartitionMetadata
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("--broker-log-dirs: %w", err)
		}
		for _, e := range entries {
			i := strings.LastIndexByte(e.Name(), '-')
			if !e.IsDir() || i <= 0 {
				continue
			}
			n, err := strconv.ParseInt(e.Name()[i+1:], 10, 32)
			if err != nil {
				continue // not a partition dir (e.g. a -delete or -future suffix)
			}
			path := filepath.Join(d, e.Name(), "partition.metadata")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			pm, err := metalog.ReadPartitionMetadata(path)
			if err != nil {
				return nil, err
			}
			out = append(out, verify.PartitionMetadata{Path: path, Topic: e.Name()[:i], Partition: int32(n), TopicID: pm.TopicID})
		}
	}
	return out, nil
}

// reportJSON is the -o json document of verify and diff.
type reportJSON struct {
	Result      string          `json:"result"`
	Left        sideJSON        `json:"left"`
	Right       sideJSON        `json:"right"`
	CrossWorld  bool            `json:"crossWorld"`
	Differences int             `json:"differences"`
	Explained   int             `json:"explained"`
	Ignored     []ignoredJSON   `json:"ignored"`
	Compared    []comparedJSON  `json:"compared"`
	NotCompared []string        `json:"notCompared"`
	Findings    []model.Finding `json:"findings"`
}

type sideJSON struct {
	Kind    string   `json:"kind"`
	Source  string   `json:"source"`
	Offset  int64    `json:"offset"`
	Zxid    int64    `json:"zxid,omitempty"`
	Partial []string `json:"partial"`
}

type ignoredJSON struct {
	Class    string `json:"class"`
	Findings int    `json:"findings"`
}

type comparedJSON struct {
	Class string `json:"class"`
	Left  int    `json:"left"`
	Right int    `json:"right"`
}

func writeReport(c *cli.Context, verb string, rep *verify.Report, views [2]comparedView, partial, allow bool) error {
	doc := reportJSON{Left: sideOf(rep.Left, views[0]), Right: sideOf(rep.Right, views[1]), CrossWorld: rep.CrossWorld,
		NotCompared: nonNil(rep.NotComparedWhy), Findings: nonNil(rep.Findings), Ignored: []ignoredJSON{}}
	for _, cl := range verify.Classes {
		if n, ok := countsOf(rep, cl); ok {
			doc.Compared = append(doc.Compared, n)
		}
	}
	for _, n := range rep.CountByClass() {
		doc.Differences += n[0]
		doc.Explained += n[1]
	}
	for _, cl := range rep.Ignored {
		doc.Ignored = append(doc.Ignored, ignoredJSON{Class: cl, Findings: rep.IgnoredCounts[cl]})
	}
	switch {
	case partial && !allow:
		doc.Result = "partial"
	case rep.Differ():
		doc.Result = "different"
	case partial:
		doc.Result = "equal-on-partial-input"
	default:
		doc.Result = "equal"
	}
	if outputFormat(c) == printer.JSON {
		return writeJSON(c, doc)
	}
	w := stdout(c)
	fmt.Fprintf(w, "kmeta %s: %s (left) against %s (right)\n", verb, rep.Left.Name, rep.Right.Name)
	for _, s := range []sideJSON{doc.Left, doc.Right} {
		if len(s.Partial) > 0 {
			fmt.Fprintf(w, "%s rests on partial input:\n", s.Source)
			for _, p := range s.Partial {
				fmt.Fprintf(w, "  - %s\n", printer.Clean(p))
			}
		}
	}
	var cmpd []string
	for _, n := range doc.Compared {
		cmpd = append(cmpd, fmt.Sprintf("%s %d/%d", n.Class, n.Left, n.Right))
	}
	fmt.Fprintf(w, "compared (left/right entities): %s\n", strings.Join(cmpd, ", "))
	for _, n := range doc.NotCompared {
		fmt.Fprintf(w, "not compared, by design: %s\n", n)
	}
	for _, ig := range doc.Ignored {
		fmt.Fprintf(w, "ignored: class %s (%d finding(s) left out)\n", ig.Class, ig.Findings)
	}
	switch doc.Result {
	case "partial":
		fmt.Fprintf(w, "result: NOT VERIFIED, a view is partial; %d difference(s) and %d explained difference(s) in what was read\n", doc.Differences, doc.Explained)
	case "different":
		fmt.Fprintf(w, "result: DIFFERENT, %d difference(s), %d explained\n", doc.Differences, doc.Explained)
	case "equal-on-partial-input":
		fmt.Fprintf(w, "result: no difference in what was read, but a view is partial (--allow-partial); %d explained\n", doc.Explained)
	default:
		fmt.Fprintf(w, "result: EQUAL, %d explained difference(s)\n", doc.Explained)
	}
	if len(rep.Findings) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return writeRows(c, comparisonRows(rep))
}

func sideOf(s verify.Side, v comparedView) sideJSON {
	out := sideJSON{Kind: s.World.String(), Source: s.Name, Offset: v.res.Image.Provenance.Offset, Zxid: v.res.Image.Provenance.Zxid, Partial: nonNil(v.partial)}
	return out
}

func countsOf(rep *verify.Report, class string) (comparedJSON, bool) {
	for _, n := range rep.Compared {
		if n.Class == class {
			return comparedJSON{Class: class, Left: n.Left, Right: n.Right}, true
		}
	}
	return comparedJSON{}, false
}

// comparisonRows is the findings table, grouped by class in the order of
// verify.Classes; within a class, the findings keep model's order.
func comparisonRows(rep *verify.Report) printer.Rows {
	fs := slices.Clone(rep.Findings)
	rank := func(class string) int {
		if i := slices.Index(verify.Classes, class); i >= 0 {
			return i
		}
		return len(verify.Classes)
	}
	slices.SortStableFunc(fs, func(a, b model.Finding) int { return rank(a.Class) - rank(b.Class) })
	// The value columns are named by side: the two worlds in verify,
	// before and after in a diff of one kind.
	left, right := "BEFORE", "AFTER"
	if rep.CrossWorld {
		left, right = strings.ToUpper(rep.Left.World.String()), strings.ToUpper(rep.Right.World.String())
	}
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "CLASS", Key: "class"}, {Header: "SEVERITY", Key: "severity"}, {Header: "CODE", Key: "code"},
		{Header: "ENTITY", Key: "entity"}, {Header: "FIELD", Key: "field"},
		{Header: left, Key: "left"}, {Header: right, Key: "right"}, {Header: "MESSAGE", Key: "message"},
	}}
	opt := func(s *string) string {
		if s == nil {
			return "-"
		}
		return *s
	}
	for _, f := range fs {
		rows.Rows = append(rows.Rows, []string{f.Class, string(f.Severity), f.Code, f.Entity, f.Field, opt(f.Left), opt(f.Right), f.Message})
	}
	return rows
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
