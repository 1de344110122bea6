#!/usr/bin/env bash
# make demo: start a real Apache Kafka (newest 4.x) KRaft cluster on
# 127.0.0.1, give it real work (topics, configs, quotas, ACLs, SCRAM users,
# a delegation token, a reassignment, a feature upgrade, broker restarts),
# stop it, and show what kmeta reads from its metadata log without a JVM.
# Each command's real exit code is printed after its output.
#
# KMETA_DEMO_OFFLINE=1 uses the committed real-Kafka fixtures instead of
# starting Kafka (no JVM needed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kmeta=$root/bin/kmeta
version=4.4.0

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
note() { printf '   %s\n' "$@"; }

# run LINES ARGS...: runs kmeta, shows the first LINES lines of its output
# (0: all; stderr as it comes) and its real exit code with what it means.
run() {
  local lines=$1
  shift
  printf '$ kmeta %s\n' "$*"
  local out rc=0 n
  out=$(mktemp)
  "$kmeta" "$@" >"$out" || rc=$?
  n=$(wc -l <"$out")
  if [ "$lines" -gt 0 ] && [ "$n" -gt "$lines" ]; then
    head -n "$lines" "$out"
    printf '   ... (%d more lines)\n' "$((n - lines))"
  else
    cat "$out"
  fi
  rm -f "$out"
  local meaning
  case $rc in
    0) meaning="ok" ;;
    1) meaning="findings, or a result resting on damaged input" ;;
    2) meaning="could not run" ;;
    *) meaning="unexpected" ;;
  esac
  printf '[exit %d: %s]\n' "$rc" "$meaning"
}

if [ "${KMETA_DEMO_OFFLINE:-}" = 1 ]; then
  meta=$root/testdata/kraft/$version/metadata
  say "Using the committed fixture written by real Kafka $version: $meta"
else
  work=$(mktemp -d -t kmeta-demo.XXXXXX)
  say "Fetching Apache Kafka $version (cached in ~/.cache/kmeta) and running a 1-controller, 3-broker cluster on 127.0.0.1"
  echo "(about two minutes; Kafka's own logs go to $work/generate.log)"
  if ! go test -count=1 -timeout 20m -run 'TestGenerateFixtures' ./internal/testkit/kafkatest \
      -args -generate -fixtures-out "$work" -fixtures-versions "$version" >"$work/generate.log" 2>&1; then
    tail -40 "$work/generate.log"
    echo "demo: could not run Kafka; try KMETA_DEMO_OFFLINE=1 make demo" >&2
    exit 2
  fi
  meta=$work/$version/metadata
  say "Kafka stopped. Its metadata log dir was copied to $meta"
fi

(ls -l "$meta" "$meta/__cluster_metadata-0" 2>&1 || true) | sed 's/^/   /'

say "Integrity verdict for the whole metadata log"
note "Every segment, snapshot and bootstrap file: framing, CRCs, offsets, epochs, KRaft's batch rules," \
  "record decoding. Exit 0 healthy, 1 problems, 2 could not run."
run 0 log check "$meta"

say "What the log holds, per record type"
run 0 log stats "$meta"

say "The cluster image: newest snapshot + later segments replayed (secrets redacted)"
note "This is the state at the log's last offset, written while the cluster shut down: the brokers'" \
  "last records are their controlled shutdowns, so every broker is fenced and every partition is" \
  "leaderless (leader -1). That is what a stopped cluster looks like, not damage."
run 120 image "$meta"

say "The same image as a table (it fits the terminal; COLUMNS=120 picks a width)"
run 60 image -o table "$meta"

say "Topic and partition-change records, in kafka-dump-log's own format"
note "--type takes Kafka's names (TOPIC_RECORD or TopicRecord) or an apiKey; flags may follow the path."
run 20 log dump "$meta" --type TOPIC_RECORD --type PartitionChangeRecord --records-only

say "Would Kafka allow a metadata.version downgrade to 3.9?"
note "The catalog is the one the source's registered nodes run; exit 1: Kafka would refuse it."
run 0 features check "$meta" --release-version 3.9

say "JSON for pipelines: topics and their partition counts"
"$kmeta" image -o json "$meta" | (command -v jq >/dev/null && jq -c '.topics[] | {name, partitions: (.partitions|length)}' || head -c 600)
echo
say "Done. Try: bin/kmeta --help"
