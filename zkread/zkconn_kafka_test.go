package zkread

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestCaptureWire rewrites testdata/zkwire from a real ZooKeeper 3.8.4
// (Kafka 3.9.2's classpath) when KMETA_ZK_CAPTURE=1; otherwise it skips.
func TestCaptureWire(t *testing.T) {
	if os.Getenv("KMETA_ZK_CAPTURE") != "1" {
		t.Skip("set KMETA_ZK_CAPTURE=1 to capture real ZooKeeper responses into " + wireDir)
	}
	d := kafkatest.Dist(t, kafkatest.Kafka39)
	zks := kafkatest.StartZooKeeper(t, d, kafkatest.ZKOptions{})
	const chroot = "/kafka"
	writeSmallLayout(t, zks.Addr(), chroot)
	conn := oracleConn(t, zks.Addr())
	if _, err := conn.Create(chroot+"/secret", []byte("s"), 0, zk.DigestACL(zk.PermAll, "kafka", "secret")); err != nil {
		t.Fatal(err)
	}
	// Readable by all: getACL answers, with the digest redacted.
	if _, err := conn.Create(chroot+"/shown", []byte("s"), 0, append(zk.DigestACL(zk.PermAll, "kafka", "secret"), zk.WorldACL(zk.PermRead)...)); err != nil {
		t.Fatal(err)
	}
	s, err := dialSession(context.Background(), LiveOptions{Servers: []string{zks.Addr()}, SessionTimeout: 10 * time.Second}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	save := func(name string, c *call, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(wireDir, name+".bin"), c.body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	topic := chroot + "/brokers/topics/t0"
	c, err := s.do(opGetData, pathRequest(topic, true))
	save("getData", c, err)
	c, err = s.do(opGetData, pathRequest(chroot+"/brokers", true))
	save("getData-null", c, err)
	c, err = s.do(opGetChildren2, pathRequest(chroot+"/brokers/topics", true))
	save("getChildren2", c, err)
	c, err = s.do(opGetChildren, pathRequest(topic+"/partitions", true))
	save("getChildren", c, err)
	c, err = s.do(opGetACL, pathRequest(chroot+"/shown", false))
	save("getACL", c, err)
	c, err = s.do(opExists, pathRequest(topic, true))
	save("exists", c, err)
	// getData, getChildren, a missing znode, a refused one, a container.
	c, err = s.startMulti(multiOps("dcddc", topic, topic, chroot+"/nope", chroot+"/secret", topic+"/partitions"))
	if err == nil {
		err = c.wait()
	}
	save("multiRead-dcddc", c, err)
}
