# shardrec jobview over a hand-made job: three nodes recorded with hot 300,
# 600 and 900 ms (one rank each, its app's pid in the JSON) and a fourth
# unrecorded one. Checked against perf itself: samples and lost samples
# (perf report --stats, Total Lost Samples), each node's share of hot_loop
# (perf report --sort sym's Overhead), the imbalances recomputed from perf
# report's periods, each rank's samples (perf script -F pid); then --json,
# a directory against the file list, more than 8 nodes, and bad input.
. "$(dirname "$0")/lib.sh"
need_perf_event
command -v python3 >/dev/null || skip "python3 not installed (reads --json)"

mkdir job
for i in 1 2 3; do
	f=job/perf.9.node$i.data
	"$SHARDREC" record -q -o "$f" -- sh -c 'echo $$ >"$1"; shift; exec "$0" "$@"' \
		"$PROGS/hot" pid$i $((300 * i)) 1 || fail "record of node$i failed"
	check_perf_file "$f"
	cat >"$f.json" <<EOF
{
  "job_id": "9", "step": "0", "host": "node$i", "rank": $((i - 1)), "local_ranks": 1, "launcher": "slurm",
  "status": "recorded", "mode": "ranks", "reason": "", "output": "/shared/$f", "shard_dir": "/tmp/x.shards",
  "merged": true, "samples": 1, "lost_samples": 0, "lost_records": 0, "loss_metric": 0.0, "mb_written": 0.1,
  "merge_seconds": 0.$i, "exit_status": 0, "stop_signal": "", "elapsed_seconds": 1.5,
  "ranks": [ {"rank": $((i - 1)), "local_rank": 0, "pid": $(cat pid$i), "host": "node$i", "exit_status": 0, "recorded": true} ]
}
EOF
done
# An older file's fields only, no .data: unrecorded, with its reason.
cat >job/perf.9.node4.data.json <<EOF
{"job_id": "9", "host": "node4", "rank": 3, "status": "unrecorded", "mode": "none",
 "reason": "perf_event_paranoid 3 forbids recording", "exit_status": 0, "stop_signal": "",
 "ranks": [{"rank": 3, "local_rank": 0, "pid": 4711, "exit_status": null}]}
EOF

"$SHARDREC" jobview job >text.out 2>text.err || { cat text.err; fail "jobview job failed"; }
cat text.out
[ ! -s text.err ] || { cat text.err; fail "jobview printed warnings"; }
"$SHARDREC" jobview --json job >json.out 2>json.err || { cat json.err; fail "jobview --json failed"; }
python3 -m json.tool json.out >/dev/null || fail "--json is not JSON"
# Parsed once more, flattened to "nodes[0].samples=1234" lines for the checks.
python3 - json.out >json.flat <<'EOF' || fail "--json is not JSON"
import json, sys
def walk(path, v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(path + "." + k if path else k, x)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk("%s[%d]" % (path, i), x)
    else:
        print("%s=%s" % (path, "null" if v is None else v))
walk("", json.load(open(sys.argv[1])))
EOF
# node_col NODE N: column N of NODE's row in the node table (the first block).
node_col() { awk -v n="$1" -v c="$2" 'NF == 0 { exit } $1 == n { print $c }' text.out; }
# rank_row RANK: node, rank, local, pid, samples, exit of RANK in the rank table.
rank_row() { awk -v r="$1" '/^node +rank +local/ { on = 1; next } on && $2 == r' text.out; }
# jget PATH: one value of the --json output, e.g. jget 'nodes[0].samples'.
jget() { awk -v k="$1=" 'index($0, k) == 1 { print substr($0, length(k) + 1) }' json.flat; }

# Nodes: samples and lost samples as perf counts them, text and JSON alike.
for i in 1 2 3; do
	f=job/perf.9.node$i.data
	want=$(perf_samples "$f")
	lost=$("$PERF" report --stdio -i "$f" 2>/dev/null | awk '/^# Total Lost Samples:/ && !n++ { print $5 }')
	got=$(node_col node$i 5)
	jsamples=$(jget "nodes[$((i - 1))].samples")
	jlost=$(jget "nodes[$((i - 1))].lost_samples")
	jpct=$(jget "nodes[$((i - 1))].lost_pct")
	echo "node$i: samples $got (json $jsamples, perf $want), lost $jlost (perf $lost), $jpct%"
	[ "$got" = "$want" ] && [ "$jsamples" = "$want" ] || fail "node$i: samples $got/$jsamples, perf $want"
	[ "$jlost" = "${lost:-0}" ] || fail "node$i: lost samples $jlost, perf's Total Lost Samples $lost"
	awk -v l="$jlost" -v s="$want" -v p="$jpct" 'BEGIN { e = l + s ? 100 * l / (l + s) : 0
		d = p - e; exit !(d < 1e-5 && d > -1e-5) }' || fail "node$i: lost_pct $jpct"
	[ "$(node_col node$i 4) $(node_col node$i 9)" = "recorded exit" ] ||
		fail "node$i: status or stop column"
done
[ "$(node_col total 3)" = \
	"$(($(perf_samples job/perf.9.node1.data) + $(perf_samples job/perf.9.node2.data) + \
	$(perf_samples job/perf.9.node3.data)))" ] || fail "total samples"
grep -qx 'node4: unrecorded: perf_event_paranoid 3 forbids recording' text.out ||
	fail "the unrecorded node's reason is missing"
[ "$(node_col node4 4) $(node_col node4 5)" = "unrecorded 0" ] || fail "node4's row"

# Symbols: each node's share of hot_loop is perf report's Overhead; the
# imbalances are max / mean of perf's own shares and periods.
[ "$(jget "symbols[0].symbol")" = hot_loop ] || fail "hot_loop is not the job's top symbol"
row=$(grep '^\[\.\] hot_loop ' text.out) || fail "no hot_loop row"
for i in 1 2 3; do
	f=job/perf.9.node$i.data
	perf_pct=$("$PERF" report --stdio -q -i "$f" --sort sym 2>/dev/null |
		awk '$2 == "[.]" && $3 == "hot_loop" { sub("%", "", $1); print $1 }')
	text_pct=$(echo "$row" | awk -v c=$((3 + i)) '{ print $c }')
	json_pct=$(jget "nodes[$((i - 1))].symbols[0].pct")
	echo "node$i hot_loop: perf $perf_pct%, jobview $text_pct% (json $json_pct)"
	awk -v a="$perf_pct" -v b="$text_pct" -v c="$json_pct" 'BEGIN {
		exit !(a - b <= 0.011 && b - a <= 0.011 && a - c <= 0.006 && c - a <= 0.006) }' ||
		fail "node$i: hot_loop share $text_pct / $json_pct, perf report says $perf_pct"
	# Exact period and total from perf: the line's period, the header's event count.
	"$PERF" report --stdio -i "$f" --sort sym -F period,sym 2>/dev/null |
		awk '/^# Event count/ { t = $5 } $3 == "hot_loop" { p = $1 } END { print p, t }'
done >periods.txt
cat periods.txt
imb=$(jget "symbols[0].imbalance")
load=$(jget "symbols[0].load_imbalance")
grep -v : periods.txt | awk -v imb="$imb" -v load="$load" '{ s = $1 / $2; sum += s; if (s > max) max = s
		psum += $1; if ($1 > pmax) pmax = $1; n++ }
	END { i = max / (sum / n); l = pmax / (psum / n)
		printf "imbalance %.6f (test %.6f), load %.6f (test %.6f)\n", imb, i, load, l
		exit !(n == 3 && imb > 1 && imb - i < 1e-5 && i - imb < 1e-5 && load - l < 1e-5 &&
		       l - load < 1e-5 && l > 1) }' || fail "hot_loop imbalance"
[ "$(echo "$row" | awk '{ print $7 }')" = "$(printf %.2f "$imb")" ] || fail "text imbalance"

# Ranks: each app's pid with its samples as perf script counts them.
for i in 1 2 3; do
	f=job/perf.9.node$i.data
	pid=$(cat pid$i)
	want=$("$PERF" script -F pid -i "$f" 2>/dev/null | awk -v p="$pid" '$1 == p' | wc -l)
	got=$(rank_row $((i - 1)) | awk '{ print $1, $4, $5 }')
	echo "rank $((i - 1)): $got (perf script: $want)"
	[ "$got" = "node$i $pid $want" ] || fail "rank $((i - 1)): '$got', want 'node$i $pid $want'"
	[ "$(jget "ranks[$((i - 1))].rank") $(jget "ranks[$((i - 1))].samples")" = "$((i - 1)) $want" ] ||
		fail "rank $((i - 1)): json samples"
done
[ "$(rank_row 3 | awk '{ print $1, $4, $5, $6 }')" = "node4 4711 - -" ] || fail "rank 3's row"

# The same job named file by file (.data and .json both: one node each).
"$SHARDREC" jobview job/perf.9.* >files.out 2>&1 || fail "jobview FILE... failed"
diff text.out files.out || fail "a directory and its file list differ"
"$SHARDREC" jobview --json job/ >json2.out || fail "jobview --json job/"
diff json.out json2.out || fail "--json of job and job/ differ"

# More than 8 nodes: the least and the most instead of a column each.
mkdir many
for i in $(seq 9); do cp job/perf.9.node$((i % 3 + 1)).data many/n$i.data; done
"$SHARDREC" jobview -j 2 --top 3 many >many.out || fail "jobview of 9 nodes"
grep -q '^symbol .*min % (node) .*max % (node) .*imbalance' many.out || { cat many.out; fail "9 nodes: no min/max"; }
[ "$(grep -c '^n[0-9] ' many.out)" = 9 ] || fail "9 nodes: not 9 rows"

# Bad input: one line naming the file, and an exit status.
expect_err() {
	local want=$1 pat=$2 rc
	shift 2
	set +e
	"$SHARDREC" jobview "$@" >bad.out 2>bad.err
	rc=$?
	set -e
	cat bad.err
	[ "$rc" = "$want" ] || fail "jobview $*: exit $rc, want $want"
	grep -q -- "$pat" bad.err || fail "jobview $*: no '$pat' in its error"
}
expect_err 2 'nothere.data: No such file or directory' nothere.data
[ "$(wc -l <bad.err)" = 1 ] || fail "a missing path: not one line"
mkdir empty
expect_err 2 'empty: no \*.data.json or \*.data file' empty
expect_err 2 'bad option' --nope job
expect_err 2 '--top takes a number' --top 0 job
expect_err 1 'cannot run /nonexistent/perf' --perf /nonexistent/perf job
mkdir bad
cp job/perf.9.node1.data bad/perf.9.a.data
echo '{"host": "a", "status": ' >bad/perf.9.a.data.json
head -c 3000 job/perf.9.node2.data >bad/perf.9.b.data
expect_err 0 'bad/perf.9.a.data.json: not JSON' bad
grep -q 'perf.9.b: unreadable: bad/perf.9.b.data' bad.err || fail "the cut perf.data is not named"
awk '$1 == "perf.9.b" { print $4 }' bad.out | grep -qx unreadable || fail "the cut perf.data is no unreadable row"
echo 'not a perf.data' >bad/x.data
expect_err 1 'no node could be read' bad/x.data
exit 0
