package voters

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
)

// DefaultFetchTimeoutMs is controller.quorum.fetch.timeout.ms's default.
const DefaultFetchTimeoutMs = 2000

// KRaftOnlineUpgradeMV is 4.1-IV0, the first metadata.version of Kafka
// 4.1, whose controllers are the first to move kraft.version from 0 to 1
// online: a controller supporting less runs an older release
// (TestKRaftOnlineUpgradeMVIs41 checks it against the catalog).
const KRaftOnlineUpgradeMV = 26

// The codes of Judge's findings (class "quorum").
const (
	CodeNoLeader            = "quorum-no-leader"
	CodeNoVoters            = "quorum-no-voters"
	CodeSingleVoter         = "quorum-single-voter"
	CodeEvenVoters          = "quorum-even-voters"
	CodeVoterDown           = "voter-down"
	CodeVoterLagging        = "voter-lagging"
	CodeRestartUnsafe       = "restart-loses-majority"
	CodeCanBeDynamic        = "static-quorum-can-be-dynamic"
	CodeDirectoryIDMismatch = "voter-directory-id-mismatch"
)

// Class is the class of Judge's findings.
const Class = "quorum"

// Answer is yes, no, or unknown (the source cannot tell).
type Answer string

// The answers.
const (
	Yes     Answer = "yes"
	No      Answer = "no"
	Unknown Answer = "unknown"
)

// Options tune Judge.
type Options struct {
	// FetchTimeoutMs is controller.quorum.fetch.timeout.ms (0: the
	// default, 2000): a voter that has not fetched for longer is down, and
	// one whose last caught-up time is that far behind the leader's is
	// not caught up.
	FetchTimeoutMs int64
	// Cluster are the words that name the cluster to kmeta features (its
	// source and connection flags, as the command was given them), for
	// the fix that changes kraft.version; nil: the brokers' registered
	// listeners (brokerWords).
	Cluster []string
}

// VoterState is Judge's view of one voter.
type VoterState struct {
	ID int32 `json:"id"`
	// CaughtUp: the leader's last caught-up time minus this voter's is
	// under the fetch timeout (the leader always is).
	CaughtUp Answer `json:"caughtUp"`
	// Down: no fetch within the fetch timeout (never the leader).
	Down Answer `json:"down"`
	// RestartSafe: restarting it now keeps a caught-up majority of the
	// voters without it; CaughtUpWithout counts those voters (-1 when
	// unknown) against Majority.
	RestartSafe     Answer `json:"restartSafe"`
	CaughtUpWithout int    `json:"caughtUpWithout"`
}

// Assessment is Judge's answer.
type Assessment struct {
	FetchTimeoutMs int64 `json:"fetchTimeoutMs"`
	// Majority is how many voters make a majority.
	Majority int             `json:"majority"`
	Voters   []VoterState    `json:"voters"`
	Findings []model.Finding `json:"findings"`
}

// Judge assesses a quorum status: the voters' health, whether each
// controller can be restarted now, and what to fix. It is pure: the
// status's own times (the leader's clock) stand for "now".
func Judge(st *model.QuorumStatus, opts Options) Assessment {
	to := opts.FetchTimeoutMs
	if to <= 0 {
		to = DefaultFetchTimeoutMs
	}
	n := len(st.Voters)
	a := Assessment{FetchTimeoutMs: to, Majority: n/2 + 1, Voters: []VoterState{}, Findings: []model.Finding{}}
	add := func(code, entity, fix, format string, args ...any) {
		a.Findings = append(a.Findings, newFinding(code, entity, fix, nil, format, args...))
	}
	switch {
	case n == 0:
		add(CodeNoVoters, "quorum", "", "the source names no voters")
	case n == 1:
		add(CodeSingleVoter, "quorum", "add controllers until there are three (kafka-metadata-quorum add-controller on a dynamic quorum)",
			"a single voter: losing controller %d stops the cluster's metadata", st.Voters[0].ID)
	case n%2 == 0:
		add(CodeEvenVoters, "quorum", fmt.Sprintf("run %d or %d voters", n-1, n+1),
			"%d voters tolerate %d failed, as %d voters do: the extra voter adds a failure mode and no tolerance", n, (n-1)/2, n-1)
	}
	leader := st.Leader()
	if n > 0 && leader == nil {
		add(CodeNoLeader, "quorum", "", "no leader (leader id %d, epoch %d): the quorum is electing one or has lost its majority", st.LeaderID, st.LeaderEpoch)
	}
	times := leader != nil && st.Reports(model.QuorumFieldLastCaughtUp) && leader.LastCaughtUpTimestamp >= 0
	fetches := leader != nil && st.Reports(model.QuorumFieldLastFetch) && leader.LastFetchTimestamp >= 0
	caught := make([]Answer, n)
	for i, v := range st.Voters {
		vs := VoterState{ID: v.ID, CaughtUp: Unknown, Down: Unknown, RestartSafe: Unknown, CaughtUpWithout: -1}
		switch {
		case leader != nil && v.ID == leader.ID:
			vs.CaughtUp = Yes
			if fetches {
				vs.Down = No // it answered; a log dir's leader may be gone
			}
		default:
			if times {
				vs.CaughtUp = No
				if v.LastCaughtUpTimestamp >= 0 && leader.LastCaughtUpTimestamp-v.LastCaughtUpTimestamp < to {
					vs.CaughtUp = Yes
				}
			}
			if fetches {
				vs.Down = No
				if v.LastFetchTimestamp < 0 || leader.LastFetchTimestamp-v.LastFetchTimestamp > to {
					vs.Down = Yes
				}
			}
		}
		caught[i] = vs.CaughtUp
		if vs.Down == Yes {
			// A voter that stopped fetching keeps no majority, however
			// recently it was caught up.
			caught[i] = No
		}
		a.Voters = append(a.Voters, vs)
	}
	for i := range a.Voters {
		vs := &a.Voters[i]
		if leader == nil || !times {
			continue
		}
		cnt := 0
		for j, c := range caught {
			if j != i && c == Yes {
				cnt++
			}
		}
		vs.CaughtUpWithout = cnt
		vs.RestartSafe = No
		if cnt >= a.Majority {
			vs.RestartSafe = Yes
		}
	}
	for i, v := range st.Voters {
		vs := a.Voters[i]
		entity := fmt.Sprintf("controller %d", v.ID)
		if vs.Down == Yes {
			last := "has never fetched"
			if v.LastFetchTimestamp >= 0 {
				last = fmt.Sprintf("last fetched %d ms before the leader's clock", leader.LastFetchTimestamp-v.LastFetchTimestamp)
			}
			add(CodeVoterDown, entity, "start it, or look at its server.log",
				"voter %d is down: it %s (controller.quorum.fetch.timeout.ms is %d)", v.ID, last, to)
		}
		if vs.CaughtUp == No && vs.Down != Yes {
			add(CodeVoterLagging, entity, "",
				"voter %d is not caught up: %d records behind the leader, last caught up %s", v.ID, lag(leader, v), since(leader, v))
		}
		if !times && leader != nil && v.ID != leader.ID && leader.LogEndOffset >= 0 && v.LogEndOffset >= 0 && v.LogEndOffset < leader.LogEndOffset {
			// A log dir tells offsets but no times: copies taken at
			// different moments differ too, so this is a note.
			a.Findings = append(a.Findings, checkOf(CodeVoterLagging).Relax(newFinding(CodeVoterLagging, entity, "", nil,
				"voter %d's log ends %d records before the leader's", v.ID, leader.LogEndOffset-v.LogEndOffset)))
		}
		if vs.RestartSafe == No {
			add(CodeRestartUnsafe, entity, restartFix(st, a, caught, i),
				"restarting controller %d now leaves %s, under the majority of %d: the metadata quorum would stop", v.ID,
				plural(vs.CaughtUpWithout, "caught-up voter"), a.Majority)
		}
		if st.KRaftVersion >= 1 && v.HasMetaDirectoryID && v.MetaDirectoryID != v.DirectoryID {
			a.Findings = append(a.Findings, DirectoryIDMismatch(v.ID, v.DirectoryID, v.LogDir, v.MetaDirectoryID))
		}
	}
	if st.KRaftVersion == 0 && st.KRaftVersionSupported >= 1 {
		cluster := opts.Cluster
		if cluster == nil {
			cluster = brokerWords(st)
		}
		// kmeta's command checks that every node supports the level, asks
		// first, and prints the gated roll of the configs to
		// controller.quorum.bootstrap.servers that follows.
		fix := "kmeta features upgrade " + shellword.Join(cluster) + " --feature kraft.version=1"
		if st.MetadataVersionSupported >= 0 && st.MetadataVersionSupported < KRaftOnlineUpgradeMV {
			// Kafka 3.9 lists kraft.version 1 as supported but cannot move
			// a quorum there online (kmeta features refuses it:
			// kraft-version-upgrade-unsupported).
			add(CodeCanBeDynamic, "quorum", "upgrade every controller to Kafka 4.1 or later, then "+fix,
				"a static quorum (kraft.version 0): it can become dynamic (KIP-853), so that controllers can be added and removed online, once every controller runs Kafka 4.1 or later (they support metadata.version up to %d, a release before 4.1)", st.MetadataVersionSupported)
		} else {
			add(CodeCanBeDynamic, "quorum", fix,
				"a static quorum (kraft.version 0) whose controllers support kraft.version %d: it can become dynamic (KIP-853, Kafka 4.1+), so that controllers can be added and removed online", st.KRaftVersionSupported)
		}
	}
	model.SortFindings(a.Findings)
	return a
}

// brokerWords names a cluster read from log dirs to kmeta features:
// --bootstrap-server with the brokers' listeners as their registrations
// hold them (st.Brokers), a PLAINTEXT one where a broker has several, and
// --command-config FILE when one is secured, for the client settings
// only the operator has. Brokers, not controllers: through a controller
// (--bootstrap-controller) kmeta features cannot list the brokers to
// check their ranges and roll them (Kafka answers DescribeCluster for
// brokers only on a broker listener). No registered broker leaves
// --bootstrap-server BOOTSTRAP, for the operator to fill.
func brokerWords(st *model.QuorumStatus) []string {
	var addrs []string
	secured := false
	for _, eps := range st.Brokers {
		if len(eps) == 0 {
			continue
		}
		e := eps[0]
		for _, x := range eps {
			if model.SecurityProtocolName(x.SecurityProtocol) == "PLAINTEXT" {
				e = x
				break
			}
		}
		secured = secured || model.SecurityProtocolName(e.SecurityProtocol) != "PLAINTEXT"
		addrs = append(addrs, net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port))))
	}
	if len(addrs) == 0 {
		return []string{"--bootstrap-server", "BOOTSTRAP"}
	}
	w := []string{"--bootstrap-server", strings.Join(addrs, ",")}
	if secured {
		w = append(w, "--command-config", "FILE")
	}
	return w
}

// DirectoryIDMismatch is the finding that a voter's directory id in the
// voter set (VotersRecord, kraft.version 1) is not the one its metadata
// log dir's meta.properties holds: Kafka then does not count the node as
// that voter. Judge and Survey report it alike.
func DirectoryIDMismatch(id int32, voterDir model.UUID, logDir string, metaDir model.UUID) model.Finding {
	return newFinding(CodeDirectoryIDMismatch, fmt.Sprintf("controller %d", id),
		"do not restart it with this dir: remove the voter (kafka-metadata-quorum remove-controller) and add it back with its current dir (add-controller)", nil,
		"voter %d's directory id in the voter set is %s, but its meta.properties (%s) says %s: Kafka will not count it as that voter", id, voterDir, logDir, metaDir)
}

// restartFix says what must happen before voter i may restart: the other
// voters that are down started, those lagging caught up.
func restartFix(st *model.QuorumStatus, a Assessment, caught []Answer, i int) string {
	var down, behind []int32
	for j, vs := range a.Voters {
		switch {
		case j == i || caught[j] == Yes:
		case vs.Down == Yes:
			down = append(down, st.Voters[j].ID)
		default:
			behind = append(behind, st.Voters[j].ID)
		}
	}
	var steps []string
	if len(down) > 0 {
		steps = append(steps, fmt.Sprintf("start %s first", voterList(down)))
	}
	if len(behind) > 0 {
		steps = append(steps, fmt.Sprintf("wait until %s %s caught up", voterList(behind), map[bool]string{true: "is", false: "are"}[len(behind) == 1]))
	}
	if len(steps) == 0 {
		return "wait until the other voters are caught up"
	}
	return strings.Join(steps, ", then ") + " (kafka-metadata-quorum describe --replication shows it)"
}

// voterList names voters: "voter 3", "voters 2 and 3".
func voterList(ids []int32) string {
	if len(ids) == 1 {
		return fmt.Sprintf("voter %d", ids[0])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "voters " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// plural is "1 thing", "2 things".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// lag is Kafka's Lag column: the leader's log end offset minus the
// voter's (-1 when unknown, as Kafka computes it).
func lag(leader *model.QuorumReplica, v model.QuorumReplica) int64 {
	return leader.LogEndOffset - v.LogEndOffset
}

func since(leader *model.QuorumReplica, v model.QuorumReplica) string {
	if v.LastCaughtUpTimestamp < 0 {
		return "never"
	}
	return fmt.Sprintf("%d ms before the leader", leader.LastCaughtUpTimestamp-v.LastCaughtUpTimestamp)
}

// Failing says whether the assessment calls for exit 1: a finding at
// warning or above.
func (a Assessment) Failing() bool {
	return model.CountSeverity(a.Findings, model.SevError)+model.CountSeverity(a.Findings, model.SevWarning) > 0
}
