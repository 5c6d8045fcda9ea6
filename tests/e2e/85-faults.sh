# Disk faults while recording (GitHub issue 10): one writer's disk full or
# failing (injected with SHARDREC_FAULT, recorder/capture/fault.h, since all shards
# share one directory), every writer's disk full (a real 2 MB tmpfs),
# --max-size, and a slow disk (every write delayed). The recording goes on,
# the output is valid, the loss is counted and reported, and the exit status
# says whether the recording is complete.
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (one writer fails, the other goes on)"
export ALLOW_LOSS_WARNING=1

# perf report --stats count of a record type.
pstat() { "$PERF" report --stats -i "$1" 2>/dev/null | awk -v k="$2" '$1 == k && $2 == "events:" { print $3; exit }'; }
# Summary figures: "N lost records, M lost samples".
lost_samples() { sed -n 's/.*, \([0-9]*\) lost samples .*/\1/p' "$1"; }
lost_records() { sed -n 's/.* \([0-9]*\) lost records,.*/\1/p' "$1"; }

# ---- one writer's disk full: writer 1 (cpu 1) fails after 200 kB, writer 0 goes on ----
rc=0
SHARDREC_FAULT=writer:1:enospc_after:200000 "$SHARDREC" record -a --threads=cpu --sample-cpu \
	-c 50000 -o full.data -- "$PROGS/hot" 1200 2 2>full.err || rc=$?
cat full.err
[ $rc = 2 ] || fail "a writer's disk full: exit $rc, want 2 (recording incomplete)"
grep -q "writer 1 (cpus 1) stopped [0-9.]* s into the recording: No space left on device" full.err ||
	fail "the summary does not say which writer stopped, when and why"
grep -q "recording is incomplete" full.err || fail "no 'incomplete' verdict"
! grep -q "writer 0 .*stopped" full.err || fail "writer 0 stopped too"
ls=$(lost_samples full.err)
[ "${ls:-0}" -gt 0 ] || fail "no lost samples counted for the stopped writer's CPU"
grep -q "lost after it: $ls samples on cpus 1" full.err ||
	fail "the writer's line does not attribute the $ls lost samples to cpu 1"
[ "$(pstat full.data LOST_SAMPLES)" -gt 0 ] || fail "no LOST_SAMPLES record in the output"
check_perf_file full.data
# Writer 0 recorded to the end: cpu 0's samples outlast cpu 1's by far.
"$PERF" script -F cpu,time -i full.data 2>/dev/null | tr -d '[]:' |
	awk '{ last[$1 + 0] = $2 } END { printf "cpu0 until %.3f, cpu1 until %.3f\n", last[0], last[1];
		exit !(last[0] - last[1] > 0.4) }' || fail "writer 0 did not go on after writer 1 stopped"

# ---- EIO on writer 0 of a compressed recording ----
rc=0
SHARDREC_FAULT=writer:0:eio_after:20000 "$SHARDREC" record -a --threads=cpu -z -c 50000 \
	-o eio.data -- "$PROGS/hot" 600 2 2>eio.err || rc=$?
cat eio.err
[ $rc = 2 ] || fail "EIO: exit $rc, want 2"
grep -q "writer 0 (cpus 0) stopped .*: Input/output error" eio.err || fail "EIO not reported"
check_perf_file eio.data

# ---- every writer's disk full: a real 2 MB tmpfs ----
if [ "$(id -u)" = 0 ] && mkdir mnt && mount -t tmpfs -o size=2m shardrec-e2e mnt 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null || true; cleanup' EXIT
	rc=0
	"$SHARDREC" record -a --threads=cpu -c 20000 -o mnt/t.data -- "$PROGS/hot" 1500 2 \
		2>tmpfs.err || rc=$?
	cat tmpfs.err
	# The output cannot fit either: the merge fails and keeps the shards.
	[ $rc = 1 ] || fail "full tmpfs: exit $rc, want 1 (merge failed, shards kept)"
	grep -q "stopped .*: No space left on device" tmpfs.err || fail "no writer reported the full disk"
	grep -q "shards kept in mnt/t.data.shards (retry: shardrec merge" tmpfs.err ||
		fail "no retry hint after the failed merge"
	[ ! -e mnt/t.data.partial ] || fail "a failed merge left t.data.partial behind"
	# Failed writes were truncated back to whole passes: no --recover needed.
	"$SHARDREC" merge mnt/t.data.shards -o t.data 2>merge.err || { cat merge.err; fail "merge of the full disk's shards failed"; }
	cat merge.err
	check_perf_file t.data
	rm -rf mnt/*

	# Rotation on the full disk (issue 33 item 3): a generation's header.data
	# cut short by ENOSPC left its tail's lost counts in no file, and the
	# summary named a file that did not exist. Now every generation a writer
	# touched merges (elsewhere, as the retry hint says), the summary names
	# only files that exist, and the loss is in some file.
	rc=0
	"$SHARDREC" record -a -F 20000 -g --threads=cpu --switch-output=300K -o mnt/r.data -- \
		"$PROGS/hot" 2000 2 2>rot.err || rc=$?
	cat rot.err
	grep -q "stopped .*: No space left on device" rot.err || fail "rotation: no writer met the full disk"
	line=$(grep "Captured and wrote" rot.err || true)
	# No file at all is possible (the disk filled before any merge): find, not
	# ls, whose exit 2 on no match would end the test under pipefail.
	files=$(find mnt -maxdepth 1 -name 'r.data.[0-9]*' | wc -l)
	case $line in
	*", "[0-9]*" files ("*)
		n=$(echo "$line" | sed 's/.*, \([0-9]*\) files (.*/\1/')
		[ "$n" = "$files" ] || fail "rotation: the summary says $n files, $files exist" ;;
	*"MB "*" ("*)
		named=$(echo "$line" | sed 's/.* MB \(.*\) ([0-9]* samples.*/\1/')
		[ -f "$named" ] || fail "rotation: the summary names $named, which does not exist" ;;
	*) [ "$files" = 0 ] || fail "rotation: $files files written, and no summary of them" ;;
	esac
	lost=0
	for f in mnt/r.data.[0-9]*; do
		[ -e "$f" ] || continue
		lost=$((lost + $(perf_lost "$f")))
	done
	kept=0
	for g in mnt/r.data.shards/*/; do
		[ -d "$g" ] || continue
		kept=$((kept + 1))
		rm -rf gen && cp -r "$g" gen
		"$SHARDREC" merge gen -o gen.data 2>gen.err ||
			{ cat gen.err; fail "rotation: kept generation $g does not merge elsewhere"; }
		# A generation begun as the writers stopped may hold its lost counts alone.
		check_perf_readers gen.data
		lost=$((lost + $(perf_lost gen.data)))
	done
	if [ "$kept" -gt 0 ]; then
		grep -q "$kept generations\? not merged, shards kept in mnt/r.data.shards" rot.err ||
			fail "rotation: $kept generations kept and the summary does not say so"
	fi
	echo "rotation on a full disk: $files files, $kept generations kept, $lost lost samples in them"
	[ "$lost" -gt 0 ] || fail "rotation: the writers lost samples and no file counts them"
	umount mnt
fi

# ---- --max-size: stops cleanly at the size ----
# Bytes the merge adds after the recording, outside --max-size (doc/design.md): the
# build-id list with its 16-byte index entry, FINISHED_ROUND and LOST_SAMPLES
# records. The header is perf's: data {offset, size} at byte 40, the feature
# bits at 72, one {offset, size} per set bit after the data section.
merge_added() {
	local f=$1 doff dsize bits n=0 added=0 x
	read -r doff dsize < <(od -A n -t u8 -j 40 -N 16 "$f")
	bits=$(od -A n -t u1 -j 72 -N 1 "$f")
	if [ $((bits & 4)) != 0 ]; then # HEADER_BUILD_ID, after HEADER_TRACING_DATA if set
		[ $((bits & 2)) = 0 ] || n=1
		added=$(($(od -A n -t u8 -j $((doff + dsize + 16 * n + 8)) -N 8 "$f") + 16))
	fi
	for x in $("$PERF" report -D -i "$f" 2>/dev/null |
		sed -n 's/.*\[\(0x[0-9a-f]*\)\]: PERF_RECORD_\(FINISHED_ROUND\|LOST_SAMPLES\)\b.*/\1/p'); do
		added=$((added + x))
	done
	echo $added
}
# A process with 8000 executable mappings: its prologue gets an MMAP2 for
# each, about 1 MB, which --max-size once left uncounted (a 300K limit with
# -a wrote 1,797,924 bytes on a busy machine). -p, not -a: other jobs'
# processes would make the prologue unpredictable. It burns a CPU and
# exits by itself after 20 s.
"$PROGS/manymaps" 8000 maps.ready 20 &
maps=$!
for i in $(seq 100); do [ -e maps.ready ] && break; sleep 0.05; done
[ -e maps.ready ] || fail "manymaps did not map"
# Synthesized records alone over the limit: it stops at once, with just them.
rc=0
"$SHARDREC" record -p $maps -c 20000 --max-size 64K -o pro.data -- sleep 10 2>pro.err || rc=$?
cat pro.err
# The status is the command's, which was stopped for the limit (SIGTERM: 143).
[ $rc = 143 ] && grep -q "size limit reached" pro.err || fail "--max-size below the prologue: exit $rc"
[ "$(summary_samples pro.err)" = 0 ] || fail "--max-size below the prologue still wrote samples"
prologue=$(stat -c %s pro.data)
[ "$prologue" -gt 1000000 ] || fail "manymaps' prologue is only $prologue bytes"
# Room for 256 KiB of samples after it.
limit=$((prologue + (256 << 10)))
rc=0
start=$(date +%s%N)
"$SHARDREC" record -p $maps -c 20000 --max-size $limit -o max.data -- sleep 10 2>max.err || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $ms -lt 8000 ] || fail "--max-size did not stop the 10 s recording early ($ms ms)"
cat max.err
[ $rc = 143 ] || fail "--max-size: exit $rc, want sleep's 143 (82-options compares with perf)"
# The header, the synthesized records and every pass count: the file
# exceeds the limit only by what the merge adds.
size=$(stat -c %s max.data)
added=$(merge_added max.data)
echo "--max-size $limit: $size bytes, $added of them added by the merge"
[ "$size" -le $((limit + added)) ] || fail "--max-size $limit wrote $size bytes (merge added $added)"
grep -q "size limit reached" max.err || fail "--max-size: no size limit message"
check_perf_file max.data
kill $maps
wait $maps 2>/dev/null || true

# ---- slow disk: every write takes 300 ms, 4-page rings overflow ----
start=$(date +%s)
rc=0
SHARDREC_FAULT='writer:*:slow:300' timeout 30 "$SHARDREC" record -v -a --threads=cpu -m 4 -c 20000 \
	-o slow.data -- "$PROGS/hot" 1000 2 2>slow.err || rc=$?
cat slow.err
[ $rc = 0 ] || fail "slow disk: exit $rc (124 = hang)"
[ $(($(date +%s) - start)) -lt 15 ] || fail "slow disk: took $(($(date +%s) - start)) s"
# -v times every writer's writes: each took at least the 300 ms injected
each_writer slow.err writes "slow disk"
w=$(nr_writers slow.err)
sed -n 's/^shardrec: writes of writer [0-9]*: \([0-9.]*\) s in all, the longest \([0-9.]*\) ms at .*/\1 \2/p' \
	slow.err | awk -v w="$w" '$1 >= 0.299 && $2 >= 299 { n++ } END { exit n != w }' ||
	fail "slow disk: a writer's writes timed under the 300 ms injected"
# ... and counts each of its passes among the writes of 50 ms or more
passes=$(sed -n 's/^shardrec: writer [0-9]*: .* MB in \([0-9]*\) passes.*/\1/p' slow.err | tr '\n' ' ')
over=$(sed -n 's/^shardrec: writes of writer [0-9]*: .*, \([0-9]*\) of 50 ms or more$/\1/p' slow.err |
	tr '\n' ' ')
echo "slow disk: passes per writer $passes, writes of 50 ms or more $over"
[ -n "$passes" ] && [ "$passes" = "$over" ] ||
	fail "slow disk: writes of 50 ms or more ($over) are not every pass ($passes)"
grep -Eq '^shardrec: warning: heavy loss: .*(, | or )-o on a faster file system \(a shard write took [0-9]{3,} ms\)' \
	slow.err || fail "slow disk: the heavy-loss advice does not name the slow writes"
lr=$(lost_records slow.err)
[ "${lr:-0}" -gt 0 ] || fail "slow disk: no lost records counted"
[ "$(pstat slow.data LOST)" -gt 0 ] || fail "slow disk: no LOST record in the output"
check_perf_file slow.data
"$SHARDREC" loss slow.data >loss.txt || fail "loss on the slow disk's file failed"
cat loss.txt
exit 0
