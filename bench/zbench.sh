#!/usr/bin/env bash
# Compression: perf record -z vs shardrec -z at the same levels, same run,
# alternating tools. Reports the ratio each tool prints (record bytes in /
# compressed bytes out) and recorder CPU seconds per MB of input, medians.
# Env: SHARDREC, REPEATS (3), LEVELS ("1 3"), OUT (bench/results).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDREC=${SHARDREC:-$here/../build/shardrec}
REPEATS=${REPEATS:-3}
LEVELS=${LEVELS:-1 3}
OUT=${OUT:-$here/results}
work=$(mktemp -d /tmp/zbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
csv=$work/z.csv
workload() { perf bench sched messaging -g 10 -l 1000 >/dev/null; }

# run TOOL LEVEL: a system-wide recorder alone under GNU time (so its CPU
# excludes the workload), the workload beside it, SIGINT to stop; appends
# tool,level,cpu,in_mb,out_mb,ratio
run() {
	local tool=$1 lvl=$2 f=$work/z.data t=$work/time.txt log=$work/rec.log pid
	rm -rf "$f" "$f".*
	if [ "$tool" = perf ]; then
		/usr/bin/time -o "$t" -f "%U %S" perf record -a -e cs -c 1 -m 128 \
			--compression-level="$lvl" -o "$f" 2>"$log" &
	else
		/usr/bin/time -o "$t" -f "%U %S" "$SHARDREC" record -a -e cs -c 1 -m 128 \
			--compression-level="$lvl" -o "$f" 2>"$log" &
	fi
	pid=$!
	sleep 1
	workload
	kill -INT "$(pgrep -P "$pid")"
	wait "$pid" || true
	if [ "$tool" = perf ]; then
		in_mb=$(sed -n 's/.*original \([0-9.]*\) MB.*/\1/p' "$log")
	else
		in_mb=$(sed -n 's/.*Compressed \([0-9.]*\) MB of ring data.*/\1/p' "$log")
	fi
	ratio=$(sed -n 's/.*ratio is \([0-9.]*\).*/\1/p' "$log")
	out_mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.3f", b / 1e6 }')
	echo "$tool,$lvl,$(tail -n 1 "$t" | awk '{ print $1 + $2 }'),${in_mb:-0},$out_mb,${ratio:-0}" >>"$csv"
}

for rep in $(seq "$REPEATS"); do
	for lvl in $LEVELS; do
		if [ $((rep % 2)) = 1 ]; then run perf "$lvl"; run shardrec "$lvl"; else run shardrec "$lvl"; run perf "$lvl"; fi
	done
done
python3 - "$csv" "$OUT/compress.md" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
out = ["# -z: shardrec vs perf record, same run", "",
       "System-wide `-e cs -c 1 -m 128` over `perf bench sched messaging -g 10 -l 1000` (recorder started 1 s before, stopped with SIGINT after; its CPU measured alone), medians.",
       "ratio = the tool's own figure (record bytes in / compressed bytes out, as perf prints it); output MB = whole file; CPU s/MB = recorder user+sys per input MB (shardrec includes its merge).", "",
       "| level | tool | input MB | output MB | ratio | CPU s | CPU s/MB |", "|---:|---|---:|---:|---:|---:|---:|"]
for lvl in sorted({r[1] for r in rows}, key=int):
    for tool in ("perf", "shardrec"):
        rs = [r for r in rows if r[0] == tool and r[1] == lvl]
        cpu = statistics.median(float(r[2]) for r in rs)
        inp = statistics.median(float(r[3]) for r in rs)
        outp = statistics.median(float(r[4]) for r in rs)
        ratio = statistics.median(float(r[5]) for r in rs)
        cpumb = statistics.median(float(r[2]) / float(r[3]) for r in rs if float(r[3]))
        out.append(f"| {lvl} | {tool} | {inp:.2f} | {outp:.3f} | {ratio:.2f} | {cpu:.2f} | {cpumb:.4f} |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
