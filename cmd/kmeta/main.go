// Command kmeta reads, compares and migrates Kafka cluster metadata held in
// ZooKeeper and in KRaft's __cluster_metadata log, without a JVM.
//
// The command layer's conventions (registration, common flags, output,
// exit codes) are described at the top of app.go.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {

	// Ctrl-C cancels the context; commands pass it to long reads.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	growPipe(os.Stdout)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
