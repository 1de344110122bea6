package online

import (
	"maps"
	"slices"
	"strings"

	"github.com/kmeta/kmeta/shellword"
)

// zkCLI is how ZooKeeper's CLI as Kafka ships it (zookeeper-shell.sh)
// reaches the cluster's ensemble: the connect string, and the file whose
// TLS settings it takes when the nodes reach ZooKeeper over TLS.
type zkCLI struct {
	// connect is the cluster's zookeeper.connect: a node's file's, else
	// the --zk source's when it is a live ensemble (zk://HOSTS/CHROOT),
	// else ZK_CONNECT for the operator to fill in.
	connect string
	// tlsFile is that node's file when it sets
	// zookeeper.ssl.client.enable=true: the CLI reads the zookeeper.ssl.*
	// and zookeeper.clientCnxnSocket settings of the file it is given
	// with -zk-tls-config-file, and ignores the rest; without it the CLI
	// would speak plain text to the TLS port.
	tlsFile string
	// login: that file sets zookeeper.set.acl=true, so Kafka's znodes
	// are its own (sasl:<its user>, every other client may only read
	// them), and deleting one needs its login. The CLI logs in with the
	// JAAS file KAFKA_OPTS names (its Client section), as the brokers
	// do; the command names it $ZK_CLIENT_JAAS, for the operator to set.
	login bool
}

func zkCLIOf(in Input) zkCLI {
	for _, id := range slices.Sorted(maps.Keys(in.Nodes)) {
		n := in.Nodes[id]
		if v := n.Props[keyZKConnect]; v != "" {
			z := zkCLI{connect: v}
			if isTrue(n.Props[keyZKTLS]) {
				z.tlsFile = n.Path
			}
			z.login = isTrue(n.Props[keyZKSetACL])
			return z
		}
	}
	if rest, ok := strings.CutPrefix(in.ZKSource, "zk://"); ok && rest != "" {
		return zkCLI{connect: rest}
	}
	return zkCLI{connect: "ZK_CONNECT"}
}

// args are the CLI's arguments after the connect string for the command
// args: the TLS option first when there is one.
func (z zkCLI) args(args ...string) []string {
	if z.tlsFile == "" {
		return slices.Clone(args)
	}
	return append([]string{zkTLSOption, z.tlsFile}, args...)
}

// command is the whole line, each word quoted for a POSIX shell where it
// needs it.
func (z zkCLI) command(args ...string) string {
	words := []string{"zookeeper-shell.sh", shellword.Quote(z.connect)}
	for _, a := range z.args(args...) {
		words = append(words, shellword.Quote(a))
	}
	line := strings.Join(words, " ")
	if z.login {
		// Kafka's scripts pass KAFKA_OPTS to the JVM; what it held
		// already (a Kerberos krb5.conf, say) is kept. An unset variable
		// stops the shell before the CLI runs: without the login the CLI
		// would connect anyway and its deletes would do nothing, exit 0.
		line = `KAFKA_OPTS="$KAFKA_OPTS -Djava.security.auth.login.config=${` + zkJAASVar + `:?` + zkJAASUnset + `}" ` + line
	}
	return line
}

// what is a step's explanation for a command, with what the operator must
// set for it to run.
func (z zkCLI) what(what string) string {
	if !z.login {
		return what
	}
	return what + "; the brokers set zookeeper.set.acl=true, so the znodes are theirs: set " + zkJAASVar +
		" to the JAAS file they log in to ZooKeeper with (its Client section), as their KAFKA_OPTS names it"
}

// zkJAASVar is the variable the commands of a cluster whose znodes are
// its own name the brokers' JAAS file with.
const zkJAASVar = "ZK_CLIENT_JAAS"

// zkJAASUnset is what the shell says when zkJAASVar is not set: plain
// words, the same in every POSIX shell.
const zkJAASUnset = "set it to the JAAS file the brokers log in to ZooKeeper with"

// zkTLSOption is the option of Kafka's ZooKeeper CLI
// (ZooKeeperMainWithTlsSupportForKafka) that names its TLS settings' file.
const zkTLSOption = "-zk-tls-config-file"
