# shellcheck shell=bash
# Shared by tests/qemu/run.sh (make check-qemu) and bench/guest.sh (make
# bench-guest): a Debian kernel booted under qemu (TCG unless QEMU_ACCEL=kvm)
# on a busybox initramfs that holds the binaries a guest needs and their
# shared libraries, and the two ways back out for files: base64 on a second
# serial port (small files) or a tar stream on a virtio disk (large ones).
# Source it (bash); the caller defines fail MSG and skip MSG, and sets
# GUEST_DIR to a scratch directory before guest_boot.
#
#   guest_need               QEMU, BUSYBOX, KERNEL, or skip
#   guest_root DIR           DIR: an initramfs tree with busybox
#   guest_add_bins DIR F...  F... into DIR/bin, their libraries where ldd finds them
#   guest_add_modules DIR M...  kernel modules M... of KERNEL and what they
#                            depend on, DIR/modules.load their load order; 1 if absent
#   guest_init_head          prints the start of an /init: busybox, mounts,
#                            modules, a "GUEST: booted in S s" line
#   guest_init_ship FILES    prints the end of an /init: FILES of /tmp/out
#                            sent for guest_unship_serial, then power off
#   guest_perf_elf [PERF]    the perf ELF to copy in (Debian's perf may be a script)
#   guest_pack DIR OUT       DIR as a gzip'd newc cpio (an initrd; several
#                            may be concatenated into one), DIR/init executable
#   guest_boot ARGS...       boots GUEST_INITRD with qemu machine ARGS, the
#                            console in GUEST_DIR/console, the second serial
#                            port in GUEST_DIR/ttyS1; GUEST_RC its exit status
#   guest_unship_serial DIR  the tar.gz the guest sent on ttyS1, into DIR
#   guest_unship_disk IMG BYTES DIR  the first BYTES of the ship disk IMG (tar
#                            archives one after another) into DIR
#
# Env: KERNEL (default: the newest /boot/vmlinuz-*), QEMU, QEMU_ACCEL (tcg:
# a host thread per vCPU, tcg-single: one for all, kvm), QEMU_TIMEOUT
# (seconds per boot, default 600), QEMU_BOOT_TIMEOUT (seconds until /init's
# first line, default none), QEMU_APPEND (kernel arguments instead of
# "quiet"). GUEST_APPEND: more kernel arguments from the caller;
# GUEST_FOLLOW: a function called as FUNC CONSOLE QEMU_PID while qemu runs
# (it returns when it wants; qemu is waited for after).

QEMU=${QEMU:-qemu-system-x86_64}

guest_need() {
	command -v "$QEMU" >/dev/null || skip "$QEMU not installed (apt-get install qemu-system-x86)"
	BUSYBOX=$(command -v busybox || true)
	# ldd fails on a static binary: that is the one the initramfs can run alone.
	[ -n "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
		skip "no static busybox (apt-get install busybox-static)"
	command -v cpio >/dev/null || skip "cpio not installed"
	KERNEL=${KERNEL:-$(ls -v /boot/vmlinuz-* 2>/dev/null | tail -n 1)}
	[ -r "$KERNEL" ] || skip "no readable kernel in /boot (apt-get install linux-image-cloud-amd64)"
}

guest_root() {
	mkdir -p "$1"/{bin,dev,proc,sys,tmp,lib/modules}
	cp "$BUSYBOX" "$1/bin/busybox"
}

# Each binary's shared libraries and loader, at the paths ldd names (Debian
# ships no static libudev, which a static hwloc would need).
guest_add_bins() {
	local root=$1 lib
	shift
	cp "$@" "$root/bin/"
	for lib in $(for b in "$@"; do ldd "$b"; done | awk '$NF ~ /^\(/ && $(NF-1) ~ /^\// { print $(NF-1) }' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# The modules directory of KERNEL: /boot/vmlinuz-VERSION's /lib/modules/VERSION.
guest_modules_dir() {
	local v=${KERNEL##*/vmlinuz-}
	[ "$v" != "$KERNEL" ] && [ -r "/lib/modules/$v/modules.dep" ] && echo "/lib/modules/$v"
}

guest_add_modules() {
	local root=$1 dir m dep
	shift
	dir=$(guest_modules_dir) || return 1
	: >"$root/modules.load"
	for m in "$@"; do
		# modules.dep: "kernel/x/m.ko: deps...", each dep's own deps listed too,
		# in the order modprobe removes them: load them last to first.
		dep=$(grep -E "(^|/)$m\.ko(\.[a-z]+)?:" "$dir/modules.dep") || return 1
		for f in $(echo "${dep#*:}" | tr ' ' '\n' | tac) "${dep%%:*}"; do
			[ -n "$f" ] || continue
			case $f in *.ko) ;; *) return 1 ;; esac # compressed: busybox insmod can't
			grep -qx "/lib/modules/${f##*/}" "$root/modules.load" && continue
			cp "$dir/$f" "$root/lib/modules/" || return 1
			echo "/lib/modules/${f##*/}" >>"$root/modules.load"
		done
	done
}

guest_init_head() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
[ -r /modules.load ] && for m in $(cat /modules.load); do insmod $m || echo "GUEST: insmod $m failed"; done
echo "GUEST: booted in $(cut -d' ' -f1 /proc/uptime) s"
EOF
}

# FILES (globs, relative to /tmp/out) as a tar.gz in base64 on the
# second serial port, their count and bytes on the console, power off.
guest_init_ship() {
	cat <<EOF
cd /tmp/out
tar cf - $* | gzip -1 | base64 >/dev/ttyS1
echo "GUEST: sent \$(ls $* | wc -l) files, \$(cat $* | wc -c) bytes at \$(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
EOF
}

# The ELF of perf command $1 (default perf), to copy into a guest: Debian's
# /usr/bin/perf may be a wrapper script that execs perf_<version>
# (linux-perf-<version>). Prints why not and returns 1 if there is none.
guest_perf_elf() {
	local p
	p=$(command -v "${1:-perf}") || { echo "perf not found (apt-get install linux-perf)"; return 1; }
	if [ "$(head -c 4 "$p" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		echo "$p"
		return
	fi
	p=$(ls -v /usr/bin/perf_[0-9]* 2>/dev/null | tail -n 1)
	[ -n "$p" ] || { echo "${1:-perf} is a script and no /usr/bin/perf_<version> found"; return 1; }
	echo "$p"
}

guest_pack() {
	[ ! -e "$1/init" ] || chmod +x "$1/init" # the kernel runs it, or panics
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# TCG by default: nested KVM hangs or asserts on some hosts (MSR 0x10a).
# Multi-threaded TCG, one host thread per vCPU: single-threaded TCG runs the
# busy vCPUs round-robin in 100 ms slices, so with 16 of them busy any other
# vCPU waits up to 1.6 s to run and a recording takes 3 times longer.
guest_accel() {
	case "${QEMU_ACCEL:-tcg}" in
	tcg) GUEST_ACCEL=(-accel tcg,thread=multi -cpu max) ;;
	tcg-single) GUEST_ACCEL=(-accel tcg,thread=single -cpu max) ;;
	kvm) GUEST_ACCEL=(-accel kvm -cpu host,-arch-capabilities) ;;
	*) fail "QEMU_ACCEL=$QEMU_ACCEL: want tcg, tcg-single or kvm" ;;
	esac
}

# What makes the boot fast under TCG: lpj= skips every CPU's delay-loop
# calibration (about 0.8 s each); TCG's TSC is the host's, synchronized, but
# a kernel on a non-Intel CPU with several sockets assumes it is not: with
# tsc=reliable it keeps the TSC as its clock instead of the emulated HPET and
# skips the TSC sync check at each CPU's bring-up. No speculation
# mitigations, crypto self-tests or lockup watchdog (TCG on a busy host looks
# like a lockup); -nodefaults leaves out the VGA and network cards.
GUEST_FAST="lpj=8000000 tsc=reliable mitigations=off cryptomgr.notests nowatchdog"

# QEMU_BOOT_TIMEOUT seconds (unset or 0: no limit) for the guest's /init to
# print its first "GUEST: " line, else qemu is stopped: a TCG guest that
# hangs whole prints nothing at all, and guest_boot then boots it again at
# once instead of after QEMU_TIMEOUT (CI lost 10 minutes so).
guest_boot_watch() { # CONSOLE PID SECONDS
	local i
	for ((i = 0; i < $3; i++)); do
		grep -q '^GUEST: ' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 0
		sleep 1
	done
	echo "qemu: no line from the guest's /init in $3 s: stopping it"
	kill "$2" 2>/dev/null || true
}

guest_qemu() {
	local pid watch=
	: >"$GUEST_DIR/console"
	: >"$GUEST_DIR/ttyS1"
	timeout "${QEMU_TIMEOUT:-600}" "$QEMU" "${GUEST_ACCEL[@]}" "$@" -nodefaults \
		-kernel "$KERNEL" -initrd "$GUEST_INITRD" \
		-append "console=ttyS0 ${QEMU_APPEND:-quiet} $GUEST_FAST ${GUEST_APPEND:-} panic=-1" \
		-no-reboot -display none \
		-serial stdio -serial "file:$GUEST_DIR/ttyS1" </dev/null >"$GUEST_DIR/console" 2>&1 &
	pid=$!
	if [ "${QEMU_BOOT_TIMEOUT:-0}" -gt 0 ]; then
		guest_boot_watch "$GUEST_DIR/console" $pid "$QEMU_BOOT_TIMEOUT" &
		watch=$!
	fi
	[ -z "${GUEST_FOLLOW:-}" ] || "$GUEST_FOLLOW" "$GUEST_DIR/console" $pid
	wait $pid && GUEST_RC=0 || GUEST_RC=$?
	[ -z "$watch" ] || { kill $watch 2>/dev/null; wait $watch 2>/dev/null; } || true
}

# Once, a guest printed nothing in 15 minutes (it boots in 8-41 s; TCG with
# 16 vCPUs on a loaded 2-CPU host): a guest that never reached /init (or
# not within QEMU_BOOT_TIMEOUT) is booted again, once, with QEMU_TIMEOUT
# alone. One that did and then failed is the caller's to judge.
guest_boot() {
	guest_accel
	echo "qemu: ${GUEST_ACCEL[*]}, kernel $KERNEL"
	guest_qemu "$@"
	if [ "$GUEST_RC" != 0 ] && ! grep -q '^GUEST: ' "$GUEST_DIR/console"; then
		echo "qemu: exit $GUEST_RC with no line from the guest's /init: booting once more"
		# unwatched: a boot merely slow (a very busy host) gets QEMU_TIMEOUT
		QEMU_BOOT_TIMEOUT=0 guest_qemu "$@"
	fi
}

# The guest side of guest_unship_serial, for /init: the files (relative to
# the current directory) as a tar.gz in base64 on the second serial port.
#   tar cf - FILES | gzip -1 | base64 >/dev/ttyS1
guest_unship_serial() {
	tr -d '\r' <"$GUEST_DIR/ttyS1" | base64 -d | tar xzf - -C "$1"
}

# The ship disk: a sparse raw image as a virtio disk (qemu args in
# GUEST_DISK_ARGS), which the guest writes archives to one after another
# (tar cf - FILES >&3 with fd 3 on /dev/vda, no file system), telling where
# it got to; GNU tar reads the archives back with --ignore-zeros. Needs the
# virtio_blk module (guest_add_modules); the serial port, an emulated
# 16550 taking a port write per byte, is for small files.
guest_disk() { # IMG SIZE
	rm -f "$1"
	truncate -s "$2" "$1"
	GUEST_DISK_ARGS=(-drive "if=none,id=ship,format=raw,file=$1" -device virtio-blk-pci,drive=ship)
}

guest_unship_disk() {
	head -c "$2" "$1" | tar -x --ignore-zeros -f - -C "$3"
}
