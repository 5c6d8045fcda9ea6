# perf's own shell tests with shardrec in perf's place: tests/perfshim/perf
# first on PATH runs `shardrec record` for `perf record` (and the real perf
# for everything else), then perf's scripts run unmodified: pipe_test.sh
# (record -o - into perf report, perf inject -b) and
# record+zstd_comp_decomp.sh (-z, decompressed by perf inject). They exit
# 0 pass, 2 skip, else fail. The shim logs each recording it checked to be
# shardrec's: every `perf record` of a script must be there, so the test
# cannot pass on the real perf record.
. "$(dirname "$0")/lib.sh"
need_perf_event
dir=/usr/lib/perf-core/tests/shell
shim=$(cd "$(dirname "$0")/../perfshim" && pwd)
REAL_PERF=$(command -v "$PERF")
export SHARDREC REAL_PERF PERF_SHIM_LOG=$TMP/shim.log
ran=0

# perftest SCRIPT RECORDS: SCRIPT passes with shardrec making its RECORDS recordings.
perftest() {
	local t=$1 want=$2 rc=0 ok
	[ -f "$dir/$t" ] || { echo "$t: not installed"; return 0; }
	: >"$PERF_SHIM_LOG"
	PATH=$shim:$PATH sh "$dir/$t" >"$t.out" 2>&1 || rc=$?
	[ "$rc" = 2 ] && { echo "$t: skipped by perf's script"; return 0; }
	[ "$rc" = 0 ] || { tail -30 "$t.out"; fail "$t: exit $rc"; }
	ok=$(grep -c '^record ok ' "$PERF_SHIM_LOG" || true)
	! grep -q '^record FAIL' "$PERF_SHIM_LOG" && [ "$ok" = "$want" ] ||
		{ cat "$PERF_SHIM_LOG"; fail "$t: $ok of $want recordings were shardrec's"; }
	echo "$t: passed, $ok recordings by shardrec"
	ran=$((ran + 1))
}

perftest pipe_test.sh 4
perftest record+zstd_comp_decomp.sh 1
[ "$ran" -gt 0 ] || skip "perf's shell tests not installed (linux-perf's $dir)"
