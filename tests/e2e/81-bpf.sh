# BPF programs, as perf 6.1's evsel__config sets up the tracking event:
# attr.ksymbol and attr.bpf_event on every target. A JITed program that runs
# and is unloaded while recording keeps its name: the file has its KSYMBOL
# and BPF_EVENT records, and perf report, run once the program is gone,
# resolves its samples to bpf_prog_<tag>_<name>, as in perf's own file
# of the same line. --no-bpf-event drops BPF_EVENT and keeps KSYMBOL. A
# program loaded before the recording is described at its start, as perf
# 6.1's perf_event__synthesize_bpf_events() does: the same records as perf's,
# and the same description in the header (BPF_PROG_INFO).
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(id -u)" = 0 ] || skip "loading a BPF program needs root"
rc=0
"$PROGS/bpfhot" 10 >/dev/null 2>bpfhot.err || rc=$?
[ "$rc" != 77 ] || skip "bpf() refused here: $(cat bpfhot.err)"
[ "$rc" = 0 ] || { cat bpfhot.err; fail "bpfhot exits $rc"; }
[ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" = 1 ] ||
	skip "BPF JIT off: interpreted programs have no symbols"

# Our program's own name: every copy of bpfhot has the same code, so the
# same tag, and another run of this test may have one loaded.
prog=srhot$$
prog=${prog:0:15}
sym="bpf_prog_[0-9a-f]+_$prog" # no {16}: mawk has no intervals

# program_samples FILE: samples perf report gives the program, by name.
program_samples() {
	"$PERF" report -i "$1" --stdio --sort sym -F sample,sym 2>/dev/null |
		awk -v re="$sym" '$0 ~ re { n += $1 } END { print n + 0 }'
}

# bpf_records FILE: "KSYMBOL-loads KSYMBOL-unloads BPF_EVENT-loads BPF_EVENT-unloads"
# of the program in FILE.
bpf_records() {
	"$PERF" script -i "$1" --show-bpf-events 2>/dev/null | awk -v re="$sym" '
		/PERF_RECORD_KSYMBOL/ && $0 ~ re {
			id_addr = $0; sub(/.*addr /, "", id_addr); sub(/ .*/, "", id_addr)
			if ($0 ~ /flags 0x1/) ku++; else { kl++; mine = 1 } }
		/PERF_RECORD_BPF_EVENT type 1,/ && mine { bl++ }
		/PERF_RECORD_BPF_EVENT type 2,/ && mine { bu++ }
		END { print kl + 0, ku + 0, bl + 0, bu + 0 }'
}

# prog_info FILE: the header's description of the program (BPF_PROG_INFO,
# perf report -I's "# bpf_prog_info ID: NAME addr A size S"). A program
# loaded while recording is there too: perf's side-band thread reads it
# as it loads, and so does ours.
prog_info() {
	perf_clean "report --header-only -I" report --header-only -I -i "$1"
	grep -E "^# bpf_prog_info [0-9]+: $sym addr 0x[0-9a-f]+ size [0-9]+$" "$TMP/perf.out" || true
}

# The same without what differs between two loads of the program: "NAME size S".
prog_shape() { prog_info "$1" | sed 's/^# bpf_prog_info [0-9]*: \([^ ]*\) addr [^ ]* /\1 /'; }

# -a, and the command alone: the tracking event carries both bits.
for target in "-a" ""; do
	name=bpf${target:+-a}
	# shellcheck disable=SC2086
	"$SHARDREC" record -q $target -e cpu-clock -F 999 -o $name.data -- \
		"$PROGS/bpfhot" -n $prog 1500 \
		>/dev/null 2>$name.err || { cat $name.err; fail "record ${target:-(command)} failed"; }
	check_perf_file $name.data
	"$PERF" evlist -v -i $name.data | grep -q 'ksymbol: 1, bpf_event: 1' ||
		fail "${target:-command}: the tracking event has no ksymbol and bpf_event"
	read -r kl ku bl bu < <(bpf_records $name.data)
	[ "$kl" -ge 1 ] && [ "$ku" -ge 1 ] ||
		fail "${target:-command}: KSYMBOL records of the program: $kl loads, $ku unloads"
	[ "$bl" -ge 1 ] && [ "$bu" -ge 1 ] ||
		fail "${target:-command}: BPF_EVENT records of the program: $bl loads, $bu unloads"
	n=$(program_samples $name.data)
	[ "$n" -gt 0 ] || fail "${target:-command}: no sample resolves to the program"
	[ "$(prog_info $name.data | wc -l)" = 1 ] ||
		fail "${target:-command}: the header describes the program loaded while recording $(prog_info $name.data | wc -l) times, want 1"
	echo "${target:-command}: KSYMBOL $kl+$ku, BPF_EVENT $bl+$bu, $n samples in the program, described in the header"
done

# perf's own file of the -a line names the program as ours does.
"$PERF" record -q -a -e cpu-clock -F 999 -o bpf.perf -- "$PROGS/bpfhot" -n $prog 1500 \
	>/dev/null 2>bpf.perr ||
	{ cat bpf.perr; fail "perf record failed"; }
n=$(program_samples bpf.perf)
[ "$n" -gt 0 ] || fail "perf's file: no sample resolves to the program (perf itself?)"
prog_shape bpf.perf >bpf.pshape
prog_shape bpf-a.data >bpf.shape
[ -s bpf.pshape ] || fail "perf's file: its header does not describe the program (perf itself?)"
diff bpf.pshape bpf.shape >&2 || fail "the header describes the program unlike perf's (<perf >ours)"
echo "perf -a: $n samples in the program, described as in ours: $(cat bpf.shape)"

# --no-bpf-event, as perf's: no BPF_EVENT, the KSYMBOLs stay.
"$SHARDREC" record -q -a --no-bpf-event -e cpu-clock -o nobpf.data -- \
	"$PROGS/bpfhot" -n $prog 300 \
	>/dev/null 2>nobpf.err || { cat nobpf.err; fail "record --no-bpf-event failed"; }
check_perf_file nobpf.data
read -r kl ku bl bu < <(bpf_records nobpf.data)
[ "$kl" -ge 1 ] && [ "$bl" = 0 ] && [ "$bu" = 0 ] ||
	fail "--no-bpf-event: KSYMBOL $kl+$ku, BPF_EVENT $bl+$bu; want KSYMBOL and no BPF_EVENT"
"$PERF" evlist -v -i nobpf.data | grep -q 'ksymbol: 1' || fail "--no-bpf-event: no ksymbol"
[ -z "$(prog_info nobpf.data)" ] || fail "--no-bpf-event: the header describes the program (perf's does not)"
! "$PERF" evlist -v -i nobpf.data | grep -q 'bpf_event' || fail "--no-bpf-event: bpf_event set"
echo "--no-bpf-event: KSYMBOL $kl+$ku, no BPF_EVENT"

# Beside another recording whose tracking event takes BPF records (perf's
# -a, on a shared node): the kernel makes the records it then gives ours
# longer by that recording's trailer, stale ring bytes at their end. The
# merge must take them, their times inside the recording; with -z too, where
# a compressed frame holding one must go out plain.
mkfifo bg.ctl bg.ack
"$PERF" record -q -a -e dummy --control fifo:bg.ctl,bg.ack -o bg.perf -- sleep 60 \
	>/dev/null 2>bg.err &
bg=$!
exec 8<>bg.ctl 9<>bg.ack
echo ping >&8
read -r -t 20 ack <&9 || { kill $bg; fail "perf -a beside: no answer to ping ($(cat bg.err))"; }
rc=0
for z in "" -z; do
	"$SHARDREC" record -q $z -e cpu-clock -F 999 -o side$z.data -- "$PROGS/bpfhot" -n $prog 500 \
		>/dev/null 2>side$z.err || { rc=$?; break; }
done
echo stop >&8
wait $bg || true
exec 8>&- 9>&-
[ "$rc" = 0 ] || { cat side*.err; fail "record beside perf -a failed ($rc)"; }
for z in "" -z; do
	check_perf_file side$z.data
	read -r kl ku bl bu < <(bpf_records side$z.data)
	[ "$kl" -ge 1 ] && [ "$ku" -ge 1 ] && [ "$bl" -ge 1 ] && [ "$bu" -ge 1 ] ||
		fail "beside perf -a${z:+, $z}: KSYMBOL $kl+$ku, BPF_EVENT $bl+$bu"
	"$PERF" script -i side$z.data --show-bpf-events -F time,event 2>/dev/null | awk -v re="$sym" '
		/PERF_RECORD/ { if ($0 ~ re || /BPF_EVENT/) t[++n] = $1 + 0; next }
		{ s = $1 + 0; if (!first) first = s; last = s }
		END { for (i = 1; i <= n; i++) if (t[i] < first - 1 || t[i] > last + 1) bad++
		      exit n == 0 || bad > 0 }' ||
		fail "beside perf -a${z:+, $z}: the program's records are stamped outside the recording"
	echo "beside perf -a${z:+, $z}: KSYMBOL $kl+$ku, BPF_EVENT $bl+$bu, stamped within the samples"
done

# synthesized FILE: the time-0 KSYMBOL and BPF_EVENT lines of the program
# (perf script prints the synthesized ones as swapper's, at 0.000000).
synthesized() {
	"$PERF" script -i "$1" --show-bpf-events 2>/dev/null | awk -v re="$sym" '
		$4 == "0.000000:" && /PERF_RECORD_KSYMBOL/ && $0 ~ re { print; tid = $2; next }
		$4 == "0.000000:" && /PERF_RECORD_BPF_EVENT type 1,/ && $2 == tid { print; tid = "" }'
}

# like_perf WHAT N PERF-LINES OUR-LINES: perf's file has N lines of WHAT,
# ours the same ones.
like_perf() {
	[ "$(wc -l <"$3")" = "$2" ] || fail "$name: perf's file has $(wc -l <"$3") $1, want $2"
	diff "$3" "$4" >&2 || fail "$name: $1 differ from perf's (<perf >ours)"
}

# A program loaded before the recording and running through it.
rm -f ready
# (a cap of 60 s: it is stopped, and its program unloaded, before perf reads the files)
"$PROGS/bpfhot" -r ready -n $prog 60000 >/dev/null 2>bpfhot.err &
bp=$!
trap 'kill $bp 2>/dev/null || true; cleanup' EXIT
wait_for ready
for opt in "" --no-bpf-event; do
	name=pre${opt:+-nb}
	# shellcheck disable=SC2086
	"$SHARDREC" record -q -a $opt -e cpu-clock -F 999 -o $name.data -- sleep 0.5 >/dev/null \
		2>$name.err || { cat $name.err; fail "record ${opt:-(preloaded)} failed"; }
	# shellcheck disable=SC2086
	"$PERF" record -q -a $opt -e cpu-clock -F 999 -o $name.perf -- sleep 0.5 >/dev/null \
		2>$name.perr || { cat $name.perr; fail "perf record ${opt:-(preloaded)} failed"; }
done
kill $bp
wait $bp 2>/dev/null || true
for name in pre pre-nb; do
	check_perf_file $name.data
	synthesized $name.data >$name.syn
	synthesized $name.perf >$name.psyn
	like_perf "synthesized records of the program" "$([ $name = pre ] && echo 2 || echo 1)" \
		$name.psyn $name.syn
	# perf's env keeps the program's info only with BPF_EVENT records.
	prog_info $name.perf >$name.ppi
	prog_info $name.data >$name.pi
	like_perf "descriptions of the program in the header" "$([ $name = pre ] && echo 1 || echo 0)" \
		$name.ppi $name.pi
	n=$(program_samples $name.data)
	[ "$n" -gt 0 ] || fail "$name: no sample resolves to the program loaded before the recording"
	echo "$name: $(wc -l <$name.syn) synthesized records as perf's, $(wc -l <$name.pi) header description, $n samples in the program"
done
echo "PASS"
