#!/usr/bin/env bash
# Records in a qemu guest with two NUMA nodes (CPUs 0-1 on node 0, 2-3 on
# node 1) and checks that placement held: one writer per node, each with its
# buffers and its rings' pages on its own node (the -v lines). The guest's
# perf.data comes back base64 on a second serial port and the host's perf
# reads it.
#
# Guest: a Debian kernel (/boot/vmlinuz-*, or KERNEL=...) booting an
# initramfs of busybox-static, shardrec, the hot workload and their shared
# libraries (copied by ldd: Debian has no static libudev for a static hwloc).
# TCG emulation unless QEMU_ACCEL=kvm. Exit 0 pass, 77 skip, else fail.
#
# Env: SHARDREC, PROGS (as for tests/run-e2e.sh), KERNEL, QEMU, QEMU_ACCEL,
# QEMU_TIMEOUT (seconds), QEMU_APPEND (kernel arguments instead of "quiet"),
# QEMU_CONSOLE (file to keep the guest's console in).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"

QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || skip "$QEMU not installed (apt-get install qemu-system-x86)"
BUSYBOX=$(command -v busybox || true)
# ldd fails on a static binary: that is the one the initramfs can run alone.
[ -n "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	skip "no static busybox (apt-get install busybox-static)"
command -v cpio >/dev/null || skip "cpio not installed"
KERNEL=${KERNEL:-$(ls -v /boot/vmlinuz-* 2>/dev/null | tail -n 1)}
[ -r "$KERNEL" ] || skip "no readable kernel in /boot (apt-get install linux-image-cloud-amd64)"
start=$(date +%s)

# ---- initramfs ----
root=$TMP/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,out}
cp "$BUSYBOX" "$root/bin/busybox"
cp "$SHARDREC" "$root/bin/shardrec"
cp "$PROGS/hot" "$root/bin/hot"
# Each binary's shared libraries and loader, at the paths ldd names.
for lib in $( (ldd "$SHARDREC"; ldd "$PROGS/hot") | awk '$NF ~ /^\(/ && $(NF-1) ~ /^\// { print $(NF-1) }' | sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
echo "GUEST: nodes $(cat /sys/devices/system/node/online), cpus $(cat /sys/devices/system/cpu/online)"
for n in /sys/devices/system/node/node*; do echo "GUEST: ${n##*/} cpus $(cat $n/cpulist)"; done
cd /tmp
shardrec topology 2>&1 | sed 's/^/GUEST: /'
echo "GUEST: booted in $(cut -d' ' -f1 /proc/uptime) s"
# User space only: the host has no kallsyms of the guest kernel to resolve with.
shardrec record -v -a -e cpu-clock:u -o /tmp/perf.data -- /bin/hot 1000 4 >rec.out 2>rec.err
echo "GUEST: record exit $? at $(cut -d' ' -f1 /proc/uptime) s"
sed 's/^/GUEST: /' rec.err
base64 /tmp/perf.data >/dev/ttyS1
echo "GUEST: perf.data $(wc -c </tmp/perf.data) bytes sent"
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$TMP/initramfs.gz"

# ---- boot ----
# TCG by default: nested KVM hangs or asserts on some hosts (MSR 0x10a).
accel=(-accel tcg -cpu max)
[ "${QEMU_ACCEL:-tcg}" = kvm ] && accel=(-accel kvm -cpu host,-arch-capabilities)
echo "qemu: ${accel[*]}, kernel $KERNEL"
timeout "${QEMU_TIMEOUT:-900}" "$QEMU" "${accel[@]}" -m 2G -smp 4 \
	-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G \
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
	-kernel "$KERNEL" -initrd "$TMP/initramfs.gz" \
	-append "console=ttyS0 ${QEMU_APPEND:-quiet} panic=-1" -no-reboot -display none -monitor none \
	-serial stdio -serial "file:$TMP/ttyS1" </dev/null >"$TMP/console" 2>&1 && rc=0 || rc=$?
secs=$(( $(date +%s) - start ))
grep '^GUEST: ' "$TMP/console" | tr -d '\r'
[ -z "${QEMU_CONSOLE:-}" ] || cp "$TMP/console" "$QEMU_CONSOLE"
echo "qemu: exit $rc after ${secs}s"
[ "$rc" = 0 ] || { tail -n 40 "$TMP/console"; fail "qemu failed or timed out"; }

# ---- checks ----
tr -d '\r' <"$TMP/console" >"$TMP/guest"
grep -q '^GUEST: nodes 0-1' "$TMP/guest" || fail "the guest does not see 2 NUMA nodes"
grep -q '^GUEST: record exit 0' "$TMP/guest" || fail "shardrec record failed in the guest"
[ "$(grep -c '^GUEST: shardrec: writer ' "$TMP/guest")" = 2 ] || fail "not 2 writers"
for n in 0 1; do
	cpus=$([ $n = 0 ] && echo 0-1 || echo 2-3)
	grep -Eq "^GUEST: shardrec: writer $n: node $n, cpus $cpus, .*buffers on node $n, ring pages on node $n$" \
		"$TMP/guest" || fail "writer $n: buffers or ring pages not on node $n"
done
tr -d '\r' <"$TMP/ttyS1" | base64 -d >"$TMP/perf.data" || fail "perf.data did not survive the serial port"
check_perf_file "$TMP/perf.data"
echo "host perf: $(perf_samples "$TMP/perf.data") samples"
exit 0
