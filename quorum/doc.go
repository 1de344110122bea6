// Package quorum looks at a KRaft controller quorum: who leads, who
// follows and how far behind (quorum describe, judged by package voters),
// and what an operator may do when a majority is lost.
//
// Two sources give one model.QuorumStatus: a live cluster's leader
// (kafkaread.Client.QuorumStatus, DescribeQuorum) and controllers'
// metadata log dirs (FromLogDirs here, through metalog). The judge of a
// status, voters.Judge, is a room below both quorum and roll: a status in,
// findings out.
//
// # Survey and rebuild
//
// When a majority of controllers is lost, no supported Kafka procedure
// brings the quorum back (voter changes need a live majority). Survey
// (survey.go) reads every surviving copy of the metadata log — a
// controller's or a broker's metadata log dir, copies of one node taken at
// different moments — through metalog, and says per copy its node and
// directory id, its role as far as the dir tells, the end of its last
// usable record and that record's epoch, the high-watermark evidence it
// holds (quorum-state, LeaderChange records, the newest snapshot's end,
// below which everything was committed), log check's verdict, and the
// voters it believes in; then whether the copies agree batch for batch
// where they overlap, and the best copy by Raft's own vote rule (highest
// last epoch, then highest end offset). PlanRebuild (rebuild.go) makes a
// plan as data from the best copy: the snapshot of its image at its end
// (metalog's image writer), one metadata log dir per new controller
// (DIR/controller-ID, as migrate apply lays them out: package
// controllers, which also parses --controllers) with its meta.properties
// and the new voters, the settings every broker must change, and the
// offsets given up when a copy holds more; Write carries it out,
// atomically, refusing a target that holds anything.
package quorum
