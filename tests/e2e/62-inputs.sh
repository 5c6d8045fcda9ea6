# Inputs that are not regular files (issue 20, item 4): a FIFO in place of
# header.data, a shard or tail.raw, or given to `loss`, is refused with one
# line at once; before, merge and loss blocked in open() forever.
. "$(dirname "$0")/lib.sh"
need_perf_event

"$SHARDREC" record -q -a -e cs --keep-shards -o base.data -- sleep 0.1 2>/dev/null
[ -d base.data.shards ] || fail "no shard directory kept"

# refused WHAT -- cmd...: exit 1 within 10 s, one line naming WHAT
refused() {
	local what=$1 rc
	shift 2
	set +e
	timeout 10 "$@" >out.txt 2>err.txt
	rc=$?
	set -e
	echo "$what: rc $rc: $(cat err.txt)"
	[ "$rc" != 124 ] || fail "$what: still blocked after 10 s"
	[ "$rc" = 1 ] || fail "$what: exit $rc, want 1"
	[ "$(wc -l <err.txt)" = 1 ] || fail "$what: error is not one line"
	grep -q "$what: not a regular file" err.txt || fail "$what: error does not say why"
}

for f in header.data shard.0 tail.raw; do
	rm -rf d.shards && cp -r base.data.shards d.shards
	rm -f "d.shards/$f" && mkfifo "d.shards/$f"
	refused "$f" -- "$SHARDREC" merge d.shards -o out.data
	[ ! -e out.data ] || fail "$f: a merge of a FIFO wrote an output"
done
mkfifo fifo.data
refused fifo.data -- "$SHARDREC" loss fifo.data
# A symlink inside the shard directory is not followed either.
rm -rf d.shards && cp -r base.data.shards d.shards
mv d.shards/shard.0 elsewhere && ln -s "$PWD/elsewhere" d.shards/shard.0
set +e
"$SHARDREC" merge d.shards -o out.data 2>err.txt
rc=$?
set -e
cat err.txt
[ "$rc" = 1 ] && grep -q "shard.0: Too many levels of symbolic links" err.txt ||
	fail "a symlinked shard was followed (rc $rc)"
# A copy of a shard under another name (issue 33 item 6) was merged twice,
# every sample doubled, exit 0: refused with one line, with --recover too.
for copy in shard.00 shard.7; do
	for rec in "" --recover; do
		rm -rf d.shards && cp -r base.data.shards d.shards
		cp d.shards/shard.0 "d.shards/$copy"
		rc=0
		"$SHARDREC" merge $rec d.shards -o dup.data 2>err.txt || rc=$?
		[ "$rc" = 1 ] && [ "$(wc -l <err.txt)" = 1 ] &&
			grep -qE "shard\.0 and $copy are both writer 0's shard|$copy and shard\.0 are both writer 0's shard" \
				err.txt && [ ! -e dup.data ] || { cat err.txt; fail "merge $rec with a copied $copy: rc $rc"; }
	done
done
echo "a copied shard: refused, with and without --recover"
# And the good directory still merges.
"$SHARDREC" merge base.data.shards -o good.data 2>/dev/null
check_perf_file good.data
echo PASS
