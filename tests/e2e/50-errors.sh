# Bad input: one clear line on stderr, the right exit code, no output left behind.
. "$(dirname "$0")/lib.sh"
need_perf_event

# expect CODE PATTERN -- shardrec args...
expect() {
	local code=$1 pat=$2
	shift 3
	set +e
	"$SHARDREC" "$@" >out.txt 2>err.txt
	local rc=$?
	set -e
	echo "shardrec $*: rc $rc: $(cat err.txt)"
	[ "$rc" = "$code" ] || fail "'$*': exit $rc, want $code"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "'$*': error is not one line"; }
	grep -Eq -e "$pat" err.txt || fail "'$*': error does not match /$pat/"
	[ ! -e x.data ] || fail "'$*': left an output file"
	[ ! -e x.data.shards ] || fail "'$*': left a shard directory"
}

expect 2 "unknown" -- record --no-such-flag -o x.data -- true
# A mistyped command gets git's "did you mean"; perf's readers are perf's.
expect 2 "unknown command 'recrod': did you mean 'record'\\?" -- recrod -o x.data -- true
expect 2 "unknown command 'frobnicate' \\(see shardrec help\\)" -- frobnicate
expect 2 "'report' is perf's: .*perf report -i perf.data" -- report -i x.data
expect 2 "'stat' is perf's" -- stat -- true
expect 2 "option '--evnt' is unknown: did you mean '--event'\\?" -- record --evnt cs -o x.data -- true
expect 2 "option '--output' needs a value" -- record --output
expect 2 "unknown event 'cyclse': did you mean 'cycles'\\? \\(shardrec list" -- record -e cyclse -o x.data -- true
expect 2 "needs a value" -- record -o x.data -e
# Bad usage exits 2, whether getopt or the setup finds it (README).
expect 2 "no-such-event" -- record -e no-such-event -o x.data -- true
expect 2 "unknown tracepoint" -- record -e sched:no_such_tp -o x.data -- true
# Without a hardware PMU, cycles falls back to cpu-clock (82-options.sh);
# any other hardware event is one line and exit 1, as before.
if [ ! -e /sys/bus/event_source/devices/cpu ] && ! ls /sys/bus/event_source/devices/*/cpus >/dev/null 2>&1; then
	expect 1 "instructions.*(hardware|PMU)" -- record -e cpu-clock,instructions -o x.data -- true
	expect 1 "instructions.*(hardware|PMU)" -- record -e instructions -o x.data -- true
fi
expect 1 "no such process" -- record -p 999999 -o x.data
expect 1 "no such process" -- record -p 999999 -o x.data -- sleep 5
expect 2 "CPU 4096|not online|CPU list" -- record -C 4096 -o x.data -- true
expect 2 "CPU 99|not online" -- record -C 99 -o x.data -- true
expect 2 "not a CPU list" -- record -C 1-x -o x.data -- true
expect 2 "not in the topology" -- record -a --threads=4000/4000 -o x.data -- true
expect 2 "names no recorded CPU" -- record -C 0 --threads=1/1 -o x.data -- true
expect 2 "unknown user" -- record -u no-such-user-xyz -o x.data -- true
expect 2 "maximum stack depth" -- record --call-graph fp,1x -o x.data -- true
# An output in a missing directory: the message names the user's file, not
# the internal shard directory beside it.
expect 1 "^shardrec: error: cannot create $PWD/no-dir/x\\.data: No such file" -- record -o "$PWD/no-dir/x.data" -- true
! grep -q "shards" err.txt || fail "-o into a missing directory names the shard directory"
expect 2 "level from 1 to 22" -- record -z0 -o x.data -- true
expect 127 "cannot run 'no-such-command-xyz'" -- record -o x.data -- no-such-command-xyz
expect 2 "nothing to record" -- record -o x.data
expect 2 "-F" -- record -F abc -o x.data -- true
expect 2 "power-of-two" -- record -m 3 -o x.data -- true
mkdir ro && chmod 0555 ro
if [ "$(id -u)" != 0 ]; then
	expect 1 "ro/x.data" -- record -o ro/x.data -- true
fi
expect 1 "No such file or directory" -- record -o nodir/x.data -- true
expect 2 "unknown command" -- frobnicate
expect 2 "unknown command 'frobnicate'" -- help frobnicate

# Bare shardrec: the usage on stdout and exit 1, as perf; help COMMAND is
# COMMAND --help.
set +e
"$SHARDREC" >out.txt 2>err.txt
rc=$?
set -e
[ "$rc" = 1 ] || fail "bare shardrec: exit $rc, want 1"
grep -q "^Usage: shardrec COMMAND" out.txt && [ ! -s err.txt ] || fail "bare shardrec: no usage"
for c in record job merge loss topology; do
	"$SHARDREC" help "$c" >help.txt || fail "help $c: exit $?"
	"$SHARDREC" "$c" --help >opt.txt || fail "$c --help: exit $?"
	grep -q "^Usage: .*shardrec $c" help.txt || { cat help.txt; fail "help $c: not $c's usage"; }
	cmp -s help.txt opt.txt || fail "help $c differs from $c --help"
done
"$SHARDREC" help >help.txt && grep -q "^Usage: shardrec COMMAND" help.txt || fail "help: no usage"

# The workload's exit status is shardrec's.
set +e
"$SHARDREC" record -q -o x.data -- sh -c 'exit 7'
rc=$?
set -e
[ "$rc" = 7 ] || fail "workload exit 7 became $rc"
check_perf_readers x.data
