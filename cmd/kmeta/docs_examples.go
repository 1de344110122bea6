package main

// The reference's examples and exit statuses (docs_cmd.go). An example
// with Run set is run on the committed fixtures when the pages are made,
// and its output is shown as it came; every example line must parse
// against the command tree (TestDocCommandLinesParse). A new command gets
// its examples and its exit status here: TestDocsEveryCommand fails
// without them.

// docExample is one example of a command.
type docExample struct {
	// What says in a few words what the example shows.
	What string
	// Line is the command line, starting with "kmeta".
	Line string
	// Run: run it on the fixtures and show the output. Examples that need
	// a cluster, a ZooKeeper or files outside the repository are shown,
	// not run.
	Run bool
}

// Fixtures the examples read (see each directory's README).
const (
	fxKRaft44  = "testdata/kraft/4.4.0/metadata"
	fxKRaft39  = "testdata/kraft/3.9.2/metadata"
	fxZKData   = "testdata/zk/datadir"
	fxZKDump   = "testdata/zk/dump.json"
	fxDualDump = "testdata/zk/migration/dual-write.dump.json"
)

var docExamples = map[string][]docExample{
	"": {
		{What: "the image of a KRaft controller's metadata log dir as JSON, one topic's partitions with jq", Line: "kmeta image -o json kraft:/var/lib/kafka/meta"},
		{What: "the same options after the arguments, and Kafka's own spellings", Line: "kmeta image --bootstrap-server b1:9092 --command-config client.properties -o table"},
	},
	"completion": {
		{What: "load the completion into the current bash", Line: "kmeta completion bash"},
	},
	"codes": {
		{What: "what a code printed by a command means, and its fix", Line: "kmeta codes copies-diverge", Run: true},
		{What: "every code a command can print, as JSON", Line: "kmeta codes -o json"},
	},
	"image": {
		{What: "a KRaft controller's metadata log", Line: "kmeta image " + fxKRaft44, Run: true},
		{What: "the same log as it was at offset 41", Line: "kmeta image kraft:" + fxKRaft44 + "@offset=41 -o table", Run: true},
		{What: "a running cluster through its admin API", Line: "kmeta image kafka://b1:9092 --command-config client.properties"},
	},
	"history": {
		{What: "every change of a topic, its partitions and its config, as text", Line: "kmeta history kraft:" + fxKRaft44 + " --entity topic:orders.v1", Run: true},
		{What: "the ACL and quota changes of a ZooKeeper data dir, one JSON object per change", Line: "kmeta history zkdata:" + fxZKData + " --entity acl --entity quota -o json", Run: true},
		{What: "who changed retention.ms, and when, in the last day", Line: "kmeta history kraft:/var/lib/kafka/meta --field retention.ms --since 24h"},
	},
	"restore": {
		{What: "what restoring a log's state at offset 140 takes, as Kafka's commands", Line: "kmeta restore --to kraft:" + fxKRaft44 + "@offset=140 kraft:" + fxKRaft44, Run: true},
		{What: "validate with the cluster, write nothing", Line: "kmeta restore --to kraft:/var/lib/kafka/meta@offset=1200 --bootstrap-server b1:9092 --command-config client.properties --dry-run"},
		{What: "restore ACLs and quotas only, without asking", Line: "kmeta restore --to kraft:/var/lib/kafka/meta@offset=1200 kafka://b1:9092 --entity acl --entity quota --yes"},
	},
	"diff": {
		{What: "what changed between two points of one log", Line: "kmeta diff kraft:" + fxKRaft44 + "@offset=41 kraft:" + fxKRaft44, Run: true},
		{What: "a controller's log against the running cluster", Line: "kmeta diff kraft:/var/lib/kafka/meta --bootstrap-server b1:9092"},
	},
	"verify": {
		{What: "ZooKeeper against the KRaft controller in dual-write", Line: "kmeta verify --zk zk://zk1:2181/kafka --kraft kraft:/var/lib/kafka/meta"},
		{What: "a ZooKeeper data dir against a migrated controller's log", Line: "kmeta verify --zk zkdata:/var/lib/zookeeper --kraft kraft:/var/lib/kafka-meta/controller-3000"},
	},
	"lint": {
		{What: "every rule on a KRaft controller's log", Line: "kmeta lint " + fxKRaft44, Run: true},
		{What: "a ZooKeeper-mode cluster's data dir, failing on warnings too", Line: "kmeta lint zkdata:" + fxZKData + " --fail-on warning -o table", Run: true},
		{What: "since when each finding has held", Line: "kmeta lint --history kraft:/var/lib/kafka/meta"},
		{What: "the rules", Line: "kmeta lint --list-rules -o table", Run: true},
	},
	"features list": {
		{What: "what Kafka 3.9 bootstraps", Line: "kmeta features list --release 3.9", Run: true},
	},
	"features deps": {
		{What: "what a feature level needs", Line: "kmeta features deps transaction.version=2", Run: true},
	},
	"features describe": {
		{What: "the finalized levels of a log, and what its content needs", Line: "kmeta features describe " + fxKRaft39, Run: true},
		{What: "every node's supported ranges", Line: "kmeta features describe --bootstrap-server b1:9092 --bootstrap-controller c1:9093"},
	},
	"features check": {
		{What: "would a downgrade be allowed, and what it would lose", Line: "kmeta features check " + fxKRaft44 + " --to 3.9-IV0", Run: true},
	},
	"features upgrade": {
		{What: "check, validate with Kafka, then ask before writing", Line: "kmeta features upgrade --bootstrap-server b1:9092 --metadata 4.1 --dry-run"},
		{What: "turn a static quorum dynamic (then roll the controllers' configs)", Line: "kmeta features upgrade --bootstrap-controller c1:9093 --feature kraft.version=1 --yes"},
	},
	"features downgrade": {
		{What: "a safe downgrade, validated by Kafka first", Line: "kmeta features downgrade --bootstrap-server b1:9092 --metadata 4.0 --dry-run"},
	},
	"features disable": {
		{What: "turn a feature off", Line: "kmeta features disable --bootstrap-server b1:9092 --feature eligible.leader.replicas.version --dry-run"},
	},
	"log dump": {
		{What: "every record of a segment, as Kafka 4.4's kafka-dump-log --cluster-metadata-decoder prints it", Line: "kmeta log dump " + fxKRaft44 + "/__cluster_metadata-0/00000000000000000086.log", Run: true},
		{What: "only topic records, as JSON lines", Line: "kmeta log dump " + fxKRaft44 + " --type TOPIC_RECORD -o json", Run: true},
	},
	"log check": {
		{What: "the integrity verdict of a metadata log dir", Line: "kmeta log check " + fxKRaft44, Run: true},
	},
	"log stats": {
		{What: "records and bytes per type", Line: "kmeta log stats " + fxKRaft39 + " -o table", Run: true},
	},
	"zk dependents": {
		{What: "before switching the ensemble off: what else uses it, live (the connected clients when cons is allowed)", Line: "kmeta zk dependents zk://zk1:2181,zk2:2181,zk3:2181/kafka"},
		{What: "who wrote what, from a server's data dir (its session table and transaction logs)", Line: "kmeta zk dependents zkdata:" + fxZKData, Run: true},
	},
	"zk dump": {
		{What: "Kafka's znodes as one JSON document (secrets hashed)", Line: "kmeta zk dump zk://zk1:2181/kafka --out cluster.json"},
	},
	"zk image": {
		{What: "the image a ZooKeeper data dir holds", Line: "kmeta zk image zkdata:" + fxZKData + " -o table", Run: true},
	},
	"quorum describe": {
		{What: "the quorum as kafka-metadata-quorum describe --status and --replication show it, with RestartSafe", Line: "kmeta quorum describe --bootstrap-controller c1:9093"},
		{What: "from the controllers' metadata log dirs", Line: "kmeta quorum describe " + fxKRaft44, Run: true},
	},
	"quorum survey": {
		{What: "which surviving copy a rebuild should start from", Line: "kmeta quorum survey " + fxKRaft44 + " " + fxKRaft39, Run: true},
	},
	"quorum rebuild": {
		{What: "a new quorum from the best surviving copy", Line: "kmeta quorum rebuild --from /backup/broker-1/meta --controllers 3000@c1:9093,3001@c2:9093,3002@c3:9093 --out /tmp/rebuilt --dry-run"},
	},
	"roll check": {
		{What: "may broker 2 be stopped now", Line: "kmeta roll check --node 2 --bootstrap-server b1:9092"},
		{What: "a ZooKeeper-mode cluster, min.insync.replicas from the brokers' files", Line: "kmeta roll check --node 2 zk://zk1:2181/kafka --config 1=b1.properties --config 3=b3.properties"},
		{What: "a controller, from its metadata log dir (no fetch times: could not tell)", Line: "kmeta roll check --node 3000 " + fxKRaft44, Run: true},
	},
	"roll wait": {
		{What: "block until broker 2 is back in every ISR", Line: "kmeta roll wait --node 2 --bootstrap-server b1:9092,b3:9092 --timeout 15m"},
		{What: "until controller 3001 is caught up", Line: "kmeta roll wait --node 3001 --bootstrap-controller c1:9093,c2:9093"},
	},
	"roll plan": {
		{What: "every broker, each step between its check and its wait", Line: "kmeta roll plan --bootstrap-server b1:9092 --all-brokers"},
		{What: "the order from a controller's log", Line: "kmeta roll plan " + fxKRaft44 + " --all-brokers", Run: true},
	},
	"migrate plan": {
		{What: "preflight of a stopped cluster's ZooKeeper data dir", Line: "kmeta migrate plan --zk zkdata:" + fxZKData + " --controllers 3000@ctl1:9093 --metadata-version 4.4", Run: true},
		{What: "write the plan the other steps follow", Line: "kmeta migrate plan --zk zkdata:/var/lib/zookeeper --controllers 3000@ctl1:9093,3001@ctl2:9093,3002@ctl3:9093 --metadata-version 4.4 --write plan.json"},
	},
	"migrate apply": {
		{What: "one metadata log dir per controller", Line: "kmeta migrate apply --plan plan.json --out /var/lib/kafka-meta --dry-run"},
	},
	"migrate brokers": {
		{What: "check, then convert, a broker's log dirs", Line: "kmeta migrate brokers --plan plan.json --log-dirs /data/kafka-1,/data/kafka-2 --dry-run"},
	},
	"migrate configs": {
		{What: "a controller's KRaft server.properties", Line: "kmeta migrate configs --plan plan.json --server-properties server.properties --role controller --node-id 3000 --metadata-dir /var/lib/kafka-meta --out controller.properties"},
	},
	"migrate stage": {
		{What: "the first phase of the online migration: three new controllers", Line: "kmeta migrate stage KRaftMigration --zk zk://zk1:2181/kafka --config 1=b1.properties --config 2=b2.properties --config 3=b3.properties --controllers 3000@c1:9093,3001@c2:9093,3002@c3:9093 --metadata-dir /var/lib/kafka-meta --out stage1"},
		{What: "the brokers onto KRaft", Line: "kmeta migrate stage KRaftPostMigration --zk zk://zk1:2181/kafka --bootstrap-controller c1:9093 --config 1=stage1/server-1.properties --out stage3"},
	},
	"migrate status": {
		{What: "where a migration stands, from ZooKeeper alone", Line: "kmeta migrate status --zk zkdump:" + fxDualDump, Run: true},
		{What: "with the controllers' log for everything", Line: "kmeta migrate status --zk zk://zk1:2181/kafka --kraft kraft:/var/lib/kafka-meta"},
		{What: "follow it, one line per change, until the brokers run KRaft", Line: "kmeta migrate status --watch --zk zk://zk1:2181/kafka --kraft kraft:/var/lib/kafka-meta --until KRaftPostMigration"},
	},
	"migrate rollback": {
		{What: "the rollback valid now, in order", Line: "kmeta migrate rollback --zk zk://zk1:2181/kafka --bootstrap-controller c1:9093 --config 1=b1.properties --out rollback"},
	},
}

// docExit is each command's exit status in its own words: 0, 1, 2.
var docExit = map[string][3]string{
	"":                   {"ok", "the command ran and found something, or its result rests on damaged or partial input", "could not run"},
	"completion":         {"the script was printed", "", "an unknown shell"},
	"codes":              {"the codes were printed", "", "an unknown code"},
	"image":              {"the image is complete (a torn tail of the active segment is a warning)", "the image rests on damaged or partial input (the warnings say which)", "the source could not be read"},
	"diff":               {"the views are the same", "they differ", "a view could not be read, or rests on partial input"},
	"history":            {"the history was read", "it rests on damaged or partial input (the warnings say which)", "the source could not be read"},
	"restore":            {"done and read back, printed, validated by --dry-run, or nothing to do", "refused by kmeta or Kafka, not confirmed, or the read back still finds changes; nothing unconfirmed was written", "could not run, or no terminal to ask and no --yes"},
	"verify":             {"equal (explained differences only)", "different", "a view could not be read, or rests on partial input without --allow-partial"},
	"lint":               {"no finding at or above --fail-on (default error) remains", "one does", "the source could not be read, or no selected rule could run"},
	"features list":      {"the catalog was printed", "", "an unknown release"},
	"features deps":      {"the dependencies were printed", "", "an unknown feature or level"},
	"features describe":  {"the levels were printed", "the source rests on damaged or partial input", "the source could not be read"},
	"features check":     {"the change is allowed and loses nothing", "it is refused or lossy, or the source rests on damaged or partial input", "could not run"},
	"features upgrade":   {"written and read back (or, with --dry-run, Kafka validated it)", "kmeta or Kafka refused the change; nothing was sent or written", "could not run, or no terminal to ask and no --yes"},
	"features downgrade": {"written and read back (or, with --dry-run, Kafka validated it)", "kmeta or Kafka refused the change; nothing was sent or written", "could not run, or no terminal to ask and no --yes"},
	"features disable":   {"written and read back (or, with --dry-run, Kafka validated it)", "kmeta or Kafka refused the change; nothing was sent or written", "could not run, or no terminal to ask and no --yes"},
	"log dump":           {"everything decoded (a torn tail of the active segment is a warning)", "a batch or record could not be read or decoded", "a path could not be read"},
	"log check":          {"healthy (a torn tail of the active segment is a warning unless --strict)", "problems were found", "the path could not be read"},
	"log stats":          {"every file was read to its end", "reading stopped at damage (the statistics cover what was read)", "the path could not be read"},
	"zk dependents":      {"safe to stop: nothing but Kafka uses the ensemble in what was checked (what could not be is listed)", "something still uses it (a dependent, or Kafka itself)", "the source could not be read, or nothing was found in a damaged history"},
	"zk dump":            {"the dump was written", "the tree rests on damaged or partial input", "the source could not be read"},
	"zk image":           {"the image is complete", "the image rests on damaged or partial input", "the source could not be read"},
	"quorum describe":    {"no finding at warning or above", "a finding at warning or above", "the quorum could not be read"},
	"quorum survey":      {"a clean rebuild is possible and nothing is wrong", "findings: divergence, damage, a copy behind the best, a directory id mismatch", "a dir could not be read"},
	"quorum rebuild":     {"written (or, with --dry-run, the plan printed)", "refused: the plan's findings say why; nothing was written", "could not run"},
	"roll check":         {"safe to stop now", "not safe: the findings say which partitions or which quorum rule blocks", "could not tell (a fact the source does not report is named) or could not read the source"},
	"roll wait":          {"the node is back", "not back at --timeout: what is still waited for is named", "the source cannot report what being back needs, or could not run"},
	"roll plan":          {"the plan was printed", "", "a node is not known to the source, or could not run"},
	"migrate plan":       {"ready", "blocked: the findings say what blocks and how to fix it", "could not run"},
	"migrate apply":      {"written (or, with --dry-run, listed)", "the plan is blocked; nothing was written", "could not run"},
	"migrate brokers":    {"checked and converted (or, with --dry-run, listed)", "a dir failed a check; nothing was written", "could not run"},
	"migrate configs":    {"written", "", "could not run"},
	"migrate stage":      {"the phase's files were written, with the steps", "refused: the checks say why; nothing was written", "could not run"},
	"migrate status":     {"no problem found (--watch: --until reached)", "a problem that blocks the migration (--watch: a broker out past --grace, ZooKeeper behind past --max-behind, --timeout)", "could not run"},
	"migrate rollback":   {"the rollback's steps were written", "no rollback is valid now, or a check refused it", "could not run"},
}
