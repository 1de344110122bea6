#!/usr/bin/env bash
# scripts/contract.sh: run the committed fixtures and one damaged copy of
# each kind through every command in every output format with the built
# binary, and print a Markdown table: input × command × format → exit code
# and the first stderr line. It also checks the README's contract on every
# row and exits 1 when one breaks it:
#   - the exit code is 0, 1 or 2, and nothing panics;
#   - exit 2 prints no result on stdout;
#   - exit 0 carries no warning other than a torn tail of the active
#     segment (a crash's leftover) or a detected chroot (not partial);
#   - every warning line has the form "kmeta: warning: CODE: ...".
# Usage: make build && scripts/contract.sh [> table.md]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kmeta=${KMETA:-$root/bin/kmeta}
[ -x "$kmeta" ] || { echo "contract: build first (make build)" >&2; exit 2; }
work=$(mktemp -d -t kmeta-contract.XXXXXX)
trap 'rm -rf "$work"' EXIT
td=$root/testdata
k44=$td/kraft/4.4.0/metadata
seg=__cluster_metadata-0/00000000000000000086.log
snap=__cluster_metadata-0/00000000000000000099-0000000001.checkpoint

copy() { mkdir -p "$work/$1" && cp -r "$2"/. "$work/$1/" && echo "$work/$1"; }
flip() { # flip one bit in the middle of a file
  local f=$1 size off b
  size=$(stat -c %s "$f"); off=$((size / 2))
  b=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 16)))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# Inputs: name and path.
inputs=()
add() { inputs+=("$1=$2"); }
add "kraft-4.4.0 dir" "$k44"
add "kraft-3.9.2 dir" "$td/kraft/3.9.2/metadata"
add "snapshot file" "$k44/$snap"
add "bootstrap file" "$td/kraft/3.9.2/metadata/bootstrap.checkpoint"
add "zk data dir" "$td/zk/datadir"
add "zk dump file" "$td/zk/dump.json"

d=$(copy seg-crc "$k44"); flip "$d/$seg"; add "damaged segment (CRC)" "$d"
d=$(copy seg-torn "$k44"); truncate -s -7 "$d/$seg"; add "torn tail (active segment)" "$d"
d=$(copy snap-crc "$k44"); flip "$d/$snap"; add "damaged snapshot (CRC)" "$d/$snap"
mkdir -p "$work/boot"; cp "$td/kraft/3.9.2/metadata/bootstrap.checkpoint" "$work/boot/"; flip "$work/boot/bootstrap.checkpoint"
add "damaged bootstrap (CRC)" "$work/boot/bootstrap.checkpoint"
d=$(copy qs "$k44"); printf '{"leaderId":3000,"leaderEpo' >"$d/__cluster_metadata-0/quorum-state"; add "damaged quorum-state" "$d"
d=$(copy mp "$k44"); printf 'version=7\nnode.id=x\n' >"$d/meta.properties"; add "damaged meta.properties" "$d"
d=$(copy zksnap "$td/zk/datadir"); newest=$(ls "$d/version-2"/snapshot.* | sort -t. -k2 | tail -1); flip "$newest"; add "damaged zk snapshot" "$d"
# The newest snapshot is removed so that the last log is needed, and that
# log is cut 20 bytes before the end of its data (ZooKeeper preallocates
# log files with zeros).
d=$(copy zklog "$td/zk/datadir"); rm "$d/version-2/snapshot.10c"
python3 -c 'import sys; p=sys.argv[1]; b=open(p,"rb").read(); n=len(b.rstrip(b"\0")); open(p,"wb").write(b[:n-20])' "$d/version-2/log.ea"
add "damaged zk txn log" "$d"
head -c 2000 "$td/zk/dump.json" >"$work/dump-cut.json"; add "damaged dump file" "$work/dump-cut.json"
b=$work/zk-broker/kafka-logs; mkdir -p "$b"
printf '#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=1\nversion=0\ncluster.id=ToAmJGLdjtzIec30sLZozA\n' >"$b/meta.properties"
for f in cleaner-offset-checkpoint log-start-offset-checkpoint recovery-point-offset-checkpoint replication-offset-checkpoint; do printf '0\n0\n' >"$b/$f"; done
for p in orders-0 orders-1 __consumer_offsets-0; do mkdir -p "$b/$p"; : >"$b/$p/00000000000000000000.log"; done
add "ZK-mode broker dir" "$b"

commands=("image" "log dump" "log check" "log stats" "zk image" "zk dump" "features describe" "features check --to 4.4")
formats=(text table json)
broken=0
echo "| input | command | text | table | json | first stderr line |"
echo "|---|---|---|---|---|---|"
for in in "${inputs[@]}"; do
  name=${in%%=*}; path=${in#*=}
  for cmd in "${commands[@]}"; do
    codes=(); first=""
    for f in "${formats[@]}"; do
      # shellcheck disable=SC2086
      "$kmeta" $cmd "$path" -o "$f" >"$work/out" 2>"$work/err"
      rc=$?
      codes+=("$rc")
      # The first stderr line of the JSON run (zk dump refuses text and table).
      [ "$f" = json ] && first=$(head -1 "$work/err" | sed "s|$work|WORK|g; s|$root/||g" | cut -c1-110)
      why=""
      case $rc in 0|1|2) ;; *) why="exit $rc" ;; esac
      grep -q "panic\|goroutine " "$work/err" && why="panic"
      [ "$rc" = 2 ] && [ -s "$work/out" ] && why="exit 2 with a result on stdout"
      if [ "$rc" = 0 ] && grep "kmeta: warning: " "$work/err" | grep -qv "warning: torn-tail: \|warning: chroot-detected: "; then
        why="exit 0 resting on a partial result"
      fi
      if grep "warning:" "$work/err" | grep -qv "^kmeta: warning: [a-z-]*: "; then why="warning not in the one form"; fi
      if [ -n "$why" ]; then
        broken=$((broken + 1))
        echo "contract broken: $name / $cmd / -o $f: $why" >&2
      fi
    done
    first=${first//|/\\|}
    echo "| $name | \`$cmd\` | ${codes[0]} | ${codes[1]} | ${codes[2]} | ${first:-} |"
  done
done
echo
echo "$broken row(s) break the contract" >&2
[ "$broken" = 0 ]
