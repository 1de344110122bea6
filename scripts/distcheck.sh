#!/usr/bin/env bash
# make dist-check: make dist is reproducible, and what it ships runs.
#
#  1. make dist here (DIST=dist, the usual build cache);
#  2. make dist again from a fresh clone of the same commit at another
#     path, with an empty build cache (GOCACHE), into a second directory;
#  3. both SHA256SUMS and every archive must be byte-identical, and
#     sha256sum -c must accept the list;
#  4. the linux/amd64 archive, unpacked, holds exactly kmeta, README.md,
#     LICENSE and kmeta.1, and its kmeta runs --version (which must name
#     the commit) and image on a committed real-Kafka fixture, printing the
#     same JSON as a binary built by go build here.
#
# It needs a clean tree: a clone has only what is committed, and a dirty
# tree's version says -dirty. Exit 0 when all holds, 1 when something
# differs or fails, 2 when it cannot run.
set -euo pipefail
GO=${GO:-go}
root=$(git rev-parse --show-toplevel)
cd "$root"
if [ -n "$(git status --porcelain)" ]; then
  echo "dist-check: the tree has uncommitted changes or untracked files; commit them (or stash) first" >&2
  git status --short >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# HEAD as it is now: a commit made while this runs changes nothing below.
head=$(git rev-parse HEAD)
short=$(git rev-parse --short=12 "$head")
start=$SECONDS

echo "== make dist (this checkout, the usual build cache)"
make --no-print-directory dist GO="$GO" DIST=dist
first=$SECONDS

echo "== make dist (a fresh clone at $tmp/src, an empty build cache)"
git clone -q "$root" "$tmp/src"
git -C "$tmp/src" checkout -q --detach "$head"
(cd "$tmp/src" && GOCACHE="$tmp/gocache" make --no-print-directory dist GO="$GO" DIST="$tmp/dist")
second=$SECONDS

fail=0
if ! diff -u dist/SHA256SUMS "$tmp/dist/SHA256SUMS"; then
  echo "dist-check: SHA256SUMS differ between the two builds" >&2
  fail=1
fi
n=0
for f in dist/*; do
  n=$((n + 1))
  cmp -s "$f" "$tmp/dist/$(basename "$f")" || { echo "dist-check: $(basename "$f") differs" >&2; fail=1; }
done
(cd dist && sha256sum --quiet -c SHA256SUMS) || fail=1
[ "$n" -eq 6 ] || { echo "dist-check: dist/ holds $n files, want 5 archives and SHA256SUMS" >&2; fail=1; }

if [ "$("$GO" env GOHOSTOS)/$("$GO" env GOHOSTARCH)" = linux/amd64 ]; then
  echo "== the linux/amd64 archive"
  archive=$(ls dist/kmeta_*_linux_amd64.tar.gz)
  mkdir "$tmp/x"
  tar -xzf "$archive" -C "$tmp/x"
  dir=$tmp/x/$(basename "$archive" .tar.gz)
  got=$(cd "$tmp/x" && find . | LC_ALL=C sort | tr '\n' ' ')
  want=". ./$(basename "$dir") ./$(basename "$dir")/LICENSE ./$(basename "$dir")/README.md ./$(basename "$dir")/kmeta ./$(basename "$dir")/kmeta.1 "
  [ "$got" = "$want" ] || { echo "dist-check: the archive holds $got, want $want" >&2; fail=1; }
  version=$("$dir/kmeta" --version) || { echo "dist-check: kmeta --version failed" >&2; fail=1; }
  echo "$version"
  case $version in
  *"(commit $short,"*) ;;
  *) echo "dist-check: --version does not name commit $short" >&2; fail=1 ;;
  esac
  fixture=kraft:testdata/kraft/4.4.0/metadata/__cluster_metadata-0
  "$dir/kmeta" image "$fixture" >"$tmp/released.txt" || { echo "dist-check: kmeta image $fixture failed" >&2; fail=1; }
  sed -n 1,3p "$tmp/released.txt"
  "$dir/kmeta" image -o json "$fixture" >"$tmp/released.json" || fail=1
  CGO_ENABLED=0 "$GO" build -o "$tmp/kmeta-dev" ./cmd/kmeta
  "$tmp/kmeta-dev" image -o json "$fixture" >"$tmp/dev.json"
  cmp -s "$tmp/released.json" "$tmp/dev.json" || { echo "dist-check: the released kmeta's image of $fixture differs from go build's" >&2; fail=1; }
else
  echo "== not on linux/amd64: the released binary is not run"
fi

echo "== make dist: $((first - start)) s; from a fresh clone with an empty cache: $((second - first)) s"
if [ "$fail" -ne 0 ]; then
  echo "dist-check: FAILED" >&2
  exit 1
fi
echo "dist-check: reproducible ($n files byte-identical), and the linux/amd64 binary runs"
