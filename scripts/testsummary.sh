#!/usr/bin/env bash
# Runs go test with the given arguments and prints each package's result,
# the output of failed tests, and "N passed, N failed, N skipped".
# Exits non-zero when go test or any test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
"$GO" test -json "$@" | "$GO" run scripts/testsummary.go
st=("${PIPESTATUS[@]}")
if [ "${st[0]}" -ne 0 ] || [ "${st[1]}" -ne 0 ]; then
  exit 1
fi
