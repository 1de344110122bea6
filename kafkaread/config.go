package kafkaread

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kmeta/kmeta/javaprops"
)

// Config says how to reach a cluster.
type Config struct {
	// Bootstrap are the host:port addresses after kafka://.
	Bootstrap []string
	// Controllers says the addresses are controllers
	// (--bootstrap-controller, KIP-919).
	Controllers bool
	// Properties are Kafka's client settings (ReadProperties).
	Properties map[string]string
	// PropertiesFile is where Properties were read, for messages.
	PropertiesFile string
	// ControllerProperties are the client settings for the controllers'
	// listener (--controller-command-config), where they differ from the
	// brokers' (a PLAINTEXT or SSL controller listener behind SASL_SSL
	// brokers): used for a --bootstrap-controller read and for every
	// controller asked directly. Without them, Properties apply, with
	// their listener.name.<listener>.* keys (the controller listener's
	// name, lower case, as DescribeQuorum names it) over the others: the
	// same file, applied per listener.
	ControllerProperties     map[string]string
	ControllerPropertiesFile string
	// listener is the name of the listener a controller is asked
	// through, when known (DescribeQuorum's endpoints name it).
	listener string
	// Timeout is the deadline of a client's whole read: Dial and every
	// request after it (default 30s, Kafka's request.timeout.ms).
	Timeout time.Duration
}

// DefaultTimeout is request.timeout.ms's default in Kafka's clients.
const DefaultTimeout = 30 * time.Second

// forControllers is c as a connection to controllers uses it: the
// controllers' client settings (ControllerProperties, or the
// listener.name.<listener>. keys of Properties over the rest).
func (c Config) forControllers() Config {
	if c.ControllerProperties != nil {
		c.Properties, c.PropertiesFile = c.ControllerProperties, c.ControllerPropertiesFile
		return c
	}
	if c.listener == "" {
		return c
	}
	prefix := "listener.name." + strings.ToLower(c.listener) + "."
	var over map[string]string
	for k, v := range c.Properties {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if over == nil {
				over = map[string]string{}
			}
			over[rest] = v
		}
	}
	if over == nil {
		return c
	}
	p := make(map[string]string, len(c.Properties))
	for k, v := range c.Properties {
		if !strings.HasPrefix(k, "listener.name.") {
			p[k] = v
		}
	}
	for k, v := range over {
		p[k] = v
	}
	c.Properties = p
	return c
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// ReadProperties reads a client settings file (client.properties).
func ReadProperties(path string) (map[string]string, error) {
	p, err := javaprops.Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return p, nil
}

// security is what the settings ask for: a protocol, its SASL mechanism
// and its TLS configuration.
type security struct {
	protocol string
	sasl     sasl.Mechanism
	mechName string
	tls      *tls.Config
}

// Check reads the settings as a connection does (the protocol, the SASL
// mechanism and credentials, the TLS stores they name) without
// connecting: a command that only prints commands naming the file refuses
// one they would fail on, with the error a read would give.
func (c Config) Check() error {
	_, err := c.parseSecurity()
	return err
}

// parseSecurity turns the client settings into a connection recipe. It
// refuses, by name, what kmeta does not speak.
func (c Config) parseSecurity() (*security, error) {
	p := c.Properties
	s := &security{protocol: strings.ToUpper(strings.TrimSpace(p["security.protocol"]))}
	if s.protocol == "" {
		s.protocol = "PLAINTEXT"
	}
	useSASL, useTLS := false, false
	switch s.protocol {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useSASL, useTLS = true, true
	default:
		return nil, c.settingError(ErrConfig, "security.protocol %s is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", shownName(p["security.protocol"]))
	}
	if useSASL {
		m, err := c.saslMechanism()
		if err != nil {
			return nil, err
		}
		s.sasl = m
		s.mechName = m.Name()
	}
	if useTLS {
		t, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		s.tls = t
	}
	return s, nil
}

func (c Config) settingError(class error, format string, a ...any) error {
	where := "client settings"
	if c.PropertiesFile != "" {
		where = c.PropertiesFile
	}
	return fmt.Errorf("%w: %s: %s", class, where, c.redactSecrets(fmt.Sprintf(format, a...)))
}

// shownName is a setting's value as a message may quote it: a name
// (letters, digits, '.', '_', '-', '+'), quoted; anything else may be a
// line that ran into the next one, secret and all, and is not printed.
func shownName(v string) string {
	if nameValue().MatchString(v) {
		return strconv.Quote(v)
	}
	return "(a value that is no name, not printed)"
}

// shownPath is a file setting's value as a message may quote it: a path
// without blanks, quotes, '=' or ';', else not printed (see shownName).
func shownPath(v string) string {
	if len(v) <= 4096 && pathValue().MatchString(v) {
		return v
	}
	return "(a value that is no path, not printed)"
}

// The expressions of this file are compiled on first use: at start-up
// they were a fiftieth of a short command's run, and only a client
// configuration's errors and checks use them.
var (
	nameValue = lazyRegexp(`^[A-Za-z0-9._+-]{1,64}$`)
	pathValue = lazyRegexp(`^[^\s"'=;]+$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// secretValue finds a secret written as key=value or key:value inside a
// message: a line of the settings that ran into another (a deleted line
// end) carries its secret into the value printed.
var secretValue = lazyRegexp(`(?i)((?:password|secret|jaas[.]config|token)[\w.-]*\s*[=:]\s*)("[^"]*"?|'[^']*'?|[^\s;,)]+)`)

// redactSecrets keeps every secret of the settings out of a message,
// whatever the message quotes (a value, a path, a reader's error): the
// values of the secret settings, and anything written as a secret
// setting's key=value.
func (c Config) redactSecrets(msg string) string {
	for k, v := range c.Properties {
		if len(v) >= 4 && secretKey(k) {
			msg = strings.ReplaceAll(msg, v, "<redacted>")
		}
	}
	return secretValue().ReplaceAllString(msg, "${1}<redacted>")
}

// secretKey says whether a client setting holds a secret.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "password") || strings.Contains(k, "jaas") || strings.HasSuffix(k, ".key") ||
		strings.Contains(k, "secret") || strings.Contains(k, "token")
}

// saslMechanism builds the mechanism sasl.mechanism names, with the
// credentials of sasl.jaas.config.
func (c Config) saslMechanism() (sasl.Mechanism, error) {
	cr, err := c.saslCredentials()
	if err != nil {
		return nil, err
	}
	switch cr.mech {
	case "PLAIN":
		return plain.Auth{User: cr.user, Pass: cr.pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: cr.user, Pass: cr.pass, IsToken: cr.token}.AsSha256Mechanism(), nil
	}
	return scram.Auth{User: cr.user, Pass: cr.pass, IsToken: cr.token}.AsSha512Mechanism(), nil
}

// saslCreds are what sasl.mechanism and sasl.jaas.config ask for.
type saslCreds struct {
	mech, user, pass string
	// token: the credentials are a delegation token's (tokenauth=true).
	token bool
}

func (c Config) saslCredentials() (saslCreds, error) {
	p := c.Properties
	mech := strings.ToUpper(strings.TrimSpace(p["sasl.mechanism"]))
	if mech == "" {
		mech = "GSSAPI" // Kafka's default
	}
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	case "GSSAPI":
		return saslCreds{}, c.settingError(ErrUnsupported, "sasl.mechanism GSSAPI (Kerberos, Kafka's default when sasl.mechanism is not set) is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are")
	case "OAUTHBEARER":
		return saslCreds{}, c.settingError(ErrUnsupported, "sasl.mechanism OAUTHBEARER is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are")
	default:
		return saslCreds{}, c.settingError(ErrUnsupported, "sasl.mechanism %s is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are", shownName(p["sasl.mechanism"]))
	}
	jaas := strings.TrimSpace(p["sasl.jaas.config"])
	if jaas == "" {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.mechanism %s needs sasl.jaas.config with username and password", mech)
	}
	entries, err := parseJAAS(jaas)
	if err != nil {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config: %v", err)
	}
	if len(entries) != 1 {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config has %d login modules; Kafka's clients take exactly one", len(entries))
	}
	e := entries[0]
	cr := saslCreds{mech: mech, user: e.opts["username"], pass: e.opts["password"],
		token: strings.EqualFold(e.opts["tokenauth"], "true")}
	// No value of sasl.jaas.config is put in a message, whatever its
	// key: only a login module's class name (safeModule).
	if cr.user == "" {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config (%s) has no username", safeModule(e.module, 0))
	}
	if cr.pass == "" {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config (%s) has no password", safeModule(e.module, 0))
	}
	short := e.module[strings.LastIndex(e.module, ".")+1:]
	switch {
	case mech == "PLAIN" && short == "PlainLoginModule":
	case strings.HasPrefix(mech, "SCRAM-") && short == "ScramLoginModule":
	default:
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config uses %s, which does not fit sasl.mechanism %s", safeModule(e.module, 0), mech)
	}
	if cr.token && mech == "PLAIN" {
		return saslCreds{}, c.settingError(ErrConfig, "sasl.jaas.config sets tokenauth, which only SCRAM mechanisms take")
	}
	return cr, nil
}

// jaasEntry is one login module of a JAAS configuration.
type jaasEntry struct {
	module, flag string
	opts         map[string]string
}

// parseJAAS parses sasl.jaas.config as Kafka's JaasConfig does (with
// java.io.StreamTokenizer): a module name, a control flag, key=value
// options whose values are bare words or strings in double or single
// quotes with backslash escapes, then ';'; /* */ and // comments. Its
// errors name the place, never a value (a value may be a password).
func parseJAAS(s string) ([]jaasEntry, error) {
	tk := &jaasTokenizer{s: s}
	var out []jaasEntry
	for {
		kind, module, err := tk.next()
		if err != nil {
			return nil, err
		}
		if kind == jaasEOF {
			break
		}
		if kind != jaasWord {
			return nil, fmt.Errorf("a login module name must come first")
		}
		// Only what cannot be a secret is named: a login module's class
		// name, an option Kafka's modules know. Anything else (a value
		// where a name was expected) is named by its place.
		moduleName := safeModule(module, tk.i-len(module)+1)
		kind, flag, err := tk.next()
		if err != nil {
			return nil, err
		}
		switch f := strings.ToLower(flag); {
		case kind == jaasWord && (f == "required" || f == "requisite" || f == "sufficient" || f == "optional"):
		default:
			return nil, fmt.Errorf("%s: the control flag (required, requisite, sufficient or optional) is missing", moduleName)
		}
		e := jaasEntry{module: module, flag: flag, opts: map[string]string{}}
		for {
			kind, key, err := tk.next()
			if err != nil {
				return nil, err
			}
			if kind == ';' {
				break
			}
			if kind == jaasEOF {
				return nil, fmt.Errorf("%s: the entry does not end with ';'", moduleName)
			}
			if kind != jaasWord {
				return nil, fmt.Errorf("%s: an option name is missing at character %d", moduleName, tk.i)
			}
			optName := fmt.Sprintf("the option at character %d", tk.i-len(key)+1)
			if knownJAASOptions[key] {
				optName = "option " + key
			}
			if kind, _, err = tk.next(); err != nil || kind != '=' {
				if err == nil {
					err = fmt.Errorf("%s: %s has no '=' (a JAAS option is name=value)", moduleName, optName)
				}
				return nil, err
			}
			kind, val, err := tk.next()
			if err != nil {
				return nil, err
			}
			if kind != jaasWord && kind != jaasQuoted {
				return nil, fmt.Errorf("%s: %s has no value", moduleName, optName)
			}
			e.opts[key] = val
		}
		out = append(out, e)
	}
	return out, nil
}

// safeModule names a login module in a message: its class name when it
// is one (a Java class name ending in LoginModule, as every JAAS module's
// does), else by its place (at, 1-based; 0: "a login module"), so that a
// value written where the module belongs is never printed.
func safeModule(module string, at int) string {
	switch {
	case javaClassName().MatchString(module) && strings.HasSuffix(module, "LoginModule"):
		return module
	case at > 0:
		return "the login module at character " + strconv.Itoa(at)
	}
	return "a login module"
}

// javaClassName is a login module's name as Java spells a class.
var javaClassName = lazyRegexp(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// knownJAASOptions are the options of the login modules Kafka's clients
// use: names, never secrets, so errors may say them.
var knownJAASOptions = map[string]bool{
	"username": true, "password": true, "tokenauth": true, "serviceName": true, "useKeyTab": true, "keyTab": true,
	"principal": true, "storeKey": true, "useTicketCache": true, "debug": true, "unsecuredLoginStringClaim_sub": true,
}

// Token kinds of jaasTokenizer; other tokens are their own character.
const (
	jaasEOF = -1 - iota
	jaasWord
	jaasQuoted
)

type jaasTokenizer struct {
	s string
	i int
}

// skip passes white space and comments.
func (t *jaasTokenizer) skip() error {
	s := t.s
	for t.i < len(s) {
		switch {
		case s[t.i] <= ' ':
			t.i++
		case strings.HasPrefix(s[t.i:], "//"):
			for t.i < len(s) && s[t.i] != '\n' && s[t.i] != '\r' {
				t.i++
			}
		case strings.HasPrefix(s[t.i:], "/*"):
			end := strings.Index(s[t.i+2:], "*/")
			if end < 0 {
				return fmt.Errorf("a /* comment is not closed")
			}
			t.i += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (t *jaasTokenizer) next() (kind int, text string, err error) {
	if err := t.skip(); err != nil {
		return 0, "", err
	}
	s := t.s
	if t.i == len(s) {
		return jaasEOF, "", nil
	}
	switch ch := s[t.i]; {
	case ch == '"' || ch == '\'':
		var b strings.Builder
		for t.i++; t.i < len(s); t.i++ {
			c := s[t.i]
			switch {
			case c == ch:
				t.i++
				return jaasQuoted, b.String(), nil
			case c == '\\' && t.i+1 < len(s):
				t.i++
				b.WriteRune(t.unescape())
			default:
				b.WriteByte(c)
			}
		}
		return 0, "", fmt.Errorf("a quoted value is not closed")
	case ch == '=' || ch == ';':
		t.i++
		return int(ch), string(ch), nil
	default:
		start := t.i
		for t.i < len(s) && s[t.i] > ' ' && !strings.ContainsRune(`=;"'`, rune(s[t.i])) {
			t.i++
		}
		return jaasWord, s[start:t.i], nil
	}
}

// unescape reads the escape after a backslash (t.i is on it) as
// StreamTokenizer does: C's letters, up to three octal digits, else the
// character itself. t.i ends on its last character.
func (t *jaasTokenizer) unescape() rune {
	c := t.s[t.i]
	if c >= '0' && c <= '7' {
		v, n := int(c-'0'), 3
		if c > '3' {
			n = 2
		}
		for k := 1; k < n && t.i+1 < len(t.s) && t.s[t.i+1] >= '0' && t.s[t.i+1] <= '7'; k++ {
			t.i++
			v = v*8 + int(t.s[t.i]-'0')
		}
		return rune(v) // a Java char: \377 is U+00FF
	}
	if r, ok := map[byte]rune{'a': 7, 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}[c]; ok {
		return r
	}
	return rune(c)
}
