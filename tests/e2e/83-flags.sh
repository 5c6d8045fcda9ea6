# perf record's flags of GitHub issue 17 (items 3 and 4): each one recorded
# by shardrec and by perf with the same command line, and checked where it
# must show, so that ignoring it fails: attr bits in `perf evlist -v`,
# records in `perf report --stats` / perf script, -v lines; then perf's
# config files (record.* keys), the command line winning.
. "$(dirname "$0")/lib.sh"
need_perf_event
M=$PROGS/matrix
export PERF_CONFIG=/dev/null # the runner's own ~/.perfconfig stays out of it

# both NAME OPTS...: NAME.data by shardrec and NAME.perf by perf, the same
# options and command; their `perf evlist -v` in NAME.attr / NAME.pattr.
both() {
	local name=$1
	record_both "$@"
	"$PERF" evlist -v -i "$name.data" >"$name.attr"
	"$PERF" evlist -v -i "$name.perf" >"$name.pattr"
}
# has NAME PATTERN: in both attr dumps; hasnt: in neither.
has() {
	grep -q -- "$2" "$1.pattr" || { cat "$1.pattr"; fail "$1: '$2' not in perf's own recording"; }
	grep -q -- "$2" "$1.attr" || { cat "$1.attr"; fail "$1: '$2' missing"; }
}
hasnt() {
	! grep -q -- "$2" "$1.pattr" || { cat "$1.pattr"; fail "$1: '$2' in perf's own recording"; }
	! grep -q -- "$2" "$1.attr" || { cat "$1.attr"; fail "$1: '$2' present"; }
}
# stat FILE TYPE: how many TYPE records perf report --stats counts in FILE.
stat() { "$PERF" report --stats -i "$1" 2>/dev/null | awk -v t="$2" '$1 == t && $2 == "events:" { print $3; exit }'; }
# stats NAME TYPE: the TYPE records exist in both files.
stats() {
	[ "$(stat "$1.perf" "$2")" -gt 0 ] 2>/dev/null || fail "$1: no $2 records in perf's recording"
	[ "$(stat "$1.data" "$2")" -gt 0 ] 2>/dev/null || fail "$1: no $2 records"
}

both base -e cpu-clock
has base 'inherit: 1'
has base '{ sample_period, sample_freq }'
hasnt base 'namespaces: 1'
hasnt base 'CGROUP'
hasnt base 'WEIGHT'
hasnt base 'inherit_stat'
hasnt base 'exclude_callchain_kernel'

# The tracking dummy of -a, -C and -D, attr for attr as perf's (it takes the
# command line's -F or -c, not an event term's), but for what every event
# of ours carries by design: IDENTIFIER where perf may use ID (the merge's
# one id position), a wake-up watermark and CLOCK_MONOTONIC.
dummy_attr() {
	grep '^dummy:HG:' "$1" | sed -E 's/\|IDENTIFIER//; s/\|ID\|/|/; s/, watermark: 1//;
		s/, use_clockid: 1//; s/, \{ wakeup_events, wakeup_watermark \}: [0-9]+//; s/, clockid: 1//'
}
for opts in "-a -e cpu-clock -F 999" "-a -e cs -c 5" "-C 0 -e cpu-clock/period=5000/" \
	"-D 10 -e cpu-clock -F 999"; do
	# shellcheck disable=SC2086
	both dummy $opts
	[ -n "$(dummy_attr dummy.pattr)" ] || { cat dummy.pattr; fail "$opts: perf made no dummy:HG"; }
	[ "$(dummy_attr dummy.attr)" = "$(dummy_attr dummy.pattr)" ] ||
		{ dummy_attr dummy.pattr; dummy_attr dummy.attr; fail "$opts: the dummy is not perf's"; }
done

both nosamp -e cpu-clock --no-samples
hasnt nosamp '{ sample_period, sample_freq }'
[ "$(stat nosamp.data SAMPLE)" = "" ] || fail "--no-samples: samples recorded"
perf_clean "report --stats" report --stats -i nosamp.data

both ns -e cpu-clock --namespaces
has ns 'namespaces: 1'
stats ns NAMESPACES
check_perf_file ns.data

both cg -e cpu-clock --all-cgroups
has cg '|CGROUP'
has cg 'cgroup: 1'
stats cg CGROUP
check_perf_file cg.data
"$PERF" report -i cg.data --sort cgroup --stdio 2>/dev/null | grep -q '%  */' ||
	fail "--all-cgroups: samples not attributed to a cgroup path"

both weight -e cpu-clock -W
has weight 'WEIGHT_STRUCT'
check_perf_file weight.data

both perthread -e cpu-clock --per-thread
hasnt perthread 'inherit: 1'
both inh -e cpu-clock -i --inherit
has inh 'inherit: 1'

both ucc -e cpu-clock -g --user-callchains
has ucc 'exclude_callchain_kernel: 1'
has ucc 'CALLCHAIN'

# -s: inherit_stat, and a READ record as each task exits: perf report -T.
"$SHARDREC" record -q -s -e cpu-clock -o stat.data -- sh -c "$M -s 0.05; $M -s 0.05" >/dev/null 2>stat.err ||
	{ cat stat.err; fail "record -s failed"; }
"$PERF" evlist -v -i stat.data | grep -q 'inherit_stat: 1' || fail "-s: no inherit_stat"
"$PERF" evlist -v -i stat.data | grep -q 'TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING' || fail "-s: read format"
[ "$(stat stat.data READ)" -ge 2 ] 2>/dev/null || fail "-s: no READ records"
"$PERF" report -T -i stat.data --stdio 2>/dev/null | grep -A3 'PID *TID' | grep -q '^ *[0-9]' ||
	fail "-s: perf report -T shows no per-thread counts"
check_perf_file stat.data

# --strict-freq: -F above the maximum fails; without it, lowered to the maximum.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$SHARDREC" record -q -F $((max + 1)) --strict-freq -o x.data -- true 2>x.err &&
	fail "--strict-freq accepted -F $((max + 1))"
grep -q "Maximum frequency" x.err || { cat x.err; fail "--strict-freq: unclear error"; }
"$SHARDREC" record -q -F $((max + 1)) -e cpu-clock -o fmax.data -- true 2>fmax.err ||
	{ cat fmax.err; fail "-F above the maximum refused without --strict-freq"; }
"$PERF" evlist -v -i fmax.data | grep -q "sample_freq }: $max," || fail "-F not lowered to $max"

# --off-cpu: perf 6.1 without BPF warns and records on; so does shardrec.
both offcpu -e cpu-clock --off-cpu
grep -q "off-cpu' is being ignored" offcpu.err || { cat offcpu.err; fail "--off-cpu: no warning"; }

# --kcore: one line, exit 2.
rc=0
"$SHARDREC" record --kcore -o x.data -- true 2>x.err || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q "kcore.*not supported" x.err ||
	{ cat x.err; fail "--kcore: not one line with exit 2 (rc $rc)"; }

# --buildid-all: with a period nothing reaches, no DSO is hit, yet every one
# perf lists gets its build id.
both bidall -e cpu-clock -c 1000000000000 --buildid-all
"$SHARDREC" record -q -e cpu-clock -c 1000000000000 -o bidhit.data -- "$M" -s 0.1 2>/dev/null
"$PERF" buildid-list -i bidall.perf | grep -v '\[' | awk 'length($1) == 40 { print $2 }' | sort >bid.perf
"$PERF" buildid-list -i bidall.data | awk 'length($1) == 40 { print $2 }' | sort >bid.ours
[ -s bid.perf ] || fail "--buildid-all: perf's own recording lists no DSO"
missing=$(comm -23 bid.perf bid.ours)
[ -z "$missing" ] || fail "--buildid-all: no build id for $missing"
! "$PERF" buildid-list -i bidhit.data | grep -q "^[0-9a-f]\{40\} .*matrix$" ||
	fail "without --buildid-all, an unhit DSO got a build id (test is void)"
# No sample at all: perf still writes the [vdso] build id (its build-id
# table skips unhit DSOs but the vdso), so its section is never empty; the
# same bytes here (an empty section announced in the header was one an
# independent reader warns about).
both nohit -e cpu-clock -c 1000000000000
bid_section() {
	python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
o, s = struct.unpack_from("<QQ", b, off + size)
print(b[o:o + s].hex())' "$1"
}
[ "$("$PERF" report --stats -i nohit.data 2>/dev/null | grep -c 'SAMPLE events')" = 0 ] ||
	fail "no-sample recording has samples (test is void)"
"$PERF" buildid-list -i nohit.perf | grep -q '^[0-9a-f]\{40\} \[vdso\]$' || fail "perf wrote no [vdso] build id"
[ "$(bid_section nohit.data)" = "$(bid_section nohit.perf)" ] ||
	{ "$PERF" buildid-list -i nohit.data; fail "no samples: the BUILD_ID section is not perf's"; }

# -p targets for the synthesis flags: a process that changes its name.
# Waits until sh has its libraries mapped, so that the synthesized maps are
# complete whatever the load (under load 0.1 s could catch it mid-exec).
# It becomes matrix only when the recorded command, which runs after the
# tasks were described, creates target.go: after a fixed 0.5 s, a
# recorder slowed by load described matrix instead of sh.
# matrix lives 60 s and is killed after the recording: a recorder stops
# when its -p target ends (exit 143, 82-options), and under load perf 6.1
# took over 3 s to start, past a 3 s target's end.
target() {
	local i
	rm -f target.go
	sh -c "while [ ! -e target.go ]; do sleep 0.02; done; exec $M -s 60" &
	TPID=$!
	for i in $(seq 100); do
		[ "$(cat /proc/$TPID/comm 2>/dev/null)" = sh ] && grep -q libc /proc/$TPID/maps 2>/dev/null && return 0
		sleep 0.02
	done
	fail "target $TPID: sh never started"
}
# The recorded command's script: lets $TPID become matrix and waits until
# it has (the name --tail-synthesize must find at the end), then 0.2 s; at
# most 10 s.
till_matrix() {
	echo "touch target.go; for i in \$(seq 200); do grep -qx matrix /proc/$TPID/comm 2>/dev/null && break; sleep 0.05; done; sleep 0.2"
}
# synthesized records (time 0) of $TPID in FILE: "COMM:NAME" and "MMAP2" lines
synth_of() {
	# perf 6.1's script aborts on its own --proc-map-timeout=0 recording: take what it printed
	{ "$PERF" script -i "$1" --show-task-events --show-mmap-events 2>/dev/null || true; } |
		awk -v p="$TPID" '$3 == "0.000000:" && (index($0, ":" p "/") || index($0, " " p "/")) {
			if ($4 == "PERF_RECORD_COMM:") { split($5, a, ":"); print "COMM:" a[1] }
			else if ($4 == "PERF_RECORD_MMAP2") print "MMAP2" }'
}
# rec_p NAME OPTS...: shardrec and perf on -p $TPID until it is matrix, one target each
rec_p() {
	local name=$1
	shift
	target
	"$SHARDREC" record -q -e cpu-clock -p "$TPID" "$@" -o "$name.data" -- sh -c "$(till_matrix)" 2>"$name.err" ||
		{ rc=$?; cat "$name.err"; fail "shardrec record -p $* failed (exit $rc)"; }
	synth_of "$name.data" >"$name.syn"
	kill "$TPID" 2>/dev/null || true
	wait "$TPID" 2>/dev/null || true
	# NO_PERF=1: no reference recording (perf 6.1 itself aborts on some)
	[ -z "${NO_PERF:-}" ] || return 0
	target
	"$PERF" record -q -e cpu-clock -p "$TPID" "$@" -o "$name.perf" -- sh -c "$(till_matrix)" 2>"$name.perr" ||
		{ rc=$?; cat "$name.perr"; fail "perf record -p $* failed (exit $rc)"; }
	synth_of "$name.perf" >"$name.psyn"
	kill "$TPID" 2>/dev/null || true
	wait "$TPID" 2>/dev/null || true
}
rec_p synthdef
grep -q "COMM:sh" synthdef.syn && grep -q MMAP2 synthdef.syn || { cat synthdef.syn; fail "no synthesized records by default"; }
rec_p tail --tail-synthesize
grep -q "COMM:matrix" tail.psyn || { cat tail.psyn; fail "perf's --tail-synthesize: not the name at the end"; }
grep -q "COMM:matrix" tail.syn && ! grep -q "COMM:sh" tail.syn ||
	{ cat tail.syn; fail "--tail-synthesize: tasks not described as they are at the end"; }
rec_p synthno --synth=no
[ ! -s synthno.psyn ] || { cat synthno.psyn; fail "perf's --synth=no synthesized"; }
[ ! -s synthno.syn ] || { cat synthno.syn; fail "--synth=no: records synthesized"; }
rec_p synthtask --synth=task
grep -q COMM synthtask.syn && ! grep -q MMAP2 synthtask.syn ||
	{ cat synthtask.syn; fail "--synth=task: not COMM without MMAP2"; }
! grep -q MMAP2 synthtask.psyn || fail "perf's --synth=task has MMAP2"
# perf reads one mapping before its first check of the time; so do we. perf
# 6.1 aborts now and then recording with --proc-map-timeout=0 (and its script
# on such a file), so the figure is perf's rule, not its file.
NO_PERF=1 rec_p pmt --proc-map-timeout=0
[ "$(grep -c MMAP2 pmt.syn)" = 1 ] || { cat pmt.syn; fail "--proc-map-timeout=0: not one MMAP2"; }
[ "$(grep -c MMAP2 pmt.syn)" -lt "$(grep -c MMAP2 synthdef.syn)" ] ||
	{ cat synthdef.syn; fail "--proc-map-timeout=0 ignored: every map read"; }
grep -q "proc-map-timeout" pmt.err || { cat pmt.err; fail "--proc-map-timeout: no warning"; }

# --affinity: -v says where each writer may run (one writer per CPU here).
ncpu=$(nproc)
aff() {
	"$SHARDREC" record -v --threads=cpu --affinity="$1" -e cpu-clock -o aff.data -- true 2>&1 |
		sed -n 's/.*affinity of writer [0-9]*: may run on \([0-9]*\) cpus.*/\1/p' | sort -u
}
[ "$(aff cpu)" = 1 ] || fail "--affinity=cpu: a writer may run on $(aff cpu) CPUs"
[ "$(aff sys)" = "$ncpu" ] || fail "--affinity=sys: a writer may run on $(aff sys) CPUs, not $ncpu"
[ "$(aff node)" -ge 1 ] || fail "--affinity=node: no placement shown"
"$SHARDREC" record --affinity=core -o x.data -- true 2>x.err && fail "--affinity=core accepted"

# --mmap-flush: the writers' wakeup (attr.wakeup_watermark), at most a quarter ring.
"$SHARDREC" record -q -m 128 --mmap-flush=8K -e cpu-clock -o flush.data -- true
"$PERF" evlist -v -i flush.data | grep -q 'wakeup_watermark }: 8192,' || fail "--mmap-flush=8K ignored"
"$SHARDREC" record -q -m 128 --mmap-flush=1G -e cpu-clock -o flush.data -- true
q=$((128 * $(getconf PAGESIZE) / 4))
"$PERF" evlist -v -i flush.data | grep -q "wakeup_watermark }: $q," || fail "--mmap-flush=1G not capped at $q"
# SHARDREC_WAKEUP_DIV (bench experiments): 1/N of the ring, N from 2 to 64;
# anything else is a one-line error, as a bad SHARDREC_PLAN_CAP is.
SHARDREC_WAKEUP_DIV=2 "$SHARDREC" record -q -m 128 -e cpu-clock -o flush.data -- true
"$PERF" evlist -v -i flush.data | grep -q "wakeup_watermark }: $((q * 2))," ||
	fail "SHARDREC_WAKEUP_DIV=2 not half a ring"
for v in 1 65 x; do
	if SHARDREC_WAKEUP_DIV=$v "$SHARDREC" record -q -m 128 -e cpu-clock -o wdiv.data -- true \
		2>wdiv.err; then
		fail "SHARDREC_WAKEUP_DIV=$v (out of range) accepted"
	fi
	[ "$(wc -l <wdiv.err)" = 1 ] && grep -q "^shardrec.*SHARDREC_WAKEUP_DIV=$v: want N from 2 to 64" wdiv.err ||
		{ cat wdiv.err; fail "SHARDREC_WAKEUP_DIV=$v: not one line naming the knob"; }
	[ ! -e wdiv.data ] || fail "SHARDREC_WAKEUP_DIV=$v: wrote wdiv.data"
done
# SHARDREC_COPY_DIV (bench experiments): a ring found at least 1/N full is
# copied to the writer's buffer and handed back before the write. -v says
# how much each writer copied (8 KiB passes of 32 KiB rings: every one at
# 1/64); the file is whole to perf, every sample the summary counted in it.
SHARDREC_COPY_DIV=64 "$SHARDREC" record -v -m 8 -e cpu-clock -F 10000 -o copy.data -- \
	"$PROGS/hot" 300 >/dev/null 2>copy.err || { cat copy.err; fail "SHARDREC_COPY_DIV=64 failed"; }
each_writer copy.err "copy-out" "SHARDREC_COPY_DIV=64"
awk '/^shardrec: copy-out of writer [0-9]+ \(rings at 1\/64 full\): / { mb += $(NF - 1) }
	END { exit !(mb > 0) }' copy.err || { cat copy.err; fail "SHARDREC_COPY_DIV=64: nothing copied"; }
check_perf_file copy.data
[ "$(perf_samples copy.data)" = "$(summary_samples copy.err)" ] ||
	fail "SHARDREC_COPY_DIV=64: perf reads $(perf_samples copy.data) samples, the summary said $(summary_samples copy.err)"
for v in 1 65 x; do
	if SHARDREC_COPY_DIV=$v "$SHARDREC" record -q -e cpu-clock -o cdiv.data -- true 2>cdiv.err; then
		fail "SHARDREC_COPY_DIV=$v (out of range) accepted"
	fi
	[ "$(wc -l <cdiv.err)" = 1 ] && grep -q "^shardrec.*SHARDREC_COPY_DIV=$v: want N from 2 to 64" cdiv.err ||
		{ cat cdiv.err; fail "SHARDREC_COPY_DIV=$v: not one line naming the knob"; }
	[ ! -e cdiv.data ] || fail "SHARDREC_COPY_DIV=$v: wrote cdiv.data"
done

# perf's config: record.* keys, the command line winning.
cat >pc <<EOF
# a comment
[record]
	call-graph = dwarf,4096 ; the mode -g turns on
	build-id = skip
	mmap-flush = 16K
[report]
	children = false
EOF
cfg() { PERF_CONFIG=$PWD/pc "$@"; }
cfg "$PERF" record -q -e cpu-clock -g -o cfg.perf -- "$M" -s 0.1 2>/dev/null
cfg "$SHARDREC" record -q -e cpu-clock -g -o cfg.data -- "$M" -s 0.1 2>cfg.err || { cat cfg.err; fail "config: record failed"; }
for f in cfg.perf cfg.data; do
	"$PERF" evlist -v -i $f | grep -q 'sample_stack_user: 4096' || fail "$f: record.call-graph = dwarf,4096 ignored by -g"
done
"$PERF" evlist -v -i cfg.data | grep -q 'wakeup_watermark }: 16384,' || fail "record.mmap-flush ignored"
! "$PERF" buildid-list -i cfg.data | grep -q "^[0-9a-f]\{40\} " || fail "record.build-id = skip ignored"
cfg "$SHARDREC" record -q -e cpu-clock -o cfg2.data -- "$M" -s 0.1 2>/dev/null
! "$PERF" evlist -v -i cfg2.data | grep -q CALLCHAIN || fail "record.call-graph alone turned call graphs on (perf does not)"
cfg "$SHARDREC" record -q -e cpu-clock --call-graph fp --mmap-flush=8K -o cfg3.data -- "$M" -s 0.1 2>/dev/null
"$PERF" evlist -v -i cfg3.data >cfg3.attr
grep -q 'wakeup_watermark }: 8192,' cfg3.attr && ! grep -q STACK_USER cfg3.attr || fail "config won over the command line"
mkdir home
cp pc home/.perfconfig
(unset PERF_CONFIG; HOME=$PWD/home PERF_CONFIG_NOSYSTEM=1 "$SHARDREC" record -q -e cpu-clock -o cfg4.data -- true)
"$PERF" evlist -v -i cfg4.data | grep -q 'wakeup_watermark }: 16384,' || fail "~/.perfconfig not read"
printf '[record]\n\tbuild-id = bogus\n' >bad
rc=0
PERF_CONFIG=$PWD/bad "$SHARDREC" record -q -o x.data -- true 2>x.err || rc=$?
[ "$rc" = 2 ] && grep -q "record.build-id" x.err || { cat x.err; fail "bad config value: rc $rc"; }
echo "issue 17 flags and perf config: ok"
