# A shard directory moved away and replaced during a run (issue 20, item 2):
# the recorder merges the directory it created (its fd), not whatever now
# has that name, and leaves the newcomer alone. Before, the output held the
# other directory's data and the real shards were deleted.
. "$(dirname "$0")/lib.sh"
need_perf_event

"$SHARDREC" record -q -e cpu-clock --keep-shards -o other.data -- "$PROGS/cpuwork" 50 1 >/dev/null 2>&1
rm -f other.data
[ -f other.data.shards/shard.0 ] || fail "no shards kept for the decoy"
sum_before=$(cat other.data.shards/* | md5sum)

"$SHARDREC" record -e cpu-clock -o o.data -- "$PROGS/hot" 1500 >/dev/null 2>rec.err &
rec=$!
for i in $(seq 50); do [ -d o.data.shards ] && [ -f o.data.shards/shard.0 ] && break; sleep 0.1; done
sleep 0.3
mv o.data.shards moved
cp -r other.data.shards o.data.shards
wait $rec || { cat rec.err; fail "record failed after the swap"; }
cat rec.err
grep -q "was replaced during the run" rec.err || fail "no word about the replaced directory"
check_perf_file o.data
comms=$("$PERF" script -i o.data -F comm 2>/dev/null | awk "{ print \$1 }" | sort -u | tr "\n" " ")
echo "o.data samples from: $comms"
[ "$comms" = "hot " ] || fail "o.data holds another recording's samples: $comms"
[ "$(cat o.data.shards/* | md5sum)" = "$sum_before" ] || fail "the directory put in place was changed"
echo PASS
