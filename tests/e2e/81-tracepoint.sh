# Tracepoints (GitHub issue 6): recorded with HEADER_TRACING_DATA, perf
# script prints sched:sched_switch's fields by name exactly as for perf's own
# recording of the same event; sys:* globs and --filter work.
. "$(dirname "$0")/lib.sh"
need_perf_event
if [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || skip "tracefs not available"
fi
[ -e /sys/kernel/tracing/events/sched/sched_switch/id ] || skip "no sched:sched_switch tracepoint"

"$PERF" record -q -a -e sched:sched_switch -o ref.data -- "$PROGS/matrix" -s 0.2 >/dev/null 2>&1 ||
	skip "perf itself cannot record sched:sched_switch here"
"$SHARDREC" record -q -a -e sched:sched_switch -o tp.data -- "$PROGS/matrix" -s 0.2 \
	>/dev/null 2>rec.err || { cat rec.err; fail "record failed"; }
check_perf_file tp.data
"$PERF" evlist -i tp.data >tp.evlist
grep -q "^sched:sched_switch$" tp.evlist ||
	fail "no sched:sched_switch event in the header"

# The shape of a line: its "key=" names and "==>" separators, in order. Values
# go whatever they hold: another job's task name can have spaces ("opt cgu.04").
shape() {
	"$PERF" script -i "$1" -F trace >"$1.trace" 2>/dev/null
	head -n 200 "$1.trace" | awk '{
		out = ""; rest = $0
		while (match(rest, /[A-Za-z0-9_]+=|==>/)) {
			out = out (out == "" ? "" : " ") substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
		}
		print out }' | sort -u
}
shape ref.data >ref.shape
shape tp.data >our.shape
echo "perf's recording:"; cat ref.shape
echo "ours:"; cat our.shape
[ -s our.shape ] || fail "perf script printed no tracepoint fields"
grep -q "prev_comm= .*==> next_comm=" our.shape || fail "fields not printed by name"
cmp -s ref.shape our.shape || fail "field names differ from perf's own recording"
head -n 3 tp.data.trace

# sys:glob expands to every matching tracepoint, each described in the header
# (the workload only: system-wide wakeups on a busy machine overflow the rings).
"$SHARDREC" record -q -e 'sched:sched_wak*' -o glob.data -- "$PROGS/matrix" -s 0.2 \
	>/dev/null 2>rec.err || { cat rec.err; fail "glob record failed"; }
check_perf_file glob.data
n=$("$PERF" evlist -i glob.data | grep -c '^sched:sched_wak')
expect=$(ls -d /sys/kernel/tracing/events/sched/sched_wak*/ | wc -l)
[ "$n" -eq "$expect" ] || fail "sched:sched_wak* gave $n events, tracefs has $expect"
"$PERF" script -i glob.data -F event,trace >glob.txt 2>/dev/null
grep -m2 "comm=.*pid=" glob.txt || fail "glob events not decoded"

# --filter applies to the -e before it, in the kernel: only matrix switches out.
"$SHARDREC" record -q -a -e cpu-clock -e sched:sched_switch --filter 'prev_comm == "matrix"' \
	-o filt.data -- "$PROGS/matrix" -s 0.3 >/dev/null 2>rec.err || { cat rec.err; fail "filter record failed"; }
check_perf_file filt.data
"$PERF" script -i filt.data -F event,trace >filt.all 2>/dev/null
grep sched_switch filt.all >filt.txt || true
[ -s filt.txt ] || fail "filtered recording has no sched_switch sample"
if grep -v "prev_comm=matrix " filt.txt | head -n 3 | grep .; then
	fail "--filter ignored: other tasks' switches recorded"
fi
"$PERF" script -i filt.data -F event >filt.ev 2>/dev/null
grep -q cpu-clock filt.ev || fail "cpu-clock lost next to the filtered tracepoint"
if "$SHARDREC" record -q -a -e cpu-clock --filter 'x == 1' -o bad.data -- true 2>bad.err; then
	fail "--filter after a non-tracepoint accepted"
fi
grep -q "no tracepoint" bad.err || { cat bad.err; fail "unclear --filter error"; }

# A fresh boot may have no tracefs mounted (the first CI run on a new machine
# had none: "tracefs not found"). shardrec mounts it itself, as perf does.
# Tried only when tracefs can be unmounted (nobody holds it open); mounted
# again whatever happens.
remount() { grep -q " /sys/kernel/tracing tracefs " /proc/mounts ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true; }
trap 'remount; cleanup' EXIT
if [ "$(id -u)" = 0 ] && umount /sys/kernel/tracing 2>/dev/null; then
	[ ! -e /sys/kernel/tracing/events ] || fail "tracefs still mounted after umount"
	"$SHARDREC" record -q -e sched:sched_switch -o fresh.data -- sleep 0.1 >/dev/null 2>rec.err ||
		{ remount; cat rec.err; fail "sched:sched_switch without tracefs mounted"; }
	grep -q " /sys/kernel/tracing tracefs " /proc/mounts || fail "shardrec did not mount tracefs"
	check_perf_file fresh.data
	echo "tracefs unmounted: shardrec mounted it and recorded"
else
	echo "tracefs busy or not root: the mount is not tried"
fi

# tracefs mounted elsewhere only: found through /proc/self/mounts, as perf's
# tracefs__mountpoint finds it, not mounted a second time on
# /sys/kernel/tracing. In a mount namespace of its own, so the host's
# mounts are untouched.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mkdir tfs
	rc=0
	unshare -m sh -c "
		umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/tracing 2>/dev/null
		umount /sys/kernel/debug 2>/dev/null
		[ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ] || exit 77
		mount -t tracefs nodev '$TMP/tfs' || exit 77
		'$SHARDREC' record -q -e sched:sched_switch -o elsewhere.data -- sleep 0.1 >/dev/null 2>rec.err || exit 1
		! grep -q ' /sys/kernel/tracing tracefs ' /proc/self/mounts || exit 2" || rc=$?
	case $rc in
	0) check_perf_file elsewhere.data
	   echo "tracefs mounted only on a directory of its own: found in /proc/self/mounts" ;;
	77) echo "tracefs could not be moved in a mount namespace: not tried" ;;
	2) fail "tracefs mounted elsewhere: shardrec mounted it again instead of finding it" ;;
	*) cat rec.err; fail "sched:sched_switch with tracefs mounted elsewhere: exit $rc" ;;
	esac
fi
