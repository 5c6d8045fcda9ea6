# Record a command, check the file with every perf reader and the summary against perf.
. "$(dirname "$0")/lib.sh"
need_perf_event
"$SHARDREC" record -o out.data -- "$PROGS/hot" 300 2 2>rec.err || { cat rec.err; fail "record failed"; }
cat rec.err
[ -f out.data ] || fail "no output"
[ ! -e out.data.shards ] || fail "shards not removed after merge"
check_perf_file out.data
s=$(summary_samples rec.err)
p=$(perf_samples out.data)
[ -n "$s" ] && [ "$s" -gt 100 ] || fail "too few samples in summary: '$s'"
[ "$s" = "$p" ] || fail "summary says $s samples, perf report --stats says $p"
echo "samples: $s"

# The threaded path: system-wide, one writer per CPU (what the TSan build must see).
"$SHARDREC" record -a --threads=cpu -o all.data -- "$PROGS/hot" 300 2 2>rec2.err || { cat rec2.err; fail "record -a --threads=cpu failed"; }
check_perf_file all.data
s=$(summary_samples rec2.err)
p=$(perf_samples all.data)
[ "$s" = "$p" ] || fail "-a: summary says $s samples, perf report --stats says $p"

# PMU_MAPPINGS and CACHE: what perf report prints for them must be what it
# prints for perf record's own file on this machine (header.c
# print_pmu_mappings(), print_cache(); -I shows the cache block).
pmu_cache_lines() {
	perf_clean "report --header-only -I" report --header-only -I -i "$1"
	awk '/^# pmu mappings:/ { print; next }
		/^# CPU cache info:/ { c = 1; print; next }
		c && /^#  / { print; next } { c = 0 }' "$TMP/perf.out"
}
"$PERF" record -q -o perf.data -- true >/dev/null 2>&1 || fail "perf record failed"
pmu_cache_lines out.data >ours.hdr
pmu_cache_lines perf.data >perf.hdr
grep -q '^# pmu mappings: ' ours.hdr || fail "no pmu mappings in shardrec's header"
grep -q '^# CPU cache info:' ours.hdr || fail "no CPU cache info in shardrec's header"
diff -u perf.hdr ours.hdr || fail "pmu mappings / CPU cache info differ from perf record's"

# VERSION, CLOCKID and CLOCK_DATA as perf 6.1 writes them with the same -k:
# a version readers parse as perf's (6.1.N, shardrec's own after it), the
# clock's resolution and name, and the TOD/clock reference pair.
clock_lines() {
	perf_clean "report --header-only" report --header-only -i "$1"
	grep -E '^# (perf version|clockid frequency|clockid|reference time)' "$TMP/perf.out" |
		sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ \(shardrec [N.]+\)$//'
}
for k in mono boot; do
	"$PERF" record -q -k $k -o perfk.data -- true >/dev/null 2>&1 || fail "perf record -k $k failed"
	"$SHARDREC" record -q -k $k -o oursk.data -- true || fail "shardrec record -k $k failed"
	clock_lines perfk.data >perfk.hdr
	clock_lines oursk.data >oursk.hdr
	[ "$(wc -l <perfk.hdr)" = 4 ] || { cat perfk.hdr; fail "perf -k $k: expected 4 clock/version lines"; }
	diff -u perfk.hdr oursk.hdr || fail "-k $k: version/clock header lines differ from perf's"
done
perf_clean "report --header-only" report --header-only -i oursk.data
grep -qE '^# perf version : 6\.1\.[0-9]+ \(shardrec [0-9.]+\)$' "$TMP/perf.out" ||
	fail "HEADER_VERSION is not a perf 6.1 version: $(grep 'perf version' "$TMP/perf.out")"

# MEM_TOPOLOGY, BPF_PROG_INFO, BPF_BTF, CPU_PMU_CAPS and PMU_CAPS as perf 6.1
# writes them: -I prints the memory nodes (print_mem_topology()) and PMU
# capabilities as for perf's own file, and the same features are missing
# (compared with a -k file: shardrec always records a clockid).
feat_lines() {
	perf_clean "report --header-only -I" report --header-only -I -i "$1"
	awk '/^# memory nodes \(/ { m = 1; print; next }
		m && /^#  +[0-9]+ \[/ { print; next } { m = 0 }
		/^# .* pmu capabilities: / || /^# missing features: / { print }' "$TMP/perf.out"
}
"$PERF" record -q -k mono -o perfm.data -- true >/dev/null 2>&1 || fail "perf record -k mono failed"
"$SHARDREC" record -q -k mono -o oursm.data -- true || fail "shardrec record -k mono failed"
feat_lines perfm.data >perfm.hdr
feat_lines oursm.data >oursm.hdr
grep -q '^# missing features: ' perfm.hdr || { cat perfm.hdr; fail "no missing features line for perf's file"; }
if [ -r /sys/devices/system/memory/block_size_bytes ]; then
	grep -q '^# memory nodes (nr ' oursm.hdr || fail "no memory nodes in shardrec's header"
fi
diff -u perfm.hdr oursm.hdr || fail "memory nodes / pmu capabilities / missing features differ from perf record's"
