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
