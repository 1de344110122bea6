package source

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/fakekafka"
	"github.com/kmeta/kmeta/kafkaread"
)

// loadLive loads kafka://addr with the client settings props and a short
// timeout, and says how long it took.
func loadLive(t *testing.T, addr string, props map[string]string, timeout time.Duration) (error, time.Duration) {
	t.Helper()
	spec, err := Parse("kafka://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Load(context.Background(), spec, Options{Kafka: kafkaread.Config{Properties: props, Timeout: timeout}})
	if err == nil {
		t.Fatalf("%s: loaded", addr)
	}
	return err, time.Since(start)
}

// TestLiveBadInput: each way a live cluster cannot be read is named by
// its class and its address, without a JVM: a listener that accepts and
// never answers (unreachable, within the timeout), a closed port (refused,
// at once), a TLS listener with a self-signed certificate (the
// certificate problem), a mechanism kmeta does not speak (no connection
// is even attempted), a node whose ApiVersions lists too few APIs (the API
// and the release that has it) and one that lists LeaderAndIsr, which
// only ZooKeeper-mode brokers do.
func TestLiveBadInput(t *testing.T) {
	t.Run("unreachable", func(t *testing.T) {
		l := fakekafka.Silent(t)
		err, took := loadLive(t, l.Addr, nil, 500*time.Millisecond)
		if !errors.Is(err, kafkaread.ErrUnreachable) || !strings.Contains(err.Error(), l.Addr) || !strings.Contains(err.Error(), "did not answer within 500ms") {
			t.Errorf("%v", err)
		}
		if took > 5*time.Second {
			t.Errorf("took %s with a 500ms timeout", took)
		}
	})
	t.Run("refused", func(t *testing.T) {
		addr := fakekafka.Closed(t)
		err, took := loadLive(t, addr, nil, 30*time.Second)
		if !errors.Is(err, kafkaread.ErrRefused) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "nothing listens there") {
			t.Errorf("%v", err)
		}
		if took > 5*time.Second {
			t.Errorf("a refused connection took %s", took)
		}
	})
	t.Run("tls", func(t *testing.T) {
		l := fakekafka.SelfSigned(t)
		err, _ := loadLive(t, l.Addr, map[string]string{"security.protocol": "SSL"}, 5*time.Second)
		if !errors.Is(err, kafkaread.ErrTLS) || !strings.Contains(err.Error(), l.Addr) || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			t.Errorf("%v", err)
		}
	})
	for _, mech := range []string{"GSSAPI", "OAUTHBEARER", ""} {
		t.Run("mechanism "+mech, func(t *testing.T) {
			l := fakekafka.Node(t, nil)
			props := map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mech,
				"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`}
			err, _ := loadLive(t, l.Addr, props, 5*time.Second)
			name := mech
			if name == "" {
				name = "GSSAPI (Kerberos, Kafka's default" // sasl.mechanism left out
			}
			if !errors.Is(err, kafkaread.ErrUnsupported) || !strings.Contains(err.Error(), "sasl.mechanism "+name) {
				t.Errorf("%v", err)
			}
			if n := l.Accepted(); n != 0 {
				t.Errorf("%d connections made for a mechanism kmeta does not speak", n)
			}
		})
	}
	t.Run("missing API", func(t *testing.T) {
		l := fakekafka.Node(t, fakekafka.APIs{3: {0, 12}}) // Metadata only
		err, _ := loadLive(t, l.Addr, nil, 5*time.Second)
		if !errors.Is(err, kafkaread.ErrMissingAPI) || !strings.Contains(err.Error(), l.Addr) ||
			!strings.Contains(err.Error(), "does not answer DescribeConfigs") || !strings.Contains(err.Error(), "Kafka 0.11 or newer has it") {
			t.Errorf("%v", err)
		}
	})
	t.Run("zookeeper mode", func(t *testing.T) {
		l := fakekafka.Node(t, fakekafka.APIs{3: {0, 12}, 4: {0, 7}, 32: {0, 4}})
		err, _ := loadLive(t, l.Addr, nil, 5*time.Second)
		if !errors.Is(err, kafkaread.ErrZooKeeperMode) || !strings.Contains(err.Error(), l.Addr) ||
			!strings.Contains(err.Error(), "answers as a ZooKeeper-mode broker (it lists LeaderAndISR") || !strings.Contains(err.Error(), "zk://") {
			t.Errorf("%v", err)
		}
	})
}
