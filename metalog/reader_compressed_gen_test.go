//go:build fixtures

package metalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kmeta/kmeta/internal/testkit/kafkatest"
)

// TestGenerateCompressedFixtures regenerates testdata/compressed: one
// single-partition topic per codec, filled by Kafka's own console producer
// with compression.type set, then the partition's first segment is copied
// out with kafka-dump-log --print-data-log output next to it.
//
//	go test -tags fixtures -run TestGenerateCompressedFixtures ./metalog
func TestGenerateCompressedFixtures(t *testing.T) {
	d := kafkatest.Dist(t, kafkatest.Latest4)
	c := kafkatest.StartKRaft(t, d, kafkatest.KRaftOptions{})
	out := filepath.Join("..", "testdata", "compressed")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	codecs := []string{"gzip", "snappy", "lz4", "zstd"}
	adm := c.Admin(t)
	for _, codec := range codecs {
		topic := "compressed-" + codec
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatalf("create %s: %v", topic, err)
		}
		var in strings.Builder
		for i := 0; i < 300; i++ {
			// Repetitive values compress well; keys exercise non-null keys.
			fmt.Fprintf(&in, "key-%d\tvalue-%d-%s\n", i, i, strings.Repeat(codec, i%7+1))
		}
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Minute)
		cmd := d.Command(pctx, "org.apache.kafka.tools.ConsoleProducer",
			"--bootstrap-server", c.BootstrapServers(), "--topic", topic,
			"--property", "parse.key=true",
			// The console producer overrides compression.type with its
			// own --compression-codec (default none).
			"--compression-codec", codec,
			"--producer-property", "linger.ms=200",
			"--producer-property", "batch.size=4096",
			"--producer-property", "acks=all")
		cmd.Stdin = strings.NewReader(in.String())
		b, err := cmd.CombinedOutput()
		pcancel()
		if err != nil {
			t.Fatalf("console producer %s: %v\n%s", codec, err, b)
		}
	}
	ids := c.Brokers()
	logDir := c.MetadataLogDir(ids[0])
	c.Stop()
	for _, codec := range codecs {
		src := filepath.Join(logDir, "compressed-"+codec+"-0", "00000000000000000000.log")
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		// DumpLogSegments takes the base offset from the file name, so the
		// segment keeps its Kafka name inside a directory per codec.
		if err := os.MkdirAll(filepath.Join(out, codec), 0o755); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(out, codec, "00000000000000000000.log")
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(dst)
		stdout, stderr, err := d.Run(ctx, d.Tools.DumpLog, "--print-data-log", "--files", abs)
		if err != nil {
			t.Fatalf("dump %s: %v\n%s", codec, err, stderr)
		}
		if err := os.WriteFile(dst+".dump.txt", stdout, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
