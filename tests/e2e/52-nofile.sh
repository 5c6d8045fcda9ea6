# File descriptors (issue 18): one per event, CPU and thread. A soft
# RLIMIT_NOFILE below that is raised to the hard limit before anything is
# opened; a hard limit below it fails at once with one line giving the count.
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(id -u)" = 0 ] || skip "needs root to raise the hard limit back for the first case"

ncpu=$(getconf _NPROCESSORS_ONLN)
# 31 events on every CPU: more descriptors than a limit of 40 allows.
ev=$(for i in $(seq 30); do printf "cs,"; done; echo cpu-clock)

# Soft 40, hard 4096: recorded, the limit raised by shardrec itself.
(ulimit -Sn 40 && ulimit -Hn 4096 && "$SHARDREC" record -a -e "$ev" -o soft.data -- sleep 0.2) \
	2>soft.err || { cat soft.err; fail "soft limit 40 under hard 4096: record failed"; }
check_perf_file soft.data
# ... and -a's tracking dummy, as perf's
n=$("$PERF" evlist -i soft.data 2>/dev/null | wc -l)
[ "$n" = 32 ] || fail "soft.data has $n events, want 31 and the dummy"
echo "soft 40 / hard 4096: recorded, $n events on $ncpu CPUs"

# Hard 40: one line with the count, exit 1, nothing left behind.
set +e
(ulimit -n 40 && exec "$SHARDREC" record -a -e "$ev" -o hard.data -- true) >hard.out 2>hard.err
rc=$?
set -e
cat hard.err
[ "$rc" = 1 ] || fail "hard limit 40: exit $rc, want 1"
[ "$(wc -l <hard.err)" = 1 ] || fail "hard limit 40: error is not one line"
grep -Eq "needs ([0-9]+) file descriptors \\(32 events x $ncpu CPUs x 1 threads, plus [0-9]+\\), but the hard limit is 40" hard.err ||
	fail "hard limit 40: the error does not give the count"
[ ! -e hard.data ] && [ ! -e hard.data.shards ] || fail "hard limit 40: output left behind"
echo "PASS"
