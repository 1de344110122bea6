package shellword

import "strings"

// ZooKeeper's CLI. The lines kmeta prints that run ZooKeeper's CLI as
// Kafka ships it (bin/zookeeper-shell.sh: the class
// ZooKeeperMainWithTlsSupportForKafka, given the ensemble, its TLS
// settings file and one command) are formed here, by ZKShell, so that
// each runs as printed against a secured ensemble too: migrate/online's
// steps and fixes, lint's fixes.
//
// What the CLI needs, and how a line gives it (each proven by running the
// lines with Kafka 3.9.2's CLI against a real ZooKeeper:
// migrate/online's TestZKCommands*, cmd/kmeta's
// TestLintZooKeeperFixOnSecuredEnsemble):
//
//   - TLS: -zk-tls-config-file FILE, after the ensemble. The CLI takes the
//     file's zookeeper.ssl.* and zookeeper.clientCnxnSocket settings and
//     ignores the rest, so a broker's server.properties will do. Without
//     it the CLI speaks plain text to the TLS port.
//   - A SASL login, as the brokers' with zookeeper.set.acl=true (what they
//     create is theirs: creator-all, world-read; ZooKeeper refuses any
//     other session's writes): the JAAS file (its Client section) in
//     KAFKA_OPTS, which Kafka's scripts pass to the JVM.
//   - Digest credentials (the super user of an ensemble whose znodes are
//     secured): "addauth digest USER:PASSWORD", a command of the same
//     session, so the line feeds both on stdin. The CLI exits 1 when the
//     last command fed fails.
//
// What kmeta cannot put in a printed line (a file only the operator has,
// a password) is a shell variable whose expansion stops the shell, saying
// what to set, before the CLI runs: ${VAR:?...}. Without the stop the CLI
// would connect anyway, unauthenticated, and a refused deleteall would
// even exit 0. The callers delete a leaf with delete, which exits 1 when
// ZooKeeper refuses it; deleteall exits 0 then, printing only "Failed to
// delete some node(s)".

// ZKShell is how the lines reach one ensemble.
type ZKShell struct {
	// Name is the CLI's script: "zookeeper-shell.sh" as Kafka's
	// distribution names it, "zookeeper-shell" as package managers do.
	Name string
	// Connect is the ensemble and chroot, host:port[,...][/chroot].
	Connect string
	// TLSFile, when set, is the file -zk-tls-config-file names; with
	// TLSVar the file is $ZK_TLS_CONFIG_FILE's, for the operator to set.
	TLSFile string
	TLSVar  bool
	// JAAS: log in as the brokers do, with the JAAS file $ZK_CLIENT_JAAS
	// names.
	JAAS bool
	// Digest: log in first with the digest credentials $KMETA_ZK_AUTH
	// holds (what kmeta's --zk-auth reads).
	Digest bool
}

// The variables the lines read what only the operator has from.
const (
	ZKTLSVar    = "ZK_TLS_CONFIG_FILE"
	ZKJAASVar   = "ZK_CLIENT_JAAS"
	ZKDigestVar = "KMETA_ZK_AUTH"
)

// What each variable is to hold, in plain words: the shell says "set it
// to" this when the variable is unset (the same in every POSIX shell),
// and Needs says it in a step's explanation.
const (
	tlsValue    = "a file of the zookeeper.ssl.* settings the brokers reach ZooKeeper with"
	jaasValue   = "the JAAS file the brokers log in to ZooKeeper with"
	digestValue = "the USER:PASSWORD kmeta read ZooKeeper with"
)

// Require is the expansion of the variable name that stops the shell,
// saying what it is to hold ("set it to value"), when it is unset or
// empty: a word to be given in double quotes. value must hold no quote.
func Require(name, value string) string {
	return "${" + name + ":?set it to " + value + "}"
}

// ZKTLSOption is the CLI's option that names its TLS settings' file.
const ZKTLSOption = "-zk-tls-config-file"

// Args are the CLI's arguments after the ensemble for command: the TLS
// option first when there is one (a file named by a variable is
// "$ZK_TLS_CONFIG_FILE", for the shell to fill).
func (s ZKShell) Args(command ...string) []string {
	switch {
	case s.TLSVar:
		return append([]string{ZKTLSOption, "$" + ZKTLSVar}, command...)
	case s.TLSFile != "":
		return append([]string{ZKTLSOption, s.TLSFile}, command...)
	}
	return append([]string(nil), command...)
}

// Line is the whole line that runs command, each word quoted for a POSIX
// shell where it needs it.
func (s ZKShell) Line(command ...string) string {
	words := []string{s.Name, Quote(s.Connect)}
	switch {
	case s.TLSVar:
		words = append(words, ZKTLSOption, `"`+Require(ZKTLSVar, tlsValue)+`"`)
	case s.TLSFile != "":
		words = append(words, ZKTLSOption, Quote(s.TLSFile))
	}
	if !s.Digest {
		for _, a := range command {
			words = append(words, Quote(a))
		}
	}
	line := strings.Join(words, " ")
	if s.JAAS {
		// What KAFKA_OPTS held already (a Kerberos krb5.conf, say) is
		// kept.
		line = `KAFKA_OPTS="$KAFKA_OPTS -Djava.security.auth.login.config=` + Require(ZKJAASVar, jaasValue) + `" ` + line
	}
	if s.Digest {
		// The variable is checked before the pipeline: a pipeline's
		// status is its last command's, so an expansion that failed in
		// printf would leave the CLI to run with no command, exit 0.
		quoted := make([]string, len(command))
		for i, a := range command {
			quoted[i] = Quote(a)
		}
		line = RequireZKDigest() + `printf '%s\n' "addauth digest $` + ZKDigestVar + `" ` +
			Quote(strings.Join(quoted, " ")) + " | " + line
	}
	return line
}

// RequireZKDigest is the head of a line that needs $KMETA_ZK_AUTH, the
// digest credentials kmeta read ZooKeeper with: the shell stops there,
// saying what to set, when it is unset, before the line's command runs.
func RequireZKDigest() string {
	return `: "` + Require(ZKDigestVar, digestValue) + `" && `
}

// Chain is the lines of commands joined by &&: each stops the chain when
// it fails. Each runs in a session of its own.
func (s ZKShell) Chain(commands ...[]string) string {
	lines := make([]string, len(commands))
	for i, c := range commands {
		lines[i] = s.Line(c...)
	}
	return strings.Join(lines, " && ")
}

// Needs says what the operator must set before the lines run, for a
// step's explanation; "" when nothing.
func (s ZKShell) Needs() string {
	var out []string
	if s.TLSVar {
		out = append(out, ZKTLSVar+" to "+tlsValue+" (their server.properties will do)")
	}
	if s.JAAS {
		out = append(out, ZKJAASVar+" to "+jaasValue+" (its Client section), as their KAFKA_OPTS names it")
	}
	if s.Digest {
		out = append(out, ZKDigestVar+" to "+digestValue)
	}
	return strings.Join(out, ", and ")
}
