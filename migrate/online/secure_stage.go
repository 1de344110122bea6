package online

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/model"
)

// Election is a controller's quorum-state: the leader it knows of (-1:
// none), the epoch, and whom it voted for.
type Election struct {
	LeaderID    int32 `json:"leaderId"`
	LeaderEpoch int32 `json:"leaderEpoch"`
	VotedID     int32 `json:"votedId"`
}

// ctlProtocol is the controller listener's protocol: the one chosen,
// else the lowest-id broker's inter-broker listener's.
func (s *stager) ctlProtocol(files map[int32]*Node) string {
	if s.o.ControllerProtocol != "" {
		return s.o.ControllerProtocol
	}
	for _, id := range slices.Sorted(maps.Keys(files)) {
		if files[id].Role() == RoleBroker {
			return defaultProtocol(files[id].Props)
		}
	}
	return ProtoPlaintext
}

// addCheck adds findings not already among the checks (one fact found
// by status and by stage is one finding).
func (s *stager) addChecks(fs ...model.Finding) {
	for _, f := range fs {
		if !slices.ContainsFunc(s.r.Checks, func(g model.Finding) bool { return g.Code == f.Code && g.Entity == f.Entity }) {
			s.r.Checks = append(s.r.Checks, f)
		}
	}
}

// secureQuorum finishes KRaftMigration's files for the controller
// listener: says how it is secured and what the brokers' files lack for
// it, adds the principals the controllers and brokers present on it to
// the controllers' super.users (their authorizer refuses everyone else
// before it has loaded the metadata), and checks the files as written.
func (s *stager) secureQuorum(files map[int32]*Node, template *Node, proto string) {
	for _, id := range slices.Sorted(maps.Keys(files)) {
		if files[id].Role() != RoleBroker {
			continue
		}
		_, notes, problem := ctlSettings(files[id].Props, proto)
		ent := fmt.Sprintf("broker %d", id)
		if problem != "" {
			s.addChecks(SecureChecks.Must(CodeCtlSettingsMissing).Finding(ent, fmt.Sprintf("the controller listener is to be %s, but %s", proto, problem), SecureChecks.Must(CodeCtlSettingsMissing).Fix))
		}
		if files[id] == template {
			why := "the protocol of the brokers' inter-broker listener " + interBrokerListener(template.Props)
			if s.o.ControllerProtocol != "" {
				why = "--controller-listener-protocol"
			}
			msg := fmt.Sprintf("the controller listener is %s (%s)", proto, why)
			if len(notes) > 0 {
				msg += "; " + strings.Join(notes, "; ")
			}
			s.addChecks(SecureChecks.Must(CodeCtlListenerChosen).Finding("controller listener", msg, ""))
		}
	}
	var ctlPlans []*NodePlan
	all := map[int32]map[string]string{}
	for i := range s.r.Nodes {
		n := &s.r.Nodes[i]
		all[n.ID] = n.Props
		if n.Role == RoleController {
			ctlPlans = append(ctlPlans, n)
		}
	}
	if len(ctlPlans) == 0 {
		return
	}
	server := ctlPlans[0].Props
	if strings.TrimSpace(server[keyAuthorizer]) != "" {
		supers := superUsers(server)
		var added []string
		_, nodes := listenerNodes(all)
		for _, c := range nodes {
			p, _ := principalOf(c.props, server, s.in.Stores)
			if p != "" && p != Anonymous && !slices.Contains(supers, p) && !slices.Contains(added, p) {
				added = append(added, p)
			}
		}
		if len(added) > 0 {
			for _, n := range ctlPlans {
				n.Props[keySuperUsers] = strings.Join(append(superUsers(n.Props), added...), ";")
				var cur map[string]string
				if c := s.in.Nodes[n.ID]; c != nil {
					cur = c.Props
				}
				n.Changes = Diff(cur, n.Props)
			}
			s.addChecks(SecureChecks.Must(CodeCtlSuperUsersAdded).Finding("controllers",
				fmt.Sprintf("%s added to the controllers' super.users: the controllers and brokers present them on the controller listener", strings.Join(added, ", ")), ""))
		}
	}
	ctls, nodes := listenerNodes(all)
	s.addChecks(checkControllerListener(ctls, nodes, s.in.Stores)...)
}

// checkListener checks the controller listener after a roll phase made
// its files: the new files with the other role's current ones.
func (s *stager) checkListener() {
	if s.st.Phase != s.o.Phase && s.st.Phase != s.o.Phase-1 {
		// Out of order (refused already): the files made from the
		// wrong phase's are nobody's.
		return
	}
	all := map[int32]map[string]string{}
	for id, n := range s.in.Nodes {
		all[id] = n.Props
	}
	for _, n := range s.r.Nodes {
		all[n.ID] = n.Props
	}
	ctls, nodes := listenerNodes(all)
	if len(ctls) == 0 {
		return
	}
	s.addChecks(checkControllerListener(ctls, nodes, s.in.Stores)...)
}

// secureChecks are status's checks of the controller listener in the
// files given, and what the controllers' own state says of a quorum
// without a leader.
func (o *observer) secureChecks() {
	all := map[int32]map[string]string{}
	for id, n := range o.in.Nodes {
		all[id] = n.Props
	}
	ctls, nodes := listenerNodes(all)
	var listener []model.Finding
	if len(ctls) > 0 {
		listener = checkControllerListener(ctls, nodes, o.in.Stores)
		o.st.Findings = append(o.st.Findings, listener...)
	}
	if why := o.in.KRaftUnanswered; why != "" {
		o.add(SecureChecks.Must(CodeControllersUnanswered).Finding("controllers", why, SecureChecks.Must(CodeControllersUnanswered).Fix))
	}
	e := o.in.Election
	if e == nil || e.LeaderID >= 0 || e.LeaderEpoch <= 0 || o.st.Phase > KRaftMigration {
		return
	}
	msg := fmt.Sprintf("the controllers were started but elected no leader (quorum-state: epoch %d, no leader", e.LeaderEpoch)
	if e.VotedID >= 0 {
		msg += fmt.Sprintf(", voted for %d", e.VotedID)
	}
	msg += ")"
	var why []string
	for _, f := range listener {
		if f.Severity == model.SevError {
			why = append(why, f.Entity+": "+f.Code)
		}
	}
	if len(why) > 0 {
		msg += "; the files say why: " + strings.Join(why, ", ")
	} else {
		msg += "; their server.log names the refused Votes (authorization, TLS, an unreachable voter)"
	}
	o.add(SecureChecks.Must(CodeQuorumNoLeader).Finding("controllers", msg, SecureChecks.Must(CodeQuorumNoLeader).Fix))
	for i, w := range o.st.WaitingFor {
		if strings.HasPrefix(w, "the controllers to start") {
			o.st.WaitingFor[i] = "the controllers to elect a leader: they run, but the quorum has none"
		}
	}
}

// ctlProtocolOf is the protocol the running quorum's controller
// listener has, from the files given: a controller's map, else a
// migrating broker's, else the brokers' inter-broker listener's.
func ctlProtocolOf(nodes map[int32]*Node) string {
	for _, prof := range []Profile{ControllerMigrating, ControllerKRaft, BrokerMigrating, BrokerKRaft} {
		for _, id := range slices.Sorted(maps.Keys(nodes)) {
			if n := nodes[id]; n.Profile() == prof {
				if p := protocolOf(n.Props, ctlListenerName(n.Props)); p != "" {
					return p
				}
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(nodes)) {
		if n := nodes[id]; n.Role() == RoleBroker {
			return defaultProtocol(n.Props)
		}
	}
	return ProtoPlaintext
}

// RedactedNodes returns the plans with the values of secret settings
// (model.IsSecretSetting) in their changes replaced by their short hash,
// as FormatDiff shows them: what every printed form of a plan carries
// unless --show-secrets. Props, the files themselves, is never printed.
func RedactedNodes(ns []NodePlan) []NodePlan {
	out := make([]NodePlan, len(ns))
	for i, n := range ns {
		n.Changes = slices.Clone(n.Changes)
		for j, c := range n.Changes {
			if model.IsSecretSetting(c.Key) {
				if c.From != "" {
					c.From = model.RedactedValue(c.From)
				}
				if c.To != "" {
					c.To = model.RedactedValue(c.To)
				}
				n.Changes[j] = c
			}
		}
		out[i] = n
	}
	return out
}
