#!/bin/busybox sh
# The guest half of bench/guest.sh (bench/README.md, "Many-CPU guest"):
# /init runs it in the initramfs of a many-vCPU qemu guest, as
# /bin/bench-run. It reads /bench.conf (NCPU, SETTLE, SCHED_GROUPS, SIZE_<row>
# in seconds) and /bench.plan (one recording a line: rep order row mmap tool,
# the tools already in their alternating order), and for each recording:
#
# - pins kernel.perf_event_max_sample_rate to its value at boot (-F max);
# - starts the recorder in the background (bench/lib.sh's recorder(): the
#   row's events and -m, the same for every tool; shardrec with -v, which
#   only prints its writers' figures and ring high-water marks at the end),
#   its events disabled until the control FIFO enables them (lib.sh,
#   live_wait); once it acknowledged, waits SETTLE s, runs the row's
#   workload for SIZE_<row> s, stops the recorder with SIGINT;
# - measures the output with `shardrec loss --json` (for the progress line;
#   the host measures the shipped file again and uses its own figures);
# - writes the output, the recorder's stderr and the loss JSON as one tar
#   archive to the ship disk (/dev/vda, no file system: archive after
#   archive), syncs and drops the page cache before the next recording;
# - prints "GUEST: run key=value..." on the console (the host's progress line).
#
# At the end the stderr and loss files of every run go out on the second
# serial port too (small; what the host uses if the disk is missing), and
# "GUEST: shipped BYTES" says how much of the disk to read.
. /bench.conf
PERF=perf
SHARDREC=shardrec
die() {
	echo "GUEST: error: $*"
	exit 1
}
. /bin/bench-lib.sh

RATE_FILE=/proc/sys/kernel/perf_event_max_sample_rate
RATE=$(cat $RATE_FILE)
up() { cut -d' ' -f1 /proc/uptime; }

# The row's workload for SIZE_<row> s (the recording's length does not
# depend on how fast the host runs the vCPUs). The storms run in their own
# session, stopped as a process group.
workload() {
	local s p i pids=
	eval s=\$SIZE_$1
	case $1 in
	seed)
		# The seed workload, a fixed time itself: a thread per vCPU, in
		# processes of at most 64 threads (matrix's limit). Not a bare
		# wait: the recorder is this shell's child too.
		p=$(((NCPU + 63) / 64))
		for i in $(seq "$p"); do
			matrix -t $((NCPU / p)) -s "$s" &
			pids="$pids $!"
		done
		wait $pids
		;;
	sched) for_secs "$s" perf bench sched messaging -p -g "$SCHED_GROUPS" -l 1000000000 ;;
	cpu) for_secs "$s" cpuwork 1000000000 "$NCPU" ;;
	esac
}

# Writes FILES (in /tmp/run) to the ship disk, after what is there.
ship() {
	[ -n "$DISK" ] || return 0
	(cd /tmp/run && tar cf - "$@") >&3
	sync
	echo 1 >/proc/sys/vm/drop_caches
}

run_one() { # rep order row mmap tool
	local rep=$1 order=$2 row=$3 m=$4 tool=$5 name out cmd rpid rc wrc c0 c1 t0 t1 w0 w1 hw hw90 nw
	name=$row-m$m-$tool-r$rep
	out=/tmp/run/$name.data
	rm -rf /tmp/run
	mkdir -p /tmp/run /tmp/keep
	echo "$RATE" >$RATE_FILE
	cmd="$(recorder "$tool" "$m" "$(events "$row")" "$out") $(live_opts /tmp/ctl /tmp/ack)"
	case $tool in shardrec*) cmd="$cmd -v" ;; esac
	live_fifos /tmp/ctl /tmp/ack || die "cannot make the control FIFOs"
	t0=$(up)
	$cmd </dev/null >/dev/null 2>"/tmp/run/$name.err" &
	rpid=$!
	# perf -r 1 --threads on the seed row held the 64-vCPU guest for over
	# 15 minutes (64 SCHED_FIFO threads leave the rest 5% of each vCPU):
	# past RUN_LIMIT s the recorder is killed and the row says rc 137. At
	# normal priority the watchdog starved with the rest (20 minutes past
	# its limit, 2026-12-06): it runs at SCHED_FIFO 99, above any recorder.
	chrt -f 99 sh -c 'sleep "$1"; kill -KILL "$2" 2>/dev/null' sh "${RUN_LIMIT:-240}" $rpid &
	wd=$!
	rc=0
	# Recording (lib.sh, live_wait), or dead: the watchdog bounds the wait.
	if live_wait /tmp/ctl /tmp/ack "${RUN_LIMIT:-240}" && kill -0 $rpid 2>/dev/null; then
		sleep "$SETTLE"
		c0=$(truth "$row")
		w0=$(up)
		workload "$row" </dev/null >/dev/null 2>&1
		w1=$(up)
		sleep 0.2
		c1=$(truth "$row")
		kill -INT $rpid
	else
		# Never recording: no workload ran, the row is a failed one (rc 97).
		c0=0 c1=0 w0=0 w1=0 rc=97
		kill -KILL $rpid 2>/dev/null
	fi
	wait $rpid
	wrc=$?
	[ $rc = 97 ] || rc=$wrc
	kill $wd 2>/dev/null
	# perf record re-raises SIGINT once its file is complete: 130 is a clean stop.
	[ $rc = 130 ] && rc=0
	t1=$(up)
	if ! shardrec loss --json "$out" >"/tmp/run/$name.loss.json" 2>>"/tmp/run/$name.err"; then
		[ $rc != 0 ] || rc=98
	fi
	# shardrec -v: "high-water of writer N: ring of cpu C P% full (...)"
	hw=$(sed -n 's/^shardrec: high-water of writer .*: ring of cpu [0-9]* \([0-9]*\)% full.*/\1/p' \
		"/tmp/run/$name.err" | sort -n | tail -n 1)
	hw90=$(sed -n 's/^shardrec: high-water of writer .*: ring of cpu [0-9]* \([0-9]*\)% full.*/\1/p' \
		"/tmp/run/$name.err" | awk '$1 >= 90' | wc -l)
	nw=$(grep -c '^shardrec: writer [0-9]*: node' "/tmp/run/$name.err")
	cp "/tmp/run/$name.err" "/tmp/run/$name.loss.json" /tmp/keep/
	ship "$(basename "$out")" "$name.err" "$name.loss.json"
	echo "GUEST: run vcpus=$NCPU rep=$rep order=$order row=$row mmap=$m tool=$tool rc=$rc" \
		"rec_s=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')" \
		"wall_s=$(echo "$w1 $w0" | awk '{ printf "%.2f", $1 - $2 }') truth=$((c1 - c0))" \
		"samples=$(jnum "/tmp/run/$name.loss.json" samples)" \
		"lost_share=$(jnum "/tmp/run/$name.loss.json" lost_share)" \
		"loss_metric=$(jnum "/tmp/run/$name.loss.json" loss_metric)" \
		"lost_records=$(jnum "/tmp/run/$name.loss.json" lost_records)" \
		"bytes=$(du -sb "$out" 2>/dev/null | cut -f1) writers=$nw hw=${hw:-} hw90=$hw90" \
		"shipped=$([ -n "$DISK" ] && sed -n 's/^pos:[[:space:]]*//p' /proc/self/fdinfo/3 || echo 0)" \
		"at=$(up)"
	[ $rc = 0 ] || sed "s/^/GUEST: $name: /" "/tmp/run/$name.err" | tail -n 5
	rm -rf /tmp/run
}

DISK=
if [ -b /dev/vda ]; then
	DISK=/dev/vda
	exec 3>$DISK
else
	echo "GUEST: no ship disk (/dev/vda): only the loss figures measured here go out"
fi
echo "GUEST: info nodes $(cat /sys/devices/system/node/online), cpus $(cat /sys/devices/system/cpu/online)," \
	"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
	"kernel $(uname -r), $(perf version), $(shardrec version 2>&1 | head -n 1)," \
	"perf_event_max_sample_rate $RATE"
for n in /sys/devices/system/node/node*; do echo "GUEST: info ${n##*/} cpus $(cat $n/cpulist)"; done
mkdir -p /tmp/keep
while read -r rep order row m tool; do
	run_one "$rep" "$order" "$row" "$m" "$tool"
done </bench.plan
dmesg >/tmp/keep/dmesg.txt
echo "perf_event_max_sample_rate at boot $RATE, at the end $(cat $RATE_FILE)" >/tmp/keep/rate.txt
(cd /tmp/keep && tar cf - .) | gzip -1 | base64 >/dev/ttyS1
[ -z "$DISK" ] || { sync; echo "GUEST: shipped $(sed -n 's/^pos:[[:space:]]*//p' /proc/self/fdinfo/3)"; }
echo "GUEST: done at $(up) s"
