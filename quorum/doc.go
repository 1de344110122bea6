// Package quorum looks at a KRaft controller quorum: who leads, who
// follows and how far behind, and what an operator may safely do next.
//
// Two sources give one model.QuorumStatus: a live cluster's leader
// (kafkaread.Client.QuorumStatus, DescribeQuorum) and controllers'
// metadata log dirs (FromLogDirs here, through metalog). Judge is pure:
// a status in, findings out; it reads no source and never blocks.
//
// The restart rule is Strimzi's (strimzi/proposals#91): a voter is
// caught up when the leader's last caught-up time minus its own is under
// controller.quorum.fetch.timeout.ms (the leader itself always is), and
// restarting a controller keeps the quorum available when the voters
// caught up without it are still a majority.
package quorum
