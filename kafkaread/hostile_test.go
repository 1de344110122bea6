package kafkaread

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kmeta/kmeta/javaprops"
)

// TestSettingsErrorsNeverPrintSecrets (issue 29): client settings broken
// at random (bytes deleted, inserted, flipped, line ends lost) are
// refused, or accepted, without any error quoting the secrets they hold,
// whatever key the broken bytes end up under.
func TestSettingsErrorsNeverPrintSecrets(t *testing.T) {
	const pw, trust = "Hq2Vx9Lm4Kd7Rs", "Tz5Wn8Pb3Jc6Yf"
	base := "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n" +
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="` + pw + `";` + "\n" +
		"ssl.truststore.location=/nonexistent/truststore.p12\nssl.truststore.type=PKCS12\nssl.truststore.password=" + trust + "\n"
	leaks := func(msg string) string {
		for _, s := range []string{pw, trust} {
			for i := 0; i+6 <= len(s); i++ {
				if strings.Contains(msg, s[i:i+6]) {
					return s[i : i+6]
				}
			}
		}
		return ""
	}
	r := rand.New(rand.NewPCG(29, 1))
	refused := 0
	for n := 0; n < 4000; n++ {
		b := []byte(base)
		for k := 0; k <= r.IntN(3); k++ {
			p := r.IntN(len(b))
			switch r.IntN(5) {
			case 0:
				b = append(b[:p], b[min(len(b), p+1+r.IntN(8)):]...)
			case 1:
				b = append(b[:p], append([]byte{"=:\"' ;\\u\n"[r.IntN(9)]}, b[p:]...)...)
			case 2:
				b[p] ^= byte(1 << r.IntN(8))
			case 3:
				if i := strings.IndexByte(string(b[p:]), '\n'); i >= 0 {
					b = append(b[:p+i], b[p+i+1:]...) // a lost line end
				}
			default:
				b = append(b[:p], append([]byte(`\u`), b[p:]...)...)
			}
		}
		props, err := javaprops.Parse(b)
		if err != nil {
			if w := leaks(err.Error()); w != "" {
				t.Fatalf("parse error quotes %q: %v\n%q", w, err, b)
			}
			continue
		}
		cfg := Config{Bootstrap: []string{"127.0.0.1:1"}, Properties: props, PropertiesFile: "client.properties"}
		if _, err := cfg.parseSecurity(); err != nil {
			refused++
			if w := leaks(err.Error()); w != "" {
				t.Fatalf("settings error quotes %q: %v\n%q", w, err, b)
			}
		}
	}
	if refused < 400 {
		t.Fatalf("only %d of 4000 broken settings were refused: the test no longer breaks them", refused)
	}
}
