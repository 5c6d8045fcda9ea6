# Ring pressure: -v's high-water mark moves when a ring is forced full (a
# context-switch storm into 1-page rings, writers at normal priority: -r 0)
# and stays low on a light run; the storm's summary says what would help;
# `loss --plot` draws a PNG of a shardrec file and of a perf --threads
# directory. No timing asserts.
#
# The storm stops the recorder (SIGSTOP to its parent, SIGCONT when done):
# with its writers frozen the rings fill and drop whatever the machine's
# load. A free-running storm is a race: on an idle CI machine the writer
# kept up (81% high-water, 0 lost).
. "$(dirname "$0")/lib.sh"
need_perf_event
command -v gnuplot >/dev/null || skip "gnuplot not installed (apt-get install gnuplot-nox)"

# Highest "N%" of the writers' high-water lines in a -v log, 0 if none.
high_water() {
	sed -n 's/^shardrec: high-water of writer [0-9]*: ring of cpu [0-9]* \([0-9]*\)% full .*/\1/p' "$1" |
		sort -n | tail -1 | grep . || echo 0
}
# PNG signature and more than a trivial size.
check_png() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1: not a PNG"
	[ "$(stat -c %s "$1")" -gt 4000 ] || fail "$1: only $(stat -c %s "$1") bytes"
}

for z in "" -z; do
	"$SHARDREC" record -v -r 0 $z -a -e cs -c 1 -m 1 -o storm.data -- \
		sh -c 'kill -STOP $PPID && "$0" bench sched messaging -g 4 -l 200; rc=$?
			kill -CONT $PPID; exit $rc' "$PERF" >/dev/null 2>storm.err ||
		{ cat storm.err; fail "storm ${z:-plain} recording failed"; }
	cat storm.err
	# The existing per-writer line is unchanged, and each writer has a high-water line.
	each_writer storm.err high-water "storm ${z:-plain}"
	w=$(nr_writers storm.err)
	hw=$(high_water storm.err)
	[ "$hw" -ge 95 ] || fail "storm ${z:-plain}: high-water $hw%, a 1-page ring in a storm fills"
	lost=$(sed -n 's/.*Captured and wrote .* \([0-9]*\) lost samples ]/\1/p' storm.err)
	[ "${lost:-0}" -gt 0 ] || fail "storm ${z:-plain}: no loss with 1-page rings: proves nothing"
	# Loss with a ring seen >= 90% full is heavy: the summary names the numbers.
	grep -Eq '^shardrec: warning: heavy loss: [0-9.]+% of samples lost \([0-9]+ of [0-9]+\); ring of cpu [0-9]+ reached [0-9]+% full at [0-9.]+ s: try -m 4 \(now 1 page\).* -r 1 \(writers at real-time priority; they ran at normal priority\)$' storm.err ||
		fail "storm ${z:-plain}: no heavy-loss advice in the summary"
	# More writers are advised only where a writer has several CPUs.
	n=$(getconf _NPROCESSORS_ONLN)
	if [ "$w" -lt "$n" ]; then
		grep -q -- "--threads=cpu (now $w writers\? for $n CPUs)" storm.err ||
			fail "storm ${z:-plain}: $w writers for $n CPUs, no --threads=cpu advice"
	else
		! grep -q -- '--threads=cpu' storm.err || fail "--threads=cpu advised with a writer per CPU"
	fi
	[ -z "$z" ] || continue
	mv storm.data storm-plain.data
done

# A light run: the workload's own few switches into default rings.
"$SHARDREC" record -v -e cs -c 1 -o light.data -- sleep 0.3 2>light.err ||
	{ cat light.err; fail "light recording failed"; }
cat light.err
hw=$(high_water light.err)
[ "$hw" -le 50 ] || fail "light run: high-water $hw%"
grep -q '^shardrec: high-water of writer 0: ' light.err || fail "light run: no high-water line"
! grep -q 'heavy loss' light.err || fail "light run: heavy-loss advice without loss"

# loss --plot on the storm, alone and with a perf --threads directory.
"$SHARDREC" loss --plot storm.png storm-plain.data >/dev/null 2>plot.err || { cat plot.err; fail "loss --plot failed"; }
check_png storm.png
if "$PERF" record -q --threads -a -e cs -c 1 -m 1 -o pt.data -- \
	"$PERF" bench sched messaging -g 2 -l 100 >/dev/null 2>pt.err && [ -d pt.data ]; then
	"$SHARDREC" loss --plot both.png storm-plain.data pt.data >/dev/null 2>plot.err ||
		{ cat plot.err; fail "loss --plot on a perf --threads directory failed"; }
	check_png both.png
	[ "$(stat -c %s both.png)" -gt "$(stat -c %s storm.png)" ] || fail "two panels, no bigger than one"
else
	echo "perf record --threads unavailable: its directory not plotted"
fi
# No loss at all still plots (an empty panel); no gnuplot is one line and exit 1.
"$SHARDREC" loss --plot light.png light.data >/dev/null || fail "loss --plot without loss failed"
check_png light.png
rc=0
PATH=/nonexistent "$SHARDREC" loss --plot x.png light.data >/dev/null 2>nognu.err || rc=$?
[ $rc = 1 ] && [ "$(wc -l <nognu.err)" = 1 ] && grep -q 'gnuplot not found' nognu.err ||
	{ cat nognu.err; fail "missing gnuplot: rc $rc, not one line"; }
[ ! -e x.png ] || fail "x.png written without gnuplot"
