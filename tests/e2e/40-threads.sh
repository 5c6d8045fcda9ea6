# Every --threads policy records and perf reads the result; -v shows the writers.
. "$(dirname "$0")/lib.sh"
need_perf_event
ncpu=$(nproc)
# auto (the default) gives as many writers as its plan says: 1 for <= 8 CPUs.
auto=$("$SHARDREC" topology | sed -n 's/^writers: //p')
for spec in auto numa package l3 cache core cpu 1 2 0/0:1/1; do
	[ "$spec" = 0/0:1/1 ] && [ "$ncpu" -lt 2 ] && continue
	"$SHARDREC" record -v -a --threads=$spec -o t.data -- "$PROGS/hot" 200 2 2>rec.err || { cat rec.err; fail "--threads=$spec failed"; }
	writers=$(grep -c '^shardrec: writer ' rec.err)
	echo "--threads=$spec: $writers writers"
	# -v: where each writer's buffers and ring pages actually live
	[ "$(grep -Ec '^shardrec: writer .*buffers on node [0-9]+, ring pages on node' rec.err)" = "$writers" ] ||
		{ cat rec.err; fail "$spec: -v does not show the writers' nodes"; }
	case $spec in cpu) [ "$writers" = "$ncpu" ] || fail "cpu: $writers writers for $ncpu CPUs" ;;
	1|numa) [ "$writers" = 1 ] || fail "$spec: $writers writers" ;;
	auto) [ "$writers" = "$auto" ] || fail "auto: $writers writers, plan says $auto" ;; esac
	check_perf_file t.data
	rm -rf t.data t.data.old
done
# -C subset: only CPU 0 is recorded
"$SHARDREC" record -q -C 0 --sample-cpu -o c.data -- "$PROGS/hot" 200 2 || fail "-C 0 failed"
check_perf_file c.data
"$PERF" script -F cpu -i c.data 2>/dev/null | sort -u >cpus.txt
[ "$(tr -d ' []' <cpus.txt)" = 000 ] || { cat cpus.txt; fail "-C 0 recorded other CPUs"; }
