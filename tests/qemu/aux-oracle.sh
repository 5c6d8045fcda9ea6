#!/usr/bin/env bash
# An Intel PT recording's events against perf 6.1's, with perf itself as
# the oracle. No machine here has Intel PT, and perf applies its Intel PT
# recording options only on a CPU that says GenuineIntel: so a small TCG
# guest that does (-cpu max,vendor=GenuineIntel), a fake intel_pt PMU
# bind-mounted into its sysfs (tests/data/intel_pt-pmu.txt, type 8), and
# attrshim.so preloaded into both recorders, which logs every
# perf_event_open's attr and opens a dummy in place of the fake PMU's
# events (their AUX areas plain memory), so each goes on to open all its
# events and write its file. For each command line (cases below):
#
# - both record (exit 0);
# - the data rings and AUX areas have perf's sizes (attrshim logs the
#   mmaps): privileged, and as a plain user (the user case: uid 65534,
#   perf_event_paranoid 2), where perf halves the data ring;
# - CPU-wide (-a, -C): shardrec opens the events perf opens, in perf's
#   order, attr for attr (CPU 0's opens from the AUX event on, as many as
#   the file's events), and `perf evlist` names the same events. Allowed:
#   watermark and wakeup_events (shardrec wakes its writers at a quarter
#   ring, a design choice: doc/design.md), the pid;
# - a command (the task cases): the AUX event's attr is perf's, and the
#   tracking dummy:u has the switch records (perf opens its switch and
#   text_poke dummies on every CPU instead: sample_config.c says why not);
# - AUXTRACE_INFO reads the same to perf's decoder (perf report -D): the
#   time conversion, the tsc/mtc bits, have_sched_switch, snapshot mode;
# - shardrec's file passes perf report --stats and perf script without a
#   warning;
# - tests/unit/test_clock runs (the perf clock in user space, which this
#   machine's kvm-clock does not offer: the guest's TSC does) and passes.
#
# Env: SHARDREC, ATTRSHIM, TEST_CLOCK (make check-qemu sets them), KERNEL,
# QEMU, QEMU_TIMEOUT, QEMU_BOOT_TIMEOUT (guest-lib.sh). Exit 0 pass, 77
# skip (no qemu, kernel or perf), else fail.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/guest-lib.sh"

guest_need
PERF_BIN=$(guest_perf_elf "${PERF:-perf}") || skip "$PERF_BIN"
for f in "$ATTRSHIM" "$TEST_CLOCK"; do
	[ -r "$f" ] || fail "$f missing: run make check-qemu"
done
QEMU_BOOT_TIMEOUT=${QEMU_BOOT_TIMEOUT:-180}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-600}

# name|record arguments: kernel and user traced (a text_poke dummy), user
# space only on a CPU list, snapshot mode, no timestamps (no switch
# records), a command, a command recorded by a plain user. About 10 s
# each in the guest.
cat >"$TMP/cases" <<'EOF'
a|-e intel_pt// -a
uc|-e intel_pt//u -C 0,1
S|-e intel_pt// -S -a
notsc|-e intel_pt/tsc=0/u -a
w|-e intel_pt//
user|-e intel_pt//u
EOF

root=$TMP/root
guest_root "$root"
guest_add_bins "$root" "$SHARDREC" "$PERF_BIN" "$ATTRSHIM" "$TEST_CLOCK"
[ "${PERF_BIN##*/}" = perf ] || mv "$root/bin/${PERF_BIN##*/}" "$root/bin/perf"
cp "$here/../data/intel_pt-pmu.txt" "$TMP/cases" "$root/"
{
	guest_init_head
	cat <<'EOF'
# The fake PMU beside the real ones, over the sysfs directory perf and
# shardrec list PMUs from.
mkdir -p /tmp/devs /tmp/out /tmp/w
for e in /sys/bus/event_source/devices/*; do ln -s "$(readlink -f "$e")" /tmp/devs/; done
grep -v '^#' /intel_pt-pmu.txt | while read -r f v; do
	mkdir -p "/tmp/devs/intel_pt/$(dirname "$f")"
	echo "$v" >"/tmp/devs/intel_pt/$f"
done
mount -o bind /tmp/devs /sys/bus/event_source/devices
# Debian's kernel says 3 (no perf_event_open for users); the user case
# needs upstream's default.
echo 2 >/proc/sys/kernel/perf_event_paranoid
chmod 1777 /tmp/w /tmp/out
echo "GUEST: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
test_clock >/tmp/out/clock.txt 2>&1
echo "GUEST: test_clock exit $?"
cd /tmp/w
while IFS='|' read -r name args; do
	# the user case: a plain user's files, which perf reads as root with -f
	uid= force=
	[ "$name" = user ] && uid=65534 force=-f
	for tool in perf shardrec; do
		rm -rf /tmp/w/*
		ATTRSHIM_UID=$uid ATTRSHIM_OUT=/tmp/out/$name.$tool.attrs LD_PRELOAD=/bin/attrshim.so \
			$tool record $args -o $tool.data -- true >/tmp/out/$name.$tool.rec 2>&1
		echo "GUEST: $name $tool record exit $?"
		perf evlist -v $force -i $tool.data >/tmp/out/$name.$tool.evlist 2>&1
		# AUXTRACE_INFO as perf's decoder reads it (intel_pt_print_info)
		perf report -D $force -i $tool.data 2>/dev/null | sed -n '/AUXTRACE_INFO/,/^$/p' \
			>/tmp/out/$name.$tool.info
	done
	perf report --stats $force -i shardrec.data >/tmp/out/$name.report 2>&1
	echo "GUEST: $name report exit $?"
	perf script $force -i shardrec.data >/dev/null 2>/tmp/out/$name.script
	echo "GUEST: $name script exit $?"
done </cases
EOF
	guest_init_ship '*'
} >"$root/init"
GUEST_INITRD=$TMP/initramfs.gz
guest_pack "$root" "$GUEST_INITRD"

GUEST_DIR=$TMP
start=$(date +%s)
guest_boot -m 1024M -smp 2 -cpu max,vendor=GenuineIntel
rc=$GUEST_RC
tr -d '\r' <"$TMP/console" | sed -n 's/^GUEST: //p' >"$TMP/guest"
cat "$TMP/guest"
echo "qemu: exit $rc after $(($(date +%s) - start))s"
[ "$rc" = 0 ] || { tail -n 40 "$TMP/console"; fail "qemu failed or timed out"; }
mkdir "$TMP/out"
guest_unship_serial "$TMP/out" || fail "nothing came back on the serial port"
grep -qx "test_clock exit 0" "$TMP/guest" || { cat "$TMP/out/clock.txt"; fail "test_clock failed in the guest"; }
if grep -qx "clocksource tsc" "$TMP/guest"; then
	grep -q "PASSED  \] 1 test" "$TMP/out/clock.txt" ||
		{ cat "$TMP/out/clock.txt"; fail "test_clock did not run on a TSC clocksource"; }
fi
python3 "$here/aux_oracle.py" "$TMP/cases" "$TMP/guest" "$TMP/out" || fail "shardrec's events are not perf's"
