package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

func init() { register(zkCommand) }

const zkSourceHelp = `SOURCE is one of:
   zk://HOST:PORT[,HOST:PORT][/CHROOT]   a live ZooKeeper ensemble (read-only)
   zkdata:PATH                    a ZooKeeper data dir (snapshots and transaction logs);
                                  the Kafka chroot inside it is detected
   zkdump:FILE                    a dump written by 'kmeta zk dump'
   Without a scheme, kmeta infers the kind (-v says what it inferred).`

func zkCommand() *cli.Command {
	return &cli.Command{
		Name:  "zk",
		Usage: "read Kafka's ZooKeeper data (live, data dir or dump)",
		Subcommands: []*cli.Command{
			{
				Name:      "dump",
				Usage:     "write every znode under the chroot (data, stat, decoded JSON) as one JSON document",
				ArgsUsage: "SOURCE",
				Description: "The dump holds each znode's raw data (base64; null for null data), its stat, its ACL when known,\n" +
					"and its data as text and as JSON where it is either. 'kmeta zk image zkdump:FILE' reads it back.\n" +
					"SCRAM keys and sensitive config values are replaced by a short hash unless --show-secrets; such a\n" +
					"dump still reads back (credentials without keys). Keep a --show-secrets dump as safe as ZooKeeper.\n\n" + zkSourceHelp,
				Flags: append(sourceFlags(),
					&cli.StringFlag{Name: "out", Usage: "write the dump to `FILE` (atomically) instead of stdout"},
					&cli.BoolFlag{Name: "force", Usage: "overwrite --out if it exists"},
					&cli.BoolFlag{Name: "acls", Usage: "live sources: also read every znode's ACL"},
				),
				Action: zkDumpAction,
			},
			{
				Name:      "image",
				Usage:     "print the cluster metadata image Kafka's znodes hold",
				ArgsUsage: "SOURCE",
				Description: "Decodes the znodes as Kafka 3.x writes them (see 'kmeta image'; same printers).\n" +
					"Znodes kmeta does not understand are listed under zk.raw, never dropped.\n\n" + zkSourceHelp,
				Flags: sourceFlags(),
				Action: func(c *cli.Context) error {
					raw, err := oneArg(c, "SOURCE")
					if err != nil {
						return err
					}
					if _, err := zkSpec(c, raw); err != nil {
						return err
					}
					img, err := loadImageSource(c, raw)
					if err != nil {
						return fmt.Errorf("reading %s: %w", raw, err)
					}
					return writeImage(c, img)
				},
			},
		},
	}
}

// zkSpec parses SOURCE and requires a ZooKeeper kind.
func zkSpec(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := source.Parse(raw)
	if err != nil {
		return spec, usageErrorf(c, "%v", err)
	}
	if spec.Kind != source.ZooKeeper {
		return spec, usageErrorf(c, "%s is a KRaft source; 'kmeta zk' reads ZooKeeper sources", raw)
	}
	if spec.Inferred {
		verbosef(c, "%s: read as %s (%s)", raw, spec, spec.Why)
	}
	return spec, nil
}

func zkDumpAction(c *cli.Context) error {
	raw, err := oneArg(c, "SOURCE")
	if err != nil {
		return err
	}
	spec, err := zkSpec(c, raw)
	if err != nil {
		return err
	}
	opts, err := zkReadOptions(c)
	if err != nil {
		return err
	}
	opts.Live.ReadACLs = c.Bool("acls")
	p := newProgress(c, "reading "+spec.String(), progressCount)
	opts.Live.Progress = func(done, known int) { p.Update(int64(done), int64(known)) }
	t, err := spec.ZK.ReadTree(c.Context, opts)
	p.Done()
	if err != nil {
		return fmt.Errorf("reading %s: %w", raw, err)
	}
	for _, w := range t.Warnings {
		warnf(c, "%s", w)
	}
	if !showSecrets(c) {
		// Secrets stay out of files and terminals unless asked for: SCRAM
		// keys and sensitive config values become short hashes. Such a
		// dump still reads back as a source (credentials without keys).
		for path, n := range t.Nodes {
			n.Data = model.RedactRawZnode(path, n.Data)
		}
	}
	if out := c.String("out"); out != "" {
		if err := zkread.WriteDumpFile(out, t, c.Bool("force")); err != nil {
			return err
		}
		verbosef(c, "wrote %d znodes to %s", len(t.Nodes), out)
		return nil
	}
	return zkread.WriteDump(stdout(c), t)
}
