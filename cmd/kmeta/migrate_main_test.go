package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// envRunMain makes the test binary act as kmeta itself, so that tests can
// run a real kmeta process and kill it (migrate's fault injection).
const envRunMain = "KMETA_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		args := strings.Split(os.Getenv("KMETA_TEST_ARGS"), "\x1f")
		os.Exit(run(context.Background(), append([]string{"kmeta"}, args...), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
