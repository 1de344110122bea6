#!/usr/bin/env bash
# scripts/outputs.sh: every command over the committed fixtures (and a few
# deterministic damaged copies of them), in every output format, with
# each run's stdout, stderr and exit code written to a directory. Two
# builds' directories compared with diff -r show every byte a change
# moved: scripts/outputs-diff.sh does that for a git revision against
# the work tree.
#
# Usage: scripts/outputs.sh KMETA WORK OUT
#   KMETA  the binary to run
#   WORK   a directory for the damaged inputs and the files commands
#          write; give both builds the same one, so that paths in the
#          outputs are the same (it is emptied first)
#   OUT    where the runs go: OUT/NNNN.{args,out,err,rc}
set -uo pipefail
kmeta=$1 work=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
td=$root/testdata
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd)

k44=$td/kraft/4.4.0/metadata
k39=$td/kraft/3.9.2/metadata
seg=__cluster_metadata-0/00000000000000000086.log
seg0=__cluster_metadata-0/00000000000000000000.log
snap=__cluster_metadata-0/00000000000000000099-0000000001.checkpoint
zkd=$td/zk/datadir
dump=$td/zk/dump.json
dual=$td/zk/migration/dual-write.dump.json

copy() { mkdir -p "$work/$1" && cp -r "$2"/. "$work/$1/" && echo "$work/$1"; }
flip() { # flip one bit in the middle of a file
  local f=$1 size off b
  size=$(stat -c %s "$f"); off=$((size / 2))
  b=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 16)))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# KRaft inputs: the fixtures, every bootstrap fixture, and damaged copies.
kraft=("$k44" "$k39" "$td/features/format-4.4.0" "$root/migrate/testdata/format-4.4.0-initial-controllers/metadata")
for d in "$td"/kraft/bootstrap/*/*/metadata; do kraft+=("$d"); done
d=$(copy seg-crc "$k44"); flip "$d/$seg"; kraft+=("$d")
d=$(copy seg-torn "$k44"); truncate -s -7 "$d/$seg"; kraft+=("$d")
d=$(copy seg0-torn "$k44"); truncate -s -7 "$d/$seg0"; kraft+=("$d")
d=$(copy snap-crc "$k44"); flip "$d/$snap"; kraft+=("$d")
d=$(copy qs "$k44"); printf '{"leaderId":3000,"leaderEpo' >"$d/__cluster_metadata-0/quorum-state"; kraft+=("$d")
d=$(copy mp "$k44"); printf 'version=7\nnode.id=x\n' >"$d/meta.properties"; kraft+=("$d")
d=$(copy mp-cid "$k44"); sed -i 's/^cluster.id=.*/cluster.id=not-a-uuid/' "$d/meta.properties"; kraft+=("$d")
d=$(copy pm "$k44"); printf 'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAg\n' >"$d/__cluster_metadata-0/partition.metadata"; kraft+=("$d")
d=$(copy unknown "$k44"); : >"$d/__cluster_metadata-0/stray.txt"; kraft+=("$d")
d=$(copy boot-crc "$td/kraft/bootstrap/3.9.2/3.9-IV0/metadata"); flip "$d/bootstrap.checkpoint"; kraft+=("$d")
compressed=()
for f in "$td"/compressed/*/*.log; do compressed+=("$f"); done

# ZooKeeper inputs.
zk=("zkdata:$zkd" "zkdump:$dump" "zkdump:$dual")
d=$(copy zksnap "$zkd"); flip "$d/version-2/snapshot.10c"; zk+=("zkdata:$d")
d=$(copy zklog "$zkd"); rm "$d/version-2/snapshot.10c"
python3 -c 'import sys; p=sys.argv[1]; b=open(p,"rb").read(); n=len(b.rstrip(b"\0")); open(p,"wb").write(b[:n-20])' "$d/version-2/log.ea"
zk+=("zkdata:$d")
head -c 2000 "$dump" >"$work/dump-cut.json"; zk+=("zkdump:$work/dump-cut.json")

# A ZooKeeper-mode broker's log dir and server.properties.
b=$work/zk-broker/kafka-logs; mkdir -p "$b"
printf '#\n#Tue Dec 01 09:00:00 UTC 2026\nbroker.id=1\nversion=0\ncluster.id=ToAmJGLdjtzIec30sLZozA\n' >"$b/meta.properties"
for f in cleaner-offset-checkpoint log-start-offset-checkpoint recovery-point-offset-checkpoint replication-offset-checkpoint; do printf '0\n0\n' >"$b/$f"; done
for p in orders-0 orders-1 __consumer_offsets-0 nosuchtopic-0 bad; do mkdir -p "$b/$p"; : >"$b/$p/00000000000000000000.log"; done
sp=$work/server.properties
printf 'broker.id=1\nzookeeper.connect=localhost:2181/kafka\nlisteners=PLAINTEXT://:9092\nlog.dirs=/var/lib/kafka\nauthorizer.class.name=kafka.security.authorizer.AclAuthorizer\ninter.broker.protocol.version=3.9\n' >"$sp"

n=0
run() { # run ARGS... in every format FORMATS (default text table json)
  local formats=${FORMATS:-text table json} f
  for f in $formats; do
    n=$((n + 1))
    local base
    base=$out/$(printf '%04d' "$n")
    local args=("$@" -o "$f")
    [ "$f" = html ] && args+=(--report-time 2026-01-02T15:04:05Z)
    printf '%s\n' "${args[*]}" | sed "s|$work|WORK|g; s|$root|ROOT|g" >"$base.args"
    (cd "$work" && "$kmeta" "${args[@]}" >"$base.out" 2>"$base.err" </dev/null)
    echo $? >"$base.rc"
    sed -i "s|$work|WORK|g; s|$root|ROOT|g" "$base.out" "$base.err"
  done
}

for k in "${kraft[@]}"; do
  FORMATS="text table json html" run image "kraft:$k"
  run log dump "$k"
  run log check "$k"
  run log check --strict "$k"
  FORMATS="text table json html" run log stats "$k"
  run features describe "kraft:$k"
  run features check "kraft:$k" --to 4.4
  run features check "kraft:$k" --to 3.3 --kafka 3.9
  run features check "kraft:$k" --to 34
  run features check "kraft:$k" --to 34 --allow-unstable
  run features check "kraft:$k" --to 3.7
  FORMATS="text table json html" run lint "kraft:$k"
  FORMATS="text table json html" run quorum describe "$k"
  run quorum survey "$k"
done
for f in "${compressed[@]}"; do run log dump "$f"; run log check "$f"; done
run log check "$k44/$snap"
run log check "$k39/bootstrap.checkpoint"
run quorum survey "$k44" "$work/seg-torn" "$work/seg-crc"
run quorum survey "$k39" "$work/snap-crc"
run diff "kraft:$k44@offset=21" "kraft:$k44"
run diff "kraft:$k39" "kraft:$k44"
run quorum rebuild --from "$k44" --controllers 3000@localhost:9093:FQPq8rZ_SRvMWKaXVz9O3g,3001@localhost:9094:DOIvzJBn3ns2RH3CXSzn1w,3002@localhost:9095:luesggQ74cFiSP3ajQNwEQ --out "$work/rebuilt" --dry-run

for z in "${zk[@]}"; do
  FORMATS="text table json html" run image "$z"
  run zk image "$z"
  FORMATS=json run zk dump "$z"
  run features describe "$z"
  run features check "$z" --to 3.9
  FORMATS="text table json html" run lint "$z"
  FORMATS="text table json html" run migrate plan --zk "$z" --controllers 3000@localhost:9093
  run migrate plan --zk "$z" --controllers 3000@localhost:9093 --metadata-version 3.4 --override drop-scram --override drop-delegation-tokens
  run migrate plan --zk "$z" --controllers 3000@localhost:9093 --metadata-version 3.3
  run migrate plan --zk "$z" --controllers 3000@localhost:9093 --metadata-version 3.6 --quorum dynamic
  run migrate plan --zk "$z" --controllers 1@localhost:9093 --cluster-id AAAAAAAAAAAAAAAAAAAAAA --override ignore-migration-znode --override drop-pending-deletions --override keep-reassignments --override copy-encrypted-passwords
  run migrate status --zk "$z"
  run migrate status --zk "$z" --kraft "kraft:$k39"
  run migrate rollback --zk "$z" --dry-run --out "$work/rollback"
  run migrate stage KRaftMigration --zk "$z" --controllers 3000@localhost:9093 --metadata-dir /var/lib/kraft --dry-run --out "$work/stage"
  run migrate stage KRaftMigration --zk "$z" --controllers 1@localhost:9093 --metadata-dir /var/lib/kraft --config "1=$sp" --dry-run --out "$work/stage"
  run migrate stage KRaftDualWriting --zk "$z" --kraft "kraft:$k39" --dry-run --out "$work/stage"
  FORMATS="text table json html" run verify --zk "$z" --kraft "kraft:$k44"
  run verify --zk "$z" --kraft "kraft:$k39" --broker-log-dirs "$b"
  run diff "$z" "zkdump:$dump"
done
run verify --zk "zkdata:$zkd" --kraft "kraft:$k44" --ignore runtime --ignore configs
run diff "zkdump:$dual" "zkdump:$dump"

# Plan files for apply, brokers and configs.
"$kmeta" migrate plan --zk "zkdata:$zkd" --controllers 3000@localhost:9093 --write "$work/blocked-plan.json" >/dev/null 2>&1
"$kmeta" migrate plan --zk "zkdata:$zkd" --controllers 3000@localhost:9093 --write "$work/plan.json" \
  --override drop-pending-deletions --override keep-reassignments --override copy-encrypted-passwords >/dev/null 2>&1
run migrate brokers --plan "$work/blocked-plan.json" --log-dirs "$b" --dry-run
run migrate apply --plan "$work/plan.json" --out "$work/apply" --dry-run
run migrate apply --zk "zkdata:$zkd" --controllers 3000@localhost:9093 --out "$work/apply" --dry-run
run migrate brokers --plan "$work/plan.json" --log-dirs "$b" --dry-run
run migrate brokers --plan "$work/plan.json" --log-dirs "$b" --dry-run --allow-stray
run migrate brokers --plan "$work/plan.json" --log-dirs "$work/nope" --dry-run
run migrate configs --server-properties "$sp" --controllers 3000@localhost:9093
run migrate configs --server-properties "$sp" --controllers 3000@localhost:9093 --role controller --node-id 3000 --metadata-dir /var/lib/kraft
run migrate configs --server-properties "$sp" --plan "$work/plan.json"

run features list
run features list --release 3.9
run features deps metadata.version=21 group.version=1
echo "outputs: $n runs in $out" >&2
