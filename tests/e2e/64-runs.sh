# One recording, whole or not (GitHub issue 20, items 3 and 6).
# - Lost counts survive a full disk: tail.raw's space is reserved when
#   recording starts, so a -z run on a full tmpfs keeps every lost count.
# - A merge of a killed run says "incomplete run", exits 0 with a valid file.
# - header.data, shards and tails carry one run id: a header.data from
#   another run, or a -z shard copied into a plain run, is refused.
. "$(dirname "$0")/lib.sh"
need_perf_event
export ALLOW_LOSS_WARNING=1

# RUNS_PART=a..e runs one part alone (to show each fails without the fix).
part() { [ -z "${RUNS_PART:-}" ] || [[ "$RUNS_PART" == *"$1"* ]]; }
lost_samples() { sed -n 's/.*, \([0-9]*\) lost samples.*/\1/p' "$1" | tail -n 1; }

# ---- (a) full disk with -z: the recorder's lost counts reach the merged file ----
if part a && [ "$(id -u)" = 0 ] && mkdir mnt && mount -t tmpfs -o size=1m shardrec-e2e mnt 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null || true; cleanup' EXIT
	rc=0
	# The command fills the disk first (header.data and tail.raw are written
	# by then): a busy machine's slow hot could leave it unfilled otherwise.
	"$SHARDREC" record -a -z -m 4 -c 2000 -o mnt/t.data -- \
		sh -c "dd if=/dev/zero of=mnt/filler bs=64k 2>/dev/null; exec $PROGS/hot 2500 2" 2>full.err || rc=$?
	cat full.err
	! grep -q "lost-sample counts not saved" full.err || fail "full disk: lost counts not saved"
	grep -q "stopped .*: No space left on device" full.err || fail "the disk did not fill: the test proves nothing"
	# What the recorder counted: per stopped writer "lost after it: N samples".
	want=$(sed -n 's/.*lost after it: \([0-9]*\) samples.*/\1/p' full.err | awk '{ s += $1 } END { print s + 0 }')
	[ "$want" -gt 0 ] || fail "full disk: the recorder counted no lost sample"
	if [ $rc = 1 ]; then
		"$SHARDREC" merge mnt/t.data.shards -o t.data 2>merge.err || { cat merge.err; fail "merge of the full disk's shards failed"; }
		cat merge.err
		got=$(lost_samples merge.err)
	else
		cp mnt/t.data t.data
		got=$(lost_samples full.err)
	fi
	[ "$got" = "$want" ] || fail "full disk: the merge counts ${got:-no} lost samples, the recorder $want"
	! grep -q "incomplete run" merge.err 2>/dev/null || fail "full disk: a finished run called incomplete"
	check_perf_file t.data
	umount mnt
fi

# ---- (b) SIGKILL: merge says "incomplete run", exits 0, the file is valid ----
if part b; then
"$SHARDREC" record -q --threads=cpu -c 100000 -o k.data -- "$PROGS/hot" 4000 2 2>/dev/null &
pid=$!
sleep 1.5
kill -9 $pid
wait $pid 2>/dev/null || true
[ -d k.data.shards ] || fail "no shard directory left by the killed recorder"
rc=0
"$SHARDREC" merge k.data.shards -o k2.data 2>kill.err || rc=$?
cat kill.err
if [ $rc != 0 ] && grep -q -- "--recover" kill.err; then
	# The kill cut a pass (rare): the same must hold with --recover.
	rc=0
	"$SHARDREC" merge --recover k.data.shards -o k2.data 2>kill.err || rc=$?
	cat kill.err
fi
[ $rc = 0 ] || fail "merge of a killed run: exit $rc, want 0"
grep -q "incomplete run (the recorder did not finish: killed, or still recording)" kill.err ||
	fail "merge of a killed run does not say it is incomplete"
grep -q "shardrec merge: wrote .*, incomplete run, " kill.err || fail "the summary does not say incomplete run"
check_perf_file k2.data
"$PERF" report --header-only -i k2.data 2>/dev/null | grep -q "^# cmdline : .*\[shardrec: incomplete run\]" ||
	fail "the file does not say the run is incomplete"
fi
part c || part d || part e || exit 0

# ---- two finished runs to mix: plain and -z ----
"$SHARDREC" record -q --threads=cpu --keep-shards -c 100000 -o p.data -- "$PROGS/hot" 300 2 ||
	fail "plain recording failed"
"$SHARDREC" record -q --threads=cpu --keep-shards -z -c 100000 -o z.data -- "$PROGS/hot" 300 2 ||
	fail "-z recording failed"
"$SHARDREC" merge p.data.shards -o p2.data 2>ok.err || { cat ok.err; fail "merge of a finished run failed"; }
! grep -q "incomplete" ok.err || fail "a finished run called incomplete"

# refused WHAT FILE: exit 1, one line naming FILE, no output.
refused() {
	local what=$1 file=$2 rc=0
	shift 2
	"$SHARDREC" merge "$@" -o mix.data 2>mix.err || rc=$?
	cat mix.err
	[ $rc = 1 ] || fail "$what: exit $rc, want 1"
	[ "$(wc -l <mix.err)" = 1 ] || fail "$what: error is not one line"
	grep -q "$file: from another recording" mix.err || fail "$what: the error does not name $file"
	[ ! -e mix.data ] || fail "$what: an output was written"
}

# ---- (c) header.data from another run ----
if part c; then
	rm -rf mix.shards && cp -r p.data.shards mix.shards && cp z.data.shards/header.data mix.shards/
	refused "another run's header.data" mix.shards/header.data mix.shards
	refused "another run's header.data, --recover" mix.shards/header.data --recover mix.shards
fi

# ---- (d) a -z shard copied into a plain run ----
if part d; then
	n=$(ls p.data.shards | grep -c '^shard\.')
	rm -rf mix.shards && cp -r p.data.shards mix.shards && cp z.data.shards/shard.0 "mix.shards/shard.$n"
	refused "a -z shard in a plain run" "mix.shards/shard.$n" mix.shards
	refused "a -z shard in a plain run, --recover" "mix.shards/shard.$n" --recover mix.shards
fi

# ---- (e) another run's tail.raw ----
if part e; then
	rm -rf mix.shards && cp -r p.data.shards mix.shards && cp z.data.shards/tail.raw mix.shards/
	refused "another run's tail.raw" mix.shards/tail.raw mix.shards
fi
exit 0
