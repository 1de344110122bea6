package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/lint"
	"github.com/kmeta/kmeta/model"
)

func init() {
	register(func() *cli.Command { return lintCommand(loadImageSource) })
}

func lintCommand(load imageLoader) *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check a cluster's metadata against the durability, availability, placement, leftovers and control-plane rules",
		ArgsUsage: "SOURCE",
		Description: "Every rule runs on the image of any source (a KRaft log dir or snapshot at any offset, ZooKeeper live,\n" +
			"data dir or dump, a live cluster). Each finding has a stable code, a severity (critical, error,\n" +
			"warning, info), the entities it is about, what the rule saw, why it matters, and the fix as the\n" +
			"Kafka command that applies it (--bootstrap-server is the live source's address, else BOOTSTRAP;\n" +
			"zookeeper-shell the zk:// source's ensemble, else ZOOKEEPER).\n" +
			"A rule whose inputs the source does not report (a live cluster has no leader recovery state) is\n" +
			"listed as not run, never as clean. Every config a rule reads is the value Kafka applies (topic, broker\n" +
			"dynamic, cluster default, broker static server.properties, Kafka's default). A live cluster reports its\n" +
			"brokers' static configs; a log dir, ZooKeeper or a dump holds none: --config ID=FILE passes a node's\n" +
			"server.properties, and without it a finding or rule that depends on one says what it assumes.\n" +
			"--exceptions FILE accepts findings on purpose (JSON: {\"exceptions\": [{\"rule\": CODE, \"topics\": GLOB,\n" +
			"\"reason\": TEXT}]}; topics left out covers the rule everywhere).\n" +
			"Exit 0 when no finding at or above --fail-on remains, 1 when one does, 2 when the source could not\n" +
			"be read or no selected rule could run.\n" +
			"--history (a KRaft log dir, snapshots and segments) replays the log once, re-evaluating after each\n" +
			"record only the checks whose scope it touched, and gives each finding the point since which it has\n" +
			"held (since.offset: the end of the batch that made it so, or the offset before a transaction that\n" +
			"batch opens, an offset SOURCE@offset=N and image --at-offset accept) and the record that made it so\n" +
			"(since.recordOffset, since.time: its batch's, since.record); a finding that cleared and came back\n" +
			"holds since its last appearance. On one ZooKeeper data dir (zkdata:) it replays the snapshot and\n" +
			"transaction logs once, from the oldest snapshot the logs go on from, decoding after each\n" +
			"transaction only the znodes it changed: since.zxid (also since.offset and since.recordOffset) and\n" +
			"since.time are the transaction's, since.record the operation (create, setData, delete, closeSession,\n" +
			"snapshot) and since.znode the znode that made it so. Other sources are refused (exit 2).\n" + htmlHelp + "\n\n" + sourceHelp,
		Flags: append(append(sourceFlags(),
			&cli.StringSliceFlag{Name: "rule", Usage: "run only the rule `CODE` (repeatable)"},
			&cli.StringSliceFlag{Name: "skip", Usage: "leave the rule `CODE` out (repeatable)"},
			&cli.StringFlag{Name: "exceptions", Usage: "accepted findings, a JSON `FILE` (per rule, per topic pattern, with a reason)"},
			&cli.StringFlag{Name: "fail-on", Value: string(model.SevError), Usage: "exit 1 on a finding at or above `SEVERITY` (critical, error, warning, info)"},
			&cli.BoolFlag{Name: "list-rules", Usage: "list the rules (code, family, severity, what each checks) and exit"},
			&cli.StringSliceFlag{Name: "config", Usage: "a node's server.properties `ID=FILE` (repeatable): its static configs, which no metadata record holds (on a live source, it replaces what the broker reported)"},
			&cli.BoolFlag{Name: "history", Usage: "on a KRaft log or a ZooKeeper data dir: say for each finding since which offset (zxid) and time it has held, and the record (znode) that made it so (one replay)"},
		), reportFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("list-rules") {
				return emit(c, lintRulesReport())
			}
			failOn, ok := model.ParseSeverity(c.String("fail-on"))
			if !ok {
				return usageErrorf(c, "--fail-on %q: want critical, error, warning or info", c.String("fail-on"))
			}
			opts := lint.Options{Only: c.StringSlice("rule"), Skip: c.StringSlice("skip")}
			if err := lint.CheckCodes(append(append([]string{}, opts.Only...), opts.Skip...)); err != nil {
				return usageErrorf(c, "%v", err)
			}
			if f := c.String("exceptions"); f != "" {
				data, err := model.ReadInput(f, model.InputExceptions)
				if err != nil {
					return fmt.Errorf("--exceptions: %w", err)
				}
				if opts.Exceptions, err = lint.ParseExceptions(data); err != nil {
					return fmt.Errorf("--exceptions %s: %w", printer.Clean(f), err)
				}
			}
			src, err := sourceArg(c)
			if err != nil {
				return err
			}
			static, files, err := readStaticConfigs(c)
			if err != nil {
				return err
			}
			opts.StaticFiles = files
			var tr *lint.Tracker
			var img *model.Image
			if c.Bool("history") {
				if tr, err = lint.NewTracker(opts); err != nil {
					return usageErrorf(c, "%v", err)
				}
				if img, err = loadHistory(c, src, tr, static); err != nil {
					return err
				}
			} else if img, err = load(c, src); err != nil {
				return err
			}
			applyStatic(img, static)
			// A fix names the live cluster it was read from; from files,
			// kmeta cannot know the address (BOOTSTRAP).
			if live := strings.Join(img.Provenance.Live, ","); live != "" {
				switch {
				case img.ZK != nil:
					// zookeeper-shell fixes name the ensemble read
					// (zk://), the chroot left to the image, and reach
					// it as kmeta did.
					opts.ZooKeeper = live
					opts.ZooKeeperTLS, opts.ZooKeeperDigest = zkReachedWith(c)
				case !hasFlagSet(c, "bootstrap-controller"):
					opts.Bootstrap = live
					opts.CommandConfig = c.String("command-config")
				}
			}
			res, err := lint.Run(img, opts)
			if err != nil {
				return usageErrorf(c, "%v", err)
			}
			if tr != nil {
				tr.Annotate(res)
			}
			if err := emit(c, report.Lint(res, failOn)); err != nil {
				return err
			}
			return partialResult(src, img)
		},
	}
}

// readStaticConfigs reads --config ID=FILE: each node's server.properties,
// its static configs, and the file each was read from, as given (a
// finding about a value names it).
func readStaticConfigs(c *cli.Context) (map[int32]map[string]string, map[int32]string, error) {
	nodes, err := readNodeConfigs(c)
	if err != nil || len(nodes) == 0 {
		return nil, nil, err
	}
	out := make(map[int32]map[string]string, len(nodes))
	files := make(map[int32]string, len(nodes))
	for id, n := range nodes {
		out[id] = n.Props
	}
	for _, kv := range c.StringSlice("config") {
		idS, path, _ := strings.Cut(kv, "=")
		if id, err := strconv.ParseInt(strings.TrimSpace(idS), 10, 32); err == nil {
			files[int32(id)] = path
		}
	}
	return out, files, nil
}

// applyStatic puts the nodes' static configs into img (a file replaces
// what a live source reported for that node).
func applyStatic(img *model.Image, static map[int32]map[string]string) {
	for id, kv := range static {
		img.SetStaticConfigs(id, kv)
	}
}

// hasFlagSet says whether the command defines a flag and it was given.
func hasFlagSet(c *cli.Context, name string) bool { return hasFlag(c, name) && c.String(name) != "" }

// lintRulesReport lists the registry.
func lintRulesReport() report.Report {
	type ruleDoc struct {
		Code     string         `json:"code"`
		Family   lint.Family    `json:"family"`
		Severity model.Severity `json:"severity"`
		Title    string         `json:"title"`
		Needs    []model.Field  `json:"needs"`
	}
	rows := printer.Rows{Columns: []printer.Column{
		{Header: "RULE", Key: "rule", Essential: true}, {Header: "FAMILY", Key: "family"},
		{Header: "SEVERITY", Key: "severity"}, {Header: "CHECKS", Key: "checks", Wrap: true, Essential: true},
	}}
	var docs []ruleDoc
	for _, r := range lint.Rules() {
		docs = append(docs, ruleDoc{r.Code, r.Family, r.Severity, r.Title, r.Needs})
		rows.Rows = append(rows.Rows, []string{r.Code, string(r.Family), string(r.Severity), r.Title})
	}
	return report.Report{Document: printer.Document{JSON: docs, Sections: []printer.Section{{Rows: &rows}}}}
}
