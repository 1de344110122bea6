package restore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kmeta/kmeta/javaprops"
	"github.com/kmeta/kmeta/model"
	"github.com/kmeta/kmeta/shellword"
	"github.com/kmeta/kmeta/verify"
)

// CommandOptions tune Commands.
type CommandOptions struct {
	// Bootstrap is the --bootstrap-server the commands name; empty:
	// "$BOOTSTRAP_SERVER", for the shell to fill.
	Bootstrap string
	// CommandConfig, when set, is every command's --command-config.
	CommandConfig string
	// ShowSecrets prints sensitive values as they are; otherwise as
	// their hash, and such a command is commented out.
	ShowSecrets bool
	// Script names the tools with .sh (kafka-topics.sh), as Kafka's
	// distribution ships them; otherwise as package managers install them
	// (kafka-topics).
	Script bool
}

// Command is one action as Kafka's command line.
type Command struct {
	// Line is the command, quoted for a POSIX shell.
	Line string `json:"command"`
	// Runnable is false when the command cannot be run as printed: Line
	// is then commented out, and Held says why.
	Runnable bool `json:"runnable"`
	// Held is why a command is not runnable: HeldSecret, HeldControl;
	// "" when it is.
	Held string `json:"held,omitempty"`
	// Entity is the action's entity.
	Entity string `json:"entity"`
}

// Why a command is not runnable as printed.
const (
	// HeldSecret: it holds a secret shown as its hash (no ShowSecrets).
	HeldSecret = "secret"
	// HeldControl: a word holds a character model.Printable refuses (a
	// control character in an entity name or principal from the views,
	// say), shown escaped as \xNN: printed raw it would act on the
	// terminal, and no quoting keeps such a word both printable and what
	// a POSIX shell reads.
	HeldControl = "control"
)

// Commands are the plan's actions as Kafka's commands, in order.
func Commands(p *Plan, o CommandOptions) []Command {
	out := make([]Command, 0, len(p.Actions))
	for _, whole := range p.Actions {
		for _, a := range o.splitSecrets(whole) {
			c := o.command(a)
			c.Entity = a.Entity
			if !c.Runnable {
				c.Held = HeldSecret
			}
			if v, ok := visible(c.Line); !ok {
				c.Line, c.Runnable, c.Held = v, false, HeldControl
			}
			if !c.Runnable {
				c.Line = "# " + c.Line
			}
			out = append(out, c)
		}
	}
	return out
}

// splitSecrets is a as the actions its commands print: itself, or, when
// it sets secrets shown as their hash (no ShowSecrets) beside keys kmeta
// can print, the action without those secrets, then an AlterConfigs of
// the secrets alone. The secrets' command is commented out (Held); the
// rest of the resource is restored by running the others as printed,
// instead of being held back with them.
//
// Two alters end where one would: the plan's keys to set and to delete
// are disjoint (a key is set to the point's value or deleted as added
// since, never both), and kafka-configs applies each run's keys alone
// (ConfigCommand.alterConfig: incrementalAlterConfigs SET and DELETE
// ops for topics, groups and client metrics; for brokers up to 3.9, the
// described configs ++ the keys added -- the keys deleted, sent whole
// with alterConfigs), so the second run keeps what the first wrote. The
// keys kmeta can print go first, so that a run of the script that stops
// at the commented-out secret has done them. One case the split cannot
// help: a broker's kafka-configs up to 3.9 refuses an alter that leaves
// out a sensitive key the broker holds ("All sensitive broker config
// entries must be specified for --alter"), so where TARGET's broker
// holds one the runnable part fails, loudly, changing nothing; with
// ShowSecrets the one command names the secrets it restores.
func (o CommandOptions) splitSecrets(a Action) []Action {
	if o.ShowSecrets {
		return []Action{a}
	}
	var (
		typ    model.ConfigResourceType
		values []ConfigValue
	)
	switch {
	case a.Kind == AlterConfigs:
		typ, values = a.Config.Resource.Type, a.Config.Set
	case a.Kind == CreateTopic:
		typ, values = model.ConfigTopic, a.Topic.Configs
	default:
		return []Action{a}
	}
	var plain, secret []ConfigValue
	for _, cv := range values {
		if model.SensitiveConfig(typ, cv.Key) {
			secret = append(secret, cv)
		} else {
			plain = append(plain, cv)
		}
	}
	if len(secret) == 0 {
		return []Action{a}
	}
	secrets := Action{Kind: AlterConfigs, Entity: a.Entity, Why: a.Why}
	if a.Kind == CreateTopic {
		// The topic is created with the rest; its secrets are set once
		// it exists.
		t := *a.Topic
		t.Configs = plain
		a.Topic = &t
		secrets.Config = &ConfigChange{Resource: model.ConfigResource{Type: model.ConfigTopic, Name: t.Name}, Set: secret}
		return []Action{a, secrets}
	}
	if len(plain) == 0 && len(a.Config.Delete) == 0 {
		return []Action{a}
	}
	rest := *a.Config
	rest.Set = plain
	a.Config = &rest
	secrets.Config = &ConfigChange{Resource: rest.Resource, Set: secret}
	return []Action{a, secrets}
}

// ReassignmentFile is the file the reassignment command writes the plan
// to, in the working directory, for kafka-reassign-partitions to read.
const ReassignmentFile = "kmeta-restore-reassignment.json"

// FixCommands sets the Command of each difference the plan does not
// restore and a command undoes (Unrestorable.Args), and the
// reassignment's (ReassignCommand), as Commands renders the actions: the
// same connection, quoted, held when a word cannot be printed as a shell
// reads it.
func FixCommands(p *Plan, o CommandOptions) {
	if js := p.ReassignmentJSON(); js != "" {
		p.ReassignCommand = asCommand(shellword.Reassign(shellJoin(o.tool("kafka-reassign-partitions")), ReassignmentFile, js), "reassignment")
	}
	for i := range p.NotRestored {
		u := &p.NotRestored[i]
		if len(u.Args) == 0 {
			continue
		}
		// The connection goes after the tool's subcommand words (kmeta
		// features downgrade), before its flags.
		sub := 1 + slices.IndexFunc(u.Args[1:], func(a string) bool { return strings.HasPrefix(a, "-") })
		if sub == 0 {
			sub = len(u.Args)
		}
		tool := o.tool(u.Args[0])
		line := shellJoin(slices.Concat(tool[:1], u.Args[1:sub], tool[1:], u.Args[sub:]))
		if u.Stdin != "" {
			line = u.Stdin + " | " + line
		}
		if u.Then != "" {
			line += " && " + u.Then
		}
		u.Command = asCommand(line, u.Entity)
	}
}

// asCommand is line as a command about entity: runnable, or held and
// commented out when a character cannot be printed as a shell reads it.
func asCommand(line, entity string) *Command {
	c := Command{Line: line, Runnable: true, Entity: entity}
	if v, ok := visible(line); !ok {
		c.Line, c.Runnable, c.Held = "# "+v, false, HeldControl
	}
	return &c
}

// visible is line with every character model.Printable refuses written
// as \xNN (an invalid byte, or a rune below 0x100) or \u{N}; ok when
// there was none.
func visible(line string) (string, bool) {
	if model.Printable(line) {
		return line, true
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02X", line[i])
		case model.PrintableRune(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02X", r)
		default:
			fmt.Fprintf(&b, "\\u{%X}", r)
		}
		i += n
	}
	return b.String(), false
}

func (o CommandOptions) tool(name string) []string {
	if o.Script && name != "kmeta" {
		name += ".sh"
	}
	bs := o.Bootstrap
	if bs == "" {
		bs = "$BOOTSTRAP_SERVER"
	}
	args := []string{name, "--bootstrap-server", bs}
	if o.CommandConfig != "" {
		args = append(args, "--command-config", o.CommandConfig)
	}
	return args
}

func (o CommandOptions) command(a Action) Command {
	c := Command{Runnable: true}
	var args []string
	switch a.Kind {
	case CreateTopic:
		t := a.Topic
		args = append(o.tool("kafka-topics"), "--create", "--topic", t.Name)
		if len(t.Assignment) > 0 {
			var parts []string
			for _, rs := range t.Assignment {
				parts = append(parts, joinInts(rs, ":"))
			}
			args = append(args, "--replica-assignment", strings.Join(parts, ","))
		} else {
			args = append(args, "--partitions", strconv.Itoa(int(t.Partitions)), "--replication-factor", strconv.Itoa(int(t.ReplicationFactor)))
		}
		// A config --config cannot carry as it is set right after
		// the topic is created, by kafka-configs, which can.
		var later []ConfigValue
		for _, cv := range t.Configs {
			v, ok := o.value(model.ConfigTopic, cv.Key, cv.Value)
			c.Runnable = c.Runnable && ok
			if topicConfigArg(cv.Key, v) {
				args = append(args, "--config", cv.Key+"="+v)
			} else {
				later = append(later, ConfigValue{Key: cv.Key, Value: v})
			}
		}
		if len(later) > 0 {
			alter := append(o.tool("kafka-configs"), "--alter", "--entity-type", "topics", "--entity-name", t.Name)
			c.Line = shellJoin(args) + " && " + addConfigs(alter, later)
			return c
		}
	case CreatePartitions:
		args = append(o.tool("kafka-topics"), "--alter", "--topic", a.Topic.Name, "--partitions", strconv.Itoa(int(a.Topic.Partitions)))
	case AlterConfigs:
		ch := a.Config
		args = append(o.tool("kafka-configs"), "--alter")
		args = append(args, configEntityArgs(ch.Resource)...)
		var set []ConfigValue
		for _, cv := range ch.Set {
			v, ok := o.value(ch.Resource.Type, cv.Key, cv.Value)
			c.Runnable = c.Runnable && ok
			set = append(set, ConfigValue{Key: cv.Key, Value: v})
		}
		var rest []string
		if len(ch.Delete) > 0 {
			var del []string
			for _, cv := range ch.Delete {
				del = append(del, cv.Key)
			}
			rest = []string{"--delete-config", strings.Join(del, ",")}
		}
		c.Line = addConfigs(args, set, rest...)
		return c
	case AlterQuotas:
		q := a.Quota
		args = append(o.tool("kafka-configs"), "--alter")
		args = append(args, quotaEntityArgs(q.Entity)...)
		var set []string
		for _, v := range q.Set {
			set = append(set, v.Key+"="+verify.QuotaValue(v.Value))
		}
		if len(set) > 0 {
			args = append(args, "--add-config", strings.Join(set, ","))
		}
		if len(q.Remove) > 0 {
			var del []string
			for _, v := range q.Remove {
				del = append(del, v.Key)
			}
			args = append(args, "--delete-config", strings.Join(del, ","))
		}
	case CreateACL, DeleteACL:
		acl := a.ACL
		args = o.tool("kafka-acls")
		if a.Kind == CreateACL {
			args = append(args, "--add")
		} else {
			args = append(args, "--remove", "--force")
		}
		who := "allow"
		if acl.PermissionType == 2 {
			who = "deny"
		}
		args = append(args, "--"+who+"-principal", acl.Principal, "--"+who+"-host", acl.Host,
			"--operation", aclOperation(acl.Operation))
		args = append(args, aclResourceArgs(&acl.ACL)...)
	}
	c.Line = shellJoin(args)
	return c
}

// value is a config value as a command shows it: a sensitive one as its
// hash unless ShowSecrets (false: the command is not runnable).
func (o CommandOptions) value(t model.ConfigResourceType, k, v string) (string, bool) {
	if o.ShowSecrets || !model.SensitiveConfig(t, k) {
		return v, true
	}
	return model.RedactedValue(v), false
}

// How Kafka's tools read a config from their command line (ConfigCommand
// and TopicCommand, the same in 2.7, 3.9 and 4.4; restore's
// TestCommandsReadByKafkaTools asks their own parsers):
//
//   - kafka-configs --add-config "k1=v1,k2=[v2]": the list is split at
//     each ',' outside [...], each pair at an '=' outside [...] (blanks
//     around it dropped), then every '[' and ']' is deleted from the
//     value and both are trimmed (Java's trim: every char up to ' '). So
//     a value holding ',' or '=' is carried in brackets (client metrics'
//     match=[client_software_name=kafka.python]: without them the tool
//     refuses the pair), and one holding '[' or ']', or blanks at either
//     end, cannot be carried at all: the tool would set another value.
//   - kafka-configs --add-config-file FILE: a properties file, read with
//     Properties.load: carries any key and value. /dev/stdin is a file
//     to it, so the printed command pipes the file in and leaves none
//     behind (a secret shown with --show-secrets stays off the disk).
//   - kafka-topics --config k=v: split at '=' with Java's String.split,
//     which drops trailing empty strings, and the two parts trimmed. A
//     value that is empty, holds '=' or has blanks at either end is
//     refused or silently changed ("delete=" becomes "delete"); commas
//     are kept.

// addConfigs is the kafka-configs command args with set added, then
// rest: in --add-config when every pair survives its parsing, else all
// of them through --add-config-file, piped in.
func addConfigs(args []string, set []ConfigValue, rest ...string) string {
	if len(set) == 0 {
		return shellJoin(append(args, rest...))
	}
	pairs := make([]string, 0, len(set))
	for _, cv := range set {
		p, ok := addConfigPair(cv.Key, cv.Value)
		if !ok {
			props := make(map[string]string, len(set))
			for _, cv := range set {
				props[cv.Key] = cv.Value
			}
			printf := append([]string{"printf", `%s\n`}, javaprops.Lines(props)...)
			return shellJoin(printf) + " | " + shellJoin(slices.Concat(args, []string{"--add-config-file", "/dev/stdin"}, rest))
		}
		pairs = append(pairs, p)
	}
	return shellJoin(slices.Concat(args, []string{"--add-config", strings.Join(pairs, ",")}, rest))
}

// addConfigPair is k=v as --add-config carries it, brackets where
// needed (follower.replication.throttled.replicas=[0:1,1:2]); ok is
// false when it cannot (see above).
func addConfigPair(k, v string) (string, bool) {
	if k == "" || strings.ContainsAny(k, "=,[]") || strings.ContainsAny(v, "[]") || k != javaTrim(k) || v != javaTrim(v) ||
		!model.Printable(k+v) {
		// The file carries them escaped (javaprops): the line stays
		// printable.
		return "", false
	}
	if strings.ContainsAny(v, ",=") {
		return k + "=[" + v + "]", true
	}
	return k + "=" + v, true
}

// topicConfigArg says whether kafka-topics --config carries k=v as it is.
func topicConfigArg(k, v string) bool {
	return k != "" && v != "" && !strings.Contains(k+v, "=") && k == javaTrim(k) && v == javaTrim(v) && model.Printable(k+v)
}

// javaTrim is Java's String.trim: every char up to ' ' off both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

func configEntityArgs(r model.ConfigResource) []string {
	var typ string
	switch r.Type {
	case model.ConfigTopic:
		typ = "topics"
	case model.ConfigBroker:
		typ = "brokers"
	case model.ConfigClientMetrics:
		typ = "client-metrics"
	case model.ConfigGroup:
		typ = "groups"
	default:
		typ = strings.ToLower(r.Type.String())
	}
	if r.Type == model.ConfigBroker && r.Name == "" {
		return []string{"--entity-type", typ, "--entity-default"}
	}
	return []string{"--entity-type", typ, "--entity-name", r.Name}
}

// quotaEntityArgs are kafka-configs' entity flags for a quota entity:
// users before clients, as the tool wants them.
func quotaEntityArgs(parts []model.QuotaEntityPart) []string {
	order := map[string]int{"user": 0, "client-id": 1, "ip": 2}
	ps := slices.Clone(parts)
	slices.SortStableFunc(ps, func(a, b model.QuotaEntityPart) int { return order[a.Type] - order[b.Type] })
	var args []string
	for _, p := range ps {
		typ := map[string]string{"user": "users", "client-id": "clients", "ip": "ips"}[p.Type]
		if typ == "" {
			typ = p.Type
		}
		args = append(args, "--entity-type", typ)
		if p.Name == nil {
			args = append(args, "--entity-default")
		} else {
			args = append(args, "--entity-name", *p.Name)
		}
	}
	return args
}

// aclOperation is kafka-acls' --operation spelling (AclOperation's
// PascalCase name).
func aclOperation(op int8) string {
	return pascal(model.ACLOperationName(op))
}

func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

func aclResourceArgs(a *model.ACL) []string {
	var args []string
	switch model.ACLResourceTypeName(a.ResourceType) {
	case "TOPIC":
		args = []string{"--topic", a.ResourceName}
	case "GROUP":
		args = []string{"--group", a.ResourceName}
	case "CLUSTER":
		args = []string{"--cluster"}
	case "TRANSACTIONAL_ID":
		args = []string{"--transactional-id", a.ResourceName}
	case "DELEGATION_TOKEN":
		args = []string{"--delegation-token", a.ResourceName}
	case "USER":
		args = []string{"--user-principal", a.ResourceName}
	default:
		args = []string{"--resource-type-unknown", a.ResourceName}
	}
	return append(args, "--resource-pattern-type", strings.ToLower(model.ACLPatternTypeName(a.PatternType)))
}

func joinInts(s []int32, sep string) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(int(n))
	}
	return strings.Join(parts, sep)
}

// shellJoin quotes args for a POSIX shell: a word of safe characters as it
// is, any other in single quotes. $BOOTSTRAP_SERVER stays a variable.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellword.Quote(a)
		if a == "$BOOTSTRAP_SERVER" {
			out[i] = `"$BOOTSTRAP_SERVER"`
		}
	}
	return strings.Join(out, " ")
}

// ReassignmentJSON is the plan's reassignment as the file
// kafka-reassign-partitions takes ("" when none).
func (p *Plan) ReassignmentJSON() string {
	if p.Reassignment == nil {
		return ""
	}
	return p.Reassignment.JSON()
}

// Redacted is a copy of p whose sensitive config values are their hash
// (model.RedactedValue), for printing without --show-secrets.
func (p *Plan) Redacted() *Plan {
	out := *p
	out.Actions = make([]Action, len(p.Actions))
	for i, a := range p.Actions {
		switch {
		case a.Topic != nil && a.Kind == CreateTopic:
			t := *a.Topic
			t.Configs = redactValues(model.ConfigTopic, t.Configs)
			a.Topic = &t
		case a.Config != nil:
			ch := *a.Config
			ch.Set = redactValues(ch.Resource.Type, ch.Set)
			ch.Delete = redactValues(ch.Resource.Type, ch.Delete)
			a.Config = &ch
		}
		out.Actions[i] = a
	}
	return &out
}

func redactValues(t model.ConfigResourceType, vs []ConfigValue) []ConfigValue {
	out := slices.Clone(vs)
	for i, v := range out {
		if !model.SensitiveConfig(t, v.Key) {
			continue
		}
		if v.Value != "" {
			out[i].Value = model.RedactedValue(v.Value)
		}
		if v.Was != nil && !model.SecretWithheld(*v.Was) {
			w := model.RedactedValue(*v.Was)
			out[i].Was = &w
		}
	}
	return out
}
