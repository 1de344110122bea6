#!/usr/bin/env bash
# Runs go test with the given arguments and prints each package's result,
# the output of failed tests, and "N passed, N failed, N skipped".
# Exits non-zero when go test or any test failed.
#
# A standalone --- separates several go test runs: the first streams, the
# later ones run beside it and are printed after it; all are counted
# together in the one summary line. A run's leading NAME=value
# words are its environment, e.g.
#   testsummary.sh -p 1 ./... --- KMETA_UNIT_ONLY=1 -race ./metalog
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

several=0
for a in "$@"; do
  [ "$a" = "---" ] && several=1
done

# run runs one go test (environment words first) into the stream.
run() {
  local env=()
  while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
    env+=("$1")
    shift
  done
  if [ "$several" = 1 ]; then
    # Not JSON: testsummary.go passes it through, so each run's package
    # lines are told apart.
    echo "== ${env[*]:+${env[*]} }go test $*"
  fi
  env "${env[@]}" "$GO" test -json "$@"
}

# runall makes every run and fails when any did. The first run streams;
# the later ones start beside it (make test's race pass needs no JVM and
# would otherwise wait for cmd/kmeta's real-Kafka tests, while the other
# packages are long done), each into a file printed after the first run.
runall() {
  local rc=0 args=() first=() n=0 tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  local -a later=()
  for a in "$@" ---; do
    if [ "$a" = "---" ]; then
      if [ ${#first[@]} -eq 0 ] && [ $n -eq 0 ]; then
        first=("${args[@]}")
      else
        n=$((n + 1))
        ( run "${args[@]}" >"$tmp/$n.out"; echo $? >"$tmp/$n.rc" ) &
        later+=("$n")
      fi
      args=()
    else
      args+=("$a")
    fi
  done
  run "${first[@]}" || rc=1
  wait
  for i in "${later[@]}"; do
    cat "$tmp/$i.out"
    [ "$(cat "$tmp/$i.rc")" = 0 ] || rc=1
  done
  return $rc
}

# KMETA_TEST_JSON=FILE keeps the go test -json stream (each test's run,
# pause, cont and pass times: when each started and waited, for finding
# where make test's wall time goes).
runall "$@" | tee "${KMETA_TEST_JSON:-/dev/null}" | "$GO" run scripts/testsummary.go
st=("${PIPESTATUS[@]}")
if [ "${st[0]}" -ne 0 ] || [ "${st[2]}" -ne 0 ]; then
  exit 1
fi
