// Package voters judges a KRaft quorum's voters from one
// model.QuorumStatus: who leads, who is down or lagging, whether each may
// be restarted now, and what the voter set itself says (a single voter, an
// even count, a static quorum that could be dynamic, a voter whose
// directory id is not its dir's). Judge is pure: a status in, findings
// out; it reads no source and never blocks. quorum describe prints its
// Assessment, roll check asks it for a controller, and quorum survey
// reports its directory-id finding the same way.
//
// The restart rule is Strimzi's (strimzi/proposals#91): a voter is
// caught up when the leader's last caught-up time minus its own is under
// controller.quorum.fetch.timeout.ms (the leader itself always is), and
// restarting a controller keeps the quorum available when the voters
// caught up without it are still a majority.
//
// The findings' room is "quorum": the commands that print them are
// quorum's.
package voters
