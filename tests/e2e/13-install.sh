# make install DESTDIR=... PREFIX=/usr/local: a stripped binary, every man
# page (each renders with man -l), the bash completion; nothing outside
# DESTDIR; make uninstall removes them all. Needs no perf.
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v readelf >/dev/null || skip "readelf not installed (binutils)"
command -v man >/dev/null || skip "man not installed (man-db, .ci/packages-test)"
dest=$TMP/root
# Not the outer make's flags (-k, jobserver): a make of its own.
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$src" --no-print-directory install DESTDIR="$dest" PREFIX=/usr/local >install.log 2>&1 ||
	{ cat install.log; fail "make install failed"; }

bin=$dest/usr/local/bin/shardrec
[ -x "$bin" ] || fail "no $bin"
readelf -S "$bin" | grep -qE '\.debug_|\.symtab' && fail "$bin is not stripped"
"$bin" version | grep -q '^shardrec ' || fail "installed binary does not run"

pages=$(ls "$src"/doc/*.1.scd | wc -l)
[ "$pages" -ge 7 ] || fail "expected 7 man sources, found $pages"
for scd in "$src"/doc/*.1.scd; do
	page=$dest/usr/local/share/man/man1/$(basename "$scd" .scd)
	[ -f "$page" ] || fail "no $page"
	MANWIDTH=80 man -l "$page" >page.txt 2>page.err || { cat page.err; fail "man -l $page failed"; }
	[ ! -s page.err ] || { cat page.err; fail "man -l $page printed warnings"; }
	grep -q '^NAME' page.txt || fail "$page: no NAME section rendered"
	grep -q "$(basename "$scd" .1.scd)" page.txt || fail "$page: does not name its command"
	echo "$(basename "$page"): $(wc -l <page.txt) lines"
done
comp=$dest/usr/local/share/bash-completion/completions/shardrec
[ -f "$comp" ] || fail "no $comp"
bash -n "$comp" || fail "$comp: syntax error"

make -C "$src" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr/local >uninstall.log 2>&1 ||
	{ cat uninstall.log; fail "make uninstall failed"; }
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "left after make uninstall: $left"
echo "install: binary stripped, $pages man pages render, completion present; uninstall clean"
