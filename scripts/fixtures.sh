#!/bin/sh
# Regenerates testdata/kraft from real Kafka (see testdata/kraft/README.md).
# Needs java (17+) and mvn on PATH; Kafka jars are cached in $KMETA_CACHE
# (default ~/.cache/kmeta). Takes about three minutes on two cores.
set -eu
cd "$(dirname "$0")/.."
exec go test ./internal/testkit/kafkatest -run '^TestGenerateFixtures$' -count=1 -timeout 30m -v -args -generate "$@"
