# perf record's sample and run options (GitHub issue 6): each one checked
# where it must show, so that ignoring it fails: attr bits in
# `perf evlist -v`, records in `perf report --stats`, samples in perf script.
. "$(dirname "$0")/lib.sh"
need_perf_event
M=$PROGS/matrix

# rec NAME OPTS...: records matrix for 0.1 s with OPTS, leaves NAME.data
# and its `perf evlist -v` lines in NAME.attr. (Files with the new sample
# fields get the full check_perf_file below; the rest only differ in bits.)
rec() {
	local name=$1
	shift
	"$SHARDREC" record -q "$@" -o "$name.data" -- "$M" -s 0.1 >/dev/null 2>"$name.err" ||
		{ cat "$name.err"; fail "record $* failed"; }
	"$PERF" evlist -v -i "$name.data" >"$name.attr"
}
has() { grep -q -- "$2" "$1.attr" || { cat "$1.attr"; fail "$1: '$2' missing"; }; }
hasnt() { ! grep -q -- "$2" "$1.attr" || { cat "$1.attr"; fail "$1: '$2' present"; }; }

rec base -e cpu-clock
has base 'inherit: 1'
has base 'enable_on_exec: 1'
hasnt base 'RAW'
hasnt base 'REGS_'
hasnt base 'ADDR'
hasnt base 'context_switch'
hasnt base 'exclude_user: 1'
hasnt base 'exclude_kernel: 1'

rec raw -e cpu-clock -R
has raw 'RAW'
has raw '|CPU|'
check_perf_file raw.data
rec data -e cpu-clock -d
has data '|ADDR|'
has data 'DATA_SRC'
has data 'mmap_data: 1'
check_perf_file data.data
# -P: perf samples the period in frequency mode anyway, and so do we.
rec period -e cpu-clock -c 100000 -P
has period '|PERIOD'
rec intr -e cpu-clock -I
has intr 'REGS_INTR'
has intr 'sample_regs_intr: 0xff0fff'
check_perf_file intr.data
rec intr2 -e cpu-clock --intr-regs=AX,BX
has intr2 'sample_regs_intr: 0x3'
rec uregs -e cpu-clock --user-regs=IP,SP,BP
has uregs '|REGS_USER'
has uregs 'sample_regs_user: 0x1c0'
hasnt uregs 'STACK_USER'
rec noinh -e cpu-clock -i
hasnt noinh 'inherit: 1'
rec alluser -e cpu-clock --all-user
has alluser 'exclude_kernel: 1'
rec allkern -e cpu-clock --all-kernel
has allkern 'exclude_user: 1'
rec scpu -e cpu-clock --sample-cpu
has scpu '|CPU|'
rec fp -e cpu-clock -g
has fp 'CALLCHAIN'
hasnt fp 'STACK_USER'
rec fp2 -e cpu-clock --call-graph fp
has fp2 'CALLCHAIN'
hasnt fp2 'STACK_USER'
rec dwarf -e cpu-clock --call-graph dwarf
has dwarf 'CALLCHAIN'
has dwarf 'STACK_USER'
has dwarf 'sample_stack_user: 8192'
has dwarf 'sample_regs_user: 0xff0fff'
has dwarf 'exclude_callchain_user: 1'
check_perf_file dwarf.data
rec dwarf2 -e cpu-clock --call-graph dwarf,2048 --user-regs=BP
has dwarf2 'sample_stack_user: 2048'
has dwarf2 'sample_regs_user: 0x1c0' # IP and SP forced, as perf does
"$SHARDREC" record --call-graph dwarf,70000 -o x.data -- true 2>x.err && fail "dwarf,70000 accepted"
grep -q "8..65528" x.err || { cat x.err; fail "unclear dwarf size error"; }
"$SHARDREC" record --user-regs=IP,XX -o x.data -- true 2>x.err && fail "--user-regs=XX accepted"
grep -q "XX" x.err || { cat x.err; fail "unclear register error"; }

rec switch -e cpu-clock --switch-events
has switch 'context_switch: 1'
check_perf_file switch.data
"$PERF" report --stats -i switch.data | grep -q "SWITCH events" || fail "no PERF_RECORD_SWITCH records"

# -N, -T: accepted (no build-id cache; timestamps are always on). -B: no build ids.
rec nbt -e cpu-clock -N -T -B
"$PERF" buildid-list -i base.data >base.bid
"$PERF" buildid-list -i nbt.data >nbt.bid
grep -q "^[0-9a-f]\{40\} .*matrix$" base.bid || { cat base.bid; fail "no build id without -B"; }
! grep -q "^[0-9a-f]\{40\} " nbt.bid || { cat nbt.bid; fail "-B ignored: build ids recorded"; }

# -D: nothing sampled before the delay. As in perf, a dummy event enabled on
# exec tracks the workload meanwhile; the sampling events are not.
"$SHARDREC" record -q -D 300 -e cpu-clock -o delay.data -- "$M" -s 0.6 >/dev/null 2>delay.err ||
	{ cat delay.err; fail "record -D failed"; }
check_perf_file delay.data
"$PERF" evlist -v -i delay.data >delay.attr
grep "^cpu-clock:" delay.attr | grep -q enable_on_exec && fail "-D: cpu-clock enabled on exec"
grep "^dummy:HG:" delay.attr | grep -q "enable_on_exec: 1" || { cat delay.attr; fail "-D: no tracking dummy"; }
"$PERF" script -i delay.data --show-task-events -F comm,time,event >delay.txt 2>/dev/null
awk '/PERF_RECORD_COMM exec/ && !e { e = $2 + 0 }
     /cpu-clock/ && !s { s = $2 + 0 }
     END { d = s - e; printf "first sample %.3f s after exec\n", d; exit !(e > 0 && d >= 0.25) }' delay.txt ||
	fail "-D 300 ignored: samples within 250 ms of the exec"
grep -q "^ *matrix .*cpu-clock" delay.txt || fail "-D: samples not attributed to matrix (tracking lost)"

# --max-size: stops a 10 s recording early, output still valid, exit 0 as
# perf record's at its limit (a `set -e` job script must not fail on it).
start=$(date +%s%N)
rc=0
"$SHARDREC" record -a --max-size 1M --call-graph dwarf,4096 -e cpu-clock -o max.data -- \
	"$M" -s 10 >/dev/null 2>max.err || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
cat max.err
grep -q "size limit reached (1048576 bytes, 1024.0 KiB)" max.err || fail "--max-size: no stop message"
prc=0
"$PERF" record -q -a --max-size 1M --call-graph dwarf,4096 -e cpu-clock -o perf-max.data -- \
	"$M" -s 10 >/dev/null 2>&1 || prc=$?
[ "$rc" = "$prc" ] || fail "--max-size: exit $rc, perf record's $prc (the command's, stopped for it)"
# A command that exits 0 on the SIGTERM that stops it: 0 for both (never 2,
# which also means bad usage: a set -e job script must not fail on a good file).
TERM0=(sh -c 'trap "exit 0" TERM; while :; do :; done')
rc=0
"$SHARDREC" record -q --max-size 64K -o max0.data -- "${TERM0[@]}" || rc=$?
prc=0
"$PERF" record -q --max-size 64K -o perf-max0.data -- "${TERM0[@]}" >/dev/null 2>&1 || prc=$?
[ "$rc" = 0 ] && [ "$prc" = 0 ] || fail "--max-size, command exits 0: exit $rc, perf record's $prc"
[ "$ms" -lt 6000 ] || fail "--max-size ignored: ran $ms ms"
perf_clean "report --stats" report --stats -i max.data
perf_clean inject inject -i max.data -o /dev/null
size=$(stat -c %s max.data)
[ "$size" -lt $((2 << 20)) ] || fail "--max-size 1M wrote $size bytes"

# -q: nothing on stderr; -v: per-writer lines; --dry-run: a plan, no file.
[ ! -s base.err ] || { cat base.err; fail "-q printed"; }
"$SHARDREC" record -v -e cpu-clock -o verbose.data -- "$M" -s 0.1 >/dev/null 2>verbose.err
grep -q "^shardrec: writer 0:" verbose.err || { cat verbose.err; fail "-v printed no writer line"; }
# -v names --affinity as the option takes it (it printed "group cpus")
grep -q "^shardrec: writers: --affinity=cpu (the default)," verbose.err || { cat verbose.err; fail "-v: --affinity"; }
"$SHARDREC" record --dry-run -a -o dry.data >dry.out 2>&1 || { cat dry.out; fail "--dry-run failed"; }
[ -s dry.out ] && [ ! -e dry.data ] && [ ! -e dry.data.shards ] || fail "--dry-run recorded"

# -u: only the user's processes. Another user's copy of matrix runs alongside.
chmod 755 "$TMP"
cp "$M" mtx_user
cp "$M" mtx_root
setpriv --reuid=65534 --regid=65534 --clear-groups ./mtx_user -t 1 -s 2 >/dev/null &
./mtx_root -t 1 -s 2 >/dev/null &
sleep 0.2
"$SHARDREC" record -u 65534 -e cpu-clock -o uid.data 2>uid.err &
rec_pid=$!
sleep 1
kill -INT "$rec_pid"
wait
cat uid.err
check_perf_file uid.data
"$PERF" script -i uid.data -F comm >uid.txt 2>/dev/null
grep -q mtx_user uid.txt || fail "-u: the user's process not sampled"
! grep -q mtx_root uid.txt || fail "-u ignored: another user's process sampled"
"$SHARDREC" record -u no-such-user-xyz -o x.data 2>x.err && fail "-u with an unknown user accepted"
grep -q "unknown user" x.err || { cat x.err; fail "unclear -u error"; }

# -G: only the cgroup's tasks, system-wide.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/shardrec-e2e-$$" 2>/dev/null; then
	cp "$M" mtx_in
	cp "$M" mtx_out
	sh -c "echo \$\$ > $cg2/shardrec-e2e-$$/cgroup.procs && exec ./mtx_in -t 1 -s 1.2" >/dev/null &
	./mtx_out -t 1 -s 1.2 >/dev/null &
	sleep 0.2
	"$SHARDREC" record -q -a -G "shardrec-e2e-$$" -e cpu-clock -o cg.data -- sleep 0.5 2>cg.err ||
		{ cat cg.err; rmdir "$cg2/shardrec-e2e-$$"; fail "record -G failed"; }
	wait
	rmdir "$cg2/shardrec-e2e-$$" || true
	check_perf_file cg.data
	"$PERF" script -i cg.data -F comm >cg.txt 2>/dev/null
	sort cg.txt | uniq -c
	grep -q mtx_in cg.txt || fail "-G: the cgroup's task not sampled"
	! grep -q mtx_out cg.txt || fail "-G ignored: a task outside the cgroup sampled"
else
	echo "no writable cgroup2 mount: -G not tested"
fi
"$SHARDREC" record -G / -o x.data -- true 2>x.err && fail "-G without -a accepted"
grep -q "needs per-CPU" x.err || { cat x.err; fail "unclear -G error"; }

# --overwrite, SIGUSR2 and --control have their own test: 84-overwrite.sh.

# Event groups, perf's {a,b}[:MODS] syntax: each command line is recorded by
# perf too, and the groups, their header line and the group-related attr
# bits must be perf's. The kernel checks below fail if the events were
# opened without group_fd (i.e. ungrouped).
# grp_bits FILE: per event, the bits evsel__config() sets by group role and
# the modifiers merged into members (as `perf evlist -v` prints them).
grp_bits() {
	"$PERF" evlist -v -i "$1" | while IFS= read -r l; do
		printf '%s:' "${l%%: type:*}"
		grep -o -E '(disabled|enable_on_exec|pinned|exclude_[a-z]*): 1' <<<"$l" | tr '\n' ' '
		echo
	done
}
# grp_events FILE EVENT: samples of EVENT in FILE.
grp_events() { "$PERF" script -i "$1" -F event 2>/dev/null | grep -c "^ *$2: *$" || true; }
grp_check() {
	local name=$1 events=$2
	shift 2
	rec "$name" -e "$events"
	"$PERF" record -q -e "$events" -o "$name.perf" -- "$M" -s 0.1 >/dev/null 2>&1 ||
		fail "perf record -e '$events' failed"
	"$PERF" evlist -g -i "$name.data" | grep '{' >"$name.g" || true
	"$PERF" evlist -g -i "$name.perf" | grep '{' >"$name.pg" || true
	[ -s "$name.pg" ] || fail "perf shows no group for -e '$events'"
	diff "$name.pg" "$name.g" || fail "-e '$events': perf evlist -g differs from perf's"
	"$PERF" report --header-only -i "$name.data" 2>/dev/null | grep '^# group:' >"$name.h" || true
	"$PERF" report --header-only -i "$name.perf" 2>/dev/null | grep '^# group:' >"$name.ph" || true
	diff "$name.ph" "$name.h" || fail "-e '$events': header group line differs from perf's"
	grp_bits "$name.data" >"$name.bits"
	grp_bits "$name.perf" >"$name.pbits"
	diff "$name.pbits" "$name.bits" || fail "-e '$events': group attr bits differ from perf's"
	perf_clean "report --group" report --group --stdio -i "$name.data"
	grep -q "of events 'anon group { cpu-clock, task-clock }'" "$TMP/perf.out" ||
		{ head -20 "$TMP/perf.out"; fail "-e '$events': perf report --group shows no group"; }
	for ev in "$@"; do
		[ "$(grp_events "$name.data" "$ev")" -gt 0 ] || fail "-e '$events': no $ev samples"
	done
	check_perf_file "$name.data"
}
grp_check grp '{cpu-clock,task-clock}' cpu-clock task-clock
grp_check grpmix 'cs,{cpu-clock,task-clock}:u' cpu-clock task-clock
grep "^task-clock:" grpmix.attr | grep -q "exclude_kernel: 1" || fail "group modifier :u not on the member"
# Only a leader may be pinned: the kernel refuses a pinned member, so this
# fails only if the member really got its leader's fd as group_fd.
"$SHARDREC" record -q -e '{cpu-clock,task-clock:D}' -o x.data -- true 2>x.err &&
	fail "a pinned group member was accepted: events opened ungrouped"
grep -q "task-clock:D: only a group leader can be pinned.*led by cpu-clock" x.err ||
	{ cat x.err; fail "unclear error for a refused group member"; }
# ... and W (weak group) reopens them ungrouped, as perf does.
rec grpweak -e '{cpu-clock,task-clock:D}:W'
! "$PERF" evlist -g -i grpweak.data | grep -q '{' || fail "W: the refused group kept"
# A member runs only while its leader does: with -D the leader starts
# disabled, and so no task-clock sample may come before the delay (-D's
# tracking dummy comes after the group, as perf appends it).
"$SHARDREC" record -q -D 300 -e '{cpu-clock,task-clock}' -o grpdelay.data -- "$M" -s 0.6 \
	>/dev/null 2>grpdelay.err || { cat grpdelay.err; fail "record -D with a group failed"; }
"$PERF" evlist -g -i grpdelay.data | grep -qx '{cpu-clock,task-clock}' || fail "-D: group lost"
"$PERF" script -i grpdelay.data --show-task-events -F comm,time,event >grpdelay.txt 2>/dev/null
awk '/PERF_RECORD_COMM exec/ && !e { e = $2 + 0 }
     /task-clock/ && !s { s = $2 + 0 }
     END { d = s - e; printf "first member sample %.3f s after exec\n", d; exit !(e > 0 && d >= 0.25) }' \
	grpdelay.txt || fail "group member sampled while its leader was disabled: not grouped"
"$SHARDREC" record -q -e '{cpu-clock,{task-clock}}' -o x.data -- true 2>x.err &&
	fail "nested group accepted"
grep -q "nested event groups" x.err || { cat x.err; fail "unclear nested group error"; }
"$SHARDREC" record -q -e '{cpu-clock,task-clock' -o x.data -- true 2>x.err &&
	fail "unbalanced group accepted"
grep -q "unbalanced '{'" x.err || { cat x.err; fail "unclear unbalanced group error"; }

# ---- perf's spellings (issue 14) ----

# -z3: the level attached to -z, as perf's parse-options allows.
rec z3 -e cpu-clock -z3
"$PERF" report --header-only -i z3.data 2>/dev/null | grep -q '^# compressed : Zstd, level = 3,' ||
	fail "-z3: HEADER_COMPRESSED does not say level 3"
check_perf_file z3.data
rec z1 -e cpu-clock -z
"$PERF" report --header-only -i z1.data 2>/dev/null | grep -q '^# compressed : Zstd, level = 1,' ||
	fail "-z: HEADER_COMPRESSED does not say level 1"
"$SHARDREC" record -z30 -o x.data -- true 2>x.err && fail "-z30 accepted"
grep -q "level from 1 to 22" x.err || { cat x.err; fail "unclear -z30 error"; }

# --call-graph fp,N: perf sets attr.sample_max_stack = N (parse_callchain_record),
# below kernel.perf_event_max_stack only.
rec fpn -e cpu-clock --call-graph fp,10
has fpn 'CALLCHAIN'
has fpn 'sample_max_stack: 10,\|sample_max_stack: 10$'
check_perf_file fpn.data
hasnt fp2 'sample_max_stack'
rec fpbig -e cpu-clock --call-graph "fp,$(cat /proc/sys/kernel/perf_event_max_stack)"
hasnt fpbig 'sample_max_stack'
"$SHARDREC" record --call-graph fp,x -o x.data -- true 2>x.err && fail "fp,x accepted"
grep -q "maximum stack depth" x.err || { cat x.err; fail "unclear fp,x error"; }

# -e cycles without a hardware PMU: cpu-clock, with perf's warning and names.
# perf's is_pmu_core(): "cpu", or a PMU with a cpus file.
if [ ! -e /sys/bus/event_source/devices/cpu ] && ! ls /sys/bus/event_source/devices/*/cpus >/dev/null 2>&1; then
	"$PERF" record -v -e cycles -o cyc.perf -- "$M" -s 0.1 >/dev/null 2>cyc.perr ||
		{ cat cyc.perr; fail "perf record -e cycles failed"; }
	grep -x 'The cycles event is not supported, trying to fall back to cpu-clock-ticks' cyc.perr \
		>cyc.pwarn || { cat cyc.perr; fail "perf printed no fallback warning: test out of date"; }
	for ev in cycles cycles:u cpu-cycles cycles:k; do
		n=cyc_${ev//:/_}
		"$SHARDREC" record -e "$ev" -o "$n.data" -- "$M" -s 0.1 >/dev/null 2>"$n.err" ||
			{ cat "$n.err"; fail "-e $ev without a PMU: no fallback"; }
		grep -q "^shardrec: warning: $(cat cyc.pwarn)$" "$n.err" ||
			{ cat "$n.err"; fail "-e $ev: not perf's fallback warning"; }
		"$PERF" record -q -e "$ev" -o "$n.perf" -- true >/dev/null 2>&1
		[ "$("$PERF" evlist -i "$n.data")" = "$("$PERF" evlist -i "$n.perf")" ] ||
			fail "-e $ev: event named $("$PERF" evlist -i "$n.data"), perf: $("$PERF" evlist -i "$n.perf")"
		"$PERF" evlist -v -i "$n.data" | grep -q '^cpu-clock[:a-zA-Z]*: type: 1, ' ||
			{ "$PERF" evlist -v -i "$n.data"; fail "-e $ev: attr is not cpu-clock's"; }
	done
	check_perf_file cyc_cycles.data
	[ "$(perf_samples cyc_cycles.data)" -gt 0 ] || fail "-e cycles: no samples"
	# Any other hardware event keeps its one-line error (50-errors.sh checks it).
else
	echo "a hardware PMU: the cycles fallback not tested"
fi

# -p/-t/-u PID -- cmd: the targets are recorded for as long as cmd runs (perf
# 6.1 does so); cmd itself is not recorded, and its exit status is ours.
# span FILE: seconds from the first to the last sample.
span() {
	"$PERF" script -i "$1" -F time 2>/dev/null |
		awk '{ t = $1 + 0; if (!n++) f = t; l = t } END { printf "%.3f\n", l - f }'
}
# ended_with_cmd NAME: NAME.data's samples span the 1 s of `sleep 1`, not the
# target's 30 s, and shardrec took no more than a few seconds.
ended_with_cmd() {
	local s
	s=$(span "$1.data")
	echo "$1: samples span $s s, shardrec ran $2 s"
	awk -v s="$s" -v w="$2" 'BEGIN { exit !(s > 0.5 && s < 4 && w < 15) }' ||
		fail "$1: the recording did not end when the command did (span $s s, ran $2 s)"
}
"$M" -t 2 -s 30 >/dev/null &
tgt=$!
sleep 0.5
t0=$(date +%s.%N)
"$SHARDREC" record -e cpu-clock -p "$tgt" -o pcmd.data -- sleep 1 2>pcmd.err ||
	{ cat pcmd.err; fail "record -p PID -- cmd failed"; }
ended_with_cmd pcmd "$(echo "$(date +%s.%N) - $t0" | bc)"
kill -0 "$tgt" 2>/dev/null || fail "-p -- cmd: the target did not outlive the recording"
check_perf_file pcmd.data
"$PERF" script -i pcmd.data -F pid 2>/dev/null | sort -u | tr -d ' ' >pcmd.pids
[ "$(cat pcmd.pids)" = "$tgt" ] || fail "-p $tgt -- cmd: samples of pids $(tr '\n' ' ' <pcmd.pids)"
"$PERF" evlist -v -i pcmd.data | grep -q 'enable_on_exec: 1' && fail "-p -- cmd: enable_on_exec set"
set +e
"$SHARDREC" record -q -e cpu-clock -p "$tgt" -o pexit.data -- sh -c 'exit 3' 2>pexit.err
rc=$?
set -e
[ "$rc" = 3 ] || { cat pexit.err; fail "-p -- cmd: the command's exit 3 became $rc"; }
check_perf_readers pexit.data

# -t TID -- cmd: one worker thread of the target only.
tid=$(ls "/proc/$tgt/task" | grep -vx "$tgt" | head -n 1)
t0=$(date +%s.%N)
"$SHARDREC" record -e cpu-clock -t "$tid" -o tcmd.data -- sleep 1 2>tcmd.err ||
	{ cat tcmd.err; fail "record -t TID -- cmd failed"; }
ended_with_cmd tcmd "$(echo "$(date +%s.%N) - $t0" | bc)"
check_perf_file tcmd.data
"$PERF" script -i tcmd.data -F tid 2>/dev/null | sort -u | tr -d ' ' >tcmd.tids
[ "$(cat tcmd.tids)" = "$tid" ] || fail "-t $tid -- cmd: samples of tids $(tr '\n' ' ' <tcmd.tids)"

# -u USER -- cmd: the user's process, not root's target above.
setpriv --reuid=65534 --regid=65534 --clear-groups ./mtx_user -t 1 -s 30 >/dev/null &
upid=$!
sleep 0.5
t0=$(date +%s.%N)
"$SHARDREC" record -e cpu-clock -u 65534 -o ucmd.data -- sleep 1 2>ucmd.err ||
	{ cat ucmd.err; fail "record -u USER -- cmd failed"; }
ended_with_cmd ucmd "$(echo "$(date +%s.%N) - $t0" | bc)"
check_perf_file ucmd.data
"$PERF" script -i ucmd.data -F pid 2>/dev/null | sort -u | tr -d ' ' >ucmd.pids
grep -qx "$upid" ucmd.pids || fail "-u -- cmd: the user's process $upid not sampled"
! grep -qx "$tgt" ucmd.pids || fail "-u -- cmd: root's process $tgt sampled"
kill "$tgt" "$upid"
wait "$tgt" "$upid" 2>/dev/null || true

# The targets end first: so does the recording, and the command gets
# SIGTERM (exit 143), as with perf.
"$M" -t 1 -s 3 >/dev/null &
short=$!
sleep 0.2
t0=$(date +%s.%N)
set +e
"$SHARDREC" record -e cpu-clock -p "$short" -o pgone.data -- sleep 30 2>pgone.err
rc=$?
set -e
wall=$(echo "$(date +%s.%N) - $t0" | bc)
echo "-p gone first: rc $rc after $wall s"
[ "$rc" = 143 ] || { cat pgone.err; fail "-p target gone first: exit $rc, want 143 (SIGTERM)"; }
awk -v w="$wall" 'BEGIN { exit !(w < 15) }' || fail "-p target gone first: recording went on"
check_perf_file pgone.data
wait "$short" 2>/dev/null || true
