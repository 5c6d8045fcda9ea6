# The Debian package (debian/, README "Installing"): `make deb` builds it
# in a copy of the working tree (this tree's build/ untouched); the .deb
# holds the stripped binary, every man page, the bash completion, README and
# a DEP-5 copyright; lintian finds no error; then the package is installed,
# reconfigured and purged with both debconf answers, preseeded with
# debconf-set-selections: getcap, owner and mode follow the answer, the
# group "perf" is created when missing and purge removes it only then, and
# an admin's dpkg-statoverride keeps its owner and mode.
#
# Where it is installed: a throwaway root that is this machine's own system
# seen through an overlayfs (lower layer /, upper layer a tmpfs), mounted in
# a private mount namespace (unshare -m) and entered with chroot. The
# maintainer scripts need dpkg, debconf, adduser and setcap inside the root,
# which `dpkg --root` on a minimal tree would lack; here they are this
# system's own, and all they change (/etc/group, the dpkg and debconf
# databases, /usr/bin/shardrec, file capabilities) lands in the tmpfs, which
# goes with the namespace, even if the test is killed. So neither a "perf"
# group nor a shardrec package of this machine is ever touched. Needs root.
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || skip "not root: cannot mount the throwaway root to install the package in"
command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage not installed (dpkg-dev, .ci/packages-test)"
for c in dh:debhelper lintian:lintian readelf:binutils setcap:libcap2-bin getcap:libcap2-bin \
	unshare:util-linux setpriv:util-linux debconf-set-selections:debconf; do
	command -v "${c%%:*}" >/dev/null || skip "${c%%:*} not installed (${c#*:}, .ci/packages-test)"
done
deps=$(cd "$src" && dpkg-checkbuilddeps 2>&1) || skip "build dependencies missing: ${deps##*: }"
# The throwaway root (below) can be made here: probed before the build.
mkdir probe
# shellcheck disable=SC2016 # for the inner shell
unshare -m --propagation private sh -c 'mount -t tmpfs probe "$1" && mkdir "$1/u" "$1/w" "$1/r" &&
	mount -t overlay -o "lowerdir=/,upperdir=$1/u,workdir=$1/w" probe "$1/r"' sh "$TMP/probe" >probe.log 2>&1 ||
	skip "no overlay over / in a mount namespace here: $(tail -n 1 probe.log)"

# debian/control's Build-Depends are .ci/packages-build but build-essential
# (implied) and linux-perf (for recording only).
bdeps=$(sed -n '/^Build-Depends:/,/^[^ ]/{s/^Build-Depends://;/^[A-Z]/d;p}' "$src/debian/control" |
	tr ',' '\n' | sed 's/(.*)//;s/[[:space:]]//g' | grep -v -e '^$' -e '^debhelper-compat$' | sort)
want=$(grep -v -x -e build-essential -e linux-perf "$src/.ci/packages-build" | sort)
[ "$bdeps" = "$want" ] || fail "Build-Depends ($(echo "$bdeps" | paste -sd' ')) differ from .ci/packages-build ($(echo "$want" | paste -sd' '))"
# The package's version is the program's.
version=$(sed -n 's/^#define SHARDREC_VERSION "\(.*\)"/\1/p' "$src/recorder/header/sysinfo.h")
dversion=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ -z "$version" ] || [ "$dversion" != "$version" ]; then
	fail "debian/changelog's version $dversion is not SHARDREC_VERSION $version"
fi
# The capabilities of `make install PERF_CAPS=1` and of the README's setcap line.
caps=$(sed -n 's/^FILE_CAPS := \(.*\)+ep$/\1/p' "$src/Makefile")
[ -n "$caps" ] || fail "no FILE_CAPS in the Makefile"
grep -q "^#   setcap $caps+ep /usr/local/bin/shardrec" "$src/README.md" || fail "README's setcap line does not grant $caps"
grep -q "^CAPS=$caps+ep$" "$src/debian/postinst" || fail "debian/postinst does not set $caps+ep"

# 1. Build, as sites do (README, Installing). Not the outer make's flags.
unset MAKEFLAGS MFLAGS MAKELEVEL
start=$(date +%s)
DEB_BUILD_OPTIONS=nocheck make -C "$src" --no-print-directory deb DEB_DIR="$TMP/deb" >build.log 2>&1 ||
	{ tail -n 40 build.log; fail "make deb failed"; }
echo "make deb: $(($(date +%s) - start)) s"
[ ! -e "$TMP/deb/src" ] || fail "make deb left its copy of the tree"
deb=$TMP/deb/shardrec_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { ls "$TMP/deb"; fail "no $(basename "$deb")"; }

# 2. What it holds.
dpkg-deb -c "$deb" | awk '{ print $1, $2, $6 }' >list.txt
have() { grep -q -x -F -e "$1" list.txt || { cat list.txt; fail "$(basename "$deb") lacks '$1'"; }; }
have "-rwxr-xr-x root/root ./usr/bin/shardrec"
have "-rw-r--r-- root/root ./usr/share/bash-completion/completions/shardrec"
for f in README.md.gz copyright changelog.gz; do have "-rw-r--r-- root/root ./usr/share/doc/shardrec/$f"; done
pages=0
for scd in "$src"/doc/*.1.scd; do
	have "-rw-r--r-- root/root ./usr/share/man/man1/$(basename "$scd" .scd).gz"
	pages=$((pages + 1))
done
[ "$pages" -ge 8 ] || fail "expected 8 man sources, found $pages"
! grep -q -e /usr/local -e '/build' list.txt || fail "files from /usr/local or build/ in the package"
dpkg-deb -x "$deb" x
readelf -S x/usr/bin/shardrec | grep -qE '\.debug_|\.symtab' && fail "/usr/bin/shardrec is not stripped"
x/usr/bin/shardrec version | grep -q "^shardrec $version\$" || fail "the packaged binary does not print version $version"
cmp -s x/usr/share/bash-completion/completions/shardrec "$src/completion/shardrec.bash" || fail "completion differs from completion/shardrec.bash"
zcat x/usr/share/doc/shardrec/README.md.gz | cmp -s - "$src/README.md" || fail "packaged README differs"
head -n 1 x/usr/share/doc/shardrec/copyright | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
	fail "copyright is not in DEP-5 form"
grep -q '^License: GPL-2$' x/usr/share/doc/shardrec/copyright || fail "copyright names no GPL-2"
dpkg-deb -e "$deb" ctl
for f in config templates postinst postrm; do [ -f "ctl/$f" ] || fail "no $f in the control archive"; done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libcap2-bin adduser debconf; do
	echo "$depends" | grep -q "\\b$d\\b" || fail "Depends lacks $d: $depends"
done
grep -A2 '^Template: shardrec/group-record$' ctl/templates | grep -qx 'Default: false' || fail "the question's default is not no"

# 3. lintian: no error; its tags (none expected) printed.
lintian --fail-on error --display-info "$deb" >lintian.txt 2>&1 || { cat lintian.txt; fail "lintian found errors"; }
grep -v 'running with root privileges' lintian.txt || true
echo "lintian: $(grep -c '^[EWI]:' lintian.txt || true) tags"

# 4. Install, reconfigure and purge in the throwaway root.
# in_root CMD...: CMD in the throwaway root, with a clean environment.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
answer() { echo "shardrec shardrec/group-record boolean $1" | in_root debconf-set-selections; }
# state WANT: "OWNER:GROUP MODE CAPS" of /usr/bin/shardrec, CAPS sorted ("-": none).
state() {
	local got c
	c=$(in_root getcap /usr/bin/shardrec | awk '{ print $2 }' | sed 's/=ep$//' | tr ',' '\n' | sort | paste -sd, -)
	got="$(in_root stat -c '%U:%G %a' /usr/bin/shardrec) ${c:--}"
	echo "  /usr/bin/shardrec: $got"
	[ "$got" = "$1" ] || fail "/usr/bin/shardrec is '$got', want '$1'"
}
has_group() { in_root getent group perf >/dev/null; }
# runs_as GROUPS: whether user nobody with those supplementary groups may run
# it. Through sh: setpriv itself still holds root's capabilities (and so
# CAP_DAC_OVERRIDE) when it execs, the shell none.
runs_as() {
	local g=--clear-groups
	[ -z "$1" ] || g=--groups=$1
	in_root setpriv --reuid=65534 --regid=65534 "$g" sh -c '/usr/bin/shardrec version' >/dev/null 2>&1
}
# dpkg_ok CMD...: dpkg or dpkg-reconfigure in the root, its output shown.
dpkg_ok() { in_root "$@" >dpkg.log 2>&1 || { cat dpkg.log; fail "$* failed"; }; sed 's/^/    /' dpkg.log; }

inside() {
	set -euo pipefail
	mount -t tmpfs -o mode=0755 shardrec-deb "$TMP/ovl"
	mkdir "$TMP/ovl/upper" "$TMP/ovl/work"
	mount -t overlay -o "lowerdir=/,upperdir=$TMP/ovl/upper,workdir=$TMP/ovl/work" shardrec-deb "$root" ||
		skip "cannot mount an overlay over / (overlayfs missing?): no throwaway root"
	mount --rbind /dev "$root/dev"
	mount -t proc proc "$root/proc"
	mount -t tmpfs tmpfs "$root/tmp"
	cp "$deb" "$root/tmp/shardrec.deb"
	# No man-db index rebuild at each install (the overlay's only).
	rm -f "$root/var/lib/man-db/auto-update"
	# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
	in_root dpkg-query -W -f '${Status}' shardrec 2>/dev/null | grep -q ' installed$' &&
		in_root dpkg --purge shardrec >/dev/null
	# A: no group "perf" before.
	if has_group; then in_root groupdel -f perf; fi
	echo "A: perf absent; answer no"
	answer false
	dpkg_ok dpkg -i /tmp/shardrec.deb
	state "root:root 755 -"
	! has_group || fail "answer no created the group perf"
	for f in /usr/bin/shardrec /usr/share/bash-completion/completions/shardrec \
		/usr/share/doc/shardrec/README.md.gz /usr/share/doc/shardrec/copyright; do
		in_root dpkg -L shardrec | grep -qx "$f" || fail "dpkg -L shardrec lacks $f"
		[ -f "$root$f" ] || fail "$f not installed"
	done
	[ "$(in_root dpkg -L shardrec | grep -c '^/usr/share/man/man1/shardrec.*\.1\.gz$')" = "$pages" ] ||
		fail "not all $pages man pages installed"
	runs_as "" || fail "answer no: user nobody cannot run shardrec"

	echo "A: dpkg-reconfigure, answer yes"
	answer true
	dpkg_ok dpkg-reconfigure -f noninteractive shardrec
	state "root:perf 750 $sorted"
	[ "$(in_root getent group perf | cut -d: -f3)" -lt 1000 ] || fail "perf is not a system group"
	runs_as "" && fail "answer yes: user nobody, not in perf, can run shardrec"
	runs_as perf || fail "answer yes: a member of perf cannot run shardrec"
	echo "A: dpkg-reconfigure, answer no"
	answer false
	dpkg_ok dpkg-reconfigure -f noninteractive shardrec
	state "root:root 755 -"
	has_group || fail "answer no removed the group perf (purge does)"
	echo "A: answer yes, then purge"
	answer true
	dpkg_ok dpkg-reconfigure -f noninteractive shardrec
	state "root:perf 750 $sorted"
	dpkg_ok dpkg --purge shardrec
	[ ! -e "$root/usr/bin/shardrec" ] || fail "purge left /usr/bin/shardrec"
	! has_group || fail "purge left the group perf that the package created"
	[ ! -e "$root/var/lib/shardrec" ] || fail "purge left /var/lib/shardrec"
	[ -z "$(in_root debconf-show shardrec)" ] || fail "purge left the debconf question"

	# B: a group perf the admin made: used, and kept by purge.
	echo "B: perf made by the admin; answer yes, then purge"
	in_root groupadd --system perf
	answer true
	dpkg_ok dpkg -i /tmp/shardrec.deb
	state "root:perf 750 $sorted"
	echo "B: reinstalled (as an upgrade replaces the binary)"
	dpkg_ok dpkg -i /tmp/shardrec.deb
	state "root:perf 750 $sorted"
	dpkg_ok dpkg --purge shardrec
	has_group || fail "purge removed the group perf that the admin made"

	# C: an admin's statoverride: its owner and mode stay, the capabilities follow the answer.
	echo "C: dpkg-statoverride root:root 0700; answer yes, then no"
	in_root dpkg-statoverride --add root root 0700 /usr/bin/shardrec
	answer true
	dpkg_ok dpkg -i /tmp/shardrec.deb
	state "root:root 700 $sorted"
	answer false
	dpkg_ok dpkg-reconfigure -f noninteractive shardrec
	state "root:root 700 -"
	dpkg_ok dpkg --purge shardrec
}

root=$TMP/root
mkdir "$root" "$TMP/ovl"
# What getcap prints, in the order state() sorts to.
sorted=$(echo "$caps" | tr ',' '\n' | sort | paste -sd, -)
export TMP root deb sorted pages
export -f inside in_root answer state has_group runs_as dpkg_ok fail skip
start=$(date +%s)
rc=0
unshare -m --propagation private bash -c inside || rc=$?
[ "$rc" = 0 ] || exit "$rc"
echo "install, reconfigure, purge: $(($(date +%s) - start)) s"
echo "deb: $(basename "$deb"): $pages man pages, completion, README, DEP-5 copyright; lintian clean; both answers, reconfigure and purge checked"
