#!/usr/bin/env bash
# Runs go test with the given arguments and prints each package's result,
# the output of failed tests, and "N passed, N failed, N skipped".
# Exits non-zero when go test or any test failed.
#
# A standalone --- separates several go test runs, made one after the other
# and counted together in the one summary line. A run's leading NAME=value
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

# runall makes every run and fails when any did.
runall() {
  local rc=0 args=()
  for a in "$@"; do
    if [ "$a" = "---" ]; then
      run "${args[@]}" || rc=1
      args=()
    else
      args+=("$a")
    fi
  done
  run "${args[@]}" || rc=1
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
