# shardrec loss on a shardrec file and a perf file of the same run: both
# recorders system-wide at the same time on one context-switch storm with
# 1-page rings, so both lose (shardrec's writers at normal priority, -r 0:
# real-time ones, the default where allowed, may keep up). Checks that loss
# reads each file exactly as perf report --stats counts it, that the metric
# is sane, and that the two files account for about the same context
# switches (samples + lost).
. "$(dirname "$0")/lib.sh"
need_perf_event

"$PERF" record -q -a -e cs -c 1 -m 1 -o perf.data 2>perf.err &
ppid=$!
sleep 1
"$SHARDREC" record -q -r 0 -a -e cs -c 1 -m 1 -o sr.data -- \
	"$PERF" bench sched messaging -g 4 -l 200 >/dev/null 2>sr.err || { cat sr.err; fail "shardrec record failed"; }
kill -INT $ppid
rc=0
wait $ppid || rc=$?
# perf record re-raises SIGINT after writing its file: 130 is a clean stop.
[ $rc = 0 ] || [ $rc = 130 ] || { cat perf.err; fail "perf record failed ($rc)"; }

# A top-level number of `shardrec loss --json` (one file: first line holds them).
jnum() { sed -n "s/.*\"$2\": \([0-9.e+-]*\)[,}].*/\1/p" "$1" | head -1; }
# A record count of `perf report --stats`.
pstat() { awk -v k="$2" '$1 == k && $2 == "events:" { print $3; exit }' "$1"; }

for f in sr.data perf.data; do
	"$SHARDREC" loss --json $f >$f.json 2>loss.err || { cat loss.err; fail "loss $f failed"; }
	"$SHARDREC" loss $f >loss.txt || fail "loss $f (table) failed"
	grep -q "lost_time is the union" loss.txt || fail "table does not define the metric"
	"$PERF" report --stats -i $f >stats.txt 2>/dev/null
	s=$(jnum $f.json samples) lr=$(jnum $f.json lost_records) l=$(jnum $f.json lost)
	m=$(jnum $f.json loss_metric) lt=$(jnum $f.json lost_time_s) el=$(jnum $f.json elapsed_s)
	echo "$f: samples $s lost $l ($lr LOST records) loss metric $m ($lt of $el s)"
	[ "$s" = "$(pstat stats.txt SAMPLE)" ] || fail "$f: samples $s, perf counts $(pstat stats.txt SAMPLE)"
	[ "$lr" = "$(pstat stats.txt LOST)" ] || fail "$f: LOST $lr, perf counts $(pstat stats.txt LOST)"
	[ "$(jnum $f.json lost_samples_records)" = "$(pstat stats.txt LOST_SAMPLES)" ] ||
		fail "$f: LOST_SAMPLES records disagree with perf"
	[ "$lr" -gt 0 ] || fail "$f: no loss with 1-page rings: the test proves nothing"
	awk -v m="$m" -v lt="$lt" -v el="$el" 'BEGIN { exit !(m > 0 && m <= 1 && lt > 0 && lt <= el) }' ||
		fail "$f: loss metric out of range"
	echo $((s + l)) >$f.total
done
# Same storm; perf's window is a second longer, the storm dominates both.
awk -v a="$(cat sr.data.total)" -v b="$(cat perf.data.total)" 'BEGIN {
	r = a / b; printf "accounted context switches shardrec/perf: %.3f\n", r; exit r < 0.7 || r > 1.15 }' ||
	fail "the two recorders account for very different numbers of context switches"
