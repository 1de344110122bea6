package online

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/controllers"
	"github.com/kmeta/kmeta/migrate"
	"github.com/kmeta/kmeta/model"
)

// zkImage is a ZooKeeper view of three registered brokers, broker 1
// ZooKeeper's controller, one topic on all three.
func zkImage() *model.Image {
	img := model.NewImage()
	img.ClusterID = "Y_M1NY68Tu2c3nV89agwIw"
	img.ZK = &model.ZKState{ControllerID: 1, KRaftControllerEpoch: -1, ControllerEpoch: 3, Chroot: "/kafka"}
	for id := int32(1); id <= 3; id++ {
		img.Brokers[id] = &model.Broker{ID: id}
	}
	img.Topics["orders"] = &model.Topic{Name: "orders", ID: model.UUID{1}, Partitions: map[int32]*model.Partition{
		0: {ID: 0, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 1}}}
	return img
}

func brokerFile(id int32) *Node {
	return &Node{ID: id, Path: "/etc/kafka/server-" + strconv.Itoa(int(id)) + ".properties", Props: map[string]string{
		"broker.id": strconv.Itoa(int(id)), "listeners": "PLAINTEXT://127.0.0.1:909" + strconv.Itoa(int(id)),
		"zookeeper.connect": "zk:2181/kafka", "log.dirs": "/var/kafka", "inter.broker.protocol.version": "3.9",
		"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:admin;User:ANONYMOUS",
	}}
}

func files(ids ...int32) map[int32]*Node {
	m := map[int32]*Node{}
	for _, id := range ids {
		m[id] = brokerFile(id)
	}
	return m
}

var ctl = []controllers.Spec{{ID: 3000, Host: "127.0.0.1", Port: 9093}}

func codes(fs []model.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

func TestStageMigrationFromZooKeeper(t *testing.T) {
	in := Input{ZK: zkImage(), Nodes: files(1, 2, 3)}
	r, err := Stage(in, StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/var/lib/kafka/ctl-{id}"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Ready {
		t.Fatalf("refused: %v", codes(r.Checks))
	}
	var acts []string
	for _, s := range r.Steps {
		n := "-"
		if s.Node != nil {
			n = strconv.Itoa(int(*s.Node))
		}
		acts = append(acts, s.Action+":"+n)
	}
	// Controllers first, then the brokers with ZooKeeper's controller
	// (broker 1) last.
	want := []string{"install-metadata-dir:3000", "start:3000", "wait:-", "restart:2", "restart:3", "restart:1", "wait:-"}
	if !slices.Equal(acts, want) {
		t.Fatalf("steps %v, want %v", acts, want)
	}
	b := nodeProps(r.Nodes, 2)
	if b["zookeeper.metadata.migration.enable"] != "true" || b["controller.quorum.voters"] != "3000@127.0.0.1:9093" ||
		b["authorizer.class.name"] != "kafka.security.authorizer.AclAuthorizer" || b["inter.broker.protocol.version"] != "3.9" {
		t.Fatalf("broker file %v", b)
	}
	c := nodeProps(r.Nodes, 3000)
	if c["process.roles"] != "controller" || c["zookeeper.connect"] != "zk:2181/kafka" || c["log.dirs"] != "/var/lib/kafka/ctl-3000" ||
		c["authorizer.class.name"] != migrate.StandardAuthorizer || c["inter.broker.listener.name"] != "PLAINTEXT" || c["zookeeper.metadata.migration.enable"] != "true" {
		t.Fatalf("controller file %v", c)
	}
	if r.Format == nil || r.Format.MetadataVersion != "3.9-IV0" || r.Format.ClusterID != "Y_M1NY68Tu2c3nV89agwIw" {
		t.Fatalf("format %+v", r.Format)
	}
	if s := r.Steps[1]; s.What != "start controller 3000 on server-3000.properties" {
		t.Fatalf("start step %q", s.What)
	}
	// Brokers whose znodes are their own: the controller starts with
	// their ZooKeeper login, and its file keeps zookeeper.set.acl.
	in = Input{ZK: zkImage(), Nodes: files(1, 2, 3)}
	for _, n := range in.Nodes {
		n.Props["zookeeper.set.acl"] = "true"
	}
	r, err = Stage(in, StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/var/lib/kafka/ctl-{id}"})
	if err != nil || !r.Ready {
		t.Fatalf("%v %v", err, codes(r.Checks))
	}
	if c := nodeProps(r.Nodes, 3000); c["zookeeper.set.acl"] != "true" {
		t.Fatalf("controller file %v", c)
	}
	if s := r.Steps[1]; s.What != "start controller 3000 on server-3000.properties, with the JAAS file the brokers log in to ZooKeeper with in its KAFKA_OPTS (java.security.auth.login.config, its Client section): "+
		"zookeeper.set.acl=true makes the znodes theirs, and ZooKeeper refuses the writes of a controller logged in as anyone else" {
		t.Fatalf("start step %q", s.What)
	}
}

// Each stuck state is refused with its own code, and only it.
func TestStageMigrationRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(in *Input)
		code string
	}{
		"combined node": {func(in *Input) { in.Nodes[2].Props["process.roles"] = "broker,controller" }, CodeCombinedNode},
		"stale /migration": {func(in *Input) {
			in.ZK.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 120}
		}, CodeMigrationZNode},
		"null /migration": {func(in *Input) {
			in.ZK.Migration = &model.Migration{HasZNode: true, ZNodeNull: true, KRaftMetadataOffset: -1}
		}, CodeMigrationZNodeNull},
		"generated id": {func(in *Input) { delete(in.Nodes[3].Props, "broker.id") }, CodeBrokerIDGenerated},
		"ibp differs":  {func(in *Input) { in.Nodes[3].Props["inter.broker.protocol.version"] = "3.8" }, CodeIBPDiffers},
		"ibp too old":  {func(in *Input) { setAll(in, "inter.broker.protocol.version", "3.3") }, CodeIBPTooOld},
		"jbod": {func(in *Input) {
			setAll(in, "inter.broker.protocol.version", "3.6")
			in.Nodes[1].Props["log.dirs"] = "/a,/b"
		}, CodeJBODLevel},
		"missing config": {func(in *Input) { delete(in.Nodes, 3) }, CodeNodeConfigMissing},
		"no topic id":    {func(in *Input) { in.ZK.Topics["orders"].ID = model.UUID{} }, CodeTopicWithoutID},
		"ibl differs":    {func(in *Input) { in.Nodes[3].Props["inter.broker.listener.name"] = "SSL" }, CodeInterBroker},
		"controllers formatted without migration": {func(in *Input) {
			k := model.NewImage()
			k.ClusterID = in.ZK.ClusterID
			k.Features["metadata.version"] = 21
			k.Migration = &model.Migration{HasState: true, State: model.MigrationNone}
			in.KRaft = k
		}, CodeControllerNoMigrate},
	} {
		t.Run(name, func(t *testing.T) {
			in := Input{ZK: zkImage(), Nodes: files(1, 2, 3)}
			tc.edit(&in)
			r, err := Stage(in, StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/d"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Ready || !slices.Contains(codes(r.Checks), tc.code) {
				t.Fatalf("ready %v, checks %v; want refused with %s", r.Ready, codes(r.Checks), tc.code)
			}
		})
	}
}

func setAll(in *Input, k, v string) {
	for _, n := range in.Nodes {
		n.Props[k] = v
	}
}

// kraftImage is a controller's log at a state.
func kraftImage(state model.ZkMigrationState, brokers map[int32]bool, ctlReady bool) *model.Image {
	k := model.NewImage()
	k.ClusterID = "Y_M1NY68Tu2c3nV89agwIw"
	k.Features["metadata.version"] = 21
	k.Migration = &model.Migration{HasState: true, State: state}
	for id, migrating := range brokers {
		k.Brokers[id] = &model.Broker{ID: id, IsMigratingZkBroker: migrating}
	}
	k.Controllers[3000] = &model.Controller{ID: 3000, ZkMigrationReady: ctlReady}
	k.Quorum = &model.Quorum{LeaderID: 3000, Voters: []model.Voter{{ID: 3000, Endpoints: []model.Endpoint{{Host: "127.0.0.1", Port: 9093}}}}}
	return k
}

// letGo is ZooKeeper after stage KRaft's cleanup.
func letGo(img *model.Image) *model.Image {
	img.ZK.ControllerID, img.ZK.KRaftControllerEpoch = -1, -1
	img.Migration = nil
	return img
}

// live is what a live quorum reports of a log's image: no migration
// state, no brokers, no topics.
func live(k *model.Image) *model.Image {
	k.Migration = nil
	k.Brokers = map[int32]*model.Broker{}
	k.MarkNotReported(model.FieldMigration, model.FieldBrokers, model.FieldBrokerMigrating, model.FieldTopics)
	return k
}

func TestObservePhases(t *testing.T) {
	claimed := func(img *model.Image) *model.Image {
		img.ZK.ControllerID, img.ZK.KRaftControllerEpoch = 3000, 1
		img.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 42}
		return img
	}
	noZKBrokers := func(img *model.Image) *model.Image { img.Brokers = map[int32]*model.Broker{}; return img }
	all := func(m bool) map[int32]bool { return map[int32]bool{1: m, 2: m, 3: m} }
	for _, tc := range []struct {
		name  string
		zk    *model.Image
		kraft *model.Image
		want  Phase
	}{
		{"zookeeper", zkImage(), nil, ZooKeeper},
		{"controllers up, brokers rolling", zkImage(), kraftImage(model.MigrationPreMigration, map[int32]bool{1: true}, true), KRaftMigration},
		{"dual-write", claimed(zkImage()), kraftImage(model.MigrationMigration, all(true), true), KRaftDualWriting},
		{"dual-write, zookeeper alone", claimed(zkImage()), nil, KRaftDualWriting},
		{"brokers moved", noZKBrokers(claimed(zkImage())), kraftImage(model.MigrationMigration, all(false), true), KRaftPostMigration},
		{"brokers half moved", claimed(zkImage()), kraftImage(model.MigrationMigration, map[int32]bool{1: false, 2: true, 3: true}, true), KRaftDualWriting},
		{"controllers finalizing", noZKBrokers(claimed(zkImage())), kraftImage(model.MigrationPostMigration, all(false), true), PreKRaft},
		{"finalized, zookeeper not let go", noZKBrokers(claimed(zkImage())), kraftImage(model.MigrationPostMigration, all(false), false), PreKRaft},
		{"kraft", letGo(noZKBrokers(claimed(zkImage()))), kraftImage(model.MigrationPostMigration, all(false), false), KRaft},
		{"kraft, live controllers", letGo(noZKBrokers(claimed(zkImage()))), live(kraftImage(model.MigrationPostMigration, all(false), false)), KRaft},
		{"finalizing, live controllers", noZKBrokers(claimed(zkImage())), live(kraftImage(model.MigrationPostMigration, all(false), false)), PreKRaft},
		{"dual-write, live controllers", claimed(zkImage()), live(kraftImage(model.MigrationMigration, all(true), true)), KRaftDualWriting},
		{"controllers without migration, live", zkImage(), live(kraftImage(model.MigrationNone, nil, false)), KRaftMigration},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Observe(Input{ZK: tc.zk, KRaft: tc.kraft})
			if err != nil {
				t.Fatal(err)
			}
			if st.Phase != tc.want {
				t.Fatalf("phase %s, want %s (waiting %v, findings %v)", st.Phase, tc.want, st.WaitingFor, codes(st.Findings))
			}
		})
	}
}

// TestZKCLIFromTheSource: without a node file naming ZooKeeper (stage
// KRaft's files have dropped every zookeeper.* setting), the commands
// reach the --zk source as kmeta read it: over TLS with the operator's
// settings file, logged in with --zk-auth's credentials.
func TestZKCLIFromTheSource(t *testing.T) {
	kraft := files(1)
	delete(kraft[1].Props, keyZKConnect)
	s := zkCLIOf(Input{ZKSource: "zk://zk1:2281/kafka", ZKTLS: true, ZKDigest: true, Nodes: kraft}).step("delete /migration", "delete", "/migration")
	want := Step{Action: ActZooKeeper, Args: []string{"-zk-tls-config-file", "$ZK_TLS_CONFIG_FILE", "delete", "/migration"},
		Command: `: "${KMETA_ZK_AUTH:?set it to the USER:PASSWORD kmeta read ZooKeeper with}" && printf '%s\n' "addauth digest $KMETA_ZK_AUTH" 'delete /migration' | ` +
			`zookeeper-shell.sh zk1:2281/kafka -zk-tls-config-file "${ZK_TLS_CONFIG_FILE:?set it to a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with}"`,
		What: "delete /migration; set ZK_TLS_CONFIG_FILE to a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with (their server.properties will do), and KMETA_ZK_AUTH to the USER:PASSWORD kmeta read ZooKeeper with"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("step %+v\nwant %+v", s, want)
	}
	// Read in plain text and without credentials: the plain command.
	if s := zkCLIOf(Input{ZKSource: "zk://zk1:2181/kafka"}).step("delete /migration", "delete", "/migration"); s.Command != "zookeeper-shell.sh zk1:2181/kafka delete /migration" {
		t.Errorf("plain: %+v", s)
	}
	// The chroot's ACL says whose login may delete its children: the
	// brokers' SASL login alone, and the CLI logs in as they do; not
	// when anyone may, or the digest login kmeta read with may.
	for _, tc := range []struct {
		schemes      []string
		digest, jaas bool
	}{
		{[]string{"sasl"}, false, true},
		{[]string{"sasl"}, true, true},
		{[]string{"digest", "sasl"}, false, true},
		{[]string{"digest", "sasl"}, true, false},
		{[]string{"sasl", "world"}, false, false},
		{[]string{"world"}, false, false},
		{[]string{"digest"}, true, false},
		{nil, false, false},
	} {
		z := zkCLIOf(Input{ZKSource: "zk://zk1:2181/kafka", ZKDigest: tc.digest, ZKDeleteSchemes: tc.schemes, Nodes: kraft})
		if z.JAAS != tc.jaas || z.Digest != tc.digest {
			t.Errorf("schemes %q, digest %v: %+v", tc.schemes, tc.digest, z.ZKShell)
		}
	}
}

func TestRollback(t *testing.T) {
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 1
	zk.Migration = &model.Migration{HasZNode: true, KRaftMetadataOffset: 42}
	r, err := Rollback(Input{ZK: zk, KRaft: kraftImage(model.MigrationMigration, map[int32]bool{1: true, 2: true, 3: true}, true), Nodes: files(1, 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, s := range r.Steps {
		acts = append(acts, s.Action)
	}
	want := []string{"stop", "zookeeper", "zookeeper", "zookeeper", "restart", "restart", "restart", "wait"}
	if r.Refused || !slices.Equal(acts, want) {
		t.Fatalf("refused %v, steps %v, want %v", r.Refused, acts, want)
	}
	if r.Steps[1].Command != "zookeeper-shell.sh zk:2181/kafka delete /controller" || !slices.Equal(r.Steps[1].Args, []string{"delete", "/controller"}) {
		t.Fatalf("command %q, args %q", r.Steps[1].Command, r.Steps[1].Args)
	}
	// Brokers that reach ZooKeeper over TLS: the CLI takes the first
	// file's TLS settings (TestZKCommandsReachTLSZooKeeper runs it).
	tls := files(1, 2, 3)
	tls[1].Path = "/etc/kafka/broker 1.properties"
	tls[1].Props[keyZKTLS] = "true"
	r, err = Rollback(Input{ZK: zk, KRaft: kraftImage(model.MigrationMigration, map[int32]bool{1: true, 2: true, 3: true}, true), Nodes: tls})
	if err != nil {
		t.Fatal(err)
	}
	var zkSteps [][2]string
	for _, s := range r.Steps {
		if s.Action == ActZooKeeper {
			zkSteps = append(zkSteps, [2]string{s.Command, strings.Join(s.Args, "|")})
		}
	}
	wantZK := [][2]string{
		{"zookeeper-shell.sh zk:2181/kafka -zk-tls-config-file '/etc/kafka/broker 1.properties' delete /controller", "-zk-tls-config-file|/etc/kafka/broker 1.properties|delete|/controller"},
		{"zookeeper-shell.sh zk:2181/kafka -zk-tls-config-file '/etc/kafka/broker 1.properties' get /migration", "-zk-tls-config-file|/etc/kafka/broker 1.properties|get|/migration"},
		{"zookeeper-shell.sh zk:2181/kafka -zk-tls-config-file '/etc/kafka/broker 1.properties' delete /migration", "-zk-tls-config-file|/etc/kafka/broker 1.properties|delete|/migration"},
	}
	if !slices.Equal(zkSteps, wantZK) {
		t.Fatalf("ZooKeeper steps over TLS:\n%q\nwant\n%q", zkSteps, wantZK)
	}
	// Brokers whose znodes are their own (zookeeper.set.acl=true): the
	// commands log in as they do (TestZKCommandsLogInToSASLZooKeeper runs
	// them), and the step says what to set.
	acl := files(1, 2, 3)
	acl[1].Props[keyZKSetACL] = "true"
	r, err = Rollback(Input{ZK: zk, KRaft: kraftImage(model.MigrationMigration, map[int32]bool{1: true, 2: true, 3: true}, true), Nodes: acl})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Steps[slices.IndexFunc(r.Steps, func(s Step) bool { return s.Action == ActZooKeeper })]
	if s.Command != `KAFKA_OPTS="$KAFKA_OPTS -Djava.security.auth.login.config=${ZK_CLIENT_JAAS:?set it to the JAAS file the brokers log in to ZooKeeper with}" zookeeper-shell.sh zk:2181/kafka delete /controller` ||
		!slices.Equal(s.Args, []string{"delete", "/controller"}) ||
		!strings.HasSuffix(s.What, "; the brokers set zookeeper.set.acl=true, so the znodes are theirs: set ZK_CLIENT_JAAS to the JAAS file the brokers log in to ZooKeeper with (its Client section), as their KAFKA_OPTS names it") {
		t.Fatalf("ZooKeeper step with the brokers' login: %+v", s)
	}
	// From PostMigration the brokers first go back to migration mode.
	zk.Brokers = map[int32]*model.Broker{}
	r, err = Rollback(Input{ZK: zk, KRaft: kraftImage(model.MigrationMigration, map[int32]bool{1: false, 2: false, 3: false}, true), Nodes: files(1, 2, 3)})
	if err != nil || r.Refused || r.Phase != KRaftPostMigration || r.Steps[0].Config != MigratingConfigName(1) {
		t.Fatalf("post-migration rollback: %v %+v", err, r)
	}
	// None from PreKRaft on.
	r, err = Rollback(Input{ZK: zk, KRaft: kraftImage(model.MigrationPostMigration, map[int32]bool{1: false, 2: false, 3: false}, false), Nodes: files(1, 2, 3)})
	if err != nil || !r.Refused || !slices.Contains(codes(r.Checks), CodeNoRollback) {
		t.Fatalf("kraft rollback: %v %+v", err, r)
	}
}

// A broker that did not register is named with the cause its file shows.
func TestNotRegisteredCauses(t *testing.T) {
	in := Input{ZK: zkImage(), KRaft: kraftImage(model.MigrationPreMigration, map[int32]bool{1: true}, true), Nodes: files(1, 2, 3)}
	q := quorum{controllers: ctl, ibp: "3.9"}
	in.Nodes[1].Props = migratingBroker(in.Nodes[1].Props, q)
	// Broker 2: restarted without the flag; broker 3: an IBP the
	// controller refuses.
	in.Nodes[3].Props = migratingBroker(in.Nodes[3].Props, quorum{controllers: ctl, ibp: "3.8"})
	st, err := Observe(in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range st.Findings {
		got[f.Entity] = f.Code
	}
	want := map[string]string{"broker 2": CodeBrokerNoFlag, "broker 3": CodeIBPMismatch}
	for e, c := range want {
		if got[e] != c {
			t.Errorf("%s: finding %q, want %q (all: %v)", e, got[e], c, got)
		}
	}
	if st.Phase != KRaftMigration || st.Healthy || len(st.WaitingFor) != 2 {
		t.Fatalf("phase %s healthy %v waiting %v", st.Phase, st.Healthy, st.WaitingFor)
	}
	// Broker 3 without the controller settings.
	delete(in.Nodes[3].Props, "controller.quorum.voters")
	st, _ = Observe(in)
	for _, f := range st.Findings {
		if f.Entity == "broker 3" && f.Code != CodeBrokerNoQuorum && f.Code != CodeIBPMismatch {
			t.Errorf("broker 3: %s", f.Code)
		}
	}
}

// TestStageRefusesForeignInputs (issue 29): a --config for a broker the
// cluster does not know, and a zookeeper.connect naming another chroot or
// ensemble, refuse the stage.
func TestStageRefusesForeignInputs(t *testing.T) {
	stage := func(zk *model.Image, nodes map[int32]*Node) []string {
		r, err := Stage(Input{ZK: zk, Nodes: nodes}, StageOptions{Phase: KRaftMigration, Controllers: ctl, MetadataDir: "/var/lib/kafka/ctl-{id}"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range r.Checks {
			if c.Code == CodeNodeNotInCluster || c.Code == CodeZKConnectMismatch {
				got = append(got, c.Code+" "+c.Entity)
			}
		}
		if len(got) > 0 && r.Ready {
			t.Errorf("ready despite %v", got)
		}
		return got
	}
	if got := stage(zkImage(), files(1, 2, 3)); len(got) != 0 {
		t.Fatalf("the cluster's own files: %v", got)
	}
	if got := stage(zkImage(), files(1, 2, 3, 7)); !slices.Equal(got, []string{"node-not-in-cluster --config 7"}) {
		t.Errorf("broker 7: %v", got)
	}
	other := files(1, 2, 3)
	other[2].Props["zookeeper.connect"] = "zk:2181/kafka/other"
	if got := stage(zkImage(), other); !slices.Equal(got, []string{"zookeeper-connect-mismatch --config 2"}) {
		t.Errorf("another chroot: %v", got)
	}
	// The ensemble is compared when the view knows it (a live read, or a
	// dump of one).
	zk := zkImage()
	zk.ZK.Servers = []string{"zk:2181"}
	other = files(1, 2, 3)
	other[3].Props["zookeeper.connect"] = "elsewhere:2181,elsewhere2/kafka"
	if got := stage(zk, other); !slices.Equal(got, []string{"zookeeper-connect-mismatch --config 3"}) {
		t.Errorf("another ensemble: %v", got)
	}
	if got := stage(zk, files(1, 2, 3)); len(got) != 0 {
		t.Errorf("the same ensemble: %v", got)
	}
}

// TestZKDependentsLetGo: zk dependents' findings (the command reads them
// from PreKRaft on) keep ZooKeeper from being let go: status reports
// them, stage KRaft is refused on a dependent, and warns with what could
// not be checked before its let-go steps. Before PreKRaft they are not
// the status's concern.
func TestZKDependentsLetGo(t *testing.T) {
	zk := zkImage()
	zk.ZK.ControllerID, zk.ZK.KRaftControllerEpoch = 3000, 1
	zk.Migration = &model.Migration{HasZNode: true, KRaftControllerID: 3000, KRaftControllerEpoch: 1, KRaftMetadataOffset: 42}
	zk.Brokers = map[int32]*model.Broker{}
	kraft := kraftImage(model.MigrationPostMigration, map[int32]bool{1: false, 2: false, 3: false}, false)
	dep := model.Finding{Code: "zk-foreign-data", Severity: model.SevError, Entity: "/hbase", Message: "9 znodes"}
	unchecked := model.Finding{Code: "zk-dependents-not-checked", Severity: model.SevWarning, Entity: "zk://zk:2181/kafka", Message: "cons refused"}
	in := Input{ZK: zk, KRaft: kraft, ZKDependents: []model.Finding{dep}, ZKNotChecked: []model.Finding{unchecked}}
	st, err := Observe(in)
	if err != nil || st.Phase != PreKRaft || st.Healthy || !slices.Contains(codes(st.Findings), "zk-foreign-data") {
		t.Fatalf("status: %v, %s healthy %v, findings %v", err, st.Phase, st.Healthy, codes(st.Findings))
	}
	r, err := Stage(in, StageOptions{Phase: KRaft})
	if err != nil || r.Ready || len(r.Steps) != 0 || !slices.Contains(codes(r.Checks), "zk-foreign-data") {
		t.Fatalf("stage KRaft with a dependent: %v, ready %v, checks %v", err, r.Ready, codes(r.Checks))
	}
	in.ZKDependents = nil
	r, err = Stage(in, StageOptions{Phase: KRaft})
	if err != nil || !r.Ready || !slices.Equal(codes(r.Checks), []string{"zk-dependents-not-checked"}) || len(r.Steps) != 4 {
		t.Fatalf("stage KRaft with nothing found: %v, ready %v, checks %v, %d steps", err, r.Ready, codes(r.Checks), len(r.Steps))
	}
	// Before PreKRaft, status does not report them.
	in = Input{ZK: zkImage(), ZKDependents: []model.Finding{dep}}
	if st, err := Observe(in); err != nil || slices.Contains(codes(st.Findings), "zk-foreign-data") {
		t.Fatalf("status in %s reports zk dependents: %v %v", st.Phase, err, codes(st.Findings))
	}
}
