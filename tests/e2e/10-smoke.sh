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
