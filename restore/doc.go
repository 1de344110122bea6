// Package restore is the undo of the metadata log: a planner that takes
// two images, what a cluster held at a point of its history (SOURCE@POINT,
// "want") and what it holds now (TARGET, "have"), and says which admin
// changes bring TARGET back, as data (Plan). It never reads, writes or
// prints: kmeta restore loads the views, prints the plan as Kafka's own
// commands (Commands) or sends it through kafkaread's writes after
// validate-only and a confirmation, then reads TARGET again and plans once
// more to show what is left.
//
// # What is restored
//
//   - Topics deleted since the point: re-created empty, with their
//     partition count, replication factor and configs (with the point's
//     replica assignment when every broker of it is registered in TARGET,
//     else Kafka places the replicas). Their data is gone: the plan says
//     so, and the topic gets a new id.
//   - Partition counts that shrank (a topic deleted and re-created
//     smaller): grown back. A count that grew cannot shrink: listed.
//   - Configs of topics, brokers, the cluster default, client metrics and
//     groups: keys set back to the point's value, keys added since
//     deleted (IncrementalAlterConfigs SET and DELETE).
//   - Client quotas: values set back, values added since removed.
//   - ACLs, compared by content: those deleted since re-created, those
//     added since deleted.
//
// # What is not, and is listed (Plan.NotRestored), never skipped silently
//
//   - SCRAM credentials: the log holds salted keys, not the password that
//     AlterUserScramCredentials needs; `kmeta quorum rebuild` at the point
//     rebuilds the whole metadata, credentials included. A credential
//     deleted or changed since gets a line that sets a new password
//     (Unrestorable.Stdin): read from ScramPasswordVar, which the shell
//     refuses unset or empty before anything runs, and piped to
//     kafka-configs --add-config-file /dev/stdin as MECHANISM=password=P
//     (ConfigCommand takes the rest of the value after "password=" whole),
//     so that it is neither on a command line (ps) nor in the printed
//     line (history); the variable is unset once used.
//   - Delegation tokens, broker registrations (they come from the brokers
//     themselves), finalized features (kmeta features upgrade/downgrade),
//     topics created since the point (kmeta never deletes a topic), the
//     data of deleted topics.
//   - Partition assignments: a kafka-reassign-partitions plan
//     (Plan.Reassignment) is offered instead; leaders follow the replica
//     order (a preferred leader election).
//   - Secrets a view does not hold: a sensitive config value the point's
//     view withholds (a redacted dump, a live cluster) or holds encrypted
//     with password.encoder.secret (ZooKeeper) is a step left to the
//     operator (Unrestorable.ByHand, Plan.ByHand), with no command: kmeta
//     has no value to put in one, and a placeholder, run as printed,
//     would become the value. kmeta restore then says the restore is
//     incomplete (exit 1). A sensitive value TARGET does not report is
//     not compared, and set only where TARGET lacks the key.
//
// Sections either view does not report (model.Image.NotReported: ACLs a
// principal may not describe, say) are not compared, with a note: an
// unreported section would otherwise read as empty and be "restored" by
// deleting everything.
//
// # Refusals
//
// Two views of different clusters (their cluster ids differ) are refused
// unless Options.ClusterIDMismatchOK: restoring one cluster's state onto
// another is a migration, not an undo. The plan then holds no action.
//
// # Commands
//
// Commands prints each action as the Kafka command an operator runs:
// kafka-topics --create (and --alter --partitions), kafka-configs --alter
// for configs and client quotas (Kafka has no kafka-client-quotas tool;
// kafka-configs alters quotas), kafka-acls --add and --remove --force.
// Sensitive values are printed as their hash unless ShowSecrets, in a
// command of their own, commented out, not runnable as printed (Held);
// kmeta restore counts it among what leaves the restore incomplete. The
// other keys of the same config (and a topic to create) are a runnable
// command before it: two kafka-configs runs over disjoint keys end where
// one would (splitSecrets says why).
//
// A value reaches Kafka as it is: the tools' command lines are not plain
// key=value lists (commands.go says how each reads them, and
// TestCommandsReadByKafkaTools holds every rule against the parsers of
// Kafka 2.7.2, 3.9.2 and 4.4.0). --add-config takes a value holding ','
// or '=' in brackets (client metrics' match=[client_software_name=...]);
// a value no --add-config can carry ('[' or ']', blanks at an end) goes,
// with the rest of its command's pairs, through --add-config-file
// /dev/stdin, the properties piped in by printf (javaprops.Lines). A
// topic config kafka-topics --config cannot carry (empty, '=', blanks at
// an end) is set by kafka-configs right after the create, on the same
// line.
//
// No line holds a control character raw (a terminal acts on it; a view
// may be hostile): a value holding one goes through the file, escaped; a
// name or principal holding one (no quoting keeps such a line printable
// and runnable) comments its command out with the character shown as
// \xNN, Command.Held saying why (TestCommandsHoldControlCharacters).
package restore
