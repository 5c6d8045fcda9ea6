# What the benchmarks record and how, one home for both: bench/run.sh (on
# the host) and bench/guest-run.sh (inside the many-CPU qemu guest of
# bench/guest.sh, under busybox sh: keep this POSIX sh). Source it; the
# caller sets PERF, SHARDREC and RATE (the -F max value) and defines die;
# for the idle check (host side only) IDLE_MIN, IDLE_SECS, IDLE_WAIT and log.

# -F max is the kernel's current limit: pin it to the value found at start
# (the kernel lowers it when sampling interrupts run long) for every tool.
events() {
	case $1 in
	sched) echo "-e cs -c 1" ;;
	cpu | maxg) echo "-e cpu-clock -F $RATE -g" ;;
	pf) echo "-e page-faults -c 1" ;;
	# The seed command line, for every tool (perf accepts all of it).
	seed) echo "-N -B -T -R -g --call-graph dwarf,1024 --user-regs=IP,SP,BP --switch-events" \
		"-e cpu-clock,task-clock,software/period=1,name=cs,config=0x3/Duk" ;;
	esac
}

# Ground truth of a row: the count its events should sample (0: none).
truth() {
	case $1 in
	sched) awk '/^ctxt/ { print $2 }' /proc/stat ;;
	pf) awk '/^pgfault/ { print $2 }' /proc/vmstat ;;
	*) echo 0 ;;
	esac
}

# The environment of an experiment tool's knobs ("copy2-wake2"): one
# " VAR=N" each; 1 at an unknown knob.
knob_env() {
	local part IFS=-
	for part in $1; do
		case $part in
		cap[0-9]*) printf ' SHARDREC_PLAN_CAP=%s' "${part#cap}" ;;
		wake[0-9]*) printf ' SHARDREC_WAKEUP_DIV=%s' "${part#wake}" ;;
		copy[0-9]*) printf ' SHARDREC_COPY_DIV=%s' "${part#copy}" ;;
		*) return 1 ;;
		esac
	done
}

# recorder TOOL MMAP EVENTS OUT: the tool's command line. MMAP "default":
# no -m, each tool's own default ring size.
recorder() {
	local tool=$1 m="-m $2" ev=$3 out=$4 kenv
	[ "$2" = default ] && m=
	case $tool in
	perf) echo "$PERF record -a $ev $m -o $out" ;;
	perf-aio) echo "$PERF record --aio -a $ev $m -o $out" ;;
	perf-threads) echo "$PERF record --threads -a $ev $m -o $out" ;;
	perf-threads-numa) echo "$PERF record --threads=numa -a $ev $m -o $out" ;;
	perf-r1-threads) echo "$PERF record -r 1 --threads -a $ev $m -o $out" ;;
	perf-z) echo "$PERF record -z -a $ev $m -o $out" ;;
	# The default: no tuning flag, only the row's events and -m.
	shardrec) echo "$SHARDREC record -a $ev $m -o $out" ;;
	# The default of a user without CAP_SYS_NICE: writers at normal priority,
	# one per CPU (session__plan), what every ordinary user gets.
	shardrec-r0) echo "$SHARDREC record -r 0 -a $ev $m -o $out" ;;
	shardrec-cpu) echo "$SHARDREC record --threads=cpu -a $ev $m -o $out" ;;
	# Writers free to run on any CPU (perf record's own thread is): in a TCG
	# guest a pinned reader runs only while the host runs one of its vCPUs.
	shardrec-affsys) echo "$SHARDREC record --affinity=sys -a $ev $m -o $out" ;;
	# The default with experiment knobs (for experiments only), one or more
	# joined by '-', e.g. shardrec-copy2-wake2:
	#   capN   at most N CPUs per writer (SHARDREC_PLAN_CAP; numa/numa.h's
	#          PLAN_AUTO_CAP, 8): the experiment that sets the default's cap
	#   wakeN  writers woken at 1/N of a ring instead of a quarter (perf's
	#          kernel default is a half): SHARDREC_WAKEUP_DIV
	#   copyN  a ring found at least 1/N full copied to the writer's buffer
	#          and handed back before the write: SHARDREC_COPY_DIV
	shardrec-cap[0-9]* | shardrec-wake[0-9]* | shardrec-copy[0-9]*)
		kenv=$(knob_env "${tool#shardrec-}") || die "unknown tool $tool"
		echo "env$kenv $SHARDREC record -a $ev $m -o $out" ;;
	# The same default, from another binary (bench/run.sh: BENCH_SHARDREC_BASE).
	shardrec-base)
		[ -n "${BENCH_SHARDREC_BASE:-}" ] || die "shardrec-base: set BENCH_SHARDREC_BASE"
		echo "$BENCH_SHARDREC_BASE record -a $ev $m -o $out" ;;
	*) die "unknown tool $tool" ;;
	esac
}

# The start of a recording, the same for every tool: the recorder starts
# with its events disabled (-D -1) and a control FIFO pair (perf 6.1 and
# shardrec both take --control fifo:CTL,ACK); live_wait enables them and
# returns once the recorder acknowledged, so the workload starts when every
# tool is recording, however long its start took. A fixed settle time let
# a slow start miss the workload: in the 128-vCPU guest two shardrec
# recordings with 128 writers caught 3% and 13% of the context switches the
# kernel counted (the others 97-123%), and so met less of the load.
#
# live_opts CTL ACK: the options to add; live_fifos CTL ACK: makes them.
live_opts() { echo "-D -1 --control fifo:$1,$2"; }
live_fifos() { rm -f "$1" "$2" && mkfifo "$1" "$2"; }
# live_wait CTL ACK SECONDS: 0 once the recorder acknowledged "enable";
# non-zero if it did not within SECONDS (it died, or never got that far).
live_wait() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	timeout "$3" sh -c 'echo enable >"$1" && read -r a <"$2" && [ "$a" = ack ]' sh "$1" "$2"
}

# for_secs SECONDS CMD...: runs CMD in a session of its own for SECONDS s,
# then stops its process group (perf bench messaging is 400 processes).
# 0 once stopped on time; CMD's own status if it ended sooner. A fixed-time
# row bounds every recording's length and bytes whatever a tool does to the
# workload's pace: the maxg row's fixed work (100 messaging loops) ran 59
# to 315 s under one tool, and one recording wrote 2.2 GB.
# setsid does not fork here: a background job of a shell without job
# control is no process group leader, so $! is the group's id.
for_secs() {
	local s=$1 pid
	shift
	setsid "$@" &
	pid=$!
	sleep "$s"
	if kill -TERM -"$pid" 2>/dev/null; then
		wait "$pid"
		return 0
	fi
	wait "$pid"
}

# jnum FILE KEY: a number of `shardrec loss --json` (its first file's).
jnum() { sed -n "s/.*\"$2\": \([0-9.e+-]*\)[,}].*/\1/p" "$1" | head -n 1; }

# ---- idle check (the host benches) ----

# idle (+iowait) share of all CPU time over IDLE_SECS s, in %
cpu_stat() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
cpu_idle() {
	local a b
	a=$(cpu_stat)
	sleep "$IDLE_SECS"
	b=$(cpu_stat)
	echo "$a $b" | awk '{ d = $4 - $2; if (d <= 0) d = 1; printf "%.1f\n", 100 * ($3 - $1) / d }'
}

# Sets IDLE to the last figure; fails if the machine is still busy after
# IDLE_WAIT s of re-checking.
IDLE=
wait_idle() {
	local deadline=$((SECONDS + IDLE_WAIT))
	while :; do
		IDLE=$(cpu_idle)
		awk -v i="$IDLE" -v m="$IDLE_MIN" 'BEGIN { exit !(i >= m) }' && return 0
		[ $SECONDS -lt "$deadline" ] || return 1
		log "busy: ${IDLE}% idle over ${IDLE_SECS} s (< ${IDLE_MIN}%), waiting"
		sleep 5
	done
}
