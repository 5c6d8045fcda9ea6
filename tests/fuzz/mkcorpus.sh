#!/usr/bin/env bash
# Regenerates the seed corpora in tests/fuzz/corpus/ from real recordings.
# Needs root (or perf_event_paranoid <= 0), perf, and a built shardrec.
# Usage: SHARDREC=build/shardrec PROGS=build/progs tests/fuzz/mkcorpus.sh
# Seeds are kept small (a short, low-frequency recording of one command).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDREC=$(realpath "${SHARDREC:-build/shardrec}")
PROGS=$(realpath "${PROGS:-build/progs}")
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# pack FLAGS DIR > FILE: the fuzz_merge input format (fuzz_merge.c).
pack() {
	python3 - "$1" "$2" <<'PY'
import os, struct, sys
flags, d = int(sys.argv[1]), sys.argv[2]
kinds = {"header.data": 0, "shard.0": 1, "shard.1": 2, "shard.2": 3, "shard.3": 4, "tail.raw": 5}
b = bytes([flags])
for name, k in kinds.items():
    p = os.path.join(d, name)
    if os.path.exists(p):
        data = open(p, "rb").read()
        b += bytes([k]) + struct.pack("<I", len(data)) + data
sys.stdout.buffer.write(b)
PY
}

mkdir -p "$out"/{fuzz_pfile,fuzz_shard,fuzz_zpass,fuzz_merge}
# Two writers, plain and compressed; samples, COMM/MMAP, LOST_SAMPLES in tail.raw.
"$SHARDREC" record -q -B -F 300 --sample-cpu --threads=cpu --keep-shards -o p.data -- "$PROGS/hot" 200 2
"$SHARDREC" record -q -B -F 300 --threads=cpu --keep-shards -z -o z.data -- "$PROGS/hot" 200 2
perf record -q -F 300 -z -o perfz.data -- "$PROGS/hot" 40 1 2>/dev/null
cp p.data "$out/fuzz_pfile/shardrec-plain"
cp z.data "$out/fuzz_pfile/shardrec-z"
cp perfz.data "$out/fuzz_pfile/perf-z"
biggest() { ls -S "$1"/shard.* | head -n 1; }
cp "$(biggest p.data.shards)" "$out/fuzz_shard/plain.shard"
cp "$(biggest z.data.shards)" "$out/fuzz_shard/z.shard"
# A ZPASS payload alone: skip the shard header (64) and the ZPASS record (40),
# prefixed by the two bytes of output capacity fuzz_zpass reads.
{ printf '\xff\x7f'; tail -c +105 "$(biggest z.data.shards)" | head -c 65536; } >"$out/fuzz_zpass/pass"
pack 1 p.data.shards >"$out/fuzz_merge/plain"
pack 1 z.data.shards >"$out/fuzz_merge/z"
pack 3 z.data.shards >"$out/fuzz_merge/z-decompress"
# Feature-section strings as perf 6.1 rejects them (issue 33 item 4): a NUMA
# node's CPU list with its NUL changed, a socket id above the CPU count.
for m in numa-cpu-list-nul:NUMA.node0.cpus:nul cpu-topology-socket-id:CPU_TOPOLOGY.socket0:big; do
	rm -rf m.shards && cp -r z.data.shards m.shards
	read -r _ off hex < <(python3 "$here/../e2e/featmut.py" m.shards/header.data | grep "^${m#*:} ")
	python3 "$here/../e2e/featmut.py" --apply m.shards/header.data "$off" "$hex"
	pack 0 m.shards >"$out/fuzz_merge/${m%%:*}"
	pack 1 m.shards >"$out/fuzz_merge/${m%%:*}-recover"
done
du -sh "$out"
