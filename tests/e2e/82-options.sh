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

# --max-size: stops a 10 s recording early, output still valid.
start=$(date +%s%N)
"$SHARDREC" record -a --max-size 1M --call-graph dwarf,4096 -e cpu-clock -o max.data -- \
	"$M" -s 10 >/dev/null 2>max.err || true
ms=$((($(date +%s%N) - start) / 1000000))
cat max.err
grep -q "size limit reached" max.err || fail "--max-size: no stop message"
[ "$ms" -lt 6000 ] || fail "--max-size ignored: ran $ms ms"
perf_clean "report --stats" report --stats -i max.data
perf_clean inject inject -i max.data -o /dev/null
size=$(stat -c %s max.data)
[ "$size" -lt $((2 << 20)) ] || fail "--max-size 1M wrote $size bytes"

# -q: nothing on stderr; -v: per-writer lines; --dry-run: a plan, no file.
[ ! -s base.err ] || { cat base.err; fail "-q printed"; }
"$SHARDREC" record -v -e cpu-clock -o verbose.data -- "$M" -s 0.1 >/dev/null 2>verbose.err
grep -q "^shardrec: writer 0:" verbose.err || { cat verbose.err; fail "-v printed no writer line"; }
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
