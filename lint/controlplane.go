package lint

import (
	"fmt"

	"github.com/kmeta/kmeta/features"
	"github.com/kmeta/kmeta/model"
)

// The control-plane rules: the controller quorum, the metadata version,
// a migration left half done. The two quorum codes are quorum describe's:
// one fact, one code.
const (
	CodeQuorumSingleVoter = "quorum-single-voter"
	CodeQuorumEvenVoters  = "quorum-even-voters"
	CodeMetadataBehind    = "metadata-version-behind"
	CodeMigrationHalfDone = "migration-half-done"
)

// addController is the fix that adds a voter: on the new controller's
// host, with its own config (kraft.version 1, a dynamic quorum, is needed:
// on a static quorum the feature is upgraded first).
func (c *Context) addController() string {
	cmd := "kafka-metadata-quorum --bootstrap-server " + c.bootstrap + " --command-config NEW_CONTROLLER.properties add-controller"
	if c.Img.Quorum != nil && c.Img.Quorum.KRaftVersion < 1 {
		cmd = "kafka-features --bootstrap-server " + c.bootstrap + " upgrade --feature kraft.version=1 && " + cmd
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
				"kafka-features --bootstrap-server "+c.bootstrap+" upgrade --metadata "+to.Name, Entity{Kind: "cluster", Name: "metadata.version"})}
		},
	},
	{
		Code: CodeMigrationHalfDone, Family: ControlPlane, Severity: model.SevError,
		Inputs: InputMigration,
		Title:  "a ZooKeeper to KRaft migration left half done (a /migration znode, or a KRaft migration state short of POST_MIGRATION)",
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
			case m.HasState && (m.State == model.MigrationMigration || m.State == model.MigrationPreMigration):
				return []Finding{r.finding("ZkMigrationState is "+m.State.String(),
					"the cluster is still in dual-write: ZooKeeper is still needed and the migration must be finished or rolled back", "",
					Entity{Kind: "cluster", Name: "migration"})}
			}
			return nil
		},
	},
}
