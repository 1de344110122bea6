package main

import (
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/printer"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/model"
)

func init() {
	register(func() *cli.Command { return imageCommand(loadImageReport) })
}

// imageLoader reads the image a SOURCE argument names. The command takes
// it as a parameter so tests can run the whole CLI path on a built image.
type imageLoader func(c *cli.Context, source string) (*model.Image, error)

// imageReportLoader is imageLoader for image's html report: when tl is
// set and the source is a KRaft log, it also counts the records replay
// applied into tl, during the same replay.
type imageReportLoader func(c *cli.Context, source string, tl *metalog.Timeline) (*model.Image, error)

func imageCommand(load imageReportLoader) *cli.Command {
	return &cli.Command{
		Name:      "image",
		Usage:     "print the cluster metadata image a source holds (KRaft replay or ZooKeeper read)",
		ArgsUsage: "SOURCE",
		Description: "KRaft sources replay the newest usable snapshot plus every later segment (or up to --at-offset):\n" +
			"partition changes as deltas, metadata transactions applied only when committed.\n" +
			"Secrets (SCRAM keys, sensitive config values) are shown as a short hash unless --show-secrets.\n" +
			"--output json prints one document; its shape is described in docs/guide/output.md.\n" +
			"Exit 0 when the image is complete, 1 when it rests on damaged or partial input (replay stopped at a\n" +
			"damaged batch, records skipped, a coverage hole, a lenient decode; the warnings on stderr say which),\n" +
			"2 when the source could not be read. A torn tail of the active segment is what a crash leaves: a\n" +
			"warning, exit 0.\n" + htmlHelp + "\n\n" + sourceHelp,
		Flags: append(sourceFlags(), reportFlags()...),
		Action: func(c *cli.Context) error {
			src, err := sourceArg(c)
			if err != nil {
				return err
			}
			// The report draws a log's records by type over offsets and
			// time: counted during the replay that builds the image, in
			// bins of a fixed number, so memory does not grow with the log.
			var tl *metalog.Timeline
			if outputFormat(c) == printer.HTML {
				tl = metalog.NewTimeline()
			}
			img, err := load(c, src, tl)
			if err != nil {
				return err
			}
			if err := writeImageTimeline(c, img, tl); err != nil {
				return err
			}
			return partialResult(src, img)
		},
	}
}
