package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/kafkaread"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/restore"
	"github.com/kmeta/kmeta/verify"
)

func init() { register(restoreCommand) }

const restoreHelp = "Brings TARGET back to what SOURCE held at a point of its history (--to kraft:DIR@offset=N,\n" +
	"zkdata:DIR@zxid=N): topics deleted since (created again, empty: their data is gone), partition\n" +
	"counts that shrank, configs of topics, brokers and the cluster default, client quotas and ACLs.\n" +
	"What cannot be restored is listed with why and what to do instead: SCRAM credentials (the log holds\n" +
	"salted keys, not passwords: kmeta quorum rebuild at the point is the way), delegation tokens, broker\n" +
	"registrations, feature levels, partition counts that grew, replica assignments, topics created since\n" +
	"(never deleted), the data of deleted topics. Where a command undoes one, it is printed under it,\n" +
	"against the addresses the printed commands name: a topic or a SCRAM credential created since (Kafka's\n" +
	"tools), a feature level (kmeta features, gated and asking first), the point's replica assignments (a\n" +
	"line that writes kafka-reassign-partitions' plan file and executes it). A SCRAM credential deleted or\n" +
	"changed since gets a line that sets a new password read from KMETA_SCRAM_PASSWORD (read -rs keeps it\n" +
	"out of the history), piped to kafka-configs, never on a command line; the shell stops at the line\n" +
	"while it is unset, and it is unset once used.\n\n" +
	"With TARGET kafka://HOST:PORT (or --bootstrap-server), restore names every change, asks Kafka with\n" +
	"validate-only where Kafka has it (not for ACLs), then, unless --dry-run and after a confirmation\n" +
	"(--yes skips it; without a terminal, --yes is required), sends CreateTopics, CreatePartitions,\n" +
	"IncrementalAlterConfigs, AlterClientQuotas, CreateAcls and DeleteAcls, and reads TARGET again. With\n" +
	"--print, or a TARGET that is not a live KRaft cluster (zk://, zkdata:, kraft:, a ZooKeeper-mode\n" +
	"cluster's state), nothing is sent: the changes are printed as Kafka's commands (kafka-topics,\n" +
	"kafka-configs for configs and quotas, kafka-acls), runnable in order as printed, against\n" +
	"--print-bootstrap-server (default TARGET's kafka:// addresses, else \"$BOOTSTRAP_SERVER\").\n\n" +
	"SOURCE and TARGET must be one cluster (their cluster ids) unless --cluster-id-mismatch-ok.\n" +
	"--entity KIND[:GLOB] restores only those entities (as kmeta history selects them).\n\n" +
	"A secret SOURCE holds only redacted, unreported or encrypted is never printed in a command (a\n" +
	"placeholder, run, would become the value): it is a step TO DO BY HAND. A secret it holds is printed\n" +
	"as its hash, unless --show-secrets, in a command of its own commented out: the other keys of its\n" +
	"config are set by a runnable command before it.\n\n" +
	"Exit 0 when done (read back: nothing left to restore), printed, validated by --dry-run, or nothing to\n" +
	"do; 1 when kmeta or Kafka refused, it was not confirmed, the read back still finds changes, or the\n" +
	"restore is INCOMPLETE without what it leaves to the operator (a step TO DO BY HAND, a printed command\n" +
	"commented out), which the last line names; 2 when it could not run."

func restoreCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "to", Required: true, Usage: "the point to restore: `SOURCE@POINT` (kraft:DIR@offset=N, zkdata:DIR@zxid=N)"},
		&cli.StringSliceFlag{Name: "entity", Usage: "only entities `KIND[:GLOB]` (repeatable)"},
		&cli.BoolFlag{Name: "print", Usage: "print Kafka's commands, send nothing"},
		&cli.StringFlag{Name: "print-bootstrap-server", Usage: "the `HOST:PORT` the printed commands name"},
		&cli.BoolFlag{Name: "dry-run", Usage: "plan and validate with Kafka (validate-only), write nothing"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation before writing"},
		&cli.BoolFlag{Name: "cluster-id-mismatch-ok", Usage: "plan even when SOURCE and TARGET are different clusters"},
	}
	flags = append(flags, sourceFlags()...)
	return &cli.Command{
		Name:        "restore",
		Usage:       "bring configs, ACLs, client quotas, deleted topics and partition counts back to a point of the metadata log (writes to the cluster)",
		ArgsUsage:   "--to SOURCE@POINT TARGET",
		Description: restoreHelp,
		Flags:       flags,
		Action:      restoreRun,
	}
}

func restoreRun(c *cli.Context) error {
	args, err := sourceArgs(c, 1, "TARGET")
	if err != nil {
		return err
	}
	opts := restore.Options{ClusterIDMismatchOK: c.Bool("cluster-id-mismatch-ok")}
	for _, e := range c.StringSlice("entity") {
		s, err := verify.ParseSelector(e)
		if err != nil {
			return usageErrorf(c, "--entity: %v", err)
		}
		opts.Entities = append(opts.Entities, s)
	}
	from, err := parseSource(c, c.String("to"))
	if err != nil {
		return err
	}
	to, err := parseSource(c, args[0])
	if err != nil {
		return err
	}
	if err := source.WithPoints(mustPoint(c), &from, &to); err != nil {
		return usageErrorf(c, "%v", err)
	}
	live := to.World == model.WorldKafka && !c.Bool("print")
	if live && to.Controllers {
		return usageErrorf(c, "restore writes through brokers: give kafka://BROKER:PORT or --bootstrap-server, not --bootstrap-controller (or --print)")
	}
	if c.Bool("dry-run") && !live {
		return usageErrorf(c, "--dry-run validates with a live cluster; with --print or a TARGET that is not kafka://, nothing is sent anyway")
	}
	views, err := loadViews(c, []source.Spec{from, to}, nil)
	if err != nil {
		return err
	}
	want, have := views[0], views[1]
	for _, v := range []struct {
		spec source.Spec
		img  *model.Image
	}{{from, want}, {to, have}} {
		if v.img.IsPartial() {
			return findingsf("%s: the view rests on damaged or partial input (see the warnings above): restore does not plan from it", printer.Clean(v.spec.Raw))
		}
	}
	src, tgt := restore.Side{Name: from.String(), World: from.World}, restore.Side{Name: to.String(), World: to.World}
	plan := restore.Make(want, have, src, tgt, opts)
	// The commands Kafka's tools would run: the plan's when printed, and
	// always those that undo what the plan does not restore.
	bs := c.String("print-bootstrap-server")
	if bs == "" && to.World == model.WorldKafka {
		bs = strings.Join(to.Bootstrap, ",")
	}
	co := restore.CommandOptions{Bootstrap: bs, CommandConfig: c.String("command-config"), ShowSecrets: showSecrets(c)}
	restore.FixCommands(plan, co)
	d := report.RestoreDoc{Source: src.Name, Target: tgt.Name, Plan: plan}
	shown := func(p *restore.Plan) *restore.Plan {
		if showSecrets(c) {
			return p
		}
		return p.Redacted()
	}
	d.Plan = shown(plan)
	switch {
	case plan.Refused != "":
		d.Outcome = report.RestoreRefused
		return emit(c, report.RestoreReport(d))
	case plan.Empty():
		d.Outcome = report.RestoreNothing
		return emit(c, report.RestoreReport(d))
	case !live:
		d.Commands = restore.Commands(plan, co)
		d.Outcome = report.RestorePrinted
		return emit(c, report.RestoreReport(d))
	}
	return restoreLive(c, to, plan, &d, opts, want, src, tgt, shown)
}

// mustPoint is --at-offset and --at-zxid (which apply to --to's source of
// their kind; a live TARGET refuses a point).
func mustPoint(c *cli.Context) source.At {
	at, _ := pointFlags(c)
	return at
}

// restoreLive sends the plan to a live cluster: every change named on
// stderr, validate-only, a confirmation, the writes, then the read back.
func restoreLive(c *cli.Context, to source.Spec, plan *restore.Plan, d *report.RestoreDoc, opts restore.Options,
	want *model.Image, src, tgt restore.Side, shown func(*restore.Plan) *restore.Plan) error {
	cfg, err := kafkaConfig(c)
	if err != nil {
		return err
	}
	cfg.Bootstrap = to.Bootstrap
	ctx := c.Context
	cl, err := kafkaread.Dial(ctx, cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	// Every change, named before anything is sent.
	for _, l := range report.RestorePlanLines(shown(plan)) {
		fmt.Fprintf(stderr(c), "kmeta: restore will send: %s\n", l)
	}
	b := batchOf(plan)
	d.Validated, err = b.send(ctx, cl, true)
	if err != nil {
		return err
	}
	if refusedAny(d.Validated) {
		d.Outcome = report.RestoreRefusedByKafka
		return emit(c, report.RestoreReport(*d))
	}
	if c.Bool("dry-run") {
		d.Outcome = report.RestoreWouldDo
		return emit(c, report.RestoreReport(*d))
	}
	if !c.Bool("yes") {
		ok, err := askYes(c, "restore", fmt.Sprintf("restore %s to %s: %s (listed above), validated by Kafka where it can. Write now? [y/N] ",
			tgt.Name, src.Name, printer.Count(len(plan.Actions), "change")))
		if err != nil {
			return err
		}
		if !ok {
			d.Outcome = report.RestoreNotConfirmed
			return emit(c, report.RestoreReport(*d))
		}
	}
	d.Applied, err = b.send(ctx, cl, false)
	if err != nil {
		return err
	}
	d.Outcome = report.RestoreDone
	// Read back until the plan is empty (a broker applies the records a
	// moment after the controller wrote them), or the timeout passes.
	deadline := time.Now().Add(cfg.Timeout)
	for {
		have, err := cl.Image(ctx)
		if err != nil {
			return err
		}
		again := restore.Make(want, have, src, tgt, opts)
		d.Left, d.ReadBack = again.Actions, true
		if len(d.Left) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	if len(d.Left) > 0 {
		d.Left = shown(&restore.Plan{Actions: d.Left}).Actions
	}
	return emit(c, report.RestoreReport(*d))
}

func refusedAny(rs []report.ActionResult) bool {
	for _, r := range rs {
		if r.Error != "" {
			return true
		}
	}
	return false
}

// batch is a plan as kafkaread's requests, each item with the index of
// its action.
type batch struct {
	plan       *restore.Plan
	topics     []kafkaread.TopicCreate
	topicIdx   []int
	grows      []kafkaread.PartitionsGrow
	growIdx    []int
	configs    []kafkaread.ConfigAlter
	configIdx  []int
	quotas     []kafkaread.QuotaAlter
	quotaIdx   []int
	addACLs    []model.ACL
	addIdx     []int
	removeACLs []model.ACL
	removeIdx  []int
}

func batchOf(p *restore.Plan) *batch {
	b := &batch{plan: p}
	for i, a := range p.Actions {
		switch a.Kind {
		case restore.CreateTopic:
			t := kafkaread.TopicCreate{Name: a.Topic.Name, Partitions: a.Topic.Partitions, ReplicationFactor: a.Topic.ReplicationFactor,
				Assignment: a.Topic.Assignment, Configs: map[string]string{}}
			for _, cv := range a.Topic.Configs {
				t.Configs[cv.Key] = cv.Value
			}
			b.topics, b.topicIdx = append(b.topics, t), append(b.topicIdx, i)
		case restore.CreatePartitions:
			b.grows, b.growIdx = append(b.grows, kafkaread.PartitionsGrow{Topic: a.Topic.Name, Count: a.Topic.Partitions}), append(b.growIdx, i)
		case restore.AlterConfigs:
			ca := kafkaread.ConfigAlter{Resource: a.Config.Resource, Set: map[string]string{}}
			for _, cv := range a.Config.Set {
				ca.Set[cv.Key] = cv.Value
			}
			for _, cv := range a.Config.Delete {
				ca.Delete = append(ca.Delete, cv.Key)
			}
			b.configs, b.configIdx = append(b.configs, ca), append(b.configIdx, i)
		case restore.AlterQuotas:
			qa := kafkaread.QuotaAlter{Entity: a.Quota.Entity, Set: map[string]float64{}}
			for _, v := range a.Quota.Set {
				qa.Set[v.Key] = v.Value
			}
			for _, v := range a.Quota.Remove {
				qa.Remove = append(qa.Remove, v.Key)
			}
			b.quotas, b.quotaIdx = append(b.quotas, qa), append(b.quotaIdx, i)
		case restore.CreateACL:
			b.addACLs, b.addIdx = append(b.addACLs, a.ACL.ACL), append(b.addIdx, i)
		case restore.DeleteACL:
			b.removeACLs, b.removeIdx = append(b.removeACLs, a.ACL.ACL), append(b.removeIdx, i)
		}
	}
	return b
}

// send sends the batch in the plan's order (topics, partitions, configs,
// quotas, ACLs created, ACLs deleted); validateOnly asks Kafka to check
// and write nothing, and skips the ACLs, which Kafka cannot validate.
// Answers come in the plan's order.
func (b *batch) send(ctx context.Context, cl *kafkaread.Client, validateOnly bool) ([]report.ActionResult, error) {
	out := make([]report.ActionResult, len(b.plan.Actions))
	for i, a := range b.plan.Actions {
		out[i] = report.ActionResult{Action: a.Kind, Entity: a.Entity}
	}
	note := func(idx []int, rs []kafkaread.WriteResult) {
		for j, r := range rs {
			out[idx[j]].Error, out[idx[j]].Message = r.Error, r.Message
		}
	}
	steps := []struct {
		n    int
		idx  []int
		call func() ([]kafkaread.WriteResult, error)
		acl  bool
	}{
		{len(b.topics), b.topicIdx, func() ([]kafkaread.WriteResult, error) { return cl.CreateTopicsFor(ctx, b.topics, validateOnly) }, false},
		{len(b.grows), b.growIdx, func() ([]kafkaread.WriteResult, error) { return cl.CreatePartitionsFor(ctx, b.grows, validateOnly) }, false},
		{len(b.configs), b.configIdx, func() ([]kafkaread.WriteResult, error) { return cl.AlterConfigsFor(ctx, b.configs, validateOnly) }, false},
		{len(b.quotas), b.quotaIdx, func() ([]kafkaread.WriteResult, error) { return cl.AlterQuotasFor(ctx, b.quotas, validateOnly) }, false},
		{len(b.addACLs), b.addIdx, func() ([]kafkaread.WriteResult, error) { return cl.AddACLs(ctx, b.addACLs) }, true},
		{len(b.removeACLs), b.removeIdx, func() ([]kafkaread.WriteResult, error) { return cl.RemoveACLs(ctx, b.removeACLs) }, true},
	}
	for _, s := range steps {
		if s.n == 0 {
			continue
		}
		if s.acl && validateOnly {
			for _, i := range s.idx {
				out[i].NotValidated = true
			}
			continue
		}
		rs, err := s.call()
		if err != nil {
			return nil, err
		}
		note(s.idx, rs)
	}
	return out, nil
}
