# perf's per-event terms (-e 'cpu-clock/max-stack=3,call-graph=fp/', on
# tracepoints and uprobes too) and -b / -j / --branch-filter (GitHub issue
# items 5 and 7). Each term recorded by shardrec and by perf 6.1 with the
# same command line: the attr fields a term can change must agree, event
# by event, in `perf evlist -v`. Terms shardrec cannot apply fail with one
# line and exit 2; -b and -j fail where perf fails, with perf's message.
. "$(dirname "$0")/lib.sh"
need_perf_event
M=$PROGS/matrix
export PERF_CONFIG=/dev/null # the runner's own ~/.perfconfig stays out of it

# The fields the terms and -b/-j change. sample_type leaves out IDENTIFIER
# and ID: shardrec samples IDENTIFIER for every list (its merge needs it),
# perf for lists of several events.
FIELDS="sample_type sample_max_stack inherit exclude_callchain_user exclude_callchain_kernel
	sample_regs_user sample_stack_user mmap_data write_backward aux_output branch_sample_type
	exclude_user exclude_kernel"

# attrs FILE: one line per event of FILE (perf's dummy left out), FIELD=VALUE
# for each of $FIELDS, 0 when perf evlist -v leaves it out.
attrs() {
	"$PERF" evlist -v -i "$1" 2>/dev/null | grep ': type: ' | grep -v '^dummy' |
		awk -v want="$(echo $FIELDS)" '{
			n = split(want, w, " "); line = ", " $0 ","; out = $1
			for (i = 1; i <= n; i++) {
				val = "0"
				if (match(line, ", " w[i] ": [^,]*"))
					val = substr(line, RSTART + length(w[i]) + 4, RLENGTH - length(w[i]) - 4)
				if (w[i] == "sample_type") {
					m = split(val, b, "|"); val = ""
					for (j = 1; j <= m; j++)
						if (b[j] != "IDENTIFIER" && b[j] != "ID")
							val = val (val == "" ? "" : "|") b[j]
				}
				out = out " " w[i] "=" val
			}
			print out
		}'
}

# same NAME OPTS...: NAME.data by shardrec and NAME.perf by perf, the same
# options; their attrs (NAME.attr, NAME.pattr) must be equal.
same() {
	local name=$1
	record_both "$@"
	attrs "$name.data" >"$name.attr"
	attrs "$name.perf" >"$name.pattr"
	[ -s "$name.pattr" ] || fail "$name: no events in perf's recording"
	if ! diff "$name.pattr" "$name.attr" >"$name.diff"; then
		cat "$name.diff"
		fail "$name ($*): attrs differ from perf's (< perf, > shardrec)"
	fi
	echo "$name: $* -> as perf: $(head -c 200 "$name.attr")"
}
# has NAME PATTERN: the attrs show it (the comparison is not void).
has() { grep -q -- "$2" "$1.attr" || { cat "$1.attr"; fail "$1: no '$2'"; }; }

same maxstack -e 'cpu-clock/max-stack=3,call-graph=fp/'
has maxstack 'sample_max_stack=3'
has maxstack 'CALLCHAIN'
check_perf_file maxstack.data
# no chain longer than 3 frames
"$PERF" script -i maxstack.data -F ip 2>/dev/null | awk 'NF { n++ } !NF { if (n > 3) bad = 1; n = 0 }
	END { exit bad || n > 3 }' || fail "max-stack=3: a call chain of more than 3 frames"
same implied -e 'cpu-clock/max-stack=3/,task-clock'
has implied 'sample_max_stack=3'
same dwarf -e 'cpu-clock/call-graph=dwarf,stack-size=4096/'
has dwarf 'sample_stack_user=4096'
check_perf_file dwarf.data
same nograph -g -e 'cpu-clock/stack-size=4096/,task-clock/call-graph=no/,page-faults'
# over --call-graph dwarf: perf clears the global call graph's bits, not its values
same overdwarf --call-graph dwarf -e 'cpu-clock/call-graph=fp/,task-clock/max-stack=5/'
has overdwarf 'sample_max_stack=5'
same userchains --user-callchains -e 'cpu-clock/max-stack=3/'
has userchains 'exclude_callchain_kernel=1'
same inherit -i -e 'cpu-clock/inherit/,task-clock'
has inherit 'inherit=1'
same noinherit -e 'cpu-clock/no-inherit/,task-clock/inherit=0/'
same overwrite --overwrite -e 'cpu-clock/overwrite/,task-clock/no-overwrite=0/'
has overwrite 'write_backward=1'
same nooverwrite -e 'cpu-clock/no-overwrite/'
# perf stat's and perf trace's terms change nothing; time=1 neither
same noeffect -e 'cpu-clock/percore,nr=3,metric-id=m1,time=1/'
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
	same tp -e 'sched:sched_switch/max-stack=3,no-inherit/u'
	has tp 'sample_max_stack=3'
	has tp 'exclude_kernel=1'
else
	echo "tracefs not readable: tracepoint terms not compared"
fi

# A uprobe with a term, as perf's own record+probe_libc_inet_pton.sh records it.
uprobe() {
	local libc ev
	libc=$(ldd "$(command -v getent)" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
	[ -n "$libc" ] || { echo "uprobe case skipped: no libc found for getent"; return 0; }
	ev=sr83_$$
	"$PERF" probe -q -x "$libc" -a "probe_libc:$ev=inet_pton" >probe.err 2>&1 ||
		{ echo "uprobe case skipped: perf probe cannot add one here: $(head -1 probe.err)"; return 0; }
	PROBE=probe_libc:$ev
	"$SHARDREC" record -q -e "$PROBE/max-stack=3/" -o up.data -- getent ahosts ::1 >/dev/null 2>up.err ||
		{ cat up.err; fail "shardrec record -e $PROBE/max-stack=3/ failed"; }
	"$PERF" record -q -e "$PROBE/max-stack=3/" -o up.perf -- getent ahosts ::1 >/dev/null 2>&1 ||
		fail "perf record -e $PROBE/max-stack=3/ failed"
	attrs up.data >up.attr
	attrs up.perf >up.pattr
	diff up.pattr up.attr || fail "$PROBE/max-stack=3/: attrs differ from perf's"
	has up 'sample_max_stack=3'
	"$PERF" script -i up.data 2>/dev/null | grep -q "$PROBE:" || fail "$PROBE: no samples recorded"
	"$PERF" script -i up.data 2>/dev/null | grep -q 'inet_pton' || fail "$PROBE: no call chain"
	echo "uprobe: $PROBE/max-stack=3/ -> as perf, with samples"
}
PROBE=
trap '[ -z "$PROBE" ] || "$PERF" probe -q -d "$PROBE"; cleanup' EXIT
uprobe

# refused TERMS: one line, exit 2, naming the term
refused() {
	local rc=0
	"$SHARDREC" record "${@:2}" -o x.data -- true 2>x.err || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q -- "$1" x.err ||
		{ cat x.err; fail "${*:2}: not one line naming '$1' with exit 2 (rc $rc)"; }
	echo "refused: ${*:2}: $(cat x.err)"
}
refused 'overwrite: not supported' -e 'cpu-clock/overwrite/'
refused 'no-overwrite: not supported' --overwrite -e 'cpu-clock/no-overwrite/'
refused 'time=0: not supported' -e 'cpu-clock/time=0/'
refused 'aux-sample-size: No AUX area event' -e 'cpu-clock/aux-sample-size=4096/'
refused 'call-graph=lbr' -e 'cpu-clock/call-graph=lbr/'
refused "term 'period' does not apply to a tracepoint" -e 'sched:sched_switch/period=2/'
refused "unknown term 'bogus'" -e 'cpu-clock/bogus=1/'
# perf takes call-graph=bogus and records with the global call graph; shardrec says so
refused 'not a call graph mode' -e 'cpu-clock/call-graph=bogus/'

# opens NAME OPTS...: shardrec fails where perf fails, with perf's message
# (perf exits 255, shardrec 1: its code for a recording that could not
# start); where perf records, so must shardrec, with the same attrs.
opens() {
	local name=$1 prc=0 rc=0 pmsg msg
	shift
	"$PERF" record -q "$@" -o "$name.perf" -- "$M" -s 0.05 >/dev/null 2>"$name.perr" || prc=$?
	"$SHARDREC" record -q "$@" -o "$name.data" -- "$M" -s 0.05 >/dev/null 2>"$name.err" || rc=$?
	if [ "$prc" = 0 ]; then
		[ "$rc" = 0 ] || { cat "$name.err"; fail "$*: perf records, shardrec does not"; }
		attrs "$name.data" >"$name.attr"
		attrs "$name.perf" >"$name.pattr"
		diff "$name.pattr" "$name.attr" || fail "$*: attrs differ from perf's"
		echo "$name: $* records, as perf"
		return 0
	fi
	pmsg=$(grep -v '^Error:$' "$name.perr" | head -1)
	msg=$(sed 's/^shardrec: error: //' "$name.err")
	[ "$rc" = 1 ] && [ "$(wc -l <"$name.err")" = 1 ] ||
		{ cat "$name.err"; fail "$*: perf fails ($prc), shardrec exits $rc"; }
	[ "$msg" = "$pmsg" ] || fail "$*: message '$msg', perf's '$pmsg'"
	echo "$name: $*: both fail (perf $prc, shardrec $rc): $msg"
}
opens b -b -e cpu-clock
opens j -j any,u -e cpu-clock
opens jtp -j any -e 'cpu-clock,task-clock'
opens brterm -e 'cpu-clock/branch_type=u/'
opens auxout -e 'cpu-clock/aux-output/'

# usage errors: perf prints its usage and exits 129; shardrec one line, exit 2
usage() {
	local rc=0
	"$PERF" record "${@:2}" -o x.perf -- true >/dev/null 2>&1 && fail "perf took ${*:2}"
	"$SHARDREC" record "${@:2}" -o x.data -- true 2>x.err || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <x.err)" = 1 ] && grep -q -- "$1" x.err ||
		{ cat x.err; fail "${*:2}: not one line with '$1' and exit 2 (rc $rc)"; }
	echo "usage error: ${*:2}: $(cat x.err)"
}
usage "unknown branch filter 'foo' (valid: u,k,hv,any,any_call,any_ret,ind_call" -j any,foo
usage "unknown branch filter 'hw_index'" --branch-filter hw_index
usage "Can't use --branch-any (-b) with --branch-filter (-j)" -b -j any
usage "Can't use --branch-any (-b) with --branch-filter (-j)" -j any -j u
echo "event terms and branch filters: ok"
