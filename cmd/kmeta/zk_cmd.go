package main

import (
	"errors"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
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
   zkdata:PATH@zxid=N             the data dir as of zxid N (same as --at-zxid N)
   Without a scheme, kmeta infers the kind (-v says what it inferred); host:port without
   zk:// is never taken for a host.`

func zkCommand() *cli.Command {
	var dumpW writeOptions
	return &cli.Command{
		Name:  "zk",
		Usage: "read Kafka's ZooKeeper data (live, data dir or dump)",
		Subcommands: []*cli.Command{
			zkDependentsCommand(),
			{
				Name:      "dump",
				Usage:     "write every znode under the chroot (data, stat, decoded JSON) as one JSON document",
				ArgsUsage: "SOURCE",
				Description: "The dump holds each znode's raw data (base64; null for null data), its stat, its ACL when known,\n" +
					"and its data as text and as JSON where it is either. 'kmeta zk image zkdump:FILE' reads it back.\n" +
					"SCRAM keys and sensitive config values are replaced by a short hash unless --show-secrets; such a\n" +
					"dump still reads back (credentials without keys). Keep a --show-secrets dump as safe as ZooKeeper.\n" +
					"The dump is JSON whatever --output says; -o text and -o table are refused (exit 2).\n\n" + zkSourceHelp,
				Flags: slices.Concat(zkSourceFlags(),
					dumpW.flags(writeUsage{Out: "write the dump to `FILE` (atomically) instead of stdout", Force: "overwrite --out if it exists"}),
					[]cli.Flag{&cli.BoolFlag{Name: "acls", Usage: "live sources: also read every znode's ACL"}},
				),
				Action: func(c *cli.Context) error { return zkDumpAction(c, dumpW) },
			},
			{
				Name:      "image",
				Usage:     "print the cluster metadata image Kafka's znodes hold",
				ArgsUsage: "SOURCE",
				Description: "Decodes the znodes as Kafka 3.x writes them (see 'kmeta image'; same printers).\n" +
					"Znodes kmeta does not understand are listed under zk.raw, never dropped.\n\n" + zkSourceHelp,
				Flags: zkSourceFlags(),
				Action: func(c *cli.Context) error {
					raw, err := oneArg(c, "SOURCE")
					if err != nil {
						return err
					}
					spec, err := zkSpec(c, raw)
					if err != nil {
						return err
					}
					res, err := loadSpec(c, spec)
					if err != nil {
						return err
					}
					if err := writeImage(c, res.Image); err != nil {
						return err
					}
					return partialResult(raw, res.Image)
				},
			},
		},
	}
}

// zkSpec parses SOURCE and requires a ZooKeeper kind.
func zkSpec(c *cli.Context, raw string) (source.Spec, error) {
	spec, err := parseSource(c, raw)
	if err != nil {
		return spec, err
	}
	if spec.World != model.WorldZooKeeper {
		return spec, usageErrorf(c, "%s is a KRaft source; 'kmeta zk' reads ZooKeeper sources (use 'kmeta image')", raw)
	}
	return spec, nil
}

func zkDumpAction(c *cli.Context, w writeOptions) error {
	raw, err := oneArg(c, "SOURCE")
	if err != nil {
		return err
	}
	if f := outputFormat(c); outputSet(c) && f != printer.JSON {
		return usageErrorf(c, "--output %s: a dump is one JSON document (leave --output out, or -o json); 'kmeta zk image' prints text and tables", f)
	}
	spec, err := zkSpec(c, raw)
	if err != nil {
		return err
	}
	if spec, err = withPointFlags(c, spec); err != nil {
		return err
	}
	opts, err := zkReadOptions(c)
	if err != nil {
		return err
	}
	opts.Live.ReadACLs = c.Bool("acls")
	unit := progressCount // znodes of a live read; a data dir counts bytes
	if spec.ZK.Access == zkread.AccessDataDir {
		unit = progressBytes
	}
	p := newProgress(c, "reading "+spec.String(), unit)
	opts.Live.Progress = func(done, known int) { p.Update(int64(done), int64(known)) }
	opts.DataProgress = p.Update
	t, warnings, err := source.ReadZKTree(c.Context, spec, opts)
	p.Done()
	if errors.Is(err, source.ErrPastEnd) {
		return usageErrorf(c, "%v", err)
	}
	if err != nil {
		return pathErr(raw, err)
	}
	printWarnings(c, warnings)
	if !showSecrets(c) {
		// Secrets stay out of files and terminals unless asked for: SCRAM
		// keys and sensitive config values become short hashes. Such a
		// dump still reads back as a source (credentials without keys).
		t.MapData(model.RedactRawZnode)
	}
	if out := w.Out; out != "" {
		if err := zkread.WriteDumpFile(out, t, w.Force); err != nil {
			return err
		}
		verbosef(c, "wrote %s to %s", printer.Count(t.Len(), "znode"), out)
	} else if err := zkread.WriteDump(stdout(c), t); err != nil {
		return err
	}
	partial := &model.Image{Warnings: warnings}
	return partialResult(raw, partial)
}
