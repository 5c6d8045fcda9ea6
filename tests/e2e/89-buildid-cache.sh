# perf's build-id cache (~/.debug), filled as perf record 6.1 fills it:
# perf and shardrec record the same command, each with its own HOME, and
# the two caches hold the same entries (paths, modes, file sizes, link
# targets); -N, -B, -z and record.build-id = no-cache leave none;
# --buildid-dir and perf config's buildid.dir say where it goes; perf
# buildid-cache --list agrees with perf buildid-list; a program rebuilt
# after the recording still resolves from the cache in perf report; the
# cache belongs to the user who recorded; perf's own buildid.sh passes
# with shardrec doing its perf record.
. "$(dirname "$0")/lib.sh"
need_perf_event
src=$(cd "$(dirname "$0")/../.." && pwd)
hot=$PROGS/hot

# The cache under $1, one line per entry: type and path, then the mode and
# size of files (kallsyms' size left out: /proc/kallsyms changes as BPF
# programs come and go), the mode of directories, the target of links.
cache_list() {
	(cd "$1" && find . -mindepth 1 \( -type d -printf 'd %P %m\n' \) -o \
		\( -type f -printf 'f %P %m %s\n' \) -o \( -type l -printf 'l %P -> %l\n' \)) |
		sed -E 's|^(f .*/kallsyms [0-7]+) [0-9]+$|\1|' | sort
}
# Build ids of a cache (its .build-id links) and of a file's BUILD_ID feature.
cache_ids() { (cd "$1/.build-id" && find . -type l | tr -d './') | sort; }
file_ids() { "$PERF" buildid-list -i "$1" 2>/dev/null | awk '{ print $1 }' | sort; }

# 1. --buildid-all: the same DSOs for both (every map of the command), so
#    the whole caches compare, entry for entry (kernel modules aside: their
#    files are compressed here and there, perf may not read their ids).
mkdir hp hs
HOME=$TMP/hp "$PERF" record -q --buildid-all -o p.data -- "$hot" 200 >/dev/null 2>&1 ||
	fail "perf record --buildid-all failed"
HOME=$TMP/hs "$SHARDREC" record -q --buildid-all -o s.data -- "$hot" 200 >/dev/null ||
	fail "shardrec record --buildid-all failed"
cache_list hp/.debug | grep -v 'lib/modules/' >perf.lst || true
[ -s perf.lst ] || fail "perf made no cache: nothing to compare with"
[ -d hs/.debug ] || fail "shardrec made no build-id cache"
cache_list hs/.debug | grep -v 'lib/modules/' >ours.lst || true
cat ours.lst
diff perf.lst ours.lst || fail "--buildid-all: the caches differ (< perf, > shardrec)"
id=$(readelf -n "$hot" | awk '/Build ID/ { print $3 }')
real=$(realpath "$hot")
grep -qx "f ${real#/}/$id/elf 755 $(stat -c %s "$hot")" ours.lst || fail "no elf entry for hot"
grep -qx "l .build-id/${id:0:2}/${id:2} -> ../..$real/$id" ours.lst || fail "no .build-id link for hot"
# a hard link on the same file system, else a copy (0755, checked above)
if [ "$(stat -c %d "$real")" = "$(stat -c %d hs)" ]; then
	[ "$(stat -c %i "hs/.debug$real/$id/elf")" = "$(stat -c %i "$real")" ] ||
		fail "hot's elf is not a hard link (same file system)"
else
	cmp -s "hs/.debug$real/$id/elf" "$real" || fail "hot's elf is not a copy of it"
fi
echo "--buildid-all: $(wc -l <ours.lst) entries, as perf's"

# 2. Hit DSOs only (the default): what both hit compares; shardrec caches
#    its file's list, plus the kernel and the vdso, as perf does.
rm -rf hp/.debug hs/.debug p.data s.data
HOME=$TMP/hp "$PERF" record -q -o p.data -- "$hot" 300 >/dev/null 2>&1 || fail "perf record failed"
HOME=$TMP/hs "$SHARDREC" record -q -o s.data -- "$hot" 300 >/dev/null || fail "shardrec record failed"
comm -12 <(file_ids p.data) <(file_ids s.data) >common.ids
grep -qx "$id" common.ids || fail "hot is not in both build-id lists"
cache_list hp/.debug | grep -F -f common.ids >perf.lst
cache_list hs/.debug | grep -F -f common.ids >ours.lst
diff perf.lst ours.lst || fail "the entries of the DSOs both hit differ (< perf, > shardrec)"
# perf caches the kernel and the vdso hit or not: their ids come from perf's cache
special() { cache_list hp/.debug | sed -nE "s#^d \[$1\]/([0-9a-f]+) .*#\1#p"; }
kid=$(special kernel.kallsyms)
kv=$( (echo "$kid"; special vdso) | grep .) || fail "perf cached neither the kernel nor the vdso"
sort -u <(file_ids s.data) <(echo "$kv") >want.ids
cache_ids hs/.debug >got.ids
diff want.ids got.ids || fail "shardrec's cache is not its build-id list + kernel + vdso"
echo "default: $(wc -l <common.ids) DSOs hit by both cached alike, $(wc -l <got.ids) entries"

# 3. perf's own view: buildid-cache --list (valid entries) against the
#    file's build ids (the vdso is no file: not listed), plus the kernel.
HOME=$TMP/hs "$PERF" buildid-cache --list 2>/dev/null | awk '{ print $1 }' | sort >listed.ids
"$PERF" buildid-list -i s.data | awk '$2 != "[vdso]" { print $1 }' | sort -u - <(echo "$kid") |
	grep . >want.ids
diff want.ids listed.ids || fail "perf buildid-cache --list and perf buildid-list disagree"

# 4. No cache with -N, -B, -z (perf's too), record.build-id = no-cache.
for opt in -N -B -z --no-buildid-cache; do
	rm -rf hn && mkdir hn
	HOME=$TMP/hn "$SHARDREC" record -q $opt -o n.data -- "$hot" 50 >/dev/null || fail "record $opt failed"
	[ ! -e hn/.debug ] || fail "record $opt made a cache"
done
rm -rf hn && mkdir hn
HOME=$TMP/hn "$PERF" record -q -z -o pz.data -- "$hot" 50 >/dev/null 2>&1 || fail "perf record -z failed"
[ ! -e hn/.debug ] || fail "perf record -z made a cache: the expectation above is wrong"
printf '[record]\n\tbuild-id = no-cache\n' >nocache.cfg
PERF_CONFIG=$TMP/nocache.cfg HOME=$TMP/hn "$SHARDREC" record -q -o n.data -- "$hot" 50 >/dev/null ||
	fail "record with record.build-id = no-cache failed"
[ ! -e hn/.debug ] || fail "record.build-id = no-cache made a cache"
echo "-N, -B, -z, no-cache: no cache"

# 5. Where: --buildid-dir, buildid.dir, the option over the config; a
#    relative directory is refused in one line.
has_hot() { [ -f "$1$real/$id/elf" ] && [ -L "$1/.build-id/${id:0:2}/${id:2}" ]; }
HOME=$TMP/hn "$SHARDREC" record -q --buildid-dir "$TMP/bd" -o n.data -- "$hot" 50 >/dev/null ||
	fail "record --buildid-dir failed"
has_hot bd || fail "--buildid-dir: no entry for hot in it"
[ ! -e hn/.debug ] || fail "--buildid-dir: ~/.debug made too"
printf '[buildid]\n\tdir = %s/cfgbd\n' "$TMP" >bd.cfg
PERF_CONFIG=$TMP/bd.cfg HOME=$TMP/hn "$SHARDREC" record -q -o n.data -- "$hot" 50 >/dev/null ||
	fail "record with buildid.dir failed"
has_hot cfgbd || fail "buildid.dir: no entry for hot in it"
rm -rf bd cfgbd
PERF_CONFIG=$TMP/bd.cfg HOME=$TMP/hn "$SHARDREC" record -q --buildid-dir "$TMP/bd" -o n.data -- \
	"$hot" 50 >/dev/null || fail "record with buildid.dir and --buildid-dir failed"
has_hot bd && [ ! -e cfgbd ] || fail "--buildid-dir does not win over buildid.dir"
set +e
"$SHARDREC" record -q --buildid-dir rel -o n.data -- true 2>err.txt
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q absolute err.txt ||
	{ cat err.txt; fail "relative --buildid-dir: exit $rc"; }
[ ! -e rel ] || fail "relative --buildid-dir made a directory"
echo "--buildid-dir, buildid.dir: ok"

# 6. The reason for the cache: the program rebuilt (another build id, hot_loop
#    elsewhere), perf report still names hot_loop from the cache, and
#    cannot without it.
if command -v cc >/dev/null; then
	mkdir bin hr empty
	cp "$hot" bin/hot
	HOME=$TMP/hr "$SHARDREC" record -q -o r.data -- bin/hot 300 >/dev/null || fail "record bin/hot failed"
	cc -O0 -fno-omit-frame-pointer -DREBUILT -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
		-o bin/hot.new "$src/tests/progs/hot.c" -lpthread -lm || fail "cannot rebuild hot"
	mv bin/hot.new bin/hot
	# top HOME: the first symbol line of perf report, saved in top.txt
	top() {
		HOME=$1 "$PERF" report -i r.data --stdio --sort sym 2>/dev/null >rep.txt || true
		grep -v '^#' rep.txt | grep '%' | head -1 >top.txt || true
		echo "rebuilt, HOME=$1: $(cat top.txt)"
	}
	top "$TMP/hr"
	grep -q hot_loop top.txt || fail "rebuilt hot: perf report does not find hot_loop in the cache"
	top "$TMP/empty"
	! grep -q hot_loop top.txt || fail "hot_loop resolved without the cache: the check proves nothing"
else
	echo "no cc: rebuild check skipped"
fi

# 7. The user who records owns the cache: an unprivileged user, and one
#    running a copy of shardrec with file capabilities (which hold none by
#    then). Root's files are copied (protected_hardlinks), not linked.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$TMP"
	mkdir -p -m 0755 ubin
	cp "$hot" ubin/hot
	cp "$SHARDREC" ubin/shardrec
	bins=(ubin/shardrec)
	if command -v setcap >/dev/null && grep -q '^NoNewPrivs:[[:space:]]*0' /proc/self/status; then
		cp "$SHARDREC" ubin/capped
		setcap cap_perfmon,cap_ipc_lock,cap_syslog+ep ubin/capped 2>/dev/null &&
			getcap ubin/capped | grep -q cap_perfmon && bins+=(ubin/capped)
	fi
	for b in "${bins[@]}"; do
		rm -rf uh && mkdir -m 0755 uh && chown 65534:65534 uh
		HOME=$TMP/uh setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TMP/$b" record -q -o "$TMP/uh/u.data" -- "$TMP/ubin/hot" 100 >/dev/null 2>&1 ||
			fail "$b as uid 65534 failed"
		[ -d uh/.debug ] || fail "$b as uid 65534: no cache"
		bad=$(find uh/.debug ! -user 65534 \( -type d -o -type l -o -links 1 \) -print -quit)
		[ -z "$bad" ] || fail "$b as uid 65534: not the user's: $bad"
		grep -q . <(find uh/.debug -path '*/ubin/hot/*/elf') || fail "$b as uid 65534: hot not cached"
		echo "$b as uid 65534: the cache is the user's"
	done
fi

# 8. perf's own test of the cache, tools/perf/tests/shell/buildid.sh (bash:
#    it uses ${id:0:2}), with shardrec recording (perf --buildid-dir DIR
#    record --buildid-all): its two recordings must be shardrec's.
script=/usr/lib/perf-core/tests/shell/buildid.sh
if [ -f "$script" ] && command -v cc >/dev/null && command -v readelf >/dev/null; then
	shim=$src/tests/perfshim
	: >shim.log
	rc=0
	# the script's outputs are mktemp'ed in /tmp, then recorded over: the
	# empty files become FILE.old, which it leaves behind
	ls /tmp/perf.data.*.old 2>/dev/null | sort >old.before || true
	SHARDREC=$SHARDREC REAL_PERF=$(command -v "$PERF") PERF_SHIM_LOG=$TMP/shim.log \
		PATH=$shim:$PATH bash "$script" >buildid.out 2>&1 || rc=$?
	ls /tmp/perf.data.*.old 2>/dev/null | sort | comm -13 old.before - | xargs -r rm -f
	if [ "$rc" = 2 ]; then
		echo "buildid.sh: skipped by perf's script"
	else
		[ "$rc" = 0 ] || { tail -20 buildid.out; fail "perf's buildid.sh: exit $rc"; }
		[ "$(grep -c '^record ok ' shim.log)" = 2 ] && ! grep -q '^record FAIL' shim.log ||
			{ cat shim.log; fail "buildid.sh: its recordings were not shardrec's"; }
		echo "perf's buildid.sh: passed, 2 recordings by shardrec"
	fi
fi
