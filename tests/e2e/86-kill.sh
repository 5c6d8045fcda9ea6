# SIGKILL at any moment (GitHub issue 10). KILL_RUNS (default 20) recordings,
# plain and -z in turn, are killed after a random 0..1.3 s (the command runs 1 s): during startup,
# recording or the final merge. `shardrec merge --recover` must then give a
# file perf reads without warnings (lost-sample notes aside), or say clearly
# that nothing was recorded yet. Then a merge killed at random points must
# leave the shards intact, and a re-run must succeed and clean up.
. "$(dirname "$0")/lib.sh"
need_perf_event
export ALLOW_LOSS_WARNING=1
RUNS=${KILL_RUNS:-20}

# The readers' checks, for a file that may legitimately hold no sample.
check_recovered() {
	perf_clean "report --stats" report --stats -i "$1"
	! grep -qi "out of order" "$TMP/perf.out" || fail "$1: out of order events"
	perf_clean script script -i "$1"
	check_monotonic "$TMP/perf.out"
}

declare -A seen
for i in $(seq "$RUNS"); do
	rm -rf k.data k.data.shards k.data.partial k.data.old r.data r.data.old
	z=""
	[ $((i % 2)) = 0 ] && z=-z
	ms=$((RANDOM % 1300))
	"$SHARDREC" record -q $z --threads=cpu -c 100000 -o k.data -- "$PROGS/hot" 1000 2 2>/dev/null &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	if [ ! -d k.data.shards ]; then
		# Not started yet, or finished (its output complete, shards removed).
		what=$([ -f k.data ] && echo finished || echo early)
		[ "$what" = early ] || check_recovered k.data
	elif "$SHARDREC" merge --recover k.data.shards -o r.data 2>merge.err; then
		what=recovered
		check_recovered r.data
	else
		cat merge.err
		grep -q "nothing to merge" merge.err || fail "run $i (killed at $ms ms): merge --recover failed unclearly"
		[ -f k.data.shards/header.data ] && [ "$(head -c 8 k.data.shards/header.data)" = PERFILE2 ] &&
			fail "run $i: complete header.data, yet nothing merged"
		what=nothing
	fi
	[ ! -e r.data.partial ] || fail "run $i: merge left r.data.partial"
	seen[$what]=$((${seen[$what]:-0} + 1))
	echo "run $i: $z killed at $ms ms: $what"
done
echo "outcomes: $(for k in "${!seen[@]}"; do printf '%s=%s ' "$k" "${seen[$k]}"; done)"
[ "${seen[recovered]:-0}" -gt 0 ] || fail "no run was killed while recording: the test proves nothing"

# ---- a killed merge never destroys the shards; a re-run succeeds ----
"$SHARDREC" record -q -a -c 20000 --keep-shards -o big.data -- "$PROGS/hot" 1500 2 ||
	fail "recording for the merge kills failed"
sum() { (cd big.data.shards && md5sum header.data shard.* $(ls tail.raw 2>/dev/null)); }
sum >before.md5
start=$(date +%s%N)
"$SHARDREC" merge -q big.data.shards -o ref.data || fail "reference merge failed"
mms=$((($(date +%s%N) - start) / 1000000))
echo "reference merge: $mms ms"
killed=0
for i in 1 2 3 4 5; do
	ms=$((RANDOM % (mms + 1)))
	"$SHARDREC" merge -q big.data.shards -o m.data &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -9 $pid 2>/dev/null && killed=$((killed + 1))
	wait $pid 2>/dev/null || true
	sum | cmp -s - before.md5 || fail "merge killed at $ms ms changed the shards"
	# The output is complete or absent, never half-written.
	[ ! -e m.data ] || cmp -s m.data ref.data || fail "merge killed at $ms ms left a partial m.data"
	rm -f m.data m.data.old
done
echo "$killed of 5 merges killed before they finished"
[ -e m.data.partial ] || echo "(no stale m.data.partial left by the last kill)"
"$SHARDREC" merge -q big.data.shards -o m.data || fail "merge after the kills failed"
[ ! -e m.data.partial ] || fail "stale m.data.partial not cleaned up"
cmp -s m.data ref.data || fail "merge after the kills differs from the reference merge"
check_perf_file m.data

# ---- a kill inside a rotation's switch strands nothing (issue 33 item 2) ----
# The writers record into generation 2 while the recorder still works on the
# switch; SHARDREC_FAULT kills it there, 300 ms after generation 1 went to
# the background merge. Generation 2 was then a shard directory without a
# header.data, which merge --recover refused ("the recorder stopped before
# recording began"): every record in it was lost.
rc=0
SHARDREC_FAULT=switch:2:kill:300 "$SHARDREC" record -q -a --threads=cpu -F 10000 \
	--switch-output=20K -o rot.data -- "$PROGS/hot" 3000 2 2>rot.err || rc=$?
[ "$rc" = 137 ] || { cat rot.err; fail "the fault did not kill the recorder in the switch (exit $rc)"; }
[ -d rot.data.shards/2 ] && ls rot.data.shards/2/shard.* >/dev/null 2>&1 ||
	fail "no generation 2 with shards: the fault fired elsewhere"
"$SHARDREC" merge --recover rot.data.shards/2 -o rot2.data 2>rec.err || {
	cat rec.err
	fail "merge --recover of the generation the writers had moved to failed"
}
n=$(perf_samples rot2.data)
echo "killed in the switch to generation 2: recovered $n samples of it"
[ "$n" -gt 0 ] || fail "generation 2 recovered with no sample"
check_recovered rot2.data
# The top directory names its generations instead of "nothing to merge".
rc=0
"$SHARDREC" merge --recover rot.data.shards -o top.data 2>top.err || rc=$?
cat top.err
[ "$rc" != 0 ] && grep -q "generations of a rotated recording (.*2).*merge each" top.err ||
	fail "merge of a rotated run's top directory does not say to merge each generation"
# It names the lowest generations, whatever order the directory lists them
# in (ext4 lists by hash): among 39, those from 2 to 9.
for g in $(seq 3 40); do
	mkdir rot.data.shards/$g && : >rot.data.shards/$g/header.data
done
rc=0
"$SHARDREC" merge rot.data.shards -o top.data 2>top.err || rc=$?
cat top.err
[ "$rc" != 0 ] && grep -q "generations of a rotated recording (2 3 4 5 6 7 8 9 \.\.\.)" top.err ||
	fail "merge of the top directory of 39 generations does not name the lowest 8"
