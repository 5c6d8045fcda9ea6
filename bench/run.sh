#!/usr/bin/env bash
# shardrec against perf record: data loss, recorder cost and merge speed,
# measured the same way for every tool in one run (GitHub issues 4, 15).
#
# Every tool records system-wide (-a) with the same events and the same -m
# while the workload runs as a separate process, so GNU time's figures for
# the recorder are the recorder's alone. Per repeat the tools run in
# rotated order, and each workload also runs unrecorded ("none") for the
# slowdown. Ground truth: /proc/stat ctxt (context switches) and
# /proc/vmstat pgfault (page faults), read before the recorder starts and
# right before it is stopped. Every output file, perf's or ours, is read by
# `shardrec loss` (recorder/loss/loss.h defines the metric).
#
# Before every run the machine must be idle: /proc/stat idle (+iowait) time
# at least BENCH_IDLE_MIN % over BENCH_IDLE_SECS s (the load average is no
# guide: the storms raise it to 30-40 for minutes). Otherwise the run waits
# (at most BENCH_IDLE_WAIT s, re-checking), and if it still starts below the
# threshold it is flagged "busy" and run once more at the end of its row
# (status "rerun"); runs.csv keeps both, report.py uses the rerun.
#
# Env knobs:
#   BENCH_QUICK=1        one repeat, short workloads, 256 MB merge input
#   BENCH_REPEATS=N      repeats (default 5, quick 1)
#   BENCH_MMAP="128 8"   -m values (pages per CPU ring) for every workload
#   BENCH_MMAP_<wl>="128 8 4"  -m values for one workload (wins over BENCH_MMAP);
#                        defaults: sched, pf "128 8 4"; cpu, seed, maxg "128"
#                        (quick: sched, pf "8"; cpu, seed, maxg "128")
#   BENCH_SIZE_<wl>=N    workload size: messaging loops (sched, 1500; quick
#                        750), cpuwork units (cpu, 1), pfstorm rounds (pf,
#                        40), seconds (seed, 2, quick 1; maxg, 20, quick 10)
#   BENCH_TOOLS, BENCH_WORKLOADS (sched cpu pf seed maxg; "none": the merge
#                        benchmark alone), BENCH_MERGE_MB, BENCH_MERGE_SHARDS;
#                        BENCH_MERGE_MB=0: the recorder rows alone
#   BENCH_IDLE_MIN (90), BENCH_IDLE_SECS (2), BENCH_IDLE_WAIT (180)
#   BENCH_RUN_TIMEOUT (300): a workload still running after this many s is
#                        killed and the run counted as failed (rc 124)
#   BENCH_OUT            results directory (default bench/results)
#   BENCH_SHARDREC_BASE  a second shardrec binary (the tree before a change):
#                        tool shardrec-base records with it, and the merge
#                        benchmark adds merge-base, so one run measures a
#                        change before and after, alternating
#   SHARDREC, PROGS, GENSHARDS, PERF   binaries (make bench sets them)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
SHARDREC=${SHARDREC:-$root/build/shardrec}
PROGS=${PROGS:-$root/build/progs}
GENSHARDS=${GENSHARDS:-$root/build/bench/genshards}
PERF=${PERF:-perf}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	REPEATS=${BENCH_REPEATS:-1}
	STORM_MMAPS=${BENCH_MMAP:-8}
	MERGE_MB=${BENCH_MERGE_MB:-256}
	SIZES="sched=750 cpu=1 pf=40 seed=1 maxg=10"
else
	REPEATS=${BENCH_REPEATS:-5}
	STORM_MMAPS=${BENCH_MMAP:-128 8 4}
	MERGE_MB=${BENCH_MERGE_MB:-1536}
	# Sized so that the full run fits ~45 min on 2 CPUs (bench/README.md).
	SIZES="sched=1500 cpu=1 pf=40 seed=2 maxg=20"
fi
# The cpu and seed rows sample by time (-F max / 4 kHz): one -m, perf's
# default of 128 pages (512 KiB), unless BENCH_MMAP or BENCH_MMAP_<wl> say so.
BIG_MMAPS=${BENCH_MMAP:-128}
TOOLS=${BENCH_TOOLS:-perf perf-aio perf-threads perf-threads-numa perf-r1-threads perf-z shardrec shardrec-r0 shardrec-cpu}
WORKLOADS=${BENCH_WORKLOADS:-sched cpu pf seed maxg}
[ "$WORKLOADS" = none ] && WORKLOADS= # the merge benchmark alone
IDLE_MIN=${BENCH_IDLE_MIN:-90}
IDLE_SECS=${BENCH_IDLE_SECS:-2}
IDLE_WAIT=${BENCH_IDLE_WAIT:-180}
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-300}
MERGE_SHARDS=${BENCH_MERGE_SHARDS:-4}
OUT=${BENCH_OUT:-$here/results}
SETTLE=${BENCH_SETTLE:-0} # after the recorder said it records (lib.sh, live_wait)
NCPU=$(nproc)

die() { echo "bench: $*" >&2; exit 1; }
log() { echo "bench: $*" >&2; }

for b in "$SHARDREC" "$PROGS/cpuwork" "$PROGS/pfstorm" "$PROGS/matrix" "$GENSHARDS"; do
	[ -x "$b" ] || die "$b missing: run 'make bench' or build it"
done
command -v "$PERF" >/dev/null || die "perf not found"
[ -x /usr/bin/time ] || die "GNU time missing (apt-get install time)"
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	die "system-wide recording needs root or perf_event_paranoid <= 0"

WORK=$(mktemp -d /var/tmp/shardrec-bench.XXXXXX)
RATE_FILE=/proc/sys/kernel/perf_event_max_sample_rate
RATE=$(cat $RATE_FILE)
cleanup() {
	echo "$RATE" >$RATE_FILE 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$OUT"

# ---- workloads, events, recorders ----

workload() {
	case $1 in
	sched) timeout "$RUN_TIMEOUT" "$PERF" bench sched messaging -p -g 4 -l "$(size sched)" ;;
	# Small on purpose: sampling at -F max with -g stretches it 20-100x.
	cpu) timeout "$RUN_TIMEOUT" "$PROGS/cpuwork" "$(size cpu)" "$NCPU" ;;
	pf) timeout "$RUN_TIMEOUT" "$PROGS/pfstorm" "$(size pf)" "$NCPU" 16 ;;
	# The seed workload (GitHub issue 6, tests/e2e/80-seed.sh): a fixed time.
	seed) timeout "$RUN_TIMEOUT" "$PROGS/matrix" -t "$NCPU" -s "$(size seed)" ;;
	# Issue 31's extreme rate: kernel call chains of 400 processes at -F
	# max, for a fixed time (lib.sh, for_secs).
	maxg) for_secs "$(size maxg)" "$PERF" bench sched messaging -g 10 -l 1000000000 ;;
	esac
}

# Workload size: BENCH_SIZE_<wl>, else SIZES (messaging loops, cpuwork
# units, pfstorm rounds, seconds of seed and maxg).
size() {
	local v=BENCH_SIZE_$1 d
	d=$(tr ' ' '\n' <<<"$SIZES" | sed -n "s/^$1=//p")
	echo "${!v:-$d}"
}

# -m values of a workload: BENCH_MMAP_<wl>, else BENCH_MMAP, else the default.
mmaps() {
	local v=BENCH_MMAP_$1
	case $1 in
	sched | pf) echo "${!v:-$STORM_MMAPS}" ;;
	*) echo "${!v:-$BIG_MMAPS}" ;;
	esac
}

# events ROW, truth ROW, recorder TOOL MMAP EVENTS OUT, jnum FILE KEY:
# bench/lib.sh (the many-CPU guest of bench/guest.sh records the same way).
. "$here/lib.sh"

now() { date +%s.%N; }

# ---- idle check ----

# cpu_stat, cpu_idle, wait_idle (sets IDLE): bench/lib.sh.

# ---- one measurement: appends a CSV row ----

CSV=$WORK/runs.csv
echo "mmap,workload,tool,rep,wall_s,truth,samples,lost,lost_share,loss_metric,lost_records,cpu_user,cpu_sys,maxrss_kb,out_bytes,data_bytes,merge_s,rc,idle_pct,status" >"$CSV"

run_none() { # wl m rep status
	local s e
	s=$(now)
	workload "$1" >/dev/null 2>&1 || die "workload $1 failed"
	e=$(now)
	echo "$2,$1,none,$3,$(echo "$e - $s" | bc),,,,,,,,,,,,,,$IDLE,$4" >>"$CSV"
}

run_tool() { # tool wl m rep status
	local tool=$1 wl=$2 m=$3 rep=$4 status=$5 out=$WORK/out.data
	local c0 c1 s e tpid rpid rc=0 wrc=0 t merge_s="" cmd
	rm -rf "$out" "$out.old" "$out.shards"
	echo "$RATE" >$RATE_FILE
	cmd="$(recorder "$tool" "$m" "$(events "$wl")" "$out") $(live_opts "$WORK/ctl" "$WORK/ack")"
	live_fifos "$WORK/ctl" "$WORK/ack" || die "cannot make the control FIFOs in $WORK"
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %M' -o "$WORK/time.txt" $cmd >"$WORK/rec.out" 2>"$WORK/rec.err" &
	tpid=$!
	if ! live_wait "$WORK/ctl" "$WORK/ack" "$RUN_TIMEOUT"; then
		kill -INT $(pgrep -P $tpid) 2>/dev/null
		wait $tpid
		die "$tool did not start recording: $(tail -n 3 "$WORK/rec.err")"
	fi
	sleep "$SETTLE"
	rpid=$(pgrep -P $tpid | head -1) || die "$tool did not start: $(cat "$WORK/rec.err")"
	# Counted from here, as the samples are: the events were enabled just now.
	c0=$(truth "$wl")
	s=$(now)
	workload "$wl" >/dev/null 2>&1 || wrc=$?
	e=$(now)
	# A workload stretched past RUN_TIMEOUT (the cpu row on a loaded
	# machine) is a failed run, not the end of the bench.
	[ $wrc = 0 ] || [ $wrc = 124 ] || die "workload $wl failed ($wrc)"
	sleep 0.2
	c1=$(truth "$wl")
	kill -INT "$rpid"
	wait $tpid || rc=$?
	# perf record re-raises SIGINT once its file is complete: 130 is a clean stop.
	[ $rc = 130 ] && rc=0
	[ $wrc = 0 ] || { rc=$wrc; log "$tool $wl -m $m: workload killed after $RUN_TIMEOUT s"; }
	t=$(tail -n 1 "$WORK/time.txt")
	if [[ $tool == shardrec* ]]; then
		merge_s=$(sed -n 's/.*merged .* of shards in \([0-9.]*\) s.*/\1/p' "$WORK/rec.err" | tail -1)
	fi
	if ! "$SHARDREC" loss --json "$out" >"$WORK/loss.json" 2>"$WORK/loss.err"; then
		log "$tool $wl -m $m: loss failed: $(cat "$WORK/loss.err")"
		echo "{}" >"$WORK/loss.json"
		[ $rc != 0 ] || rc=98
	fi
	local L=$WORK/loss.json
	echo "$m,$wl,$tool,$rep,$(echo "$e - $s" | bc),$((c1 - c0)),$(jnum "$L" samples),$(jnum "$L" lost),$(jnum "$L" lost_share),$(jnum "$L" loss_metric),$(jnum "$L" lost_records),${t// /,},$(du -sb "$out" | cut -f1),$(jnum "$L" data_bytes),$merge_s,$rc,$IDLE,$status" >>"$CSV"
	[ $rc = 0 ] || { log "$tool $wl -m $m exited $rc:"; tail -3 "$WORK/rec.err" >&2; }
	rm -rf "$out" "$out.old" "$out.shards"
}

# One run after the idle check. Status ok, or busy (returns 1: rerun it
# at the end of the row); a rerun is "rerun", or "rerun-busy" if the
# machine is busy again (it is used all the same).
measure() { # tool wl m rep rerun(0|1)
	local status=ok
	[ "$5" = 1 ] && status=rerun
	if ! wait_idle; then
		status=busy
		[ "$5" = 1 ] && status=rerun-busy
	fi
	log "rep $4 -m $3 $2: $1 (${IDLE}% idle, $status)"
	if [ "$1" = none ]; then
		run_none "$2" "$3" "$4" $status
	else
		run_tool "$1" "$2" "$3" "$4" $status
	fi
	[ $status != busy ]
}

# ---- merge benchmark ----

MCSV=$WORK/merge.csv
echo "tool,cache,rep,bytes,seconds,maxrss_kb,user_s,sys_s,idle_pct" >"$MCSV"

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; }

# The merge fsyncs its output before giving it its name (complete or
# absent), cp does not: "cp-sync" is cp followed by an fsync of each copy
# (coreutils sync FILE...), the same bytes made as durable, and the merge
# target compares against it. cp alone is shown too, for what the fsync costs.
merge_one() { # tool cache rep dir bytes
	local tool=$1 cache=$2 rep=$3 d=$4 bytes=$5 t
	rm -rf "$WORK/m.out" "$WORK/m.out.old" "$WORK/cp"
	mkdir -p "$WORK/cp"
	sync
	if [ "$cache" = cold ]; then drop_caches || return 0; else cat "$d"/shard.* >/dev/null; fi
	wait_idle || log "merge: $tool $cache rep $rep starts busy (${IDLE}% idle)"
	local tm=(/usr/bin/time -f '%e %M %U %S' -o "$WORK/mt.txt")
	case $tool in
	cat) "${tm[@]}" sh -c "cat $d/shard.* >/dev/null" ;;
	cp) "${tm[@]}" cp "$d"/shard.* "$WORK/cp/" ;;
	cp-sync) "${tm[@]}" sh -c "cp $d/shard.* $WORK/cp/ && sync $WORK/cp/shard.*" ;;
	merge) "${tm[@]}" "$SHARDREC" merge -q "$d" -o "$WORK/m.out" ;;
	merge-base) "${tm[@]}" "$BENCH_SHARDREC_BASE" merge -q "$d" -o "$WORK/m.out" ;;
	esac
	t=$(tail -n 1 "$WORK/mt.txt")
	echo "$tool,$cache,$rep,$bytes,${t// /,},$IDLE" >>"$MCSV"
}

merge_bench() {
	local base=$WORK/mbase.data d bytes
	log "merge: generating $MERGE_MB MB in $MERGE_SHARDS shards"
	"$SHARDREC" record -q -a -e cs -c 1 --keep-shards -o "$base" -- sleep 0.1 >/dev/null
	d=$base.shards
	rm -f "$d"/shard.*
	"$GENSHARDS" "$d" "$MERGE_SHARDS" $((MERGE_MB / MERGE_SHARDS))
	bytes=$(cat "$d"/shard.* | wc -c)
	for rep in $(seq "$REPEATS"); do
		for cache in warm cold; do
			# cp-sync and merge next to each other: the ratio is taken pair by pair.
			for tool in cat cp cp-sync merge ${BENCH_SHARDREC_BASE:+merge-base}; do
				log "merge: $tool $cache rep $rep"
				merge_one $tool $cache "$rep" "$d" "$bytes"
			done
		done
	done
	rm -rf "$d" "$WORK/m.out" "$WORK/cp"
}

# ---- machine ----

machine() {
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -srm)"
	echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $NCPU online CPUs," \
		"$(lscpu | sed -n 's/^NUMA node(s): *//p') NUMA node(s)"
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "disk: $(df -h "$WORK" | awk 'NR == 2 { print $1 " " $2 }')"
	echo "perf: $($PERF version)"
	echo "shardrec: $("$SHARDREC" version) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?))"
	[ -z "${BENCH_SHARDREC_BASE:-}" ] ||
		echo "shardrec-base: $BENCH_SHARDREC_BASE, $("$BENCH_SHARDREC_BASE" version)"
	echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)," \
		"perf_event_max_sample_rate: $RATE, perf_event_mlock_kb: $(cat /proc/sys/kernel/perf_event_mlock_kb)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine add noise)"
	echo "pmu: $([ -d /sys/bus/event_source/devices/cpu ] && echo hardware || echo 'none (software events only)')"
	echo "config: quick=$QUICK repeats=$REPEATS workloads=[$WORKLOADS] tools=[$TOOLS]" \
		"merge=${MERGE_MB}MB/${MERGE_SHARDS} shards settle=${SETTLE}s"
	echo "mmap: $(for wl in $WORKLOADS; do printf '%s=[%s] ' "$wl" "$(mmaps "$wl")"; done)"
	echo "sizes: $(for wl in $WORKLOADS; do printf '%s=%s ' "$wl" "$(size "$wl")"; done)"
	echo "idle check: >= ${IDLE_MIN}% idle (+iowait, /proc/stat) over ${IDLE_SECS} s before every run," \
		"waiting up to ${IDLE_WAIT} s; runs started below it are rerun once at the end of their row"
}

# ---- main ----

machine >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2
read -r -a tools <<<"$TOOLS"
start=$SECONDS
for rep in $(seq "$REPEATS"); do
	for wl in $WORKLOADS; do
		for m in $(mmaps "$wl"); do
			busy=()
			measure none "$wl" "$m" "$rep" 0 || busy+=(none)
			# Rotate the order each repeat so no tool always runs first.
			n=${#tools[@]}
			for ((i = 0; i < n; i++)); do
				tool=${tools[$(((i + rep - 1) % n))]}
				measure "$tool" "$wl" "$m" "$rep" 0 || busy+=("$tool")
			done
			for tool in "${busy[@]}"; do
				measure "$tool" "$wl" "$m" "$rep" 1
			done
			cp "$CSV" "$OUT/runs.csv" # an interrupted run keeps its rows
		done
	done
	log "repeat $rep done after $((SECONDS - start)) s"
done
[ "$MERGE_MB" = 0 ] || merge_bench
cp "$CSV" "$OUT/runs.csv"
cp "$MCSV" "$OUT/merge.csv"
python3 "$here/report.py" "$OUT"
if [ -z "$WORKLOADS" ]; then
	# The merge alone: no recorder runs, nothing to plot.
	(cd "$OUT" && rm -f runs.csv cpu.dat loss.dat metric.dat loss.png)
	log "results in $OUT: results.md, machine.txt, merge.csv"
	exit 0
fi
if command -v gnuplot >/dev/null; then
	(cd "$OUT" && gnuplot "$here/plot.gnuplot") || log "gnuplot failed"
else
	log "gnuplot not installed (apt-get install gnuplot-nox): no loss.png"
fi
log "results in $OUT: results.md, loss.png, machine.txt, runs.csv, merge.csv"
