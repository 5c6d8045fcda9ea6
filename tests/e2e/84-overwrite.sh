# --overwrite (flight recorder: backward rings), SIGUSR2, --control and
# -D -1 (GitHub issues 6 and 8). Each check fails if the option is ignored:
# forward rings would give samples with no gaps, a dropped SIGUSR2 one dump
# too few, an ignored "enable" no samples at all.
. "$(dirname "$0")/lib.sh"
need_perf_event
H=$PROGS/hot
W=$PROGS/cpuwork

# --- every event, the tracking one too, gets a backward ring ---
"$SHARDREC" record -q --overwrite -e cpu-clock,task-clock -o attr.data -- "$H" 200 1 \
	>/dev/null 2>attr.err || { cat attr.err; fail "record --overwrite failed"; }
"$PERF" evlist -v -i attr.data >attr.txt
[ "$(grep -c 'write_backward: 1' attr.txt)" = 2 ] || { cat attr.txt; fail "write_backward not set"; }
check_perf_file attr.data
"$SHARDREC" record -q --overwrite -D 50 -o dly.data -- "$H" 200 1 >/dev/null 2>dly.err ||
	{ cat dly.err; fail "--overwrite -D failed"; }
[ "$(perf evlist -v -i dly.data | grep -c 'write_backward: 1')" = 2 ] || fail "-D dummy not backward"

# --- the flight recorder: 8 KiB rings, two SIGUSR2, the final dump ---
# (small: a ring must go round well within the 1 s between dumps even when
# a loaded machine runs hot at a quarter of its rate, or the gaps vanish)
# hot starts after the recording, on both CPUs so that both rings go round:
# its fork, exec and mmaps are overwritten long before any dump, and only
# the task records written again at the end (tail.synth) name it.
"$SHARDREC" record -a --overwrite -m 2 --keep-shards -o fr.data -- sleep 3 >fr.out 2>fr.err &
rec=$!
wait_for fr.data.shards/header.data
sleep 0.3
"$H" 4000 2 &
hot=$!
sleep 0.7
kill -USR2 $rec
sleep 1
kill -USR2 $rec
wait $rec || { cat fr.err; fail "flight recorder run failed"; }
kill $hot 2>/dev/null || true
wait $hot 2>/dev/null || true
cat fr.err
grep -q "flight recorder: 2 snapshot requests, 3 ring dumps" fr.err || fail "SIGUSR2 not dumped"
mb=$(sed -n 's/.* \([0-9.]*\) MB overwritten before a dump.*/\1/p' fr.err)
[ "$(echo "$mb > 0.1" | bc)" = 1 ] || fail "nothing overwritten (${mb:-?} MB): rings not backward?"
[ -s fr.data.shards/tail.synth ] || fail "no tail.synth"
ALLOW_LOSS_WARNING=1 check_perf_file fr.data
# three bursts of samples, each ending at a dump, with gaps between them
"$PERF" script -i fr.data -F time 2>/dev/null | tr -d ' :' >fr.times
gaps=$(awk 'NR > 1 && $1 - p > 0.4 { n++ } { p = $1 } END { print n + 0 }' fr.times)
echo "flight recorder: $(wc -l <fr.times) samples, $gaps gaps over 0.4 s"
[ "$gaps" -ge 2 ] || fail "no gaps between dumps: the rings were read forward"
# by pid, not by name: another job's "hot" may run beside this -a recording
"$PERF" report -i fr.data --stdio --sort pid,sym 2>/dev/null >fr.rep
grep -q " $hot:hot  *\[\.\] hot_loop" fr.rep || { head -20 fr.rep; fail "hot_loop of pid $hot not resolved"; }
# Rounds as perf writes a dump, one round each: in file order, no record is
# older than the newest record of an earlier round (a round between two
# CPUs' buffers of one dump, which span the same window, broke that for
# readers that flush by position: hotspot's perfparser). Two writers, two
# dumps while hot runs on both CPUs, and the final one.
"$SHARDREC" record -q -a --overwrite --threads=cpu -m 8 -o rounds.data -- \
	sh -c '"$0" 1500 2 & sleep 0.5; kill -USR2 $PPID; sleep 0.5; kill -USR2 $PPID; wait' "$H" ||
	fail "flight recorder with two writers failed"
python3 - rounds.data <<'EOF' || fail "flight recorder: rounds overlap in time"
import re, subprocess, sys
out = subprocess.run(["perf", "report", "-D", "-i", sys.argv[1]], capture_output=True, text=True).stdout
recs = sorted((int(m.group(2), 16), int(m.group(1)), m.group(3)) for m in
              (re.match(r"^(?:\d+ )?(\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_(\w+)", l)
               for l in out.splitlines()) if m)
done, cur, older, rounds = 0, 0, 0, 0
for off, t, kind in recs:
    if kind == "FINISHED_ROUND":
        done, rounds = max(done, cur), rounds + 1
    elif t:
        older += t < done
        cur = max(cur, t)
print("flight recorder: %d rounds, %d records older than an earlier round's newest" % (rounds, older))
sys.exit(older != 0 or rounds < 2)
EOF

# --- a dump pauses each ring for its copy, not for the write ---
# Every shard write takes 300 ms here (SHARDREC_FAULT, recorder/capture/fault.h):
# rings paused until the pass is written would drop 300 ms of samples on
# every CPU at the SIGUSR2 dump (the final one comes after the events are
# disabled). cpu-clock -a samples idle CPUs too: 4000 a second on each.
SHARDREC_FAULT='writer:*:slow:300' "$SHARDREC" record -a --overwrite -m 8 -o slow.data -- sleep 1.5 \
	>slow.out 2>slow.err &
rec=$!
wait_for slow.data.shards/header.data
sleep 0.5
kill -USR2 $rec
wait $rec || { cat slow.err; fail "flight recorder on a slow disk failed"; }
cat slow.err
grep -q "2 ring dumps" slow.err || fail "slow disk: SIGUSR2 not dumped"
pause=$(sed -n 's/.*rings paused \([0-9.]*\) ms at most.*/\1/p' slow.err)
[ "$(echo "${pause:-999} < 100" | bc)" = 1 ] || fail "rings paused ${pause:-?} ms: the pause covers the write"
lost=$(sed -n 's/.*, \([0-9]*\) lost samples .*/\1/p' slow.err)
[ "${lost:-9999}" -lt 200 ] || fail "$lost samples lost at one dump: the rings were paused for the write"

# --- compressed flight recorder ---
"$SHARDREC" record -q --overwrite -z -m 8 -o z.data -- "$H" 300 2 >/dev/null 2>z.err ||
	{ cat z.err; fail "--overwrite -z failed"; }
ALLOW_LOSS_WARNING=1 check_perf_file z.data

# --- --control: -D -1 waits for "enable"; disable, ping, stop; acks ---
mkfifo ctl ack
"$SHARDREC" record -a -D -1 --control fifo:ctl,ack -o c.data >c.out 2>c.err &
rec=$!
exec 3>ctl 4<ack
cmd() {
	echo "$1" >&3
	read -r -t 10 a <&4 || fail "no ack for $1"
	[ "$a" = ack ] || fail "'$a' for $1"
}
# each workload's pid, to find its samples: the recording is -a, and other
# jobs' processes may share these names
run() {
	"$@" &
	local p=$!
	wait $p
	echo $p
}
cmd ping
off1=$(run "$H" 300 1) # disabled: must not be sampled
cmd enable
on=$(run "$W" 100 1)
cmd disable
off2=$(run "$H" 300 1)
cmd stop
wait $rec || { cat c.err; fail "--control run failed"; }
exec 3>&- 4<&-
grep -q "events enabled" c.err || { cat c.err; fail "no enable message"; }
check_perf_file c.data
"$PERF" report -i c.data --stdio --sort pid 2>/dev/null >c.rep
grep -q " $on:cpuwork *$" c.rep || { cat c.rep; fail "--control enable: cpuwork ($on) not sampled"; }
! grep -qE " ($off1|$off2):hot *$" c.rep || { cat c.rep; fail "hot ($off1, $off2) sampled while disabled"; }

# --control snapshot dumps the flight recorder like SIGUSR2: once per writer,
# plus each writer's final dump, and no more
"$SHARDREC" record --overwrite --threads=cpu -m 8 --control fifo:ctl -o cs.data -- "$H" 1200 1 \
	>cs.out 2>cs.err &
rec=$!
wait_for cs.data.shards/header.data
sleep 0.3
echo snapshot >ctl
wait $rec || { cat cs.err; fail "--control snapshot run failed"; }
cat cs.err
nw=$(sed -n 's/.*record: \([0-9]*\) writers\{0,1\} (.*/\1/p' cs.err)
grep -q "1 snapshot request, $((2 * nw)) ring dumps" cs.err || fail "control snapshot: want $((2 * nw)) dumps"
ALLOW_LOSS_WARNING=1 check_perf_file cs.data

# --- SIGUSR2 with nothing to snapshot: a warning, and the run goes on ---
"$SHARDREC" record -o nu.data -- sh -c 'kill -USR2 $PPID; sleep 0.3' >nu.out 2>nu.err ||
	{ cat nu.err; fail "SIGUSR2 without --overwrite stopped the run"; }
grep -q "snapshot request ignored" nu.err || { cat nu.err; fail "no warning for SIGUSR2"; }
check_perf_file nu.data

# --- an ACK FIFO nobody reads: acks dropped, never waited for ---
# shardrec opens a fifo: ACK read-write (its own reader): 20000 pings filled
# the pipe and blocked the recorder for ever, SIGTERM included.
mkfifo actl aack
"$SHARDREC" record -q --control fifo:actl,aack -o ack.data -- sleep 20 2>ack.err &
rec=$!
sleep 0.5
{ for _ in $(seq 20000); do echo ping; done; echo stop; } >actl &
feeder=$!
for _ in $(seq 100); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$rec" 2>/dev/null; then
	kill -KILL "$rec" "$feeder" 2>/dev/null || true
	fail "--control with an ACK nobody reads: the recorder still runs 10 s after 20000 pings and stop"
fi
wait "$rec" || true
[ "$(grep -c "nobody reads the ACK channel" ack.err)" = 1 ] || { cat ack.err; fail "dropped acks not said once"; }
check_perf_readers ack.data

# --- one-line errors ---
bad() {
	local want=$1
	shift
	if "$SHARDREC" record "$@" -o bad.data -- true >bad.out 2>bad.err; then
		fail "accepted: $*"
	fi
	[ "$(wc -l <bad.err)" = 1 ] && grep -q -- "$want" bad.err || { cat bad.err; fail "$*: unclear"; }
	[ ! -e bad.data ] && [ ! -e bad.data.shards ] || fail "$*: left output behind"
}
bad "no AUX area event to snapshot" -S
bad "no AUX area event to snapshot" --snapshot=e4096
bad "is not \[e\]\[SIZE\]" -Sx
bad "add --control" -D -1
bad "not fifo:CTL" --control pipe:x
bad "/nonexistent/ctl" --control fifo:/nonexistent/ctl
true
