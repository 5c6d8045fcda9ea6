# Another perf.data reader than perf: the linux-perf-data crate (the parser
# of samply, written independently of perf), from Debian's packaged crates,
# built offline. It reads the header, attrs, features and every record of
# shardrec's files; each must parse, sample counts must be perf's, and time
# must never go backwards in the order its round-sorter delivers. Version
# 0.6 does not decode PERF_RECORD_COMPRESSED: for -z only the framing and
# header are checked. Nor does it read perf's pipe format (its parse_file
# seeks to the file header's sections; pipe support came in later
# versions): `record -o -` streams are checked by perf alone (66-pipe).
src=$(cd "$(dirname "$0")/../lpd" && pwd)
. "$(dirname "$0")/lib.sh"
need_perf_event
reg=/usr/share/cargo/registry
command -v cargo >/dev/null || skip "cargo not installed"
[ -d "$reg/linux-perf-data-0.6.0" ] || skip "librust-linux-perf-data-dev not installed"
out=$(dirname "$PROGS")/lpd
# cargo takes its offline source replacement from tests/lpd/.cargo/: run it there.
(cd "$src" && cargo build -q --release --target-dir "$out") >build.log 2>&1 ||
	{ cat build.log; fail "cannot build tests/lpd"; }
L=$out/release/lpd-check
M=$PROGS/matrix

# lpd NAME [compressed]: NAME.data must parse; its samples must be perf's.
lpd() {
	"$L" "$1.data" >"$1.lpd" 2>"$1.lerr" || { cat "$1.lerr"; fail "$1: linux-perf-data: parse error"; }
	[ ! -s "$1.lerr" ] || { cat "$1.lerr"; fail "$1: linux-perf-data printed errors"; }
	grep -q "^timestamps backwards: 0$" "$1.lpd" || { cat "$1.lpd"; fail "$1: time goes backwards"; }
	[ "${2:-}" = compressed ] && return 0
	local got want
	got=$(awk '/^samples / { n += $NF } END { print n + 0 }' "$1.lpd")
	want=$(perf_samples "$1.data")
	echo "$1: linux-perf-data $got samples, perf $want"
	[ "$got" = "$want" ] && [ "$got" -gt 0 ] || { cat "$1.lpd"; fail "$1: sample counts differ"; }
}

rec() {
	local name=$1
	shift
	"$SHARDREC" record -q -o "$name.data" "$@" >/dev/null 2>"$name.err" ||
		{ cat "$name.err"; fail "record $* failed"; }
}

rec plain -- "$M" -s 0.2
lpd plain
rec wide -a -e cs -c 1 --threads=cpu -- "$PERF" bench sched messaging -g 2 -l 50
lpd wide
rec dwarf --call-graph dwarf,1024 --user-regs=IP,SP,BP -- "$M" -s 0.2
lpd dwarf
rec tp -a -e sched:sched_switch -R -- "$M" -s 0.2
lpd tp
rec group -e '{cpu-clock,task-clock}' --switch-events -- "$M" -s 0.2
lpd group
grep -q "^records SWITCH: [1-9]" group.lpd || fail "group: no switch records"
rec ow -a --overwrite -m 8 -- "$M" -s 0.3
lpd ow
rec z -z -- "$M" -s 0.2
lpd z compressed
grep -q "^features: .*HOSTNAME" plain.lpd || fail "features not read"

# A stalled CPU: SHARDREC_FAULT holds CPU 0's ring unread for 1 s from its
# first data (recorder/capture/fault.h), as a descheduled vCPU's ring is:
# its records reach the shard after passes stamped later than them, past
# the merge's 10 ms window. One shard, then one per CPU. They must land in
# time order for perf (no "out of order events") and for this reader; the
# note says the merge saw them (else the hold tested nothing). On 5e0b1d8
# 3 of 4 such files had 180-1651 records out of order.
for t in one cpu; do
	opt=; [ $t = cpu ] && opt=--threads=cpu
	SHARDREC_FAULT=ring:0:hold:1000 "$SHARDREC" record $opt -a -e cs -c 1 -m 1024 \
		-o "held-$t.data" -- "$PERF" bench sched messaging -g 2 -l 1500 >/dev/null \
		2>"held-$t.err" || { cat "held-$t.err"; fail "held-$t: record failed"; }
	grep -q "published records up to .* in order" "held-$t.err" ||
		{ cat "held-$t.err"; fail "held-$t: no late records seen: the hold did nothing"; }
	! grep -q "out of order" "held-$t.err" || { cat "held-$t.err"; fail "held-$t: out of order"; }
	check_perf_file "held-$t.data"
	"$PERF" report --stdio -i "held-$t.data" >/dev/null 2>"held-$t.rep"
	! grep -i "out of order" "held-$t.rep" || fail "held-$t: perf report: out of order events"
	lpd "held-$t"
done
