# -r/--realtime: the writer threads, and only they, run SCHED_FIFO at the
# given priority (the default when allowed: 1); the main thread and the
# workload keep normal scheduling. Read from /proc of our own pids.
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(id -u)" = 0 ] || skip "needs root for SCHED_FIFO (90-privs covers cap_sys_nice)"

# policy and rt_priority of task $1/$2: stat fields 41 and 40 (after "comm)").
sched_of() { sed 's/.*) //' "/proc/$1/task/$2/stat" | awk '{ print $39 "/" $38 }'; }

# check_sched WANT_WRITERS ARGS...: records hot under ARGS while checking.
# The workload waits for ./hold to go before it becomes hot: under load a
# timed one ended, and its writers with it, before they were read.
check_sched() {
	local want=$1 sr tid name wl n=0 i
	shift
	touch hold
	"$SHARDREC" record -q "$@" -o r.data -- sh -c 'while [ -e hold ]; do sleep 0.05; done; exec "$0" 300 2' \
		"$PROGS/hot" 2>rec.err &
	sr=$!
	for i in $(seq 100); do
		ls /proc/$sr/task/*/comm >/dev/null 2>&1 && grep -q shardrec-w /proc/$sr/task/*/comm && break
		sleep 0.05
	done
	sleep 0.3
	for tid in $(ls /proc/$sr/task); do
		name=$(cat /proc/$sr/task/$tid/comm 2>/dev/null) || continue
		case $name in
		shardrec-w*) n=$((n + 1)); [ "$(sched_of $sr $tid)" = "$want" ] ||
			fail "$*: writer $name runs $(sched_of $sr $tid), want $want" ;;
		*) [ "$(sched_of $sr $tid)" = 0/0 ] || fail "$*: thread $name runs $(sched_of $sr $tid)" ;;
		esac
	done
	[ "$n" -gt 0 ] || fail "$*: no writer thread seen"
	wl=$(awk '{ print $1 }' /proc/$sr/task/$sr/children)
	[ -n "$wl" ] || fail "$*: workload not found among the recorder's children"
	for tid in $(ls /proc/$wl/task); do
		[ "$(sched_of $wl $tid)" = 0/0 ] || fail "$*: workload thread $tid runs $(sched_of $wl $tid)"
	done
	rm hold
	wait $sr || { cat rec.err; fail "$*: record failed"; }
	# (-a here may name processes whose maps it cannot read: not about -r)
	! grep -v "memory maps unreadable" rec.err | grep -q . ||
		{ cat rec.err; fail "$*: record printed something with -q"; }
	check_perf_file r.data
	echo "$*: $n writers at policy/prio $want; main thread and workload 0/0"
}

check_sched 1/3 -r 3 -a --threads=cpu
check_sched 1/1 -a --threads=cpu
check_sched 1/1
check_sched 0/0 -r 0
check_sched 1/99 --realtime 99 -a

# Writers at normal priority share their CPUs with the workload: the default
# plan then gives each CPU its own writer (perf --threads' shape), which the
# summary says; real-time writers keep the default plan (8 CPUs a writer).
ncpu=$(nproc)
summary() {
	"$SHARDREC" record "$@" -a -e cs -c 1 -o s.data -- sleep 0.2 >/dev/null 2>s.err ||
		{ cat s.err; fail "$*: record failed"; }
	sed -n 's/.*shardrec record: \([0-9]* writers\? ([^)]*)\), merged.*/\1/p' s.err
}
got=$(summary -r 0)
want="$ncpu writer$([ "$ncpu" = 1 ] || echo s) (normal priority: one per CPU)"
[ "$got" = "$want" ] || { cat s.err; fail "-r 0: '$got', want '$want'"; }
got=$(summary -r 0 --threads=numa)
[[ "$got" = *" (normal priority)" ]] || { cat s.err; fail "-r 0 --threads=numa: '$got'"; }
got=$(summary)
[[ "$got" = *" (SCHED_FIFO 1)" ]] || { cat s.err; fail "default: '$got'"; }
echo "summaries: -r 0: $want; default: $got"

"$SHARDREC" record -r 100 -o x.data -- true 2>err.txt && fail "-r 100 accepted"
grep -q "1 to 99" err.txt || fail "-r 100: $(cat err.txt)"
"$SHARDREC" record -r x -o x.data -- true 2>err.txt && fail "-r x accepted"
true
