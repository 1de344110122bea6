package lint

import (
	"fmt"
	"strconv"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/voters"
)

// The control-plane rules: the controller quorum, the metadata version,
// a migration left half done. The two quorum codes are quorum describe's:
// one fact, one code.
const (
	CodeQuorumSingleVoter = "quorum-single-voter"
	CodeQuorumEvenVoters  = "quorum-even-voters"
	CodeMetadataBehind    = "metadata-version-behind"
	CodeMigrationHalfDone = "migration-half-done"
	CodeZKController      = "zk-controller-inconsistent"
)

// addController is the fix that adds a voter: on the new controller's
// host, with its own config (kraft.version 1, a dynamic quorum, is needed:
// on a static quorum the feature is upgraded first).
func (c *Context) addController() string {
	cmd := "kafka-metadata-quorum --bootstrap-server " + shellword.Quote(c.bootstrap) + " --command-config NEW_CONTROLLER.properties add-controller"
	if c.Img.Quorum != nil && c.Img.Quorum.KRaftVersion < 1 {
		cmd = c.tool("kafka-features") + " upgrade --feature kraft.version=1 && " + cmd
		if mv, ok := c.Img.ControllersMetadataVersionMax(); ok && mv < voters.KRaftOnlineUpgradeMV {
			// Only Kafka 4.1's controllers move kraft.version online.
			cmd = "upgrade every controller to Kafka 4.1 or later, then " + cmd
		}
	}
	return cmd
}

func hasVoters(c *Context) (bool, string) {
	if c.Img.Quorum == nil || len(c.Img.Quorum.Voters) == 0 {
		if c.Img.ZK != nil {
			return false, "a ZooKeeper source has no controller quorum"
		}
		return false, "the source holds no voter set (a static quorum's log before its first leader change)"
	}
	return true, ""
}

var controlPlaneRules = []*Rule{
	{
		Code: CodeQuorumSingleVoter, Family: ControlPlane, Severity: model.SevError,
		Inputs:  InputQuorum,
		Title:   "a controller quorum of one voter: losing it stops every metadata change",
		Needs:   []model.Field{model.FieldQuorum},
		Applies: hasVoters,
		Cluster: func(c *Context) []Finding {
			q := c.Img.Quorum
			if len(q.Voters) != 1 {
				return nil
			}
			r := rule(CodeQuorumSingleVoter)
			return []Finding{r.finding(fmt.Sprintf("the quorum has one voter, controller %d", q.Voters[0].ID),
				"no leader can be elected while that controller is down: no topic, ISR or broker change happens, and its disk is the only copy of the metadata",
				c.addController(), Entity{Kind: "quorum"})}
		},
	},
	{
		Code: CodeQuorumEvenVoters, Family: ControlPlane, Severity: model.SevWarning,
		Inputs:  InputQuorum,
		Title:   "a controller quorum of an even number of voters",
		Needs:   []model.Field{model.FieldQuorum},
		Applies: hasVoters,
		Cluster: func(c *Context) []Finding {
			q := c.Img.Quorum
			if len(q.Voters) < 2 || len(q.Voters)%2 != 0 {
				return nil
			}
			r := rule(CodeQuorumEvenVoters)
			n := len(q.Voters)
			return []Finding{r.finding(fmt.Sprintf("the quorum has %d voters", n),
				fmt.Sprintf("%d voters survive %d failures, as %d would: the extra voter adds a machine to fail and nothing else", n, (n-1)/2, n-1),
				c.addController(), Entity{Kind: "quorum"})}
		},
	},
	{
		Code: CodeMetadataBehind, Family: ControlPlane, Severity: model.SevInfo,
		Title: "metadata.version below the highest production level every node supports",
		Needs: []model.Field{model.FieldBrokers, model.FieldBrokerFeatures},
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK != nil {
				return false, "ZooKeeper mode has no metadata.version"
			}
			if c.Img.MetadataVersion() <= 0 {
				return false, "the source holds no finalized metadata.version"
			}
			return true, ""
		},
		Inputs: InputBrokers | InputFeatures,
		Cluster: func(c *Context) []Finding {
			cat, _ := features.CatalogForImage(c.Img)
			nodes, _ := features.NodeRanges(c.Img)
			if len(nodes) == 0 {
				return nil
			}
			top := cat.LatestProductionLevel().Level
			for _, n := range nodes {
				if r, ok := n.Supported["metadata.version"]; ok {
					top = min(top, r[1])
				}
			}
			cur := c.Img.MetadataVersion()
			if cur >= top {
				return nil
			}
			to, ok := cat.ByLevel(top)
			if !ok {
				return nil
			}
			name := fmt.Sprint(cur)
			if l, ok := cat.ByLevel(cur); ok {
				name = l.Name
			}
			r := rule(CodeMetadataBehind)
			seen := "every registered node"
			if !c.Img.Reports(model.FieldControllers) || !c.Img.Reports(model.FieldControllerFeatures) {
				seen = "every broker (the controllers are not in this view)"
			}
			return []Finding{r.finding(fmt.Sprintf("metadata.version is %s (%d); %s supports %s (%d)", name, cur, seen, to.Name, top),
				"features of the newer levels (and their fixes) stay off until the level is raised",
				c.tool("kafka-features")+" upgrade --metadata "+to.Name, Entity{Kind: "cluster", Name: "metadata.version"})}
		},
	},
	{
		Code: CodeMigrationHalfDone, Family: ControlPlane, Severity: model.SevError,
		Inputs: InputMigration | InputBrokers,
		Title:  "a ZooKeeper to KRaft migration left half done (a /migration znode, ZkMigrationState short of POST_MIGRATION, or finalized with ZooKeeper-mode brokers still registered)",
		Needs:  []model.Field{model.FieldMigration},
		Cluster: func(c *Context) []Finding {
			m := c.Img.Migration
			if m == nil {
				return nil
			}
			r := rule(CodeMigrationHalfDone)
			switch {
			case c.Img.ZK != nil && m.HasZNode:
				return []Finding{r.finding(fmt.Sprintf("/migration exists (KRaft controller %d, epoch %d, metadata offset %d)", m.KRaftControllerID, m.KRaftControllerEpoch, m.KRaftMetadataOffset),
					"a KRaft quorum migrated or is migrating this ZooKeeper cluster: ZooKeeper-mode brokers and tools writing here diverge from KRaft", "",
					Entity{Kind: "cluster", Name: "/migration"})}
			case !m.HasState:
				return nil
			case m.State == model.MigrationPreMigration:
				return []Finding{r.finding("ZkMigrationState is PRE_MIGRATION",
					"the quorum was formatted for a migration that has not run (it waits for every ZooKeeper-mode broker to register): ZooKeeper still holds the metadata",
					"", Entity{Kind: "cluster", Name: "migration"})}
			case m.State == model.MigrationMigration:
				// Dual-write: name the step that is left, from what the
				// registrations still say of ZooKeeper.
				zkBrokers, ready := c.zkLeftovers()
				saw, fix := "ZkMigrationState is MIGRATION", ""
				switch {
				case len(zkBrokers) > 0:
					saw += fmt.Sprintf("; broker(s) %s still in ZooKeeper mode", ids(zkBrokers))
					fix = fmt.Sprintf("restart broker(s) %s in KRaft mode (process.roles=broker, node.id, controller settings, no zookeeper.connect), then remove zookeeper.metadata.migration.enable from the controllers and restart them", ids(zkBrokers))
				case len(ready) > 0:
					saw += fmt.Sprintf("; every broker in KRaft mode, controller(s) %s still with zookeeper.metadata.migration.enable", ids(ready))
					fix = "remove zookeeper.metadata.migration.enable (and zookeeper.connect) from the controllers and restart them one at a time: the first to lead writes POST_MIGRATION"
				}
				return []Finding{r.finding(saw,
					"the cluster is still in dual-write: ZooKeeper is still needed and the migration must be finished or rolled back", fix,
					Entity{Kind: "cluster", Name: "migration"})}
			case m.State == model.MigrationPostMigration:
				zkBrokers, _ := c.zkLeftovers()
				var out []Finding
				for _, id := range zkBrokers {
					out = append(out, r.finding(fmt.Sprintf("ZkMigrationState is POST_MIGRATION and broker %d is still registered as a ZooKeeper-mode broker", id),
						"the migration was finalized before this broker moved to KRaft: the controller no longer sends ZooKeeper-mode brokers their leadership and metadata",
						fmt.Sprintf("restart broker %d in KRaft mode (process.roles=broker, node.id, controller settings, no zookeeper.connect)", id),
						brokerEntity(id)))
				}
				return out
			}
			return nil
		},
	},
	{
		Code: CodeZKController, Family: ControlPlane, Severity: model.SevError,
		Title: "ZooKeeper's /controller and /controller_epoch against the brokers, the migration and the partition states (the controller-epoch guard)",
		Needs: []model.Field{model.FieldBrokers, model.FieldTopics},
		Applies: func(c *Context) (bool, string) {
			if c.Img.ZK == nil {
				return false, "KRaft has no /controller or /controller_epoch znode: the quorum's leader epoch fences it"
			}
			return true, ""
		},
		Inputs:  InputBrokers | InputPartitions | InputMigration,
		Cluster: zkControllerCheck,
	},
}

// zkLeftovers are, in a KRaft image, the brokers registered as migrating
// ZooKeeper-mode brokers and the controllers registered ready for a
// migration (zookeeper.metadata.migration.enable=true), each nil when
// the source does not report it.
func (c *Context) zkLeftovers() (zkBrokers, ready []int32) {
	if c.Img.Reports(model.FieldBrokerMigrating) {
		for _, b := range c.Img.SortedBrokers() {
			if b.IsMigratingZkBroker {
				zkBrokers = append(zkBrokers, b.ID)
			}
		}
	}
	if c.Img.Reports(model.FieldControllerZkMigrationReady) {
		for _, id := range sortedKeys(c.Img.Controllers) {
			if c.Img.Controllers[id].ZkMigrationReady {
				ready = append(ready, id)
			}
		}
	}
	return zkBrokers, ready
}

// zkControllerCheck compares what ZooKeeper says of its controller with
// what Kafka checks it against. A ZooKeeper-mode broker becomes
// controller by creating the ephemeral /controller and raising
// /controller_epoch in one multi-op; every later controller write is
// fenced by a check of /controller_epoch's version; and the controller
// refuses to change a partition whose state znode a higher epoch than its
// own wrote ("Leader and isr path written by another controller"). A
// migrating KRaft controller claims /controller the same way, with a
// persistent znode holding its kraftControllerEpoch, and writes its raft
// epoch into the states.
func zkControllerCheck(c *Context) []Finding {
	z := c.Img.ZK
	r := rule(CodeZKController)
	migrating := c.Img.Migration != nil && c.Img.Migration.HasZNode
	var out []Finding
	zkDelete := []string{"delete", "/controller"}
	ctl := Entity{Kind: "cluster", Name: "/controller"}
	epoch := Entity{Kind: "cluster", Name: "/controller_epoch"}
	if z.ControllerID >= 0 {
		switch {
		case z.KRaftControllerEpoch >= 0 && !migrating:
			out = append(out, r.finding(fmt.Sprintf("/controller names KRaft controller %d (kraftControllerEpoch %d) and no /migration exists", z.ControllerID, z.KRaftControllerEpoch),
				"a KRaft controller's claim is a persistent znode that only a migration removes: while it stays, no ZooKeeper-mode broker becomes controller (a rollback that removed /migration but not /controller)",
				c.zkShell(zkDelete), ctl))
		case z.KRaftControllerEpoch < 0 && c.Img.Brokers[z.ControllerID] == nil:
			out = append(out, r.finding(fmt.Sprintf("/controller names broker %d, which is not registered in /brokers/ids", z.ControllerID),
				"brokers elect a controller only when /controller goes away: while it names a broker that is not there, no controller elects leaders or applies topic and ISR changes",
				c.zkShell(zkDelete), ctl))
		}
	}
	// The epoch a new controller must start above: every state's.
	floor := max(z.MaxStateControllerEpoch, 0)
	epochArg := strconv.Itoa(int(floor))
	switch {
	case z.ControllerEpochZkVersion < 0 && z.ControllerID >= 0:
		out = append(out, r.finding(fmt.Sprintf("/controller names controller %d and /controller_epoch does not exist", z.ControllerID),
			"every controller write to ZooKeeper is checked against /controller_epoch's version: without the znode they all fail, so the controller changes nothing",
			c.zkShell([]string{"create", "/controller_epoch", epochArg}, zkDelete), epoch))
	case z.ControllerEpochZkVersion >= 0 && z.MaxStateControllerEpoch > z.ControllerEpoch && !migrating && z.KRaftControllerEpoch < 0:
		// Recreating /controller_epoch at the states' epoch and forcing an
		// election gives the next controller an epoch above them.
		fix := c.zkShell([]string{"set", "/controller_epoch", epochArg})
		if z.ControllerID >= 0 {
			fix = c.zkShell([]string{"set", "/controller_epoch", epochArg}, zkDelete)
		}
		out = append(out, r.finding(fmt.Sprintf("partition states were written by controller epoch %d, above /controller_epoch %d", z.MaxStateControllerEpoch, z.ControllerEpoch),
			"Kafka's controller refuses to change a partition whose state a higher epoch wrote (\"Leader and isr path written by another controller\"): those partitions get no new leader or ISR",
			fix, epoch))
	}
	return out
}
