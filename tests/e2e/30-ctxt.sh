# Context switches at period 1, system-wide: samples + lost samples equal the
# /proc/stat ctxt delta measured around the recording, within 2%.
. "$(dirname "$0")/lib.sh"
need_perf_event
for threads in numa cpu; do
	c0=$(ctxt)
	"$SHARDREC" record -a -e cs -c 1 --threads=$threads -o cs.data -- \
		"$PERF" bench sched messaging -g 4 -l 300 >/dev/null 2>rec.err || { cat rec.err; fail "record failed"; }
	c1=$(ctxt)
	check_perf_file cs.data
	got=$(perf_samples cs.data)
	lost=$(sed -n 's/.*, \([0-9]*\) lost samples.*/\1/p' rec.err)
	truth=$((c1 - c0))
	echo "threads=$threads: samples $got + lost $lost vs ctxt delta $truth"
	awk -v g="$got" -v l="${lost:-0}" -v t="$truth" 'BEGIN {
		d = (g + l - t) / t; if (d < 0) d = -d; printf "deviation %.2f%%\n", 100 * d; exit d > 0.02 }' ||
		fail "captured context switches deviate more than 2% from /proc/stat"
	rm -f cs.data cs.data.old
done
