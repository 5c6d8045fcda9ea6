# The known hot function tops perf report; kernel symbols resolve with -a.
. "$(dirname "$0")/lib.sh"
need_perf_event
"$SHARDREC" record -q -o hot.data -- "$PROGS/hot" 500 || fail "record failed"
check_perf_file hot.data
"$PERF" report --stdio --sort sym -i hot.data 2>/dev/null >rep.txt
top=$(grep -v '^#' rep.txt | grep -m1 '%')
echo "top: $top"
echo "$top" | grep -q hot_loop || fail "hot_loop is not the top symbol"
pct=$(echo "$top" | awk '{ sub("%", "", $1); print int($1) }')
[ "$pct" -gt 50 ] || fail "hot_loop has only $pct% of samples"

# System-wide: kernel samples must resolve to kernel symbols, not raw addresses.
"$SHARDREC" record -q -a -o all.data -- "$PROGS/hot" 300 2 || fail "record -a failed"
check_perf_file all.data
"$PERF" report --stdio --sort dso,sym -i all.data 2>/dev/null | grep -v '^#' >krep.txt
grep -q '\[kernel.kallsyms\] *\[k\] [a-z_]' krep.txt || { head -20 krep.txt; fail "no resolved kernel symbol"; }
grep -q 'hot_loop' krep.txt || fail "hot_loop missing from -a recording"
