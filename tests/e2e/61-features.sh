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
cp "$hdr" header.orig
python3 "$here/featmut.py" header.orig >muts
nr=$(wc -l <muts)
[ "$nr" -ge 40 ] || fail "only $nr mutations: featmut.py no longer finds the sections"
grep -q '^NUMA.node0.cpus:nul ' muts || fail "no NUMA_TOPOLOGY CPU list to mutate"
grep -q '^CPU_TOPOLOGY.socket0:big ' muts || fail "no CPU_TOPOLOGY socket id to mutate"

refused=0 read=0
while read -r label off hex; do
	cp header.orig "$hdr"
	python3 "$here/featmut.py" --apply "$hdr" "$off" "$hex"
	rm -f o.data
	if ! "$SHARDREC" merge -q k.data.shards -o o.data 2>merge.err; then
		grep -q "damaged feature section" merge.err || {
			cat merge.err >&2
			fail "$label: the merge failed for another reason"
		}
		refused=$((refused + 1))
		continue
	fi
	for cmd in "script" "report --header-only -I"; do
		# shellcheck disable=SC2086 # $cmd is a perf command and its flags
		if ! "$PERF" $cmd -i o.data >/dev/null 2>perf.err || [ -s perf.err ]; then
			head -3 perf.err >&2
			fail "$label: the merge exited 0 but perf $cmd cannot read the file"
		fi
	done
	read=$((read + 1))
done <muts
# The issue's two cases must be refused, not only read by luck.
for label in NUMA.node0.cpus:nul CPU_TOPOLOGY.socket0:big; do
	read -r _ off hex < <(grep "^$label " muts)
	cp header.orig "$hdr"
	python3 "$here/featmut.py" --apply "$hdr" "$off" "$hex"
	! "$SHARDREC" merge -q k.data.shards -o o2.data 2>/dev/null || fail "$label: merged"
done
echo "features: $nr mutations: $refused refused by the merge, $read merged and read by perf"
