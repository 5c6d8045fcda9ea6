# shardrec loss on a shardrec file and a perf file of the same run: both
# recorders system-wide at the same time on one context-switch storm with
# 1-page rings, so both lose: the storm stops both recorders (SIGSTOP, then
# SIGCONT when it is done), as a free-running storm is a race a recorder on
# an idle machine may win (71-pressure's once did). Checks that loss
# reads each file exactly as perf report --stats counts it, that the metric
# is sane, and that the two files account for about the same share of
# their windows' context switches (samples + lost against /proc/stat).
. "$(dirname "$0")/lib.sh"
need_perf_event

# /proc/stat's ctxt around each recorder's window: other jobs' switches
# count too, and perf's window is longer (its start, a second, its stop).
pc0=$(ctxt)
"$PERF" record -q -a -e cs -c 1 -m 1 -o perf.data 2>perf.err &
ppid=$!
sleep 1
cat >storm.sh <<EOF
kill -STOP $ppid \$PPID || exit 1
grep ^ctxt /proc/stat >sc0
$PERF bench sched messaging -g 4 -l 200 >/dev/null
kill -CONT $ppid \$PPID
# The kernel writes a ring's LOST record before its next sample: a few
# switches with both recorders running again put those records in the files.
$PERF bench sched messaging -g 1 -l 20 >/dev/null
grep ^ctxt /proc/stat >sc1
EOF
"$SHARDREC" record -q -r 0 -a -e cs -c 1 -m 1 -o sr.data -- sh storm.sh 2>sr.err ||
	{ cat sr.err; fail "shardrec record failed"; }
kill -INT $ppid
rc=0
wait $ppid || rc=$?
pc1=$(ctxt)
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
# Both files account for at least the storm's switches (/proc/stat inside
# shardrec's command; perf's window holds it): the lost ones counted. Not
# each other's totals: under load perf's longer window (its start, a
# second, its stop) holds many more (shardrec/perf 0.49 beside stress-ng).
st=$(( $(awk '{ print $2 }' sc1) - $(awk '{ print $2 }' sc0) ))
echo "accounted: shardrec $(cat sr.data.total), perf $(cat perf.data.total), storm's ctxt $st"
for f in sr.data perf.data; do
	[ "$(cat $f.total)" -ge $((st * 9 / 10)) ] || fail "$f accounts for fewer context switches than the storm's"
done
[ "$(cat sr.data.total)" -le $((st * 13 / 10)) ] || fail "sr.data accounts for many more switches than its window"
