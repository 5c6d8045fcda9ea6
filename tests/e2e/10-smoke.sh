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
