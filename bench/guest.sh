#!/usr/bin/env bash
# shardrec against perf record on many CPUs (GitHub issue 31), in TCG qemu
# guests of 32, 64 and 128 vCPUs on 4 NUMA nodes: each vCPU runs at a
# fraction of a host CPU, so one recorder thread drains N vCPUs' worth, as
# on a real N-core machine. perf (Debian's 6.1 binary) and shardrec record
# inside the guest, system-wide (-a), with the same events and -m for every
# tool (bench/lib.sh, as bench/run.sh), the tools alternating. Rows: the
# context-switch storm (sched), the seed command line on matrix (seed) and
# -F max -g on cpuwork (cpu), each at -m 4, 8 and the tools' default. Every
# output goes out on a virtio disk and is measured on the host by
# `shardrec loss`: the share of samples lost, and lost_time / elapsed.
# bench/README.md ("Many-CPU guest") has the details.
#
# The guest half is bench/guest-run.sh; the kernel, initramfs, qemu command
# and file shipping are tests/qemu/guest-lib.sh's (make check-qemu's too).
#
# Env knobs:
#   BENCH_GUEST_CPUS ("32 64 128")   vCPU counts, one guest each (multiples of 4)
#   BENCH_GUEST_ROWS ("sched seed cpu")
#   BENCH_GUEST_MMAP ("4 8 default") -m values; default: no -m
#   BENCH_GUEST_TOOLS (perf perf-threads perf-threads-numa perf-r1-threads
#                     shardrec shardrec-r0 shardrec-cpu; also the experiments of
#                     bench/lib.sh: shardrec-capN, shardrec-affsys, shardrec-wakeN,
#                     shardrec-copyN, and knobs joined: shardrec-copy2-wake2)
#   BENCH_GUEST_REPEATS (2)          repeats, tools in a rotated order each time
#   BENCH_GUEST_SIZE_<row> (3)       seconds each workload runs
#   BENCH_GUEST_SETTLE (0)           seconds between the recorder's acknowledging
#                                    it records (bench/lib.sh, live_wait) and the workload
#   BENCH_GUEST_RUN_LIMIT (240)      seconds a recording may take before its
#                                    recorder is killed (the row's rc is 137)
#   BENCH_GUEST_STALL (RUN_LIMIT + 300)  seconds without a finished recording
#                                    after which the guest counts as hung: it is
#                                    stopped, the recording it was in counts as
#                                    failed (rc "stall"), and a new boot runs the
#                                    rest of its plan
#   BENCH_GUEST_RESUMES (3)          such new boots per vCPU count, at most
#   BENCH_GUEST_SCHED_GROUPS         messaging groups (default vCPUs / 8, at least 4)
#   BENCH_GUEST_MEM (4096)           guest MiB, split over the 4 nodes
#   BENCH_GUEST_KEEP (0)             1: keep every output in BENCH_OUT/data-<vcpus>/
#   BENCH_OUT (bench/results-guest)  results directory
#   BENCH_IDLE_MIN (90), BENCH_IDLE_SECS (2), BENCH_IDLE_WAIT (180): before
#                     each boot, wait (at most IDLE_WAIT s) for the host to be
#                     IDLE_MIN % idle, as bench/run.sh does before each run
#   QEMU_TIMEOUT                     seconds per guest (default: 3x its estimate + 15 min)
#   KERNEL, QEMU, QEMU_ACCEL, QEMU_APPEND  as for tests/qemu/run.sh
#   SHARDREC, PROGS, PERF            binaries (make bench-guest sets the first two;
#                                    PERF: the perf to copy in, default the host's)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
SHARDREC=${SHARDREC:-$root/build/shardrec}
PROGS=${PROGS:-$root/build/progs}
PERF=${PERF:-perf}
CPUS=${BENCH_GUEST_CPUS:-32 64 128}
ROWS=${BENCH_GUEST_ROWS:-sched seed cpu}
MMAPS=${BENCH_GUEST_MMAP:-4 8 default}
TOOLS=${BENCH_GUEST_TOOLS:-perf perf-threads perf-threads-numa perf-r1-threads shardrec shardrec-r0 shardrec-cpu}
REPEATS=${BENCH_GUEST_REPEATS:-2}
SETTLE=${BENCH_GUEST_SETTLE:-0}
RUN_LIMIT=${BENCH_GUEST_RUN_LIMIT:-240}
STALL=${BENCH_GUEST_STALL:-$((RUN_LIMIT + 300))}
RESUMES=${BENCH_GUEST_RESUMES:-3}
MEM=${BENCH_GUEST_MEM:-4096}
KEEP=${BENCH_GUEST_KEEP:-0}
OUT=${BENCH_OUT:-$here/results-guest}
IDLE_MIN=${BENCH_IDLE_MIN:-90}
IDLE_SECS=${BENCH_IDLE_SECS:-2}
IDLE_WAIT=${BENCH_IDLE_WAIT:-180}
NODES=4

die() { echo "bench-guest: $*" >&2; exit 1; }
log() { echo "bench-guest: $*" >&2; }
# guest-lib.sh's names for giving up: no qemu, busybox or kernel is fatal here.
fail() { die "$@"; }
skip() { die "$@"; }
. "$root/tests/qemu/guest-lib.sh"
# wait_idle (IDLE_*); events, recorder, truth go into the guest.
. "$here/lib.sh"

size() { local v=BENCH_GUEST_SIZE_$1; echo "${!v:-3}"; }
# Messaging groups (40 processes each) for a guest of $1 vCPUs.
sched_groups() {
	local g=$(($1 / 8))
	echo "${BENCH_GUEST_SCHED_GROUPS:-$((g < 4 ? 4 : g))}"
}

for b in "$SHARDREC" "$PROGS/cpuwork" "$PROGS/matrix"; do
	[ -x "$b" ] || die "$b missing: run 'make bench-guest' or build it"
done
for r in $ROWS; do
	case $r in sched | seed | cpu) ;; *) die "BENCH_GUEST_ROWS: unknown row $r (sched seed cpu)" ;; esac
done
for t in $TOOLS; do
	case $t in perf | perf-*) ;; shardrec | shardrec-*) ;; *) die "BENCH_GUEST_TOOLS: unknown tool $t" ;; esac
done
for v in $CPUS; do
	[ $((v % NODES)) = 0 ] && [ "$v" -le 255 ] || die "BENCH_GUEST_CPUS: $v is not a multiple of $NODES up to 252"
done
command -v python3 >/dev/null || die "python3 missing"
guest_need

PERF_BIN=$(guest_perf_elf "$PERF") || die "$PERF_BIN"

# ---- the plan and its duration ----

read -r -a tools <<<"$TOOLS"
ntools=${#tools[@]}
# One recording a line: rep order row mmap tool. The tools run in an order
# rotated by one for every (repeat, row, -m), so none is always first.
plan() {
	local rep row m k=0 i
	for rep in $(seq "$REPEATS"); do
		for row in $ROWS; do
			for m in $MMAPS; do
				for ((i = 0; i < ntools; i++)); do
					echo "$rep $((i + 1)) $row $m ${tools[$(((i + k) % ntools))]}"
				done
				k=$((k + 1))
			done
		done
	done
}
nrec=$(plan | wc -l)
# Seconds, from smoke runs on the 2-CPU development VM (bench/README.md,
# "Duration"): qemu start to /init 5 s at 8 vCPUs and 8 s at 32 on an idle
# host (9-16 s under load); a recording end to end (SETTLE + workload + stop
# and merge or perf's exit + loss + shipping) 7-10 s at 8 vCPUs and 3 s
# workloads, 15-17 s at 32 on the seed row, whose matrix ran 10-11 s instead
# of 3 under the seed line (the other rows' workloads are killed on time).
# 64 and 128 vCPUs are extrapolated: the progress lines rescale the
# estimate as it goes.
est_boot() { echo $((15 + $1 / 4)); }
est_rec() { # vcpus row
	local stretch=0
	[ "$2" = seed ] && stretch=$(($1 / 6))
	echo $((2 + SETTLE + $(size "$2") + 5 + $1 / 8 + stretch)) # 2: the start, as settled before
}
est_guest() {
	local v=$1 s=0 row
	s=$(est_boot "$v")
	for row in $ROWS; do
		s=$((s + $(est_rec "$v" "$row") * REPEATS * $(wc -w <<<"$MMAPS") * ntools))
	done
	echo "$s"
}
total_est=0
for v in $CPUS; do total_est=$((total_est + $(est_guest "$v"))); done

# ---- the initramfs: busybox, shardrec, perf, the workloads, virtio_blk ----

WORK=$(mktemp -d /var/tmp/shardrec-bench-guest.XXXXXX)
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$OUT"
base=$WORK/root
guest_root "$base"
# chrt: guest-run.sh's watchdog runs above every recorder's real-time threads.
guest_add_bins "$base" "$SHARDREC" "$PROGS/cpuwork" "$PROGS/matrix" "$PERF_BIN" "$(command -v chrt)"
[ "${PERF_BIN##*/}" = perf ] || mv "$base/bin/${PERF_BIN##*/}" "$base/bin/perf"
cp "$here/guest-run.sh" "$base/bin/bench-run"
cp "$here/lib.sh" "$base/bin/bench-lib.sh"
guest_add_modules "$base" virtio_pci virtio_blk ||
	log "no virtio_blk module for $KERNEL: outputs cannot be shipped, the guest's own loss figures are used"
{
	guest_init_head
	cat <<'EOF'
mkdir -p /tmp/home
export HOME=/tmp/home
/bin/bench-run
poweroff -f
EOF
} >"$base/init"
chmod +x "$base/bin/bench-run"
guest_pack "$base" "$WORK/base.gz"

# ---- machine.txt ----

machine() {
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -srm), $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) online CPUs," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the guests' vCPU threads share the host with any other job)"
	echo "idle check: >= ${IDLE_MIN}% idle (/proc/stat) over ${IDLE_SECS} s before each boot, waiting up to ${IDLE_WAIT} s"
	echo "qemu: $("$QEMU" --version | head -n 1), accel ${QEMU_ACCEL:-tcg} (multi-threaded TCG: a host thread per vCPU)"
	echo "guest kernel: $KERNEL ($(file -bL "$KERNEL" 2>/dev/null | sed -n 's/.*version \([^ ]*\).*/\1/p'))"
	echo "guest: $NODES NUMA nodes, vCPUs split evenly (a socket per node), ${MEM} MiB split evenly"
	echo "perf (in the guest): $PERF_BIN, $("$PERF_BIN" version)"
	echo "shardrec: $("$SHARDREC" version) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?))"
	echo "config: vcpus=[$CPUS] rows=[$ROWS] mmap=[$MMAPS] repeats=$REPEATS settle=${SETTLE}s" \
		"sizes=[$(for r in $ROWS; do printf '%s=%ss ' "$r" "$(size "$r")"; done | sed 's/ $//')]" \
		"sched groups=[$(for v in $CPUS; do printf '%s:%s ' "$v" "$(sched_groups "$v")"; done | sed 's/ $//')]"
	echo "tools: $TOOLS"
	echo "command: BENCH_GUEST_CPUS=\"$CPUS\" BENCH_GUEST_ROWS=\"$ROWS\" BENCH_GUEST_MMAP=\"$MMAPS\"" \
		"BENCH_GUEST_TOOLS=\"$TOOLS\" BENCH_GUEST_REPEATS=$REPEATS bench/guest.sh"
}
machine >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2
log "$nrec recordings per guest, vCPUs [$CPUS]: estimated $((total_est / 60)) min" \
	"($(for v in $CPUS; do printf '%s: boot ~%ss + ~%ss a recording; ' "$v" "$(est_boot "$v")" "$(est_rec "$v" sched)"; done))"

# ---- one guest ----

# Host CPU ticks (USER_HZ): busy and all (/proc/stat), and what this
# shell's waited-for children used (qemu, shardrec loss, ...; cutime +
# cstime of /proc/$$/stat): busy - children's is what other jobs took.
host_cpu() {
	awk '/^cpu / { printf "%d %d ", $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
	sed 's/.*) //' /proc/$$/stat | awk '{ print $14 + $15 }'
}

CSV=$OUT/runs.csv
echo "vcpus,row,mmap,tool,rep,order,rc,wall_s,rec_s,truth,samples,lost,lost_share,loss_metric,lost_records,lost_time_s,elapsed_s,data_bytes,out_bytes,writers,hw_pct,hw_full,measured,guest_lost_share" >"$CSV"
start=$SECONDS
done_recs=0
est_done=0

# Stops the guest (qemu, pid $1) once $2 is STALL s old: a guest that
# finishes no recording for that long is hung. Twice a guest stopped in a
# recording that its own watchdog (RUN_LIMIT, at SCHED_FIFO 99) never
# ended, for 8 and 14 minutes, and lost every recording after it
# (bench/README.md, "Hangs"); the host cannot tell hung from slow sooner.
stall_watch() { # qemu-pid marker
	while sleep 10 && kill -0 "$1" 2>/dev/null; do
		[ $(($(date +%s) - $(stat -c %Y "$2"))) -ge "$STALL" ] || continue
		touch "$2.stalled"
		kill -TERM "$1" 2>/dev/null
		return
	done
}

# The console as qemu writes it: a progress line per recording.
follow() { # console qemu-pid
	local line n=$done_recs e=$est_done k rs kv sw
	declare -A f
	touch "$GUEST_DIR/progress"
	stall_watch "$2" "$GUEST_DIR/progress" &
	sw=$!
	tail -n +1 -F --pid="$2" "$1" 2>/dev/null | while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"GUEST: run "*)
			touch "$GUEST_DIR/progress"
			f=()
			for kv in ${line#GUEST: run }; do f[${kv%%=*}]=${kv#*=}; done
			n=$((n + 1))
			e=$((e + $(est_rec "$V" "${f[row]}")))
			k=$((SECONDS - start))
			# Time left: the estimate of what remains, scaled by how the
			# estimate did so far.
			rs=$(awk -v k=$k -v e=$e -v t=$total_est 'BEGIN { printf "%.0f", (t - e) * (e ? k / e : 1) / 60 }')
			log "$(printf '%3s vCPUs  %-5s -m %-7s %-17s rep %s: lost %s%%, %s LOST records%s, %s MB in %s s  [%d/%d, %d min, ~%s min left]' \
				"${f[vcpus]}" "${f[row]}" "${f[mmap]}" "${f[tool]}" "${f[rep]}" \
				"$(awk -v s="${f[lost_share]:-}" 'BEGIN { printf(s == "" ? "?" : "%.3f", 100 * s) }')" \
				"${f[lost_records]:-?}" "${f[hw]:+, high-water ${f[hw]}% (${f[hw90]}/${f[writers]} writers >= 90%)}" \
				"$(awk -v b="${f[bytes]:-0}" 'BEGIN { printf "%.1f", b / 1e6 }')" \
				"${f[rec_s]}" "$n" "$((nrec * $(wc -w <<<"$CPUS")))" $((k / 60)) "$rs")"
			[ "${f[rc]}" = 0 ] || log "  exit ${f[rc]}"
			;;
		"GUEST: booted in "*)
			e=$((e + $(est_boot "$V")))
			log "$V vCPUs: ${line#GUEST: } (guest uptime), $((SECONDS - t0)) s since qemu started"
			;;
		"GUEST: info "* | "GUEST: error"* | "GUEST: no ship"* | "GUEST: insmod"* | "GUEST: done"*)
			log "$V vCPUs: ${line#GUEST: }"
			;;
		"GUEST: "*-r[0-9]*": "*) log "  ${line#GUEST: }" ;;
		esac
	done
	kill $sw 2>/dev/null || true
	wait $sw 2>/dev/null || true
}

# One boot of a guest of $1 vCPUs running the plan in $2 (boot number $3,
# from 1): its rows go to runs.csv. Sets RAN to the recordings it finished.
one_boot() { # vcpus plan boot
	local v=$1 g=$WORK/v$1 per=$(($1 / NODES)) n bytes machine=() left
	left=$(wc -l <"$2")
	rm -rf "$g"
	mkdir -p "$g/conf" "$g/keep" "$g/data"
	{
		echo "NCPU=$v SETTLE=$SETTLE SCHED_GROUPS=$(sched_groups "$v") RUN_LIMIT=$RUN_LIMIT"
		for r in sched seed cpu; do echo "SIZE_$r=$(size $r)"; done
	} >"$g/conf/bench.conf"
	cp "$2" "$g/conf/bench.plan"
	guest_pack "$g/conf" "$g/conf.gz"
	# Two cpio archives in one initrd: the kernel unpacks both.
	cat "$WORK/base.gz" "$g/conf.gz" >"$g/initrd.gz"
	machine=(-m "${MEM}M" -smp "$v,sockets=$NODES,cores=$per,threads=1")
	for n in $(seq 0 $((NODES - 1))); do
		machine+=(-object "memory-backend-ram,id=m$n,size=$((MEM / NODES))M"
			-numa "node,nodeid=$n,cpus=$((n * per))-$((n * per + per - 1)),memdev=m$n")
	done
	guest_disk "$g/ship.img" 256G
	GUEST_INITRD=$g/initrd.gz GUEST_DIR=$g GUEST_FOLLOW=follow V=$v
	# A loaded host makes a 128-vCPU guest look stalled to RCU: its reports
	# would interrupt every CPU.
	GUEST_APPEND="rcupdate.rcu_cpu_stall_suppress=1"
	local timeout=${QEMU_TIMEOUT:-$((3 * $(est_guest "$v") + 900))}
	wait_idle || log "$v vCPUs: host still busy after ${IDLE_WAIT} s (${IDLE}% idle): booting anyway"
	log "$v vCPUs: boot $3 ($NODES nodes of $per, ${MEM} MiB; $left recordings, ~$(($(est_guest "$v") / 60)) min" \
		"for all $nrec; timeout ${timeout}s; host ${IDLE}% idle, load average $(cut -d' ' -f1-3 /proc/loadavg))"
	t0=$SECONDS
	c0=$(host_cpu)
	QEMU_TIMEOUT=$timeout guest_boot "${GUEST_DISK_ARGS[@]}" "${machine[@]}" >&2
	other=$(echo "$c0 $(host_cpu)" | awk '{ t = $5 - $2; printf "%.0f", (t > 0 ? 100 * (($4 - $1) - ($6 - $3)) / t : 0) }')
	log "$v vCPUs: other jobs took ${other}% of the host's CPU time while the guest ran"
	if [ "$3" = 1 ]; then cp "$g/console" "$OUT/console-$v.txt"; else cp "$g/console" "$OUT/console-$v.$3.txt"; fi
	tr -d '\r' <"$g/console" | sed -n 's/^GUEST: //p' >"$g/guest.txt"
	[ -e "$g/progress.stalled" ] && log "$v vCPUs: no recording finished in ${STALL} s: the guest was stopped"
	[ "$GUEST_RC" = 0 ] || { tail -n 20 "$g/console" >&2; log "$v vCPUs: qemu exit $GUEST_RC (console in $OUT/console-$v*.txt)"; }
	guest_unship_serial "$g/keep" 2>/dev/null || log "$v vCPUs: nothing came back on the serial port"
	bytes=$(sed -n 's/^shipped //p' "$g/guest.txt" | tail -n 1)
	# A guest that died midway: what its last run line says it had shipped.
	[ -n "$bytes" ] || bytes=$(sed -n 's/^run .* shipped=\([0-9]*\) .*/\1/p' "$g/guest.txt" | sort -n | tail -n 1)
	if [ "${bytes:-0}" -gt 0 ]; then
		guest_unship_disk "$g/ship.img" "$bytes" "$g/data" || log "$v vCPUs: the ship disk did not read back whole"
	fi
	rm -f "$g/ship.img"
	# The host's own measure of every output that came out.
	for f in "$g/data"/*.data; do
		[ -e "$f" ] || continue
		"$SHARDREC" loss --json "$f" >"${f%.data}.host.json" 2>/dev/null || rm -f "${f%.data}.host.json"
	done
	python3 "$here/guest_report.py" rows "$v" "$g/guest.txt" "$g/keep" "$g/data" >>"$CSV"
	RAN=$(grep -c '^run ' "$g/guest.txt" || true)
	done_recs=$((done_recs + RAN))
	echo "guest $v vCPUs, boot $3: $(sed -n 's/^booted in //p' "$g/guest.txt") boot (guest uptime)," \
		"$RAN of $left recordings in $((SECONDS - t0)) s," \
		"$(du -sb "$g/data" | cut -f1) bytes shipped, qemu exit $GUEST_RC$([ -e "$g/progress.stalled" ] && echo " (stopped: no recording finished in ${STALL} s)");" \
		"host ${IDLE}% idle before the boot, other jobs ${other}% of its CPU time during the guest;" \
		"$(cat "$g/keep/rate.txt" 2>/dev/null || echo 'no rate.txt')" >>"$OUT/machine.txt"
	if [ "$KEEP" = 1 ]; then
		mkdir -p "$OUT/data-$v"
		mv "$g/data"/* "$OUT/data-$v/" 2>/dev/null || true
	fi
	rm -rf "$g"
}

# A guest of $1 vCPUs through its whole plan. A boot that stops before the
# end (hung, or qemu's timeout) loses only the recording it was in, which
# runs.csv gives as failed (rc "stall"): the next boot runs the rest, at
# most RESUMES times.
one_guest() {
	local v=$1 plan_f=$WORK/plan-$1 boot=1 hung
	[ "$KEEP" = 1 ] && rm -rf "$OUT/data-$v"
	plan >"$plan_f"
	while :; do
		RAN=0
		one_boot "$v" "$plan_f" "$boot"
		[ "$RAN" -lt "$(wc -l <"$plan_f")" ] || break
		hung=$(sed -n "$((RAN + 1))p" "$plan_f")
		log "$v vCPUs: boot $boot ended in recording $((RAN + 1)) of its $(wc -l <"$plan_f") ($hung): counted failed"
		# rep order row mmap tool -> the CSV's first seven columns, the rest empty
		echo "$hung" | awk -v v="$v" '{ printf "%s,%s,%s,%s,%s,%s,stall", v, $3, $4, $5, $1, $2;
			for (i = 0; i < 17; i++) printf ","; print "" }' >>"$CSV"
		sed -i "1,$((RAN + 1))d" "$plan_f"
		done_recs=$((done_recs + 1))
		[ -s "$plan_f" ] || break
		if [ "$boot" -gt "$RESUMES" ]; then
			log "$v vCPUs: $(wc -l <"$plan_f") recordings not run: no boot left (BENCH_GUEST_RESUMES=$RESUMES)"
			break
		fi
		boot=$((boot + 1))
	done
	est_done=$((est_done + $(est_guest "$v")))
}

for v in $CPUS; do
	one_guest "$v"
done
python3 "$here/guest_report.py" report "$OUT" >/dev/null
if command -v gnuplot >/dev/null; then
	(cd "$OUT" && gnuplot "$here/plot-guest.gnuplot") || log "gnuplot failed"
else
	log "gnuplot not installed (apt-get install gnuplot-nox): no loss.png"
fi
log "done in $(((SECONDS - start) / 60)) min; results in $OUT: results.md, loss.png, machine.txt, runs.csv, console-*.txt"
