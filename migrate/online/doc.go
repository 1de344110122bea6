// Package online walks a running ZooKeeper-mode cluster through Kafka's
// own online migration (KIP-866, Kafka 3.4–3.9) as a checked procedure:
// the phases as data (Phases), where a cluster stands (Observe), what a
// phase needs and writes (Stage), and the way back (Rollback). It never
// restarts a process and never writes to ZooKeeper: it reads both sides
// and the nodes' files, and writes new files for the operator.
//
// # The phases
//
// Strimzi's names, which operators know: ZooKeeper → KRaftMigration →
// KRaftDualWriting → KRaftPostMigration → PreKRaft → KRaft. Each Spec
// gives the profile of a broker's and a controller's server.properties in
// the phase (Profile: a function of the node's file, so stage's new
// files, status's "this node is not where the phase needs it" and
// rollback's files to restore all come from one table), which nodes the
// phase rolls, what "reached" means and the rollback valid there. Only
// four phases are entered by a roll (KRaftMigration: start the new
// controllers, then roll the brokers; KRaftPostMigration: roll the
// brokers; PreKRaft: roll the controllers); KRaftDualWriting and KRaft
// are reached by Kafka itself, and stage checks that they were.
//
// Nothing of a phase lives outside its row. Reached is a predicate over
// Facts, what status gathered of both sides (ZkMigrationState where a
// log reports it, ZooKeeper's /controller claim and /migration, the
// controllers' migration flags, the ZooKeeper-mode brokers left); the
// phase is the last row whose Reached holds, so each row's condition
// says "at least this far" and a later row's takes over where it holds.
// ReachedText is the same condition in words, for stage's wait steps.
// RollbackTo is the rollback as data: -1 refuses it, a row that goes
// back to itself has nothing to roll back, and a hop to a row before the
// end (KRaftPostMigration to KRaftDualWriting) rolls the brokers onto
// that row's profile first. DualWrites marks the phases whose ZooKeeper
// status compares with KRaft and rollback wants the controllers for.
//
// # Observing the phase
//
// The controllers' ZkMigrationState (ZkMigrationStateRecord, in their
// metadata log) is the ground truth where it is read: NONE (controllers
// that were started without the migration flag: they initialised a new
// KRaft cluster and can never take this one over), PRE_MIGRATION
// (KRaftMigration), MIGRATION (KRaftDualWriting while any ZooKeeper-mode
// broker is left: in /brokers/ids or registered with IsMigratingZkBroker;
// KRaftPostMigration when none is; PreKRaft once a controller runs
// without the flag), POST_MIGRATION (written by the first controller that
// becomes active without the flag: PreKRaft while any controller still
// has it, then KRaft). A controller's flag is ZkMigrationReady in its
// RegisterControllerRecord (MV 3.7-IV0+) or in its ApiVersions answer,
// which is how a live quorum (--bootstrap-controller, which reports no
// ZkMigrationState) tells it. ZooKeeper alone tells the first phases:
// /controller with kraftControllerEpoch is a KRaft controller's claim
// (written at BECOME_CONTROLLER, before the copy), /migration at a KRaft
// offset >= 0 is a finished copy; /migration with a KRaft offset while a
// broker holds /controller is an earlier attempt's leftover, which makes
// a new attempt skip the copy and can wipe ZooKeeper (KAFKA-17146), and
// /migration without data is what zookeeper-security-migration leaves
// (KAFKA-19480). While the controllers dual-write, Observe runs verify's
// comparison of the two views: ZooKeeper holding what KRaft holds is what
// makes a rollback lose nothing (dual-write gaps: KAFKA-15010, -15003).
//
// # The files
//
// A migrating broker (BrokerMigrating) adds
// zookeeper.metadata.migration.enable=true, controller.quorum.voters,
// controller.listener.names=CONTROLLER (and CONTROLLER's protocol in its
// protocol map, with what the protocol needs: see below), and pins
// inter.broker.protocol.version: a migrating
// broker registers with [IBP, IBP] as its only metadata.version, so it
// must be the controllers' level exactly, and must not move mid-migration.
// A new controller (ControllerMigrating) is made from a broker's file as
// migrate.KRaftConfig makes a controller's (its own listener and metadata
// dir, authorizer — StandardAuthorizer, since migrating brokers forward
// ACL changes to it —, super users, token and password-encoder secrets),
// plus the flag, zookeeper.connect and every zookeeper.* client setting,
// and the brokers' inter-broker listener with the protocol and client
// settings to reach them on it (KAFKA-16468). Its metadata dir is
// formatted by migrate.FormatControllers as kafka-storage format does
// (bootstrap.checkpoint with the release's feature levels,
// meta.properties v1) with ZooKeeper's /cluster/id and the brokers' IBP,
// a static quorum (Kafka 3.9 migrates to static quorums only). A KRaft
// broker (BrokerKRaft) replaces broker.id with node.id and drops the IBP,
// every zookeeper.* setting and control.plane.listener.name, and
// AclAuthorizer becomes StandardAuthorizer at this phase, not before (a
// ZooKeeper-mode broker reads ACLs from ZooKeeper; a KRaft broker with
// AclAuthorizer does not start). A finalized controller (ControllerKRaft)
// drops the flag and every zookeeper.* setting.
//
// # The ZooKeeper commands
//
// Stage KRaft and rollback delete /controller and /migration, and status's
// fixes read or delete them, with ZooKeeper's CLI as Kafka ships it
// (zookeeper-shell.sh CONNECT [-zk-tls-config-file FILE] COMMAND, formed
// by shellword.ZKShell), against the zookeeper.connect of the first node
// file that sets it, reached as that node reaches it (zkcli.go):
//
//   - zookeeper.ssl.client.enable=true: the command names the file with
//     -zk-tls-config-file (the CLI takes its zookeeper.ssl.* and
//     zookeeper.clientCnxnSocket settings and ignores the rest).
//   - zookeeper.set.acl=true: what Kafka created belongs to the brokers'
//     ZooKeeper login (creator-all, world-read; the sensitive paths not
//     even readable), and ZooKeeper refuses any other session's deletes
//     and writes. The command logs in as the brokers do, with the JAAS
//     file (its Client section) $ZK_CLIENT_JAAS names, added to
//     KAFKA_OPTS, and stage's controller start steps say the controllers
//     need the same login.
//
// Rollback has the brokers' ZooKeeper-mode files. At stage KRaft the files
// have dropped every zookeeper.* setting: the commands then name the --zk
// source's ensemble, reached as kmeta read it (Input.ZKTLS, ZKDigest):
// over TLS with $ZK_TLS_CONFIG_FILE's settings, logged in first with
// --zk-auth's digest credentials ($KMETA_ZK_AUTH), and, when the chroot's
// ACL lets only a SASL login delete its children (Input.ZKDeleteSchemes:
// the brokers set zookeeper.set.acl), logged in as the brokers do
// ($ZK_CLIENT_JAAS).
//
// A variable left unset stops the shell before the CLI runs, saying what
// to set. The znodes are deleted with delete, not deleteall: neither has
// children, and a refused delete exits 1, where the CLI's deleteall exits
// 0 and only prints "Failed to delete some node(s)" (a script would go
// on with the znode still there).
//
// # The controller listener
//
// The controller listener is secured as the brokers' inter-broker
// listener is (--controller-listener-protocol chooses another):
// PLAINTEXT only for a PLAINTEXT cluster; SSL with the node's key and
// trust stores, and ssl.client.auth=required (certificates are an SSL
// listener's only authentication); SASL_SSL or SASL_PLAINTEXT with the
// inter-broker mechanism and JAAS — except SCRAM, which cannot
// authenticate controllers to each other (its credentials are in the
// metadata log, which they cannot read before electing a leader,
// KAFKA-15513): the inter-broker user then gets PLAIN with its own name
// and password. Each node's settings come from its own file (a
// controller's from the lowest-id broker's: its key store and JAAS are
// that broker's until the operator gives it its own) and are written as
// listener.name.controller.* and sasl.mechanism.controller.protocol in
// the controllers' and the brokers' files alike.
//
// Under an authorizer the controllers' StandardAuthorizer lets in only
// super users until it has loaded the metadata, which takes a leader:
// the principal every controller and broker presents on the listener
// (the TLS subject under ssl.principal.mapping.rules, the SASL user) must
// be in the controllers' super.users, or no Vote is ever granted
// (AuthorizerNotReadyException; allow.everyone.if.no.acl.found does not
// apply before the load). Stage adds the principals it can read (key
// stores are read where kmeta runs, JKS, PKCS12 or PEM) and refuses
// User:ANONYMOUS (a PLAINTEXT listener) without it in super.users. The
// checks (checks_secure.go) refuse, in stage and name in status, what
// cannot elect a leader or register a broker: protocols that differ, a
// TLS listener without a key store or a trust store holding the peers'
// CA, required client certificates a node lacks, SASL mechanisms that do
// not match or SCRAM between controllers, a principal that is no super
// user. Status also names a quorum that has controllers but no leader
// (their quorum-state), with the files' reason when they show one.
//
// Shown values: a diff hides the values of secret settings
// (model.IsSecretSetting: passwords, keys, JAAS) in every output format
// unless --show-secrets, and shows the rest (super.users,
// allow.everyone.if.no.acl.found); the written files keep every value
// (mode 0600).
//
// # Rollback
//
// Kafka's 3.9 docs and Strimzi agree: from KRaftMigration and
// KRaftDualWriting, stop the controllers, delete /controller (so a broker
// becomes ZooKeeper's controller at once; it only helps if the brokers
// roll soon after, KAFKA-16101), save and delete /migration, and roll the
// brokers onto their ZooKeeper-mode files; from KRaftPostMigration, first
// roll the brokers back to migration mode (they must not meet a
// ZooKeeper-mode controller as KRaft brokers), then the same. From
// PreKRaft on there is none: ZooKeeper is no longer written.
//
// # Gated restarts
//
// With Input.Gates, every restart stage and rollback print is framed by
// `kmeta roll check` (before the stop: go on only on exit 0) and `kmeta
// roll wait` (after the start: go on only on exit 0), in roll's order
// (roll.Order: ZooKeeper's controller last, the brokers leading fewer
// partitions first, the quorum's leader last of the controllers). The
// source each gate reads is the one that sees the nodes: ZooKeeper for
// ZooKeeper-mode brokers (KRaftMigration's roll, rollback's last roll); a
// controller's metadata log dir while the KRaft controller leads
// (KRaftPostMigration's roll and rollback's roll back to migration mode:
// KRaft brokers are in no /brokers/ids; without --kraft kraft:DIR the
// gates read ZooKeeper and gates-read-zookeeper says so); the live quorum
// for controllers (PreKRaft). Rollback's last roll is a roll-plan step:
// once /controller is deleted a broker becomes ZooKeeper's controller,
// which only `kmeta roll plan` run then can put last.
//
// # Watching
//
// Watch follows a migration one Status at a time (migrate status
// --watch): a WatchEvent for each change (the phase, the brokers up in
// ZooKeeper and registered with KRaft, the copy's records, ZooKeeper's
// agreement with KRaft, /migration's offset against KRaft's, whether a
// rollback is safe, unsafe or no longer possible, a broker out and back),
// failing when a broker stays out past the grace or ZooKeeper differs
// from KRaft past the allowed time.
package online
