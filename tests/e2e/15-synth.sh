# A task that was running before the recording: -p and -a with DWARF call
# graphs, beside perf record's own recordings of the same process. The
# synthesized records of that process must be the ones perf writes, and its
# samples must unwind past the leaf as perf's do (issue 14).
. "$(dirname "$0")/lib.sh"
need_perf_event

"$PROGS/cpuwork" 100000 1 >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; cleanup' EXIT
sleep 0.3
kill -0 $pid || fail "workload did not start"

# The time-0 (synthesized) task and map records that name $pid, sorted.
synth_of_pid() {
	perf_clean "script --show-task-events" script -i "$1" --show-task-events \
		--show-mmap-events -F pid,tid,event
	awk -v p="$pid" '$1 == "0/0" && (index($0, " " p "/") || index($0, "(" p ":"))' \
		"$TMP/perf.out" | sed 's/^ *0\/0 *[0-9.]*: *//' | sort
}

# Share of $pid's samples whose stack holds the leaf's callers too.
unwound() {
	perf_clean "script --pid" script -i "$1" --pid "$pid" -F ip,sym
	awk 'BEGIN { RS = "" } { n++; if ($0 ~ /leaf/ && $0 ~ /mid/ && $0 ~ /top/) ok++ }
		END { printf "%d %d\n", ok, n }' "$TMP/perf.out"
}

# rec TOOL OUT ARGS...: records for 1.5 s, stopped with SIGINT like a user
# would; again for 3 and 6 s while $pid got too few samples to judge the
# unwinding (on a loaded machine the workload may barely run).
rec() {
	local tool=$1 out=$2 secs n
	shift 2
	for secs in 1.5 3 6; do
		# timeout exits 124 when it had to send the signal: the normal case here
		timeout -s INT $secs "$tool" record -q -e cpu-clock -F 500 --call-graph dwarf -o "$out" "$@" \
			>"$out.log" 2>&1 || [ $? = 124 ] || { cat "$out.log"; fail "$tool record $* failed"; }
		[ -s "$out" ] || { cat "$out.log"; fail "$tool record $* wrote no $out"; }
		# -F pid: counting needs no symbols (addr2line on -a DWARF stacks is slow)
		n=$("$PERF" script -i "$out" --pid "$pid" -F pid 2>/dev/null | wc -l)
		[ "$n" -gt 50 ] && return 0
		echo "$tool: $n samples of $pid in $secs s (machine busy?)"
	done
}

for mode in "-p $pid" "-a"; do
	tag=${mode%% *}
	# shellcheck disable=SC2086 # $mode is two words for -p
	rec "$PERF" perf$tag.data $mode
	# shellcheck disable=SC2086
	rec "$SHARDREC" ours$tag.data $mode
	check_perf_file ours$tag.data

	# perf's own -a recording may lose chunks under load (one thread drains
	# every ring: the loop's 10th run saw "lost 3 chunks"); the synthesized
	# records it is compared on are written by perf itself, never lost.
	ALLOW_LOSS_WARNING=1 synth_of_pid perf$tag.data >perf$tag.synth
	synth_of_pid ours$tag.data >ours$tag.synth
	[ -s perf$tag.synth ] || fail "$tag: perf synthesized nothing for $pid (test broken?)"
	grep -q "MMAP2 $pid/$pid: .* r--p " perf$tag.synth || fail "$tag: perf wrote no data maps"
	diff -u perf$tag.synth ours$tag.synth || fail "$tag: synthesized records differ from perf's"
	echo "$tag: $(wc -l <ours$tag.synth) synthesized records for $pid, as perf's"

	read -r ok n < <(ALLOW_LOSS_WARNING=1 unwound perf$tag.data)
	read -r ook on < <(unwound ours$tag.data)
	echo "$tag: unwound past the leaf: perf $ok of $n, shardrec $ook of $on"
	[ "$n" -gt 50 ] && [ "$on" -gt 50 ] || fail "$tag: too few samples of $pid (perf $n, ours $on)"
	[ $((ook * 100)) -ge $((on * 95)) ] || fail "$tag: only $ook of $on samples unwound"
done

# -p names no FORK: a time-0 FORK makes readers start the task afresh.
! grep -q FORK ours-p.synth || fail "-p: synthesized FORK records (perf writes none)"
grep -q "FORK($pid:$pid)" ours-a.synth || fail "-a: no FORK for the leader (perf writes one)"

# ---- a task started while the tasks are described has its records ----
# A process started after /proc was read and before the events were enabled
# had no COMM, FORK or maps in the file: its samples had no name (":PID")
# and no symbols. As perf's, a dummy event enabled from its open records
# it. SHARDREC_FAULT holds that window open for 2 s (recorder/capture/fault.h).
SHARDREC_FAULT=synth:1:sleep:2000 "$SHARDREC" record -q -a -e cpu-clock -F 500 -o late.data -- \
	sleep 1.5 >late.log 2>&1 &
recpid=$!
wait_for late.data.shards/header.data
"$PROGS/hot" 3000 1 >/dev/null &
hot=$!
wait $recpid || { cat late.log; fail "record -a with a task started in the window failed"; }
kill $hot 2>/dev/null || true
wait $hot 2>/dev/null || true
check_perf_file late.data
perf_clean "script --show-task-events" script -i late.data --show-task-events -F pid,tid,time,event
# It started after the tasks were described: no time-0 record names it.
! awk -v p="$hot" '$1 == "0/0" && index($0, "(" p ":")' "$TMP/perf.out" | grep -q . ||
	fail "the window was not held: $hot has synthesized records"
grep -q "PERF_RECORD_COMM exec: hot:$hot/$hot" "$TMP/perf.out" ||
	fail "no COMM of the task started while the tasks were described"
perf_clean "script --pid" script -i late.data --pid "$hot" -F comm,ip,sym
n=$(wc -l <"$TMP/perf.out")
named=$(grep -c '^ *hot ' "$TMP/perf.out" || true)
echo "task started in the window: $named of its $n samples named and resolved"
[ "$n" -gt 0 ] || fail "no sample of the task started in the window"
[ "$named" = "$n" ] || fail "only $named of $n samples of the task started in the window are named"
grep -q hot_loop "$TMP/perf.out" || fail "the task started in the window has no symbols"
