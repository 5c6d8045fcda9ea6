# Feature sections the merge lets through, perf must read (issue 33 item 4).
# perf 6.1 drops a feature section it cannot parse and every later one, and
# in a -z file that takes HEADER_COMPRESSED with it: perf script then fails
# on the first COMPRESSED record. featmut.py lists mutations of every string,
# string length, count and id of a kept -z header.data (a NUMA node's CPU
# list with its NUL changed, a socket id above the CPU count, ...); each is
# merged alone, and a merge that exits 0 must leave a file perf script and
# perf report --header-only read without a word. The merge may refuse more
# than perf does, never less.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
need_perf_event
command -v python3 >/dev/null || skip "python3 not installed"

"$SHARDREC" record -q -z --keep-shards -e cpu-clock -o k.data -- "$PROGS/hot" 200 1 ||
	fail "record failed"
hdr=k.data.shards/header.data
mkdir hdrs
python3 "$here/featmut.py" --write-all "$hdr" hdrs >muts
nr=$(wc -l <muts)
[ "$nr" -ge 40 ] || fail "only $nr mutations: featmut.py no longer finds the sections"
grep -q '^NUMA.node0.cpus:nul ' muts || fail "no NUMA_TOPOLOGY CPU list to mutate"
grep -q '^CPU_TOPOLOGY.socket0:big ' muts || fail "no CPU_TOPOLOGY socket id to mutate"

# one_case N LABEL: merges mutation N in a directory of its own (the shards
# hard-linked) and prints "N refused", "N read" or "N FAIL why".
one_case() {
	local n=$1 label=$2 d=c$1 cmd
	mkdir "$d" && ln k.data.shards/shard.* k.data.shards/tail.raw "$d"/ && cp "hdrs/$n.data" "$d/header.data"
	if ! "$SHARDREC" merge -q "$d" -o "$d.data" 2>"$d.merge"; then
		grep -q "damaged feature section" "$d.merge" && echo "$n refused" ||
			echo "$n FAIL $label: the merge failed for another reason: $(head -1 "$d.merge")"
		return
	fi
	for cmd in "script" "report --header-only -I"; do
		# shellcheck disable=SC2086 # $cmd is a perf command and its flags
		if ! "$PERF" $cmd -i "$d.data" >/dev/null 2>"$d.perf" || [ -s "$d.perf" ]; then
			echo "$n FAIL $label: the merge exited 0 but perf $cmd cannot read the file: $(head -1 "$d.perf")"
			return
		fi
	done
	echo "$n read"
}
export -f one_case
export SHARDREC PERF
# Two at a time: each is a merge and two short perf runs.
awk '{ print NR - 1, $1 }' muts | xargs -P 2 -n 2 bash -c 'one_case "$@"' _ >results
[ "$(wc -l <results)" = "$nr" ] || fail "only $(wc -l <results) of $nr mutations ran"
! grep FAIL results || fail "$(grep -c FAIL results) mutations merged into files perf cannot read"
refused=$(grep -c refused results || true)
read=$(grep -c ' read$' results || true)
# The issue's two cases must be refused, not only read by luck.
for label in NUMA.node0.cpus:nul CPU_TOPOLOGY.socket0:big; do
	n=$(awk -v l="$label" '$1 == l { print NR - 1 }' muts)
	grep -q "^$n refused$" results || fail "$label: merged"
done
echo "features: $nr mutations: $refused refused by the merge, $read merged and read by perf"
