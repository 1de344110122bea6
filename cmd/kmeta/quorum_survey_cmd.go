package main

import (
	"github.com/urfave/cli/v2"

	"github.com/kmeta/kmeta/internal/report"
	"github.com/kmeta/kmeta/metalog"
	"github.com/kmeta/kmeta/quorum"
)

func quorumSurveyCommand() *cli.Command {
	return &cli.Command{
		Name:      "survey",
		Usage:     "compare surviving copies of the metadata log (controllers' or brokers' metadata log dirs) and name the one to rebuild a quorum from",
		ArgsUsage: "DIR...",
		Description: "For each copy (kraft:DIR or DIR: a controller's or a broker's metadata log dir, or its\n" +
			"__cluster_metadata-0 dir; copies of one node taken at different moments are fine): its node id and\n" +
			"directory id (meta.properties), its role as far as the dir tells (a voter is a controller; a dir\n" +
			"holding a broker's offset checkpoints or topic partitions is a broker's), the offset after its last\n" +
			"usable record and that record's epoch, the high-watermark evidence it holds (quorum-state's leader\n" +
			"and epoch, its LeaderChange records, the newest snapshot's end, below which every offset was\n" +
			"committed), log check's verdict (a torn tail, which Kafka truncates, or damage, with file and byte\n" +
			"position) and the voters it believes in (the last VotersRecord, or quorum-state's for a static\n" +
			"quorum). Then whether the copies hold the same batches (base offset, epoch, CRC) at every offset they\n" +
			"share, with the first differing offset of each pair that does not; the best copy by Raft's vote rule\n" +
			"(the highest last epoch, then the highest end offset; a tie is broken by undamaged first, then a\n" +
			"voter's copy, then the order given, and said); the offsets a rebuild from it would give up (those\n" +
			"only other copies hold); and whether a clean rebuild is possible (no two copies diverge and the best\n" +
			"copy is undamaged). The dirs are only read: nothing is written and Kafka's .lock is never taken.\n" +
			"Exit 0 when a clean rebuild is possible and nothing is wrong, 1 on findings (copies that diverge,\n" +
			"damage, a copy behind the best, a directory id mismatch), 2 when a dir could not be read.",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return usageErrorf(c, "missing DIR: give the metadata log dirs of the surviving controllers and brokers")
			}
			dirs := make([]*metalog.LogDir, 0, len(args))
			for _, a := range args {
				spec, err := kraftSpec(c, a)
				if err != nil {
					return err
				}
				dirs = append(dirs, spec.Dir)
			}
			res, err := quorum.SurveyLogDirs(dirs)
			if err != nil {
				return err
			}
			return emit(c, report.QuorumSurvey(res))
		},
	}
}
