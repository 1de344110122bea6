#!/usr/bin/env bash
# Runs go test with the given arguments and prints each package's result,
# the output of failed tests, and "N passed, N failed, N skipped".
# Exits non-zero when go test or any test failed.
#
# A standalone --- separates several go test runs, made one after the other
# and counted together in the one summary line. A run's leading NAME=value
# words are its environment, e.g.
#   testsummary.sh -p 1 ./... --- KMETA_UNIT_ONLY=1 -race ./metalog
#
# A standalone ||| starts a second lane of runs, made at the same time as
# the first: make test runs cmd/kmeta (the longest package by far) in a lane
# of its own, and the other packages and then the race pass in the first,
# so that the race pass uses the core the other packages leave idle while
# cmd/kmeta's last tests run. The first lane's output is streamed; a later
# lane's is kept in a temporary file and passed on once the first is done
# (two go test -json streams written into one pipe could interleave within
# a line).
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

several=0
for a in "$@"; do
  case "$a" in ---|"|||") several=1 ;; esac
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

# lanes runs the lanes (see above) and fails when any run did.
lanes() {
  local rc=0 lane=() first=() pids=() files=() a f i
  # The buffered lanes' files go however the run ends (an interrupt too).
  trap 'rm -f "${files[@]}"' EXIT
  for a in "$@" "|||"; do
    if [ "$a" != "|||" ]; then
      lane+=("$a")
      continue
    fi
    if [ ${#first[@]} -eq 0 ]; then
      first=("${lane[@]}")
    else
      f=$(mktemp "${TMPDIR:-/tmp}/testsummary.XXXXXX")
      runall "${lane[@]}" >"$f" &
      pids+=($!)
      files+=("$f")
    fi
    lane=()
  done
  runall "${first[@]}" || rc=1
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || rc=1
    cat "${files[$i]}"
    rm -f "${files[$i]}"
  done
  return $rc
}

# KMETA_TEST_JSON=FILE keeps the go test -json stream (each test's run,
# pause, cont and pass times: when each started and waited, for finding
# where make test's wall time goes).
lanes "$@" | tee "${KMETA_TEST_JSON:-/dev/null}" | "$GO" run scripts/testsummary.go
st=("${PIPESTATUS[@]}")
if [ "${st[0]}" -ne 0 ] || [ "${st[2]}" -ne 0 ]; then
  exit 1
fi
