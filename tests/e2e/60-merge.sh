# --keep-shards + shardrec merge reproduces the recorded file; SIGINT/SIGTERM stop cleanly.
. "$(dirname "$0")/lib.sh"
need_perf_event
"$SHARDREC" record -q --keep-shards -a --threads=cpu -o k.data -- "$PROGS/hot" 300 2 || fail "record failed"
[ -d k.data.shards ] || fail "--keep-shards removed the shards"
ls k.data.shards
"$SHARDREC" merge k.data.shards -o m.data 2>merge.err || { cat merge.err; fail "merge failed"; }
cat merge.err
check_perf_file m.data
"$PERF" script -i k.data 2>/dev/null >a.txt
"$PERF" script -i m.data 2>/dev/null >b.txt
cmp -s a.txt b.txt || { diff a.txt b.txt | head; fail "merge of kept shards differs from the recorded file"; }
[ -s a.txt ] || fail "empty perf script output"

# An existing output is rotated to .old, like perf.
"$SHARDREC" merge k.data.shards -o m.data -q || fail "second merge failed"
[ -f m.data.old ] || fail "existing output was not rotated to .old"

# Two merges to one output: the one that comes while the other writes fails
# at once, one line, and touches nothing; the output stays whole. (The
# second merge used to unlink the first's FILE.partial as stale: 6 of 6
# runs left no file.) A merge holding FILE.partial is played by flock(1).
cp m.data m.before
command -v flock >/dev/null || fail "flock not installed (util-linux)"
flock m.data.partial sleep 2 &
holder=$!
sleep 0.3
rc=0
"$SHARDREC" merge -q k.data.shards -o m.data 2>busy.err || rc=$?
cat busy.err
[ "$rc" = 1 ] && [ "$(wc -l <busy.err)" = 1 ] &&
	grep -q "m.data.partial: another merge is writing m.data" busy.err || fail "a merge into a busy output: rc $rc"
cmp -s m.data m.before && [ -e m.data.partial ] || fail "a refused merge touched m.data or the other's m.data.partial"
wait $holder
# Once nobody holds it, a leftover .partial is a dead merge's: reused.
"$SHARDREC" merge -q k.data.shards -o m.data || fail "merge over a dead merge's m.data.partial"
[ ! -e m.data.partial ] && check_perf_file m.data

# System-wide until a signal: SIGINT and SIGTERM both give a complete file, exit 0.
for sig in INT TERM; do
	"$SHARDREC" record -a -o s.data 2>sig.err &
	pid=$!
	# Shards are created once the events are open: then the recorder is live.
	for _ in $(seq 200); do [ -e s.data.shards/shard.0 ] && break; sleep 0.05; done
	[ -e s.data.shards/shard.0 ] || fail "recorder did not start"
	"$PROGS/hot" 400 2
	kill -$sig $pid
	wait $pid || { cat sig.err; fail "SIG$sig: exit $?"; }
	cat sig.err
	check_perf_file s.data
	[ ! -e s.data.shards ] || fail "SIG$sig: shards left behind"
	rm -f s.data s.data.old
done

# The recorded command killed by a signal: exit 128+sig, file still valid.
set +e
"$SHARDREC" record -q -o k2.data -- sh -c 'kill -TERM $$'
rc=$?
set -e
[ "$rc" = 143 ] || fail "workload killed by SIGTERM gave exit $rc, want 143"
