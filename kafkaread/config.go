package kafkaread

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kmeta/kmeta/metalog"
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
	// Timeout bounds connecting and each request (default 30s, Kafka's
	// request.timeout.ms).
	Timeout time.Duration
}

// DefaultTimeout is request.timeout.ms's default in Kafka's clients.
const DefaultTimeout = 30 * time.Second

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// ReadProperties reads a client settings file (client.properties).
func ReadProperties(path string) (map[string]string, error) {
	p, err := metalog.ReadJavaProperties(path)
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
		return nil, c.settingError(ErrConfig, "security.protocol %q is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", p["security.protocol"])
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
	return fmt.Errorf("%w: %s: %s", class, where, fmt.Sprintf(format, a...))
}

// jaasOption matches one key=value option of a JAAS login module line;
// values are quoted strings (with \" escapes) or bare words.
var jaasOption = regexp.MustCompile(`([A-Za-z0-9_.]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s;]+)`)

// saslMechanism builds the mechanism sasl.mechanism names, with the
// credentials of sasl.jaas.config.
func (c Config) saslMechanism() (sasl.Mechanism, error) {
	p := c.Properties
	mech := strings.ToUpper(strings.TrimSpace(p["sasl.mechanism"]))
	if mech == "" {
		mech = "GSSAPI" // Kafka's default
	}
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	case "GSSAPI":
		return nil, c.settingError(ErrUnsupported, "sasl.mechanism GSSAPI (Kerberos, Kafka's default when sasl.mechanism is not set) is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are")
	case "OAUTHBEARER":
		return nil, c.settingError(ErrUnsupported, "sasl.mechanism OAUTHBEARER is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are")
	default:
		return nil, c.settingError(ErrUnsupported, "sasl.mechanism %q is not supported by kmeta; PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are", p["sasl.mechanism"])
	}
	jaas := strings.TrimSpace(p["sasl.jaas.config"])
	if jaas == "" {
		return nil, c.settingError(ErrConfig, "sasl.mechanism %s needs sasl.jaas.config with username and password", mech)
	}
	module := strings.Fields(jaas)[0]
	opts := map[string]string{}
	for _, m := range jaasOption.FindAllStringSubmatch(jaas, -1) {
		v := m[2]
		if strings.HasPrefix(v, `"`) {
			v = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(v[1 : len(v)-1])
		}
		opts[m[1]] = v
	}
	user, pass := opts["username"], opts["password"]
	if user == "" {
		// The module name and the user are not secrets; the password is
		// never put in a message.
		return nil, c.settingError(ErrConfig, "sasl.jaas.config (%s) has no username", module)
	}
	switch {
	case mech == "PLAIN" && strings.HasSuffix(module, "PlainLoginModule"):
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case strings.HasPrefix(mech, "SCRAM-") && strings.HasSuffix(module, "ScramLoginModule"):
		a := scram.Auth{User: user, Pass: pass}
		if mech == "SCRAM-SHA-256" {
			return a.AsSha256Mechanism(), nil
		}
		return a.AsSha512Mechanism(), nil
	}
	return nil, c.settingError(ErrConfig, "sasl.jaas.config uses %s, which does not fit sasl.mechanism %s", module, mech)
}
