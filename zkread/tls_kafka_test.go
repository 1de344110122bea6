package zkread

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestLiveTLS reads a real ZooKeeper over its TLS port, which requires a
// client certificate (ssl.clientAuth=need); without one the read fails.
func TestLiveTLS(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartTLSZooKeeper(t, d, kafkatest.ZKOptions{})
	cfg, err := TLSConfig(zks.CA, zks.ClientCert, zks.ClientKey, "")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ReadLive(context.Background(), LiveOptions{Servers: []string{zks.TLSAddr}, TLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !tree.Has("/zookeeper") {
		t.Errorf("read %d znodes, no /zookeeper", tree.Len())
	}
	noCert, _ := TLSConfig(zks.CA, "", "", "")
	_, err = ReadLive(context.Background(), LiveOptions{Servers: []string{zks.TLSAddr}, TLS: noCert, SessionTimeout: 2 * time.Second})
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("without a client certificate: %v", err)
	}
}
