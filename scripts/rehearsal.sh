#!/usr/bin/env bash
# The full migration rehearsal (demo.sh can call it): a throwaway local
# ZooKeeper-mode Kafka 3.9 cluster with data is planned, stopped, migrated
# offline by kmeta, started as Kafka 4.4 KRaft on its original log dirs and
# checked: topics, configs, ACLs, quotas, SCRAM logins, the delegation
# token, group offsets and every message read back.
#
# It runs the acceptance test TestMigrateZKClusterToKRaft (cmd/kmeta), so
# the rehearsal and the test are one procedure: plan --write plan.json, then
# apply, brokers and configs each --plan plan.json, as an operator runs them
# (configs takes the dynamic quorum from the plan). Each step and each kmeta
# command's output is printed; Kafka's own logs go to the log file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log=$(mktemp -t kmeta-rehearsal.XXXXXX.log)
printf '\n\033[1m== kmeta migrate rehearsal: Kafka 3.9.2 ZooKeeper mode -> Kafka 4.4.0 KRaft (about 3 minutes; full log %s)\033[0m\n' "$log"
status=0
go test -count=1 -timeout 20m -run 'TestMigrateZKClusterToKRaft$' -v ./cmd/kmeta >"$log" 2>&1 || status=$?
# The test's own lines (steps, kmeta's output) without the harness's.
awk '/migrate_kafka_test.go:[0-9]+: / { keep = 1; sub(/^ *migrate_kafka_test.go:[0-9]+: /, ""); print; next }
     /^        / && keep { sub(/^        /, "    "); print; next }
     { keep = 0 }
     /^(--- |ok |FAIL)/ { print }' "$log"
if [ "$status" -ne 0 ]; then
  echo "rehearsal: FAILED (exit $status); see $log" >&2
  exit 1
fi
printf '\n\033[1m== rehearsal passed\033[0m\n'
