# AUX area PMUs (Intel PT, CoreSight ETM, ARM SPE): where the PMU is absent,
# asking for it fails before anything is opened, with one line naming it.
# The AUX data path itself (AUX ring, writer, merge, HEADER_AUXTRACE, perf -D
# as oracle) runs on simulated rings in tests/unit/test_aux*.c: no machine
# here has an AUX PMU.
. "$(dirname "$0")/lib.sh"

devices=/sys/bus/event_source/devices
checked=0
for ev in intel_pt// intel_pt/tsc=1,noretcomp=1/u cs_etm// arm_spe_0//; do
	pmu=${ev%%/*}
	[ -e "$devices/$pmu" ] && continue
	set +e
	"$SHARDREC" record -e "$ev" -o x.data -- true >out.txt 2>err.txt
	rc=$?
	set -e
	echo "shardrec record -e $ev: rc $rc: $(cat err.txt)"
	[ "$rc" = 1 ] || fail "$ev: exit $rc, want 1"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$ev: error is not one line"; }
	grep -q "AUX area PMU '$pmu' not present" err.txt || fail "$ev: error does not name $pmu"
	[ ! -e x.data ] && [ ! -e x.data.shards ] || fail "$ev: left output behind"
	checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || skip "every AUX PMU tried exists here: nothing to check"
