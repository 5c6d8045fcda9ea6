#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The load loop of issue 20: CI's own command, N times in a row, on clean
# clones of one revision, beside load a shared machine has.
#
#   tests/loadloop.sh [-n RUNS] [-s] [-o DIR] [-u SECONDS] [REV]
#
#   -n RUNS  runs to do (default 10); the loop stops at the first failure
#            unless KEEP_GOING=1
#   -s       also run stress-ng (--cpu 1 --cpu-load 30 --io 1 --vm 1
#            --vm-bytes 256M) beside every run
#   -o DIR   where clones, logs and the summary go (default
#            /var/tmp/shardrec-loadloop)
#   -u SECS  start no run that would not end within SECS of the loop's
#            start, going by the longest run so far (1500 s before the
#            first): a loop split over sessions stops between runs, not in
#            the middle of one
#   REV      the revision to test (default HEAD)
#
# Beside every run, copies of the test workloads (hot, cpuwork, matrix),
# built from the same revision into DIR/foreign, run in loops under their
# own pids: a test that finds its processes by name fails here. Each run is
# a fresh `git clone` of REV and `bash .ci/run` in it; DIR/summary gets one
# line per run (rc, seconds, idle % of the run from /proc/stat, make
# check's totals), DIR/run.N.log the whole output.
set -uo pipefail

runs=10 stress=0 out=/var/tmp/shardrec-loadloop until=
while getopts "n:so:u:" c; do
	case $c in
	n) runs=$OPTARG ;;
	s) stress=1 ;;
	o) out=$OPTARG ;;
	u) until=$OPTARG ;;
	*) sed -n '4,18p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) || exit 2
rev=$(git -C "$repo" rev-parse --short "${1:-HEAD}") || exit 2
mkdir -p "$out/foreign" || exit 2

# idle and total jiffies of /proc/stat's cpu line
jiffies() { awk '/^cpu /{ t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat; }

pids=()
stop_load() { [ ${#pids[@]} -gt 0 ] && kill -- "${pids[@]/#/-}" 2>/dev/null; wait 2>/dev/null; }
trap 'stop_load; exit 130' INT TERM

start_load() {
	local src=$out/foreign/src p
	rm -rf "$src" && git clone -q "$repo" "$src" && git -C "$src" checkout -q "$rev" || return 1
	for p in hot cpuwork matrix; do
		cc -O1 -g -fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -o "$out/foreign/$p" "$src/tests/progs/$p.c" -lpthread -lm || return 1
	done
	# each loop in its own process group, so stop_load ends the workload too
	setsid bash -c "while :; do '$out/foreign/hot' 700 1; sleep 0.3; done" >/dev/null 2>&1 & pids+=($!)
	setsid bash -c "while :; do '$out/foreign/cpuwork' 50 1; sleep 0.5; done" >/dev/null 2>&1 & pids+=($!)
	setsid bash -c "while :; do '$out/foreign/matrix' -t 1 -n 128 -s 1; sleep 1; done" >/dev/null 2>&1 & pids+=($!)
	if [ "$stress" = 1 ]; then
		command -v stress-ng >/dev/null || apt-get install -y -qq stress-ng >/dev/null || return 1
		setsid stress-ng --cpu 1 --cpu-load 30 --io 1 --vm 1 --vm-bytes 256M \
			>/dev/null 2>&1 & pids+=($!)
	fi
}

start_load || { echo "loadloop: cannot start the load" >&2; stop_load; exit 1; }
echo "loadloop: $rev, $runs runs, stress=$stress, foreign pids ${pids[*]}, in $out" |
	tee -a "$out/summary"
fails=0 longest=1500 begin=$(date +%s) i=0 done=0
for i in $(seq 1 "$runs"); do
	if [ -n "$until" ] && [ $(( $(date +%s) + longest )) -gt $((begin + until)) ]; then
		echo "loadloop: stopping before run $i: it would end past ${until} s (longest run ${longest} s)" |
			tee -a "$out/summary"
		break
	fi
	src=$out/run.$i
	rm -rf "$src"
	read -r i0 t0 < <(jiffies)
	s0=$(date +%s)
	{ git clone -q "$repo" "$src" && git -C "$src" checkout -q "$rev" &&
		bash "$src/.ci/run"; } >"$out/run.$i.log" 2>&1
	rc=$?
	read -r i1 t1 < <(jiffies)
	idle=$(( (i1 - i0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1) ))
	totals=$(grep -a '^check:' "$out/run.$i.log" | tail -1)
	took=$(( $(date +%s) - s0 ))
	[ "$done" = 0 ] || [ $took -gt $longest ] && longest=$took
	done=$((done + 1))
	echo "run $i $rev rc=$rc ${took}s idle=${idle}% ${totals:-no totals}" |
		tee -a "$out/summary"
	[ $rc -eq 0 ] && rm -rf "$src" || fails=$((fails + 1))
	[ $rc -ne 0 ] && [ "${KEEP_GOING:-0}" != 1 ] && break
done
stop_load
echo "loadloop: $rev $((done - fails))/$done passed" | tee -a "$out/summary"
[ $fails -eq 0 ]
