#!/usr/bin/env bash
# make demo: start a real Apache Kafka (newest 4.x) KRaft cluster on
# 127.0.0.1, give it real work (topics, configs, quotas, ACLs, SCRAM users,
# a delegation token, a reassignment, a feature upgrade, broker restarts),
# stop it, and show what kmeta reads from its metadata log without a JVM.
#
# KMETA_DEMO_OFFLINE=1 uses the committed real-Kafka fixtures instead of
# starting Kafka (no JVM needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kmeta=$root/bin/kmeta
version=4.4.0

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "kmeta ${*}"; "$kmeta" "$@" || true; }

if [ "${KMETA_DEMO_OFFLINE:-}" = 1 ]; then
  meta=$root/testdata/kraft/$version/metadata
  say "Using the committed fixture written by real Kafka $version: $meta"
else
  work=$(mktemp -d -t kmeta-demo.XXXXXX)
  say "Fetching Apache Kafka $version (cached in ~/.cache/kmeta) and running a 1-controller, 3-broker cluster on 127.0.0.1"
  echo "(about two minutes; Kafka's own logs go to $work/generate.log)"
  if ! go test -count=1 -timeout 20m -run 'TestGenerateFixtures' ./internal/kafkatest \
      -args -generate -fixtures-out "$work" -fixtures-versions "$version" >"$work/generate.log" 2>&1; then
    tail -40 "$work/generate.log"
    echo "demo: could not run Kafka; try KMETA_DEMO_OFFLINE=1 make demo" >&2
    exit 2
  fi
  meta=$work/$version/metadata
  say "Kafka stopped. Its metadata log dir was copied to $meta"
fi

(ls -l "$meta" "$meta/__cluster_metadata-0" 2>&1 || true) | sed 's/^/   /'

say "Integrity verdict for the whole metadata log (exit code 0 healthy, 1 problems, 2 could not run)"
run log check "$meta"

say "What the log holds, per record type"
run log stats "$meta"

say "The cluster image: newest snapshot + later segments replayed (secrets redacted)"
run image "$meta" | head -120

say "The same image as a table"
run image -o table "$meta" | head -60

say "Topic and partition-change records, in kafka-dump-log's own format"
run log dump --type TOPIC_RECORD --type PARTITION_CHANGE_RECORD --records-only "$meta" | head -20

say "JSON for pipelines: topics and their partition counts"
"$kmeta" image -o json "$meta" | (command -v jq >/dev/null && jq -c '.topics[] | {name, partitions: (.partitions|length)}' || head -c 600)
echo
say "Done. Try: bin/kmeta --help"
