// SPDX-License-Identifier: GPL-2.0
/* Build id readers (ELF, sysfs notes) and dso_hits. */
#include "recorder/header/buildid.h"
#include "recorder/header/dso_hits.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit_util.h"

/*
 * The BUILD_ID encoder lives in pfile_feat.c; this weak stand-in is used
 * only when the test is linked without it.
 */
static size_t stub_calls, stub_nr;

__attribute__((weak)) int pfile_feat__build_ids(struct pfile_featset *fs,
						const struct pfile_build_id *b, size_t nr)
{
	(void)fs;
	(void)b;
	stub_calls++;
	stub_nr = nr;
	return 0;
}

/* ---- a tiny ELF writer ---- */

struct elfbuf {
	unsigned char b[4096];
	size_t len;
	bool big, is64;
};

static void put(struct elfbuf *e, size_t off, uint64_t v, int width)
{
	for (int i = 0; i < width; i++) {
		int shift = e->big ? (width - 1 - i) * 8 : i * 8;

		e->b[off + i] = v >> shift;
	}
}

/* Appends a note to @n (name, type, desc) padded to @align. */
static void note_add(struct elfbuf *n, const char *name, uint32_t type, const void *desc,
		     uint32_t descsz, size_t align)
{
	uint32_t namesz = strlen(name) + 1;

	put(n, n->len, namesz, 4);
	put(n, n->len + 4, descsz, 4);
	put(n, n->len + 8, type, 4);
	n->len += 12;
	memcpy(n->b + n->len, name, namesz);
	n->len += (namesz + align - 1) & ~(align - 1);
	memcpy(n->b + n->len, desc, descsz);
	n->len += (descsz + align - 1) & ~(align - 1);
}

/*
 * ELF (class/order from @e) with one note area at 512 described by a
 * PT_NOTE program header, or by a SHT_NOTE section header if @sections.
 */
static void elf_make(struct elfbuf *e, const struct elfbuf *notes, bool sections, uint64_t align)
{
	size_t tab = e->is64 ? 64 : 52, data = 512;

	memset(e->b, 0, sizeof(e->b));
	memcpy(e->b, ELFMAG, SELFMAG);
	e->b[EI_CLASS] = e->is64 ? ELFCLASS64 : ELFCLASS32;
	e->b[EI_DATA] = e->big ? ELFDATA2MSB : ELFDATA2LSB;
	e->b[EI_VERSION] = EV_CURRENT;
	put(e, 16, ET_DYN, 2);
	if (e->is64) {
		put(e, sections ? 40 : 32, tab, 8); /* e_shoff / e_phoff */
		put(e, 52, 64, 2);
		put(e, sections ? 58 : 54, sections ? 64 : 56, 2);
		put(e, sections ? 60 : 56, 1, 2);
		if (sections) { /* sh_type, sh_offset, sh_size, sh_addralign */
			put(e, tab + 4, SHT_NOTE, 4);
			put(e, tab + 24, data, 8);
			put(e, tab + 32, notes->len, 8);
			put(e, tab + 48, align, 8);
		} else { /* p_type, p_offset, p_filesz, p_align */
			put(e, tab, PT_NOTE, 4);
			put(e, tab + 8, data, 8);
			put(e, tab + 32, notes->len, 8);
			put(e, tab + 48, align, 8);
		}
	} else {
		put(e, sections ? 32 : 28, tab, 4);
		put(e, 40, 52, 2);
		put(e, sections ? 46 : 42, sections ? 40 : 32, 2);
		put(e, sections ? 48 : 44, 1, 2);
		if (sections) {
			put(e, tab + 4, SHT_NOTE, 4);
			put(e, tab + 16, data, 4);
			put(e, tab + 20, notes->len, 4);
			put(e, tab + 32, align, 4);
		} else {
			put(e, tab, PT_NOTE, 4);
			put(e, tab + 4, data, 4);
			put(e, tab + 16, notes->len, 4);
			put(e, tab + 28, align, 4);
		}
	}
	memcpy(e->b + data, notes->b, notes->len);
	e->len = data + notes->len;
}

static char tmpdir[64];

static void path_of(char *path, const char *rel) { snprintf(path, PATH_MAX, "%s/%s", tmpdir, rel); }

static void fill_id(uint8_t *id, uint8_t seed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		id[i] = seed + i;
}

/* Writes an ELF whose build id is 20 bytes from @seed; ABI-tag note first. */
static void write_elf(const char *rel, uint8_t seed)
{
	struct elfbuf notes = {.len = 0}, e = {.is64 = true};
	uint8_t id[20], abi[16] = {0};

	fill_id(id, seed, sizeof(id));
	note_add(&notes, "GNU", NT_GNU_ABI_TAG, abi, sizeof(abi), 4);
	note_add(&notes, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	elf_make(&e, &notes, false, 4);
	unit_put_bytes(tmpdir, rel, e.b, e.len);
}

static int group_setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/test_buildid.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	return unit_rmtree(tmpdir);
}

static int read_rel(const char *rel, uint8_t id[20], uint8_t *size)
{
	char path[PATH_MAX];

	path_of(path, rel);
	return buildid__read_elf(path, id, size);
}

/* ---- ELF ---- */

/* Expected: what `readelf -n` prints as "Build ID:", or "" if none. */
static void readelf_build_id(const char *path, char *hex, size_t len)
{
	char cmd[PATH_MAX + 64], line[512];
	FILE *p;

	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "Build ID: ");

		if (s && !hex[0])
			snprintf(hex, len, "%.*s", (int)strcspn(s + 10, " \n"), s + 10);
	}
	pclose(p);
}

static void to_hex(const uint8_t *id, size_t n, char *hex)
{
	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * n] = '\0';
}

static void test_elf_self(void **state)
{
	char want[128], got[41], exe[PATH_MAX];
	uint8_t id[20], size = 0;
	ssize_t n;
	int err;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	readelf_build_id(exe, want, sizeof(want));
	if (system("readelf --version >/dev/null 2>&1"))
		skip();
	err = buildid__read_elf("/proc/self/exe", id, &size);
	if (!want[0]) {
		assert_int_equal(err, -ENOENT);
		return;
	}
	assert_int_equal(err, 0);
	to_hex(id, size, got);
	assert_string_equal(got, want);
}

/* Every class x byte order x header kind, 4- and 8-aligned areas, short ids. */
static void test_elf_crafted(void **state)
{
	(void)state;
	for (int v = 0; v < 16; v++) {
		struct elfbuf notes = {.big = v & 2}, e = {.is64 = v & 1, .big = v & 2};
		bool sections = v & 4;
		size_t align = v & 8 ? 8 : 4;
		uint8_t id[20], got[20], size = 0, prop[16] = {0};
		uint32_t idlen = v == 5 ? 16 : 20; /* an md5-style 16-byte id */

		fill_id(id, 0x10 * v, sizeof(id));
		note_add(&notes, "GNU", NT_GNU_PROPERTY_TYPE_0, prop, sizeof(prop), align);
		note_add(&notes, "Go", 4, prop, 5, align);
		note_add(&notes, "GNU", NT_GNU_BUILD_ID, id, idlen, align);
		elf_make(&e, &notes, sections, align);
		unit_put_bytes(tmpdir, "crafted", e.b, e.len);
		assert_int_equal(read_rel("crafted", got, &size), 0);
		assert_int_equal(size, idlen);
		assert_memory_equal(got, id, idlen);
	}
}

static void test_elf_no_build_id(void **state)
{
	struct elfbuf notes = {.len = 0}, e = {.is64 = true};
	uint8_t abi[16] = {0}, id[20], size;

	(void)state;
	note_add(&notes, "GNU", NT_GNU_ABI_TAG, abi, sizeof(abi), 4);
	note_add(&notes, "XYZ", NT_GNU_BUILD_ID, abi, sizeof(abi), 4); /* wrong owner */
	elf_make(&e, &notes, false, 4);
	unit_put_bytes(tmpdir, "nobid", e.b, e.len);
	assert_int_equal(read_rel("nobid", id, &size), -ENOENT);
}

static void expect_fails(const struct elfbuf *e, const char *what)
{
	uint8_t id[20], size;
	int err;

	unit_put_bytes(tmpdir, "bad", e->b, e->len);
	err = read_rel("bad", id, &size);
	if (err == 0)
		fail_msg("%s: accepted", what);
	assert_true(err < 0);
}

static void test_elf_malformed(void **state)
{
	struct elfbuf notes = {.len = 0}, good = {.is64 = true}, e;
	uint8_t id[20] = {1}, out[20], size;
	char path[PATH_MAX];

	(void)state;
	note_add(&notes, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	elf_make(&good, &notes, false, 4);

	for (size_t len = 0; len < good.len; len++) { /* every truncation */
		e = good;
		e.len = len;
		expect_fails(&e, "truncated");
	}
	e = good;
	put(&e, 32, 0xffffffffffffull, 8); /* bogus e_phoff */
	expect_fails(&e, "phoff");
	e = good;
	put(&e, 32, 4090, 8); /* phdr table straddling the end */
	expect_fails(&e, "phoff near end");
	e = good;
	put(&e, 56, 0xfffe, 2); /* e_phnum */
	expect_fails(&e, "phnum");
	e = good;
	put(&e, 54, 8, 2); /* e_phentsize too small */
	expect_fails(&e, "phentsize");
	e = good;
	put(&e, 64 + 8, 1ull << 62, 8); /* p_offset */
	expect_fails(&e, "p_offset");
	e = good;
	put(&e, 64 + 32, ~0ull, 8); /* p_filesz */
	expect_fails(&e, "p_filesz");
	e = good;
	put(&e, 512, 0xffffffff, 4); /* namesz */
	expect_fails(&e, "namesz");
	e = good;
	put(&e, 516, 0xfffffff0, 4); /* descsz */
	expect_fails(&e, "descsz");
	e = good;
	e.b[EI_CLASS] = 7;
	expect_fails(&e, "class");
	e = good;
	e.b[EI_DATA] = 0;
	expect_fails(&e, "data");
	unit_put_bytes(tmpdir, "text", "hello, world\n", 13);
	assert_int_equal(read_rel("text", out, &size), -EINVAL);
	path_of(path, "");
	assert_int_equal(buildid__read_elf(path, out, &size), -EINVAL); /* a directory */
	assert_int_equal(buildid__read_elf("/dev/null", out, &size), -EINVAL);
	assert_int_equal(buildid__read_elf("/nonexistent/x", out, &size), -ENOENT);
}

/* Random byte flips in the headers and notes: any answer, never a crash. */
static void test_elf_mutations(void **state)
{
	struct elfbuf notes = {.len = 0}, good = {.is64 = true}, e;
	uint8_t id[20] = {1}, out[20], size;
	unsigned int seed = 1;

	(void)state;
	note_add(&notes, "GNU", NT_GNU_ABI_TAG, id, 16, 4);
	note_add(&notes, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	for (int sec = 0; sec < 2; sec++) {
		elf_make(&good, &notes, sec, 4);
		for (int i = 0; i < 1500; i++) {
			e = good;
			for (int k = 0; k < 1 + i % 4; k++) {
				size_t pos = rand_r(&seed) % 3 ? (size_t)rand_r(&seed) % 128
							       : 512 + rand_r(&seed) % notes.len;

				e.b[pos] = rand_r(&seed);
			}
			unit_put_bytes(tmpdir, "mut", e.b, e.len);
			if (read_rel("mut", out, &size) == 0)
				assert_true(size > 0 && size <= 20);
		}
	}
}

/* ---- sysfs notes ---- */

static void test_kernel_notes_fake(void **state)
{
	struct elfbuf n = {.len = 0};
	uint8_t id[20], got[20], size, xen[12] = {0};
	char root[PATH_MAX];

	(void)state;
	fill_id(id, 0xa0, sizeof(id));
	note_add(&n, "Xen", 18, xen, 8, 4);
	note_add(&n, "Linux", 0x100, "6.1.0", 6, 4);
	note_add(&n, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	unit_put_bytes(tmpdir, "k/sys/kernel/notes", n.b, n.len);
	path_of(root, "k");
	assert_int_equal(buildid__read_kernel(root, got, &size), 0);
	assert_int_equal(size, 20);
	assert_memory_equal(got, id, 20);

	n.len = 0;
	note_add(&n, "Xen", 18, xen, 8, 4);
	unit_put_bytes(tmpdir, "k2/sys/kernel/notes", n.b, n.len - 2); /* truncated, no GNU note */
	path_of(root, "k2");
	assert_int_equal(buildid__read_kernel(root, got, &size), -ENOENT);
	path_of(root, "nothing");
	assert_int_equal(buildid__read_kernel(root, got, &size), -ENOENT);
}

static void test_module_notes_fake(void **state)
{
	struct elfbuf n = {.len = 0};
	uint8_t id[20], got[20], size;
	char root[PATH_MAX];

	(void)state;
	fill_id(id, 0x40, sizeof(id));
	note_add(&n, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	unit_put_bytes(tmpdir, "m/sys/module/nf_nat/notes/.note.gnu.build-id", n.b, n.len);
	path_of(root, "m");
	assert_int_equal(buildid__read_module(root, "nf_nat", got, &size), 0);
	assert_memory_equal(got, id, 20);
	assert_int_equal(buildid__read_module(root, "other", got, &size), -ENOENT);
	assert_int_equal(buildid__read_module(root, "../x", got, &size), -EINVAL);
}

/* The running kernel's: what `perf buildid-list -k` says, if perf is here. */
static void test_kernel_notes_real(void **state)
{
	uint8_t got[20], size;
	char hex[41], want[128] = "";
	FILE *p;

	(void)state;
	if (buildid__read_kernel(NULL, got, &size))
		skip();
	to_hex(got, size, hex);
	p = popen("perf buildid-list -k 2>/dev/null", "r");
	if (p) {
		if (!fgets(want, sizeof(want), p))
			want[0] = '\0';
		pclose(p);
	}
	want[strcspn(want, "\n")] = '\0';
	if (want[0])
		assert_string_equal(hex, want);
}

/* ---- dso_hits ---- */

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
	};
	unsigned char body[4200];
};

/* MMAP (mmap2 false) or MMAP2 record with a 32-byte zero trailer. */
static const struct perf_event_header *mk_mmap(struct rec *r, bool mmap2, uint16_t misc,
					       int32_t pid, uint64_t start, uint64_t len,
					       const char *name)
{
	size_t name_off = mmap2 ? 72 : 40;
	size_t size = name_off + ((strlen(name) + 8) & ~7ul) + 32;

	memset(r, 0, sizeof(*r));
	r->h.type = mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	r->h.misc = misc;
	r->h.size = size;
	memcpy((char *)r + 8, &pid, 4);
	memcpy((char *)r + 12, &pid, 4);
	memcpy((char *)r + 16, &start, 8);
	memcpy((char *)r + 24, &len, 8);
	strcpy((char *)r + name_off, name);
	return &r->h;
}

static const struct perf_event_header *mk_fork(struct rec *r, uint32_t pid, uint32_t ppid,
					       uint16_t misc)
{
	uint32_t f[4] = {pid, ppid, pid, ppid};

	memset(r, 0, sizeof(*r));
	r->h = (struct perf_event_header){PERF_RECORD_FORK, misc, 8 + 24 + 32};
	memcpy((char *)r + 8, f, sizeof(f));
	return &r->h;
}

static const struct perf_event_header *mk_exec(struct rec *r, uint32_t pid)
{
	memset(r, 0, sizeof(*r));
	r->h =
	    (struct perf_event_header){PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 16 + 8 + 32};
	memcpy((char *)r + 8, &pid, 4);
	memcpy((char *)r + 12, &pid, 4);
	strcpy((char *)r + 16, "new");
	return &r->h;
}

/* SAMPLE { id, ip, pid/tid, time, cpu, period } */
static const struct perf_event_header *mk_sample(struct rec *r, uint16_t mode, uint32_t pid,
						 uint64_t ip)
{
	memset(r, 0, 64);
	r->h = (struct perf_event_header){PERF_RECORD_SAMPLE, mode, 8 + 6 * 8};
	memcpy((char *)r + 16, &ip, 8);
	memcpy((char *)r + 24, &pid, 4);
	memcpy((char *)r + 28, &pid, 4);
	return &r->h;
}

struct hits_env {
	struct pfile_idlayout layout;
	struct dso_hits *h;
	char root[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
};

static void hits_env__init(struct hits_env *env)
{
	struct elfbuf n = {.len = 0};
	uint8_t id[20];

	write_elf("dso/a.so", 0x01);
	write_elf("dso/b.so", 0x02);
	write_elf("dso/c.so", 0x03);
	path_of(env->a, "dso/a.so");
	path_of(env->b, "dso/b.so");
	path_of(env->c, "dso/c.so");
	fill_id(id, 0x70, sizeof(id));
	note_add(&n, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	unit_put_bytes(tmpdir, "hroot/sys/kernel/notes", n.b, n.len);
	n.len = 0;
	fill_id(id, 0x80, sizeof(id));
	note_add(&n, "GNU", NT_GNU_BUILD_ID, id, sizeof(id), 4);
	unit_put_bytes(tmpdir, "hroot/sys/module/fake_mod/notes/.note.gnu.build-id", n.b, n.len);
	path_of(env->root, "hroot");
	pfile_idlayout__init(&env->layout, ST, true);
	env->h = dso_hits__new(&env->layout);
	assert_non_null(env->h);
}

/* Kernel, one module, and pid 100's maps: a, b, //anon, [vdso]. */
static void feed_base_maps(struct hits_env *env)
{
	struct rec r;

	dso_hits__feed(env->h, mk_mmap(&r, false, PERF_RECORD_MISC_KERNEL, -1,
				       0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text"));
	dso_hits__feed(env->h,
		       mk_mmap(&r, false, PERF_RECORD_MISC_KERNEL, -1, 0xffffffffc0000000ull,
			       0x10000, "/lib/modules/x/kernel/fake-mod.ko.zst"));
	dso_hits__feed(env->h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x400000, 0x100000, env->a));
	dso_hits__feed(env->h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x600000, 0x1000, env->b));
	dso_hits__feed(env->h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x700000, 0x1000, "//anon"));
	dso_hits__feed(env->h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x800000, 0x1000, "[vdso]"));
}

static const struct pfile_build_id *find_id(const struct pfile_build_id *b, size_t nr,
					    const char *path)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(b[i].path, path))
			return &b[i];
	return NULL;
}

/* The [vdso] entry: this process's vdso build id (the kernel's), never the kernel flag. */
static void assert_vdso(const struct pfile_build_id *b, size_t nr)
{
	const struct pfile_build_id *e = find_id(b, nr, "[vdso]");
	uint8_t id[20], size;

	assert_non_null(e);
	assert_false(e->kernel);
	assert_int_equal(buildid__read_vdso(id, &size), 0);
	assert_int_equal(e->size, size);
	assert_memory_equal(e->id, id, size);
}

static void test_dso_hits_marks_only_hits(void **state)
{
	struct hits_env env;
	struct pfile_build_id *b;
	const struct pfile_build_id *e;
	struct rec r;
	uint8_t id[20];
	size_t nr;

	(void)state;
	hits_env__init(&env);
	feed_base_maps(&env);
	dso_hits__feed(env.h, mk_fork(&r, 200, 100, 0));			    /* copies */
	dso_hits__feed(env.h, mk_fork(&r, 300, 100, PERF_RECORD_MISC_FORK_EXEC));   /* empty */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 200, 0x400010)); /* a */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 300, 0x600010));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x700010)); /* anon */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x800010)); /* vdso */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 999, 0x600010));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x500000)); /* a's end */
	dso_hits__feed(env.h, mk_exec(&r, 200));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 200, 0x600010));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_KERNEL, 200, 0xffffffff81000100ull));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_HYPERVISOR, 100, 0x600010));

	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	/* a, the kernel, and the [vdso], which perf writes hit or not */
	assert_int_equal(nr, 3);
	assert_vdso(b, nr);
	e = find_id(b, nr, env.a);
	assert_non_null(e);
	assert_false(e->kernel);
	assert_int_equal(e->size, 20);
	fill_id(id, 0x01, 20);
	assert_memory_equal(e->id, id, 20);
	e = find_id(b, nr, "[kernel.kallsyms]");
	assert_non_null(e);
	assert_true(e->kernel);
	fill_id(id, 0x70, 20);
	assert_memory_equal(e->id, id, 20);
	dso_hits__free_ids(b, nr);
	dso_hits__delete(env.h);
}

/* A map laid over another wins where it lies; the rest stays the old one's. */
static void test_dso_hits_overlap_and_module(void **state)
{
	struct hits_env env;
	struct pfile_build_id *b;
	const struct pfile_build_id *e;
	struct rec r;
	uint8_t id[20];
	size_t nr;

	(void)state;
	hits_env__init(&env);
	feed_base_maps(&env);
	dso_hits__feed(env.h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x401000, 0x1000, env.c));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x401010)); /* c */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_KERNEL, 100, 0xffffffffc0000010ull));
	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	assert_int_equal(nr, 3); /* c, the module, the [vdso] */
	assert_vdso(b, nr);
	assert_non_null(find_id(b, nr, env.c));
	e = find_id(b, nr, "/lib/modules/x/kernel/fake-mod.ko.zst");
	assert_non_null(e);
	assert_true(e->kernel);
	fill_id(id, 0x80, 20);
	assert_memory_equal(e->id, id, 20);
	dso_hits__free_ids(b, nr);

	/* around c, a is still there: both sides */
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x400fff));
	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	assert_int_equal(nr, 4); /* a, c, the module, the [vdso] */
	dso_hits__free_ids(b, nr);
	dso_hits__delete(env.h);

	hits_env__init(&env);
	feed_base_maps(&env);
	dso_hits__feed(env.h,
		       mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x401000, 0x1000, env.c));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x402000)); /* a, after */
	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	assert_int_equal(nr, 2); /* a, the [vdso] */
	assert_non_null(find_id(b, nr, env.a));
	dso_hits__free_ids(b, nr);
	dso_hits__delete(env.h);
}

/* Records too short or unterminated are ignored, never read past. */
static void test_dso_hits_malformed(void **state)
{
	struct hits_env env;
	struct pfile_build_id *b;
	struct rec r;
	size_t nr;

	(void)state;
	hits_env__init(&env);
	mk_mmap(&r, true, PERF_RECORD_MISC_USER, 100, 0x400000, 0x1000, "/abcdefg");
	r.h.size = 72 + 8; /* no room for the NUL */
	memset(r.body + 64, 'x', 200);
	dso_hits__feed(env.h, &r.h);
	r.h.size = 16;
	dso_hits__feed(env.h, &r.h);
	mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x400010);
	r.h.size = 16; /* ip beyond the record */
	dso_hits__feed(env.h, &r.h);
	mk_fork(&r, 5, 6, 0);
	r.h.size = 12;
	dso_hits__feed(env.h, &r.h);
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x400010));
	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	assert_int_equal(nr, 0);
	dso_hits__free_ids(b, nr);
	dso_hits__delete(env.h);
	dso_hits__delete(NULL);
}

/* Many processes and maps, a million samples: must stay fast (no O(n^2)). */
static void test_dso_hits_scale(void **state)
{
	struct hits_env env;
	struct pfile_build_id *b;
	struct rec r;
	char name[64];
	size_t nr;

	(void)state;
	hits_env__init(&env);
	for (int pid = 1; pid <= 2000; pid++)
		for (int m = 0; m < 50; m++) {
			snprintf(name, sizeof(name), "/nonexistent/lib%d.so", m);
			dso_hits__feed(env.h,
				       mk_mmap(&r, true, PERF_RECORD_MISC_USER, pid,
					       0x10000000ull + m * 0x100000ull, 0x80000, name));
		}
	for (int i = 0; i < 1000000; i++)
		dso_hits__feed(env.h,
			       mk_sample(&r, PERF_RECORD_MISC_USER, 1 + (i / 64) % 2000,
					 0x10000000ull + (i % 50) * 0x100000ull + i % 0x80000));
	assert_int_equal(dso_hits__collect(env.h, env.root, &b, &nr), 0);
	assert_int_equal(nr, 0); /* all hit, none readable */
	dso_hits__free_ids(b, nr);
	dso_hits__delete(env.h);
}

static void test_dso_hits_encode(void **state)
{
	struct pfile_featset fs;
	struct hits_env env;
	struct rec r;
	size_t nr = 99;

	(void)state;
	memset(&fs, 0, sizeof(fs));
	hits_env__init(&env);
	feed_base_maps(&env);
	stub_calls = 0;
	assert_int_equal(dso_hits__encode(env.h, env.root, &fs, &nr), 0);
	/* nothing hit: the [vdso] alone, as perf record writes it */
	assert_int_equal(nr, 1);
	if (stub_calls)
		assert_int_equal(stub_nr, 1);
	else
		assert_true(fs.sec[PFILE_FEAT_BUILD_ID].size > 0);
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_USER, 100, 0x600000));
	dso_hits__feed(env.h, mk_sample(&r, PERF_RECORD_MISC_KERNEL, 100, 0xffffffff81000000ull));
	stub_calls = 0;
	assert_int_equal(dso_hits__encode(env.h, env.root, &fs, &nr), 0);
	assert_int_equal(nr, 3); /* b, the kernel, the [vdso] */
	if (stub_calls) {
		assert_int_equal(stub_nr, 3);
	} else { /* the real encoder: a payload was stored */
		assert_non_null(fs.sec[PFILE_FEAT_BUILD_ID].data);
		assert_true(fs.sec[PFILE_FEAT_BUILD_ID].size > 0);
	}
	free(fs.sec[PFILE_FEAT_BUILD_ID].data);
	dso_hits__delete(env.h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_elf_self),
	    cmocka_unit_test(test_elf_crafted),
	    cmocka_unit_test(test_elf_no_build_id),
	    cmocka_unit_test(test_elf_malformed),
	    cmocka_unit_test(test_elf_mutations),
	    cmocka_unit_test(test_kernel_notes_fake),
	    cmocka_unit_test(test_module_notes_fake),
	    cmocka_unit_test(test_kernel_notes_real),
	    cmocka_unit_test(test_dso_hits_marks_only_hits),
	    cmocka_unit_test(test_dso_hits_overlap_and_module),
	    cmocka_unit_test(test_dso_hits_malformed),
	    cmocka_unit_test(test_dso_hits_scale),
	    cmocka_unit_test(test_dso_hits_encode),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
