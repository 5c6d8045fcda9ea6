# -z: compressed shards merged without recompression; perf reads them; the
# same data merged with --decompress prints identically; damage is reported.
. "$(dirname "$0")/lib.sh"
need_perf_event
for level in 1 3; do
	"$SHARDREC" record --compression-level=$level -a --threads=cpu -e cpu-clock,cs --keep-shards \
		-o z$level.data -- "$PROGS/hot" 400 2 2>rec.err || { cat rec.err; fail "record -z $level failed"; }
	cat rec.err
	grep -q "ratio is" rec.err || fail "no compression ratio in the summary"
	check_perf_file z$level.data
	"$PERF" report --stats -i z$level.data 2>/dev/null | grep -q "COMPRESSED events" || fail "no COMPRESSED records"
	"$PERF" report --header-only -i z$level.data 2>/dev/null | grep -q "compressed : Zstd, level = $level" ||
		fail "HEADER_COMPRESSED missing or wrong level"
	# as perf record -z: no build ids (perf inject's decompressed copy has none either)
	"$PERF" report --header-only -i z$level.data 2>/dev/null | grep "missing features" | grep -qw BUILD_ID ||
		fail "a compressed file with build ids (perf record -z writes none)"
	s=$(summary_samples rec.err)
	[ "$s" = "$(perf_samples z$level.data)" ] || fail "summary samples $s differ from perf's"
done

# Event by event: compressed output vs the same shards decompressed and globally sorted.
"$SHARDREC" merge -q --decompress z1.data.shards -o plain.data || fail "merge --decompress failed"
check_perf_file plain.data
! "$PERF" report --stats -i plain.data 2>/dev/null | grep -q "COMPRESSED" || fail "--decompress left COMPRESSED records"
# Records with one timestamp have no defined order in perf.data (perf keeps
# file order; the two merges place frames and runs differently): each file
# is checked in time order to the nanosecond, then the two compared as sets.
"$PERF" script --ns -i z1.data 2>/dev/null >z.txt
"$PERF" script --ns -i plain.data 2>/dev/null >p.txt
[ -s z.txt ] || fail "empty perf script"
check_monotonic z.txt
check_monotonic p.txt
sort z.txt >zs.txt
sort p.txt >ps.txt
cmp -s zs.txt ps.txt || { diff zs.txt ps.txt | head; fail "compressed and decompressed recordings differ"; }
"$PERF" inject -i z1.data -o injected.data 2>/dev/null || fail "perf inject failed"

# A cut shard (killed recorder): an error naming --recover, then with it every whole record before the cut.
# The largest shard (under load one CPU's may hold next to nothing), cut at
# an odd offset: inside a pass, or where one starts (compressed passes end
# at any byte): the sealed shard's header says how long it was either way.
cp -r z1.data.shards cut.shards
ls -l cut.shards
sh=$(ls -S cut.shards/shard.* | head -1)
size=$(stat -c %s "$sh")
truncate -s $(((size * 2 / 3) | 1)) "$sh"
! "$SHARDREC" merge -q cut.shards -o cut.data 2>cut.err || fail "merge of a cut shard succeeded without --recover"
grep -q "$(basename "$sh"): cut at offset [0-9]*.*--recover" cut.err || { cat cut.err; fail "cut shard not reported"; }
[ ! -e cut.data ] || fail "failed merge left an output"
"$SHARDREC" merge --recover cut.shards -o cut.data 2>cut.err || { cat cut.err; fail "--recover failed"; }
grep -q "1 truncated" cut.err || fail "--recover did not count the truncated shard"
check_perf_file cut.data
full=$(perf_samples z1.data)
part=$(perf_samples cut.data)
echo "cut shard: $part of $full samples kept"
[ "$part" -gt 0 ] && [ "$part" -lt "$full" ] || fail "recover kept $part of $full samples"

# Cut exactly where a pass starts (the last one starting in the first two
# thirds, else right after the file header): every pass left is whole, and
# only the size the writer sealed into the header tells the cut.
cp -r z1.data.shards edge.shards
edge=$(python3 - "$sh" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, best = 64, 64
while off + 40 <= len(d):
    typ, misc, size, seq, wtime, nbytes, raw = struct.unpack_from('<IHHQQQQ', d, off)
    off += 40 + nbytes
    if off <= len(d) * 2 // 3:
        best = off
print(best)
PY
) || fail "cannot walk $sh"
truncate -s "$edge" "edge.shards/$(basename "$sh")"
! "$SHARDREC" merge -q edge.shards -o edge.data 2>edge.err || fail "merge of a shard cut at a pass boundary succeeded"
grep -q "$(basename "$sh"): cut at offset $edge .*--recover" edge.err || { cat edge.err; fail "cut at pass boundary $edge not reported"; }
"$SHARDREC" merge --recover edge.shards -o edge.data 2>edge.err || { cat edge.err; fail "--recover of the boundary cut failed"; }
grep -q "1 truncated" edge.err || fail "--recover did not count the shard cut at a pass boundary"
check_perf_file edge.data

# Flipped bytes inside a compressed pass: the zstd checksum catches them.
cp -r z1.data.shards bad.shards
python3 - bad.shards/shard.1 <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for i in range(len(b) // 2, len(b) // 2 + 64):
    b[i] ^= 0x5a
open(p, 'wb').write(b)
PY
! "$SHARDREC" merge -q bad.shards -o bad.data 2>bad.err || fail "corrupt shard merged silently"
grep -q "shard.1: corrupt .* at offset [0-9]*" bad.err || { cat bad.err; fail "corruption not reported with offset"; }
"$SHARDREC" merge --recover bad.shards -o bad.data 2>bad.err || { cat bad.err; fail "--recover on corrupt shard failed"; }
check_perf_file bad.data

# Bad levels are refused like perf.
! "$SHARDREC" record --compression-level=23 -o x.data -- true 2>lvl.err || fail "level 23 accepted"
grep -q "level from 1 to 22" lvl.err || fail "bad level message"
