# A damaged record in a kept shard (issue 20, item 1): one SAMPLE's type set
# to 100. `merge` must fail naming the shard and the record's offset;
# `merge --recover` must drop that pass, count it, and write a file perf
# reads without a warning. `loss` must refuse a perf.data holding such a
# record instead of counting it as fine.
. "$(dirname "$0")/lib.sh"
need_perf_event
command -v python3 >/dev/null || skip "python3 not installed"

"$SHARDREC" record -q --keep-shards -a --threads=cpu -o k.data -- "$PROGS/hot" 300 1 ||
	fail "record failed"
[ -d k.data.shards ] || fail "--keep-shards removed the shards"

# Flips the type of the middle SAMPLE of the first shard holding samples; prints "shard offset".
flip() {
	python3 - "$1" <<'PY'
import glob, struct, sys
def samples(b):
    pos, out = 64, []
    while pos + 40 <= len(b):
        n = struct.unpack_from('<Q', b, pos + 24)[0]
        end, p = pos + 40 + n, pos + 40
        while p + 24 <= end:
            ln = struct.unpack_from('<Q', b, p + 16)[0]
            r = p + 24
            while r < p + 24 + ln:
                t, _, s = struct.unpack_from('<IHH', b, r)
                if t == 9:
                    out.append(r)
                r += s
            p += 24 + ln
        pos = end
    return out
for f in sorted(glob.glob(sys.argv[1] + '/shard.*'), key=lambda f: int(f.rsplit('.', 1)[1])):
    b = bytearray(open(f, 'rb').read())
    s = samples(b)
    if s:
        off = s[len(s) // 2]
        struct.pack_into('<I', b, off, 100)
        open(f, 'wb').write(b)
        print(f.rsplit('/', 1)[1], off)
        break
PY
}
read -r shard off < <(flip k.data.shards)
[ -n "$off" ] || fail "no SAMPLE found in the shards"
echo "flipped the SAMPLE at $shard offset $off"

# Without --recover: exit 1, the shard and the offset named.
rc=0
"$SHARDREC" merge -q k.data.shards -o m.data 2>merge.err || rc=$?
cat merge.err
[ "$rc" = 1 ] || fail "merge of a damaged shard exited $rc, not 1"
grep -q "$shard: damaged record at offset $off (type 100" merge.err ||
	fail "merge did not name $shard and offset $off"
grep -q -- "--recover" merge.err || fail "merge did not point to --recover"
[ ! -e m.data ] && [ ! -e m.data.partial ] || fail "a failed merge left an output"

# With --recover: exit 0, the pass dropped and counted, the file clean.
"$SHARDREC" merge --recover k.data.shards -o r.data 2>recover.err || {
	cat recover.err
	fail "merge --recover failed"
}
cat recover.err
grep -q "1 damaged shards, 1 dropped passes" recover.err || fail "summary does not count the dropped pass"
grep -q "$shard: damaged record at offset $off (type 100.*dropped its pass" recover.err ||
	fail "merge --recover did not say which pass it dropped"
export ALLOW_LOSS_WARNING=1
check_perf_file r.data
"$SHARDREC" loss r.data >loss.out || fail "loss failed on the recovered file"

# A perf.data with a type-100 record: loss names it instead of counting it.
python3 - r.data <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
do, ds = struct.unpack_from('<QQ', b, 40)
p = do
while p < do + ds:
    t, _, s = struct.unpack_from('<IHH', b, p)
    if t == 9:
        struct.pack_into('<I', b, p, 100)
        break
    p += s
open('bad.data', 'wb').write(b)
PY
rc=0
"$SHARDREC" loss bad.data >loss.out 2>loss.err || rc=$?
cat loss.err
[ "$rc" != 0 ] || fail "loss counted a file holding a type-100 record as fine"
grep -q "damaged record at offset" loss.err || fail "loss did not name the damaged record"

# A shard or header.data of the other byte order (issue 32, item 5): the
# numbers of its header swapped, as that machine writes them. merge and
# merge --recover: exit 1, one line naming the file and the byte order.
swap_header() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
f, what = sys.argv[1], sys.argv[2]
b = bytearray(open(f, 'rb').read())
here, there = ('<', '>') if sys.byteorder == 'little' else ('>', '<')
# shard: magic, version, writer, node, flags, then end at 40; perf.data: the magic
fields = [(0, 'QIIiI'), (40, 'Q')] if what == 'shard' else [(0, 'Q')]
for off, fmt in fields:
    struct.pack_into(there + fmt, b, off, *struct.unpack_from(here + fmt, b, off))
open(f, 'wb').write(b)
PY
}
other=big-endian
[ "$(python3 -c 'import sys; print(sys.byteorder)')" = little ] || other=little-endian
byte_order_refused() {
	local what=$1 file=$2 opt rc
	for opt in "" --recover; do
		rc=0
		"$SHARDREC" merge $opt bo.shards -o bo.data 2>bo.err || rc=$?
		cat bo.err
		[ "$rc" = 1 ] || fail "merge${opt:+ $opt} of $what exited $rc, not 1"
		[ "$(wc -l <bo.err)" = 1 ] || fail "merge${opt:+ $opt} of $what: the error is not one line"
		grep -q "$file: .* written on a machine of the other byte order ($other); " bo.err ||
			fail "merge${opt:+ $opt} of $what does not name $file and its byte order"
		[ ! -e bo.data ] || fail "merge${opt:+ $opt} of $what wrote an output"
	done
}
rm -rf bo.shards && cp -r k.data.shards bo.shards
swap_header bo.shards/shard.0 shard
byte_order_refused "a shard of the other byte order" bo.shards/shard.0
rm -rf bo.shards && cp -r k.data.shards bo.shards
swap_header bo.shards/header.data perf
byte_order_refused "a header.data of the other byte order" bo.shards/header.data
echo "ok"

# Bytes appended to a finished run's shard (issue 33 item 7): --recover
# refused the whole shard (1,494 samples) for 40 bytes after its end. It
# now keeps every pass up to the end its writer sealed, and says so.
"$SHARDREC" record -q --keep-shards -o tr.data -- "$PROGS/hot" 300 1 || fail "record for the trailing bytes failed"
cp -r tr.data.shards tr-clean
"$SHARDREC" merge -q tr-clean -o tr-clean.data || fail "merge of the clean copy failed"
head -c 40 /dev/zero >>tr.data.shards/shard.0
rc=0
"$SHARDREC" merge -q tr.data.shards -o tr-no.data 2>tr.err || rc=$?
[ "$rc" = 1 ] && grep -q "shard.0: 40 bytes after its end at offset [0-9]* (damaged shard): run with --recover" tr.err ||
	{ cat tr.err; fail "trailing bytes without --recover: exit $rc"; }
"$SHARDREC" merge --recover tr.data.shards -o tr.data.rec 2>tr.err || { cat tr.err; fail "trailing bytes: merge --recover failed"; }
grep -q "40 bytes after its end .*dropped them, kept every pass before" tr.err || { cat tr.err; fail "--recover did not say what it dropped"; }
want=$(perf_samples tr-clean.data)
got=$(perf_samples tr.data.rec)
echo "40 bytes after a finished shard: --recover kept $got of $want samples"
[ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "trailing bytes: --recover kept $got samples, the clean merge $want"
check_perf_file tr.data.rec
