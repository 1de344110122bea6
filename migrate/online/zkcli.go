package online

import (
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/shellword"
)

// zkCLI is how ZooKeeper's CLI as Kafka ships it (zookeeper-shell.sh)
// reaches the cluster's ensemble (shellword.ZKShell says how each way is
// given).
type zkCLI struct{ shellword.ZKShell }

// zkCLIOf: the ensemble is the first node file's zookeeper.connect; the
// CLI then reaches it as that node does: over TLS with the file itself
// as its settings when it sets zookeeper.ssl.client.enable=true, with
// the brokers' login when it sets zookeeper.set.acl=true (Kafka's znodes
// are then theirs: every other client may only read them). Without such
// a file (at stage KRaft the files have dropped every zookeeper.*
// setting) it is the --zk source's ensemble, reached as kmeta read it:
// over TLS with the operator's $ZK_TLS_CONFIG_FILE, with the digest
// credentials of --zk-auth; else ZK_CONNECT, for the operator to fill in.
// There the chroot's ACL says whose the znodes are (ZKDeleteSchemes): when
// only a SASL login may delete them (the brokers set zookeeper.set.acl),
// the CLI logs in as the brokers do, unless anyone may or the digest
// login kmeta read with may.
func zkCLIOf(in Input) zkCLI {
	sh := shellword.ZKShell{Name: "zookeeper-shell.sh"}
	for _, id := range slices.Sorted(maps.Keys(in.Nodes)) {
		n := in.Nodes[id]
		if v := n.Props[keyZKConnect]; v != "" {
			sh.Connect = v
			if isTrue(n.Props[keyZKTLS]) {
				sh.TLSFile = n.Path
			}
			sh.JAAS = isTrue(n.Props[keyZKSetACL])
			return zkCLI{sh}
		}
	}
	if rest, ok := strings.CutPrefix(in.ZKSource, "zk://"); ok && rest != "" {
		sh.Connect, sh.TLSVar, sh.Digest = rest, in.ZKTLS, in.ZKDigest
		del := in.ZKDeleteSchemes
		sh.JAAS = slices.Contains(del, "sasl") && !slices.Contains(del, "world") && !(sh.Digest && slices.Contains(del, "digest"))
		return zkCLI{sh}
	}
	sh.Connect = "ZK_CONNECT"
	return zkCLI{sh}
}

// step is a step that runs the CLI's command args, what it does said.
func (z zkCLI) step(what string, args ...string) Step {
	return Step{Action: ActZooKeeper, Args: z.Args(args...), Command: z.Line(args...), What: z.what(what)}
}

// what is a step's explanation for a command, with what the operator must
// set for it to run.
func (z zkCLI) what(what string) string {
	switch needs := z.Needs(); {
	case needs == "":
		return what
	case z.JAAS:
		return what + "; the brokers set zookeeper.set.acl=true, so the znodes are theirs: set " + needs
	default:
		return what + "; set " + needs
	}
}
