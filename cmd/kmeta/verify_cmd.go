package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/migrate"
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
			"equal: exit 2 unless --allow-partial.\n" + htmlHelp + "\n\nClasses: " + strings.Join(verify.Classes, ", ") + "\n\n" + sourceHelp,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "zk", Usage: "the ZooKeeper `SOURCE` (zk://, zkdata:, zkdump:)", Required: true},
			&cli.StringFlag{Name: "kraft", Usage: "the KRaft `SOURCE` (kraft:, or a live cluster: kafka://, --bootstrap-server, --bootstrap-controller)"},
			&cli.StringSliceFlag{Name: "ignore", Usage: "leave `CLASS` out of the verdict (repeatable); the summary says what was ignored"},
			&cli.BoolFlag{Name: "allow-partial", Usage: "compare even when a view rests on partial input"},
			&cli.StringSliceFlag{Name: "broker-log-dirs", Usage: "broker log `DIR`s whose partition.metadata topic ids are checked against ZooKeeper (comma separated or repeated)"},
			&cli.StringFlag{Name: "plan", Usage: "the migration's plan `FILE` (migrate plan --write): KRaft must carry the topic ids it assigned to topics without one in ZooKeeper"},
			&cli.StringFlag{Name: "password-encoder-secret", Usage: "the brokers' password.encoder.secret `SECRET`, to compare encrypted password configs with KRaft's plaintext (better from the environment)", EnvVars: []string{"KMETA_PASSWORD_ENCODER_SECRET"}},
		}, append(sourceFlags(), reportFlags()...)...),
		Action: func(c *cli.Context) error {
			if _, err := checkArgs(c, 0, 0, "no arguments (use --zk and --kraft)"); err != nil {
				return err
			}
			// A live cluster of --bootstrap-server or
			// --bootstrap-controller is the KRaft side.
			kraft, err := liveFlag(c)
			switch {
			case err != nil:
				return err
			case kraft != "" && c.String("kraft") != "":
				return usageErrorf(c, "two KRaft sources: --kraft %s and %s (the --bootstrap-* flag names the KRaft side)", c.String("kraft"), kraft)
			case kraft == "":
				kraft = c.String("kraft")
			}
			if kraft == "" {
				return missingFlag(c, "kraft")
			}
			pms, err := readPartitionMetadata(c.StringSlice("broker-log-dirs"))
			if err != nil {
				return err
			}
			opts := verify.Options{PartitionMetadata: pms, PasswordEncoderSecret: c.String("password-encoder-secret")}
			if f := c.String("plan"); f != "" {
				p, err := migrate.ReadPlan(f)
				if err != nil {
					return fmt.Errorf("--plan: %w", err)
				}
				opts.PlanTopicIDs = map[string]model.UUID{}
				for _, t := range p.Topics {
					if !t.Skipped {
						opts.PlanTopicIDs[t.Name] = t.ID
					}
				}
			}
			return compareSources(c, "verify", c.String("zk"), kraft, func(l, r source.Spec) error {
				if l.World != model.WorldZooKeeper {
					return usageErrorf(c, "--zk %s is not a ZooKeeper source", l.Raw)
				}
				if r.World != model.WorldKRaft && r.World != model.WorldKafka {
					return usageErrorf(c, "--kraft %s is not a KRaft source", r.Raw)
				}
				return nil
			}, opts)
		},
	}
}

// compareSources loads two sources concurrently, compares them and prints
// the report. check validates the parsed specs; opts carries the
// command's own options (its sides and --ignore are set here).
func compareSources(c *cli.Context, verb, leftRaw, rightRaw string, check func(l, r source.Spec) error, opts verify.Options) error {
	ls, err := source.Parse(leftRaw)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	rs, err := source.Parse(rightRaw)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	ls, rs = liveSpec(c, ls), liveSpec(c, rs)
	if err := check(ls, rs); err != nil {
		return err
	}
	// --at-offset and --at-zxid apply to the side of their kind.
	at, err := pointFlags(c)
	if err != nil {
		return err
	}
	if err := source.WithPoints(at, &ls, &rs); err != nil {
		return usageErrorf(c, "%v", err)
	}
	ignore := c.StringSlice("ignore")
	for _, cl := range ignore {
		if !verify.ValidClass(cl) {
			return usageErrorf(c, "--ignore %s: %v", cl, verify.ErrUnknownClass)
		}
	}
	// An unreadable source is never "no differences".
	views, err := loadViews(c, []source.Spec{ls, rs}, nil)
	if err != nil {
		return err
	}
	opts.Left = verify.Side{World: ls.World, Name: ls.String()}
	opts.Right = verify.Side{World: rs.World, Name: rs.String()}
	opts.Ignore = ignore
	rep, err := verify.Compare(views[0], views[1], opts)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	return emit(c, report.Comparison(verb, rep, views[0], views[1], c.Bool("allow-partial")))
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
