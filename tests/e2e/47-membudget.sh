# A -m too large for the locked-memory budget fails before any event is
# opened, with one line saying which -m fits. Root has CAP_IPC_LOCK, so the
# test drops to nobody with a small RLIMIT_MEMLOCK (setpriv).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to become nobody"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
ncpu=$(nproc)
chmod 0777 "$TMP"

as_nobody() {
	(ulimit -l 64 && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$@")
}

# 2^20 pages (4 GiB per CPU) never fits perf_event_mlock_kb + 64 KiB
if as_nobody "$SHARDREC" record -m 1048576 -e cpu-clock:u -o "$TMP/x.data" -- true 2>err.txt; then
	fail "-m 1048576 as nobody succeeded"
fi
cat err.txt
[ "$(wc -l <err.txt)" = 1 ] || fail "the budget error is not one line"
grep -q "^shardrec: error: -m 1048576 needs 4.0 GiB of locked memory per CPU" err.txt ||
	fail "the error does not say what -m needs"
grep -Eq "use -m [0-9]+ or less|nothing fits" err.txt || fail "the error does not say what fits"
grep -q "perf_event_mlock_kb=$kb " err.txt || fail "the error does not name perf_event_mlock_kb"
[ ! -e x.data ] && [ ! -e x.data.shards ] || fail "the error left files behind"

# The -m it proposes works, if nobody may profile its own processes at all
fit=$(sed -n 's/.*use -m \([0-9]*\) or less.*/\1/p' err.txt)
[ -n "$fit" ] || exit 0
p=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$p" -le 2 ] || skip "perf_event_paranoid=$p: nobody cannot profile (budget error checked)"
as_nobody "$SHARDREC" record -q -m "$fit" -e cpu-clock:u -o "$TMP/y.data" -- "$PROGS/hot" 100 1 \
	2>err2.txt || { cat err2.txt; fail "-m $fit ($ncpu CPUs) as nobody failed"; }
[ -s y.data ] || fail "-m $fit wrote no perf.data"
exit 0
