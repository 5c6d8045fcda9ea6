# -o as perf record treats it, perf 6.1 run beside shardrec on the same
# cases (each in a directory of its own): a symbolic link to nothing is
# written through (perf.data -> /scratch/x.data fills /scratch); a link to
# a file becomes FILE.old and a new file is written; a directory (what perf
# --threads leaves) is moved to FILE.old before recording, an older perf
# FILE.old directory removed; a FILE.old holding other files is refused
# before recording by both. Then `shardrec merge -o` follows the same rules,
# and a merge of a killed run's shards says they can go.
. "$(dirname "$0")/lib.sh"
need_perf_event

# The entries of directory $1 (names, types, link targets), sorted.
tree() { (cd "$1" && find . -printf '%p %y %l\n' | sort); }
# case NAME SETUP: runs SETUP in p/NAME and s/NAME, then perf record and
# shardrec record -o out.data there; their exit statuses in $prc and $src.
run_case() {
	local name=$1 setup=$2
	mkdir -p "p/$name/scratch" "s/$name/scratch"
	(cd "p/$name" && eval "$setup")
	(cd "s/$name" && eval "$setup")
	prc=0
	(cd "p/$name" && "$PERF" record -q -o out.data -- true >/dev/null 2>perf.err) || prc=$?
	src=0
	(cd "s/$name" && "$SHARDREC" record -q -o out.data -- true 2>rec.err) || src=$?
	rm -f "p/$name/perf.err"
	mv "s/$name/rec.err" "$name.err"
	tree "p/$name" >"$name.perf"
	tree "s/$name" >"$name.ours"
	diff "$name.perf" "$name.ours" || { cat "$name.err"; fail "-o, $name: not what perf leaves"; }
	echo "-o, $name: as perf ($(tr '\n' ' ' <"$name.ours"))"
}

run_case dangling-link 'ln -s scratch/x.data out.data'
[ -f s/dangling-link/scratch/x.data ] && [ "$src" = 0 ] || fail "-o through a link to nothing"
check_perf_file s/dangling-link/scratch/x.data
run_case link-to-file 'ln -s scratch/x.data out.data && echo old >scratch/x.data'
[ "$(cat s/link-to-file/scratch/x.data)" = old ] && [ "$src" = 0 ] || fail "-o, a link to a file: its target changed"
check_perf_file s/link-to-file/out.data
run_case perf-threads-dir 'mkdir out.data && touch out.data/data out.data/data.0'
[ "$src" = 0 ] || { cat perf-threads-dir.err; fail "-o a perf --threads directory: exit $src"; }
check_perf_file s/perf-threads-dir/out.data
run_case old-perf-dir 'mkdir out.data out.data.old && touch out.data/data out.data.old/data out.data.old/data.1'
[ "$src" = 0 ] || fail "-o a directory with a perf FILE.old directory: exit $src"
run_case old-foreign-dir 'echo x >out.data && mkdir out.data.old && touch out.data.old/notes'
[ "$prc" != 0 ] && [ "$src" = 1 ] || fail "FILE.old holding other files: perf exit $prc, shardrec $src"
[ "$(wc -l <old-foreign-dir.err)" = 1 ] && grep -q "out.data.old is a directory holding more than perf data" \
	old-foreign-dir.err || { cat old-foreign-dir.err; fail "FILE.old holding other files: no one-line error"; }
[ ! -e s/old-foreign-dir/out.data.shards ] || fail "FILE.old holding other files: found only after recording"

# shardrec merge -o: the same rules; a killed run's shards are said to be
# removable once merged (the next record -o refuses while they are there).
"$SHARDREC" record -q --keep-shards -o k.data -- "$PROGS/hot" 100 1
mkdir m
ln -s m/x.data ml.data
"$SHARDREC" merge k.data.shards -o ml.data 2>merge.err || { cat merge.err; fail "merge -o through a link"; }
[ -f m/x.data ] && [ -L ml.data ] || fail "merge -o through a link to nothing"
check_perf_file m/x.data
grep -q "k.data.shards is no longer needed: rm -r k.data.shards" merge.err || { cat merge.err; fail "merge: no word on the shards"; }
"$SHARDREC" merge -q k.data.shards -o q.data 2>q.err
[ ! -s q.err ] || fail "merge -q printed"

# Where no file of ours may go (issue 33 item 8). As root, -o /dev/null
# replaced the device with a regular file (FILE.partial renamed over it);
# -o /dev/stdout wrote /proc/self/fd/1.partial and failed after the run.
dev_before=$(stat -c %F /dev/null)
for cmd in "record -q -o /dev/null -- true" "merge -q k.data.shards -o /dev/null"; do
	rc=0
	# shellcheck disable=SC2086 # $cmd is the command and its options
	"$SHARDREC" $cmd 2>dev.err || rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <dev.err)" = 1 ] && grep -q -- "-o /dev/null: a device.*use -o -" dev.err ||
		{ cat dev.err; fail "$cmd: exit $rc, not one line naming the device"; }
	[ "$(stat -c %F /dev/null)" = "$dev_before" ] || fail "$cmd: /dev/null is now a $(stat -c %F /dev/null)"
done
[ ! -e /dev/null.partial ] && [ ! -e /dev/null.old ] || fail "-o /dev/null left files in /dev"
# /dev/stdout redirected to a file is that file, as perf writes it.
"$SHARDREC" record -q -o /dev/stdout -- "$PROGS/hot" 100 1 >stdout.data 2>so.err ||
	{ cat so.err; fail "record -o /dev/stdout into a file"; }
check_perf_file stdout.data
rc=0
"$SHARDREC" record -q -o /dev/stdout -- true 2>so.err | cat >/dev/null || rc=$?
grep -q -- "-o /dev/stdout: a FIFO or pipe.*use -o -" so.err || { cat so.err; fail "-o /dev/stdout into a pipe"; }

# A file of another user's in a sticky directory: the merge could not move
# it to FILE.old, which was found only once the recording was over.
if [ "$(id -u)" = 0 ] && ordinary_user sticky; then
	trap 'ordinary_user_release; cleanup' EXIT
	mkdir st && chmod 1777 st && echo root >st/r.data
	cp "$SHARDREC" st/sr && chmod 755 "$TMP" st/sr
	rc=0
	su "$user" -s /bin/sh -c "cd '$TMP/st' && ./sr record -q -e cpu-clock:u -o r.data -- true" 2>st.err || rc=$?
	[ "$rc" != 0 ] && grep -q "r.data belongs to another user in a sticky directory" st.err ||
		{ cat st.err; fail "sticky directory: exit $rc"; }
	[ ! -e st/r.data.shards ] || fail "sticky directory: refused only after recording"
	echo "-o: /dev/null and a pipe refused in one line, /dev/stdout into a file written, another user's file in a sticky directory refused before recording"
fi
