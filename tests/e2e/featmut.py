#!/usr/bin/env python3
# featmut.py HEADER.DATA: prints one mutation a line, "LABEL OFFSET HEXBYTES",
# of the strings, string lengths and ids of a perf.data header's feature
# sections, laid out as perf 6.1's header.c process_* functions read them.
# featmut.py --apply FILE OFFSET HEXBYTES writes one into FILE;
# featmut.py --write-all HEADER.DATA DIR writes each into DIR/N.data (N
# its line) and prints the list.
# 61-features.sh applies each, merges and asks perf whether it still reads
# the file: what the merge lets through, perf must read.
import struct
import sys

if sys.argv[1] == '--apply':
    with open(sys.argv[2], 'r+b') as f:
        f.seek(int(sys.argv[3]))
        f.write(bytes.fromhex(sys.argv[4]))
    sys.exit(0)

write_all = sys.argv[1] == '--write-all'
if write_all:
    sys.argv.pop(1)
d = open(sys.argv[1], 'rb').read()
data_off, data_size = struct.unpack_from('<QQ', d, 40)
bits = [i for i in range(256) if struct.unpack_from('<4Q', d, 72)[i // 64] >> (i % 64) & 1]
secs = {}
for i, b in enumerate(bits):
    secs[b] = struct.unpack_from('<QQ', d, data_off + data_size + 16 * i)

out = []


def u32(p):
    return struct.unpack_from('<I', d, p)[0]


def string(label, p, cpu_list=False):
    """The string whose u32 length is at p: its mutations; returns the offset after it."""
    n = u32(p)
    body = d[p + 4:p + 4 + n]
    text = body.split(b'\0', 1)[0]
    out.append((label + ':len0', p, struct.pack('<I', 0)))
    out.append((label + ':lenbig', p, struct.pack('<I', n + 0x10000)))
    if len(text) < n:
        out.append((label + ':nul', p + 4 + len(text), b'\x80'))
    if cpu_list:
        out.append((label + ':first', p + 4, b'\x80'))
        for k, v in (('comma', b'0,0\0'), ('rev', b'1-0\0'), ('alpha', b'x\0'),
                     ('sep', b'0;1\0'), ('octal', b'08\0')):
            if len(v) <= n:
                out.append((label + ':' + k, p + 4, v))
    return p + 4 + n


def strs(label, p, count, cpu_list=False):
    for i in range(count):
        p = string('%s[%d]' % (label, i), p, cpu_list)
    return p


def counted(label, p, per=1, cpu_list=False, first=None):
    """u32 count, then count * per strings; mutates the first @first of them only."""
    n = u32(p)
    out.append((label + ':count', p, struct.pack('<I', n + 1000)))
    p += 4
    for i in range(n * per):
        if first is not None and i >= first:
            p += 4 + u32(p)
        else:
            p = string('%s[%d]' % (label, i), p, cpu_list)
    return p


names = {3: 'HOSTNAME', 4: 'OSRELEASE', 5: 'VERSION', 6: 'ARCH', 8: 'CPUDESC', 9: 'CPUID'}
nr_cpus = u32(secs[7][0]) if 7 in secs else 0
for feat, (o, size) in sorted(secs.items()):
    end = o + size
    if feat in names:
        string(names[feat], o)
    elif feat == 11:
        counted('CMDLINE', o, first=2)
    elif feat == 13:
        p = counted('CPU_TOPOLOGY.cores', o, cpu_list=True)
        p = counted('CPU_TOPOLOGY.threads', p, cpu_list=True)
        if p < end:
            out.append(('CPU_TOPOLOGY.socket0:big', p + 4, struct.pack('<I', nr_cpus + 1)))
            out.append(('CPU_TOPOLOGY.socket0:minus1', p + 4, struct.pack('<I', 0xffffffff)))
            out.append(('CPU_TOPOLOGY.core0:big', p, struct.pack('<I', 0x7fffffff)))
            p += 8 * nr_cpus
        if p < end:
            counted('CPU_TOPOLOGY.dies', p, cpu_list=True)
    elif feat == 14:
        p, n = o + 4, u32(o)
        for i in range(n):
            out.append(('NUMA.node%d:id' % i, p, struct.pack('<I', 0x7fffffff)))
            p = string('NUMA.node%d.cpus' % i, p + 20, cpu_list=True)
    elif feat == 16:
        p = o + 4
        for i in range(u32(o)):
            p = string('PMU_MAPPINGS[%d]' % i, p + 4) if i < 2 else p + 8 + u32(p + 4)
    elif feat == 20:
        p = o + 8
        for i in range(u32(o + 4)):
            p = strs('CACHE[%d]' % i, p + 16, 3, cpu_list=False)
    elif feat in (28, 30):
        counted({28: 'CPU_PMU_CAPS', 30: 'HYBRID'}[feat], o, per=2)
    elif feat == 31:
        p = o + 4
        for i in range(u32(o)):
            p = strs('PMU_CAPS[%d]' % i, p + 4, 2 * u32(p))
            p = string('PMU_CAPS[%d].name' % i, p)
for n, (label, off, b) in enumerate(out):
    print(label, off, b.hex())
    if write_all:
        m = bytearray(d)
        m[off:off + len(b)] = b
        open('%s/%d.data' % (sys.argv[2], n), 'wb').write(m)
