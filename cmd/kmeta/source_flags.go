package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/source"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/zkread"
)

// sourceHelp documents the one source syntax in every command that reads a
// view.
const sourceHelp = `SOURCE is one of:
   kraft:PATH                     a KRaft metadata log dir, a __cluster_metadata-0 dir,
                                  a .checkpoint snapshot, a .log segment or a bootstrap.checkpoint
   zk://HOST:PORT[,HOST:PORT][/CHROOT]   a live ZooKeeper ensemble (read-only)
   zkdata:PATH                    a ZooKeeper data dir (snapshots and transaction logs)
   zkdump:FILE                    a dump written by 'kmeta zk dump'
   Without a scheme, kmeta infers the kind from what the path holds (-v says what it inferred).`

// sourceFlags are the flags that tune how a SOURCE is read. Commands that
// take a SOURCE add them; loadSource reads them when present.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "at-offset", Value: -1, Usage: "KRaft: replay up to and including this offset (-1: everything)"},
		&cli.Int64Flag{Name: "at-zxid", Value: -1, Usage: "ZooKeeper data dir: replay transactions up to this zxid (-1: everything)"},
		&cli.StringFlag{Name: "zk-auth", Usage: "ZooKeeper digest credentials USER:PASSWORD"},
		&cli.DurationFlag{Name: "zk-session-timeout", Value: 10 * time.Second, Usage: "ZooKeeper session timeout (also bounds connecting)"},
		&cli.StringFlag{Name: "zk-tls-ca", Usage: "ZooKeeper TLS: CA bundle (PEM)"},
		&cli.StringFlag{Name: "zk-tls-cert", Usage: "ZooKeeper TLS: client certificate (PEM)"},
		&cli.StringFlag{Name: "zk-tls-key", Usage: "ZooKeeper TLS: client key (PEM)"},
		&cli.IntFlag{Name: "zk-connections", Value: 2, Usage: "ZooKeeper sessions to spread reads over"},
		&cli.IntFlag{Name: "zk-in-flight", Value: 64, Usage: "ZooKeeper requests in flight at once"},
		&cli.BoolFlag{Name: "consistent", Usage: "ZooKeeper: re-read until the tree did not change during the read"},
		&cli.BoolFlag{Name: "lenient", Usage: "ZooKeeper: keep going past malformed znodes and list them"},
	}
}

// flagInt64 returns the flag's value, or def when the command lacks it.
func flagInt64(c *cli.Context, name string, def int64) int64 {
	for _, n := range c.FlagNames() {
		if n == name {
			return c.Int64(name)
		}
	}
	return def
}

// loadSource parses and reads a SOURCE with the command's source flags,
// reporting progress on a terminal and warnings with -v.
func loadSource(c *cli.Context, raw string) (*source.Result, error) {
	spec, err := source.Parse(raw)
	if err != nil {
		return nil, usageErrorf(c, "%v", err)
	}
	if spec.Inferred {
		verbosef(c, "%s: read as %s (%s)", raw, spec, spec.Why)
	}
	opts := source.Options{AtOffset: flagInt64(c, "at-offset", -1)}
	if spec.Kind == source.ZooKeeper {
		if opts.ZK, err = zkReadOptions(c); err != nil {
			return nil, err
		}
		opts.ZKDecode.Lenient = c.Bool("lenient")
	}
	unit := progressBytes
	if spec.Kind == source.ZooKeeper {
		unit = progressCount
	}
	p := newProgress(c, "reading "+spec.String(), unit)
	opts.Progress = p.Update
	res, err := source.Load(c.Context, spec, opts)
	p.Done()
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		warnf(c, "%s", w)
	}
	return res, nil
}

// loadImageSource is the imageLoader the commands use.
func loadImageSource(c *cli.Context, raw string) (*model.Image, error) {
	res, err := loadSource(c, raw)
	if err != nil {
		return nil, err
	}
	return res.Image, nil
}

// zkReadOptions turns the ZooKeeper source flags into reader options.
func zkReadOptions(c *cli.Context) (zkread.ReadOptions, error) {
	opts := zkread.ReadOptions{AtZxid: flagInt64(c, "at-zxid", -1)}
	opts.Live = zkread.LiveOptions{
		Auth: c.String("zk-auth"), SessionTimeout: c.Duration("zk-session-timeout"),
		Connections: c.Int("zk-connections"), InFlight: c.Int("zk-in-flight"), Consistent: c.Bool("consistent"),
	}
	if ca, cert, key := c.String("zk-tls-ca"), c.String("zk-tls-cert"), c.String("zk-tls-key"); ca != "" || cert != "" {
		tc, err := zkread.TLSConfig(ca, cert, key, "")
		if err != nil {
			return opts, fmt.Errorf("ZooKeeper TLS: %w", err)
		}
		opts.Live.TLS = tc
	}
	return opts, nil
}
