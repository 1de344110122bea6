package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkdeps"
	"github.com/kmeta/kmeta/zkread"
)

// zkDependentsFlags tune what zk dependents asks beyond the tree (also
// taken by the migrate commands that run it).
func zkDependentsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "chroot", Usage: "Kafka's chroot `PATH` in the ensemble (default: the one zk://.../CHROOT names, or the one subtree holding brokers/ids or cluster/id; / for the root)"},
		&cli.IntFlag{Name: "zk-admin-port", Value: 8080, Usage: "live: the ZooKeeper AdminServer's `PORT` (admin.serverPort) to ask for the connected clients when the four-letter word cons is refused; 0: do not ask it"},
		&cli.BoolFlag{Name: "no-clients", Usage: "live: do not ask the servers for their connected clients (cons, AdminServer)"},
	}
}

func zkDependentsCommand() *cli.Command {
	return &cli.Command{
		Name:      "dependents",
		Usage:     "name everything but Kafka that still uses a ZooKeeper ensemble, before it is switched off (read-only)",
		ArgsUsage: "SOURCE",
		Description: "After a ZooKeeper→KRaft migration, the last step is stopping the ensemble. This says whether anything\n" +
			"still uses it, and what:\n" +
			"  - data that is not Kafka's: every znode outside Kafka's chroot, and inside it every path Kafka 3.9 never\n" +
			"    writes (ZkData.scala's paths, kept as data in package zkdeps), grouped by top-level path with its\n" +
			"    znodes, bytes, last change (mzxid and time) and the system known to own it (/hbase, /solr,\n" +
			"    /hadoop-ha, /yarn-leader-election, /kafka-manager, /CruiseControlBrokerList, /burrow, /curator...);\n" +
			"    old consumers' offsets under /consumers apart (zk-old-consumer-offsets);\n" +
			"  - sessions that are not Kafka's: every session but the brokers' (their /brokers/ids/N and /controller\n" +
			"    ephemerals, their AclAuthorizer's session) and the KRaft controllers' (their /controller claim and\n" +
			"    /migration writes), with what each created or changed and when: old consumers' offset commits,\n" +
			"    admin writes under /admin, /config, /config/changes, /kafka-acl*, /isr_change_notification;\n" +
			"  - Kafka itself, while its brokers or controllers still hold sessions (zk-kafka-connected).\n" +
			"What each source shows: a data dir (zkdata:, or several: zkdata:A,B,C) the whole tree, the session table\n" +
			"and every transaction its logs keep; a live ensemble (zk://, read from its root whatever chroot the\n" +
			"string names: that is Kafka's) the tree, the ephemeral owners and, from each server of the string,\n" +
			"the connected clients by address (the four-letter word cons, allowed by 4lw.commands.whitelist, or\n" +
			"the AdminServer's connections command, admin.enableServer) but not who wrote what; a dump (zkdump:)\n" +
			"its chroot's znodes and their ephemeral owners only. What could not be checked is listed, never\n" +
			"taken as nothing.\n" +
			"Verdict: safe to stop when nothing was found; never on a damaged history (torn or damaged logs are\n" +
			"named, and the verdict rests on what was read). Exit 0: safe to stop; 1: something still uses the\n" +
			"ensemble (each as a finding: code, entity, evidence, what to do); 2: could not read it, or nothing\n" +
			"found in a damaged history. -o json: safeToStop, dependents (kind, path or session, owner, evidence,\n" +
			"fix), kafkaSessions, checked, notChecked, findings. " + htmlHelp + "\n\n" + zkSourceHelp,
		Flags:  append(append(zkSourceFlags(), zkDependentsFlags()...), reportFlags()...),
		Action: zkDependentsAction,
	}
}

func zkDependentsAction(c *cli.Context) error {
	raw, err := oneArg(c, "SOURCE")
	if err != nil {
		return err
	}
	spec, err := zkSpec(c, raw)
	if err != nil {
		return err
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return err
	}
	res, warnings, err := zkDependents(c, spec)
	if errors.Is(err, source.ErrPastEnd) {
		return usageErrorf(c, "%v", err)
	}
	if err != nil {
		return pathErr(raw, err)
	}
	printWarnings(c, warnings)
	return emit(c, report.ZKDependents(res))
}

// zkDependents reads what zk dependents judges from a ZooKeeper source
// (the ensemble's tree from its root, a data dir's transactions, a live
// ensemble's connected clients) and judges it, with the warnings the
// tree rests on. The command's flags say how (zkSourceFlags,
// zkDependentsFlags).
func zkDependents(c *cli.Context, spec source.Spec) (*zkdeps.Result, []model.Finding, error) {
	zo, err := zkReadOptions(c)
	if err != nil {
		return nil, nil, err
	}
	h := zkdeps.NewHistory()
	unit := progressCount
	if spec.ZK.Access == zkread.AccessDataDir {
		zo.Replay = h.Replay()
		unit = progressBytes
	}
	p := newProgress(c, "reading "+spec.String(), unit)
	zo.Live.Progress = func(done, known int) { p.Update(int64(done), int64(known)) }
	zo.DataProgress = p.Update
	e, err := source.ReadZKEnsemble(c.Context, spec, zo, c.String("chroot"))
	p.Done()
	if err != nil {
		return nil, nil, err
	}
	verbosef(c, "Kafka's chroot: %s (%s)", orSlash(e.Chroot), e.ChrootWhy)
	var clients []zkread.ServerConnections
	if spec.ZK.Access == zkread.AccessLive && !c.Bool("no-clients") {
		o := zkread.ConnectionsOptions{TLS: zo.Live.TLS, AdminPort: c.Int("zk-admin-port"), Timeout: zo.Live.SessionTimeout}
		for _, s := range spec.ZK.Servers {
			clients = append(clients, zkread.AskConnections(c.Context, s, o))
		}
		if err := c.Context.Err(); err != nil {
			return nil, nil, err
		}
	}
	in := zkdeps.Input{Source: spec.String(), Access: spec.ZK.Access, Tree: e.Tree, TreeRoot: e.TreeRoot, Chroot: e.Chroot,
		History: h, Clients: clients, NoAuth: e.NoAuth}
	return zkdeps.Judge(in), e.Warnings, nil
}

func orSlash(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
