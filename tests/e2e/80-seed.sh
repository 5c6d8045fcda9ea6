# The seed workload's command line (GitHub issue 6): perf's reference line
# must be accepted as is; its hardware events fail clearly on a machine
# without a PMU; with cpu-clock,task-clock in their place it records
# `matrix` system-wide, perf report unwinds the user stacks with DWARF, and
# perf script shows switch events and cs samples.
. "$(dirname "$0")/lib.sh"
need_perf_event

opts=(-a -N -B -T -R -g --call-graph dwarf,1024 --user-regs=IP,SP,BP --switch-events)
cs='software/period=1,name=cs,config=0x3/Duk'

if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	if "$SHARDREC" record "${opts[@]}" -e "cycles,instructions,ref-cycles,$cs" -o hw.data -- \
		"$PROGS/matrix" -s 0.1 >/dev/null 2>hw.err; then
		fail "hardware events recorded on a machine without a PMU"
	fi
	cat hw.err
	# cycles falls back to cpu-clock as perf's does; the next hardware event is refused
	grep -q "cycles event is not supported, trying to fall back to cpu-clock" hw.err ||
		fail "no cycles fallback warning"
	grep -q "instructions: hardware event not supported" hw.err || fail "unclear hardware event error"
	[ ! -e hw.data ] && [ ! -e hw.data.shards ] || fail "a failed record left files behind"
fi

"$SHARDREC" record "${opts[@]}" -e "cpu-clock,task-clock,$cs" -o seed.data -- \
	"$PROGS/matrix" -t 2 -s 0.5 >/dev/null 2>rec.err || { cat rec.err; fail "record failed"; }
cat rec.err

# perf's own reading of such a file prints two kinds of stderr lines this
# test accepts: "unwind: can't read reg N" (--user-regs=IP,SP,BP leaves
# out registers libunwind wants for some frames; perf warns about that at
# record time) and, on a loaded machine, the lost-chunk summary (a cs
# sample per context switch system-wide). Anything else fails.
perf_tolerant() {
	local what=$1
	shift
	"$PERF" "$@" >"$TMP/perf.out" 2>"$TMP/perf.err" || { cat "$TMP/perf.err" >&2; fail "perf $what failed"; }
	grep -v -e "^unwind: can't read reg" -e '^Warning:$' -e '^Processed .* events and lost .* chunks!$' \
		-e '^Check IO/CPU overload!$' -e '^Processed .* samples and lost .*%!$' -e '^$' \
		"$TMP/perf.err" >"$TMP/perf.bad" || true
	if [ -s "$TMP/perf.bad" ]; then
		cat "$TMP/perf.bad" >&2
		fail "perf $what printed warnings"
	fi
}
perf_tolerant "report --stats" report --stats -i seed.data
grep -q "SAMPLE events" "$TMP/perf.out" || fail "no SAMPLE events"
! grep -qi "out of order" "$TMP/perf.out" || fail "out of order events"
perf_clean "report --header-only" report --header-only -i seed.data
perf_tolerant inject inject -i seed.data -o /dev/null

# The attrs perf 6.1 sets for the same line (perf evlist -v on its own file).
"$PERF" evlist -v -i seed.data >evlist.txt
cat evlist.txt
for ev in cpu-clock task-clock cs; do
	line=$(grep "^$ev:" evlist.txt) || fail "$ev missing"
	for bit in CALLCHAIN REGS_USER STACK_USER RAW CPU ADDR DATA_SRC \
		'sample_regs_user: 0x1c0' 'sample_stack_user: 1024' 'exclude_callchain_user: 1'; do
		[[ "$line" == *"$bit"* ]] || fail "$ev lacks $bit"
	done
done
grep "^cs:" evlist.txt | grep -q "pinned: 1" || fail "cs: D modifier lost"
# -a: perf 6.1 puts the tracking bits, --switch-events' too, on a dummy
# enabled from its open; the sampling events carry none.
grep "^dummy:HG:" evlist.txt | grep -q "context_switch: 1" || fail "--switch-events lost"
! grep "^cpu-clock:" evlist.txt | grep -q -e "context_switch: 1" -e "comm: 1" ||
	fail "cpu-clock tracks beside the dummy"
# ... appended after the events given, in perf's order
order=$(awk -F': ' '!/^#/ { printf "%s ", $1 }' evlist.txt)
[ "$order" = "cpu-clock task-clock cs dummy:HG " ] ||
	fail "events in the order '$order', perf's: cpu-clock task-clock cs dummy:HG"

# DWARF unwinding: the user part of the chain comes only from the stack copy
# (exclude_callchain_user), so matrix's frames prove perf unwound it.
# --no-inline: perf would run addr2line on every frame of every sample.
"$PERF" report -i seed.data --stdio --no-inline -g caller --no-children --comm matrix \
	--percent-limit 5 >report.txt 2>report.err || { cat report.err; fail "perf report failed"; }
sed -n "/dot_row/,+25p" report.txt | head -n 40 || true
for fn in dot_row multiply_block multiply_matrix worker; do
	grep -q "$fn" report.txt || fail "perf report -g shows no $fn frame"
done
grep -Eq "start_thread|clone3|main" report.txt || fail "stacks do not reach main or the thread start"

# Switch events and cs samples in perf script.
perf_tolerant script script -i seed.data --no-inline --show-switch-events \
	-F comm,tid,time,event,ip,sym
grep -m3 PERF_RECORD_SWITCH_CPU_WIDE "$TMP/perf.out" || fail "no switch events"
grep -m3 " cs: " "$TMP/perf.out" || fail "no cs samples"
check_monotonic "$TMP/perf.out"
