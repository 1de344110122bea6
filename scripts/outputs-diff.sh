#!/usr/bin/env bash
# scripts/outputs-diff.sh: build kmeta at a git revision (default: main)
# and from the work tree, run scripts/outputs.sh with each over the same
# inputs, and diff the two runs. Exit 0 when every command's stdout,
# stderr and exit code are byte-identical; else print the diff (exit 1).
# Both binaries are built the same way (no VCS stamp, no -ldflags), so
# that what --version and the HTML reports name is the same.
#
# Usage: scripts/outputs-diff.sh [REV]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-main}
tmp=$(mktemp -d -t kmeta-outputs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
git -C "$root" archive "$rev" | tar -x -C "$tmp/src"
(cd "$tmp/src" && CGO_ENABLED=0 go build -buildvcs=false -trimpath -o "$tmp/old" ./cmd/kmeta) || exit 2
(cd "$root" && CGO_ENABLED=0 go build -buildvcs=false -trimpath -o "$tmp/new" ./cmd/kmeta) || exit 2
"$root/scripts/outputs.sh" "$tmp/old" "$tmp/work" "$tmp/out-old" || exit 2
"$root/scripts/outputs.sh" "$tmp/new" "$tmp/work" "$tmp/out-new" || exit 2
if diff -r "$tmp/out-old" "$tmp/out-new" >"$tmp/diff"; then
  echo "outputs-diff: $(find "$tmp/out-new" -name '*.rc' | wc -l) runs, byte-identical to $rev"
  exit 0
fi
# Name each differing run by its command line.
for f in $(diff -rq "$tmp/out-old" "$tmp/out-new" | awk '{print $2}' | sed 's/\.[a-z]*$//' | sort -u); do
  echo "== $(cat "${f/out-old/out-new}.args" 2>/dev/null || cat "$f.args")"
  for ext in rc out err; do
    diff "$f.$ext" "${f/out-old/out-new}.$ext" | sed "s/^/$ext: /"
  done
done
exit 1
