// SPDX-License-Identifier: GPL-2.0
/*
 * perf's build-id cache as buildid_cache.c fills it: the layout of an entry
 * (elf hard link, probes, the relative .build-id link), the real path, a
 * second add, a missing or rebuilt DSO, an unwritable cache, a copy across
 * file systems, the kernel and vdso entries, and the list of a perf.data's
 * BUILD_ID feature.
 */
#include "recorder/header/buildid.h"
#include "recorder/header/buildid_cache.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit_util.h"

struct fix {
	char tmp[PATH_MAX];   /* the test's directory, 0755 */
	char cache[PATH_MAX]; /* tmp/cache: made by the code under test */
	char dso[PATH_MAX];   /* tmp/dso/prog: a copy of this test binary */
	char real[PATH_MAX];  /* its real path */
	uint8_t id[20];
	uint8_t size;
	char hex[41];
};

static void to_hex(const uint8_t *id, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * len] = '\0';
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	size_t len;
	char *exe;

	assert_non_null(f);
	umask(022);
	snprintf(f->tmp, sizeof(f->tmp), "/tmp/test_buildid_cache.XXXXXX");
	assert_non_null(mkdtemp(f->tmp));
	assert_int_equal(chmod(f->tmp, 0755), 0);
	snprintf(f->cache, sizeof(f->cache), "%s/cache", f->tmp);
	snprintf(f->dso, sizeof(f->dso), "%s/dso/prog", f->tmp);
	/* an ELF with a GNU build id: this binary (gcc passes --build-id) */
	exe = unit_slurp("/proc/self/exe", &len);
	unit_put_bytes(f->tmp, "dso/prog", exe, len);
	free(exe);
	assert_int_equal(chmod(f->dso, 0755), 0);
	assert_int_equal(buildid__read_elf(f->dso, f->id, &f->size), 0);
	to_hex(f->id, f->size, f->hex);
	assert_non_null(realpath(f->dso, f->real));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	chmod(f->cache, 0755); /* the read-only case */
	unit_rmtree(f->tmp);
	free(f);
	return 0;
}

/* @f->cache + @name + "/" + @hex + "/" + @file */
static void entry_path(const struct fix *f, char *buf, const char *name, const char *hex,
		       const char *file)
{
	snprintf(buf, PATH_MAX, "%s%s/%s/%s", f->cache, name, hex, file);
}

/* The .build-id link of @hex, read; NULL when absent. */
static char *read_link(const struct fix *f, const char *hex)
{
	static char target[PATH_MAX];
	char link[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->cache, hex, hex + 2);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return NULL;
	target[n] = '\0';
	return target;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void test_dir_default(void **state)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char buf[PATH_MAX];

	(void)state;
	setenv("HOME", "/home/u", 1);
	assert_int_equal(buildid_cache__dir(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/u/.debug");
	assert_int_equal(buildid_cache__dir("/b/d", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/b/d");
	unsetenv("HOME");
	assert_int_equal(buildid_cache__dir(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, ".debug");
	assert_int_equal(buildid_cache__dir("/b/d", buf, 4), -ENAMETOOLONG);
	if (home)
		setenv("HOME", home, 1);
	free(home);
}

static void test_layout(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX], want[PATH_MAX];
	struct stat src, st;

	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, f->size), 0);
	/* elf: a hard link to the DSO (same file system) */
	entry_path(f, path, f->real, f->hex, "elf");
	assert_int_equal(stat(f->dso, &src), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_ino, src.st_ino);
	assert_int_equal(st.st_nlink, 2);
	/* probes: perf probe's empty SDT cache, 0644 */
	entry_path(f, path, f->real, f->hex, "probes");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* no separate debug info for a test binary */
	entry_path(f, path, f->real, f->hex, "debug");
	assert_false(exists(path));
	/* the entry directory, 0755 */
	entry_path(f, path, f->real, f->hex, "");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	/* .build-id/xx/yyyy -> ../../<real path>/<hex>, which resolves */
	snprintf(want, sizeof(want), "../..%s/%s", f->real, f->hex);
	assert_non_null(read_link(f, f->hex));
	assert_string_equal(read_link(f, f->hex), want);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", f->cache, f->hex, f->hex + 2);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_ino, src.st_ino);
}

/* A DSO named through a symlink is cached under its real path, as perf's realpath(). */
static void test_realpath(void **state)
{
	struct fix *f = *state;
	char alias[PATH_MAX], path[PATH_MAX];

	snprintf(alias, sizeof(alias), "%s/dso/alias", f->tmp);
	assert_int_equal(symlink("prog", alias), 0);
	assert_int_equal(buildid_cache__add(f->cache, alias, f->id, f->size), 0);
	entry_path(f, path, f->real, f->hex, "elf");
	assert_true(exists(path));
	entry_path(f, path, alias, f->hex, "elf");
	assert_false(exists(path));
}

/* Adding again changes nothing; a link already there (another path) is kept, as perf. */
static void test_twice(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX], link[PATH_MAX], want[PATH_MAX];
	struct stat a, b;

	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, f->size), 0);
	entry_path(f, path, f->real, f->hex, "elf");
	assert_int_equal(stat(path, &a), 0);
	snprintf(want, sizeof(want), "%s", read_link(f, f->hex));
	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, f->size), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_string_equal(read_link(f, f->hex), want);

	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", f->cache, f->hex, f->hex + 2);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("../../elsewhere", link), 0);
	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, f->size), 0);
	assert_string_equal(read_link(f, f->hex), "../../elsewhere");
}

static void test_missing(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/dso/gone.so", f->tmp);
	assert_int_equal(buildid_cache__add(f->cache, path, f->id, f->size), -ENOENT);
	snprintf(path, sizeof(path), "%s/.build-id", f->cache);
	assert_false(exists(path));
}

/* The file no longer has the recorded id (rebuilt): nothing cached under the old one. */
static void test_stale(void **state)
{
	struct fix *f = *state;
	uint8_t old[20];
	char path[PATH_MAX];

	memcpy(old, f->id, sizeof(old));
	old[0] ^= 0xff;
	assert_int_equal(buildid_cache__add(f->cache, f->dso, old, f->size), -ESTALE);
	snprintf(path, sizeof(path), "%s/.build-id", f->cache);
	assert_false(exists(path));
}

static void test_bad_args(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX];

	assert_int_equal(buildid_cache__add("rel/cache", f->dso, f->id, f->size), -EINVAL);
	assert_false(exists("rel"));
	/* the cache's parent must exist: perf makes the cache with one mkdir() */
	snprintf(path, sizeof(path), "%s/no/such/cache", f->tmp);
	assert_int_equal(buildid_cache__add(path, f->dso, f->id, f->size), -ENOENT);
	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, 0), -EINVAL);
	assert_int_equal(buildid_cache__add(f->cache, f->dso, f->id, 21), -EINVAL);
}

static int add_expect_denied(const struct fix *f)
{
	int ret = buildid_cache__add(f->cache, f->dso, f->id, f->size);

	return ret == -EACCES || ret == -EROFS ? 0 : 1;
}

/* A cache the user cannot write: -EACCES (root is not stopped by modes: run as nobody). */
static void test_readonly(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX];
	int status;
	pid_t pid;

	assert_int_equal(mkdir(f->cache, 0555), 0);
	if (geteuid()) {
		assert_int_equal(add_expect_denied(f), 0);
	} else {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			    setresuid(65534, 65534, 65534))
				_exit(2);
			_exit(add_expect_denied(f));
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	snprintf(path, sizeof(path), "%s/.build-id", f->cache);
	assert_false(exists(path));
}

/* Another file system: a copy, 0755, as perf's copyfile(); no temporary left. */
static void test_copy_other_fs(void **state)
{
	struct fix *f = *state;
	char cache[] = "/dev/shm/test_buildid_cache.XXXXXX", path[PATH_MAX], dir[PATH_MAX];
	struct stat src, shm, st;
	size_t a_len, b_len;
	char *a, *b;

	if (stat("/dev/shm", &shm) || stat(f->dso, &src) || shm.st_dev == src.st_dev ||
	    !mkdtemp(cache))
		skip();
	assert_int_equal(buildid_cache__add(cache, f->dso, f->id, f->size), 0);
	snprintf(dir, sizeof(dir), "%s%s/%s", cache, f->real, f->hex);
	snprintf(path, sizeof(path), "%s/elf", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_ino != src.st_ino || st.st_dev != src.st_dev);
	assert_int_equal(st.st_mode & 07777, 0755);
	a = unit_slurp(f->dso, &a_len);
	b = unit_slurp(path, &b_len);
	assert_int_equal(a_len, b_len);
	assert_memory_equal(a, b, a_len);
	free(a);
	free(b);
	/* elf and probes, nothing else (a copy goes through a hidden ".elf.XXXXXX") */
	snprintf(path, sizeof(path), "ls -A %s | tr '\\n' ' ' | grep -qx 'elf probes '", dir);
	assert_int_equal(system(path), 0);
	unit_rmtree(cache);
}

/* [kernel.kallsyms]/<hex>/kallsyms: a copy of /proc/kallsyms, 0755, no probes. */
static void test_kernel(void **state)
{
	struct fix *f = *state;
	uint8_t id[20];
	char hex[41], path[PATH_MAX];
	unsigned long long addr;
	struct stat st;
	char type, *text;

	for (int i = 0; i < 20; i++)
		id[i] = 0x11 * (i % 15 + 1);
	to_hex(id, 20, hex);
	if (access("/proc/kallsyms", R_OK))
		skip();
	assert_int_equal(buildid_cache__add_kernel(f->cache, id, 20), 0);
	entry_path(f, path, "/[kernel.kallsyms]", hex, "kallsyms");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_true(st.st_size > 0);
	text = unit_slurp(path, NULL);
	assert_int_equal(sscanf(text, "%llx %c ", &addr, &type), 2);
	free(text);
	entry_path(f, path, "/[kernel.kallsyms]", hex, "probes");
	assert_false(exists(path));
	assert_string_equal(read_link(f, hex), "../../[kernel.kallsyms]/1122334455667788"
					       "99aabbccddeeff1122334455");
	/* again: kept, not copied anew */
	assert_int_equal(buildid_cache__add_kernel(f->cache, id, 20), 0);
}

/* [vdso]/<hex>/vdso: this process's vdso image, its build id the entry's. */
static void test_vdso(void **state)
{
	struct fix *f = *state;
	char path[PATH_MAX], want[PATH_MAX], hex[41], *slash;
	uint8_t id[20], size;
	int ret = buildid_cache__add_vdso(f->cache);

	if (ret == -ENOENT)
		skip(); /* no vdso (vdso=0) or one without a build id */
	assert_int_equal(ret, 0);
	snprintf(path, sizeof(path), "%s/[vdso]", f->cache);
	snprintf(want, sizeof(want), "ls %s | head -1 >%s/vdso.id", path, f->tmp);
	assert_int_equal(system(want), 0);
	snprintf(want, sizeof(want), "%s/vdso.id", f->tmp);
	slash = unit_slurp(want, NULL);
	snprintf(hex, sizeof(hex), "%.40s", slash);
	hex[strcspn(hex, "\n")] = '\0';
	free(slash);
	entry_path(f, path, "/[vdso]", hex, "vdso");
	assert_int_equal(buildid__read_elf(path, id, &size), 0);
	to_hex(id, size, want);
	assert_string_equal(want, hex);
	entry_path(f, path, "/[vdso]", hex, "probes");
	assert_true(exists(path));
	snprintf(want, sizeof(want), "../../[vdso]/%s", hex);
	assert_string_equal(read_link(f, hex), want);
}

/* A list: a failed entry is said and the others still go in; kernel and vdso too. */
static void test_add_ids(void **state)
{
	struct fix *f = *state;
	struct pfile_build_id b[3] = {
	    {.size = 20, .kernel = true, .path = "[kernel.kallsyms]"},
	    {.size = 20, .path = "/nonexistent/lib.so"},
	    {.size = f->size, .path = f->dso},
	};
	uint8_t kid[20], ksize;
	char err[256], path[PATH_MAX], hex[41];

	memcpy(b[2].id, f->id, f->size);
	memset(b[0].id, 0x5a, 20);
	assert_int_equal(buildid_cache__add_ids(f->cache, b, 3, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/lib.so"));
	entry_path(f, path, f->real, f->hex, "elf");
	assert_true(exists(path));
	/* the running kernel's id from sysfs, not the list's entry */
	to_hex(b[0].id, 20, hex);
	entry_path(f, path, "/[kernel.kallsyms]", hex, "");
	assert_false(exists(path));
	if (!buildid__read_kernel(NULL, kid, &ksize) && !access("/proc/kallsyms", R_OK)) {
		to_hex(kid, ksize, hex);
		entry_path(f, path, "/[kernel.kallsyms]", hex, "kallsyms");
		assert_true(exists(path));
	}
	/* a relative directory is refused, said in @err */
	assert_int_equal(buildid_cache__add_ids("cache", b + 2, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "absolute"));
}

/* A perf.data with one event, a FINISHED_ROUND as data and the features @fs. */
static void write_perf_data(const char *path, const struct pfile_featset *fs)
{
	uint64_t ids[1] = {42}, end, feat_end;
	struct pfile_event ev = {
	    .attr = {.type = PERF_TYPE_SOFTWARE,
		     .size = sizeof(struct perf_event_attr),
		     .config = PERF_COUNT_SW_CPU_CLOCK,
		     .sample_id_all = 1,
		     .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME},
	    .name = "cpu-clock",
	    .ids = ids,
	    .nr_ids = 1,
	};
	struct perf_event_header round = {.type = PFILE_REC_FINISHED_ROUND, .size = 8};
	struct pfile_header h;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, &ev, 1, &h.attrs, &end), 0);
	h.data.offset = end;
	h.data.size = sizeof(round);
	assert_int_equal(pwrite(fd, &round, sizeof(round), end), (ssize_t)sizeof(round));
	assert_int_equal(pfile__write_features(fd, end + sizeof(round), fs, h.features, &feat_end),
			 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	close(fd);
}

/* buildid_cache__add_hits(): the host's entries of the file's BUILD_ID, guests' skipped. */
static void test_add_hits(void **state)
{
	struct fix *f = *state;
	char guest[PATH_MAX], data[PATH_MAX], path[PATH_MAX], err[256];
	struct pfile_build_id b[2] = {{.size = f->size, .path = f->dso}, {.size = f->size}};
	struct pfile_featset fs = {0};
	struct perf_event_header h;
	unsigned char *p;

	snprintf(guest, sizeof(guest), "%s/dso/guest", f->tmp);
	assert_int_equal(link(f->dso, guest), 0);
	b[1].path = guest;
	memcpy(b[0].id, f->id, f->size);
	memcpy(b[1].id, f->id, f->size);
	assert_int_equal(pfile_feat__build_ids(&fs, b, 2), 0);
	/* the second entry becomes a guest's */
	p = fs.sec[PFILE_FEAT_BUILD_ID].data;
	memcpy(&h, p, sizeof(h));
	p += h.size;
	memcpy(&h, p, sizeof(h));
	h.misc = (h.misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_GUEST_USER;
	memcpy(p, &h, sizeof(h));
	snprintf(data, sizeof(data), "%s/perf.data", f->tmp);
	write_perf_data(data, &fs);
	assert_int_equal(buildid_cache__add_hits(f->cache, data, err, sizeof(err)), 0);
	entry_path(f, path, f->real, f->hex, "elf");
	assert_true(exists(path));
	entry_path(f, path, guest, f->hex, "");
	assert_false(exists(path));

	/* a malformed feature: said, nothing added */
	unit_rmtree(f->cache);
	memset(fs.sec[PFILE_FEAT_BUILD_ID].data, 0, 8);
	write_perf_data(data, &fs);
	assert_int_equal(buildid_cache__add_hits(f->cache, data, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "BUILD_ID"));
	assert_false(exists(f->cache));

	/* no BUILD_ID feature (-B, -z): no cache at all, as perf */
	pfile_featset__unset(&fs, PFILE_FEAT_BUILD_ID);
	write_perf_data(data, &fs);
	assert_int_equal(buildid_cache__add_hits(f->cache, data, err, sizeof(err)), 0);
	assert_false(exists(f->cache));
	pfile_featset__release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dir_default),
	    cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_realpath, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_twice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_copy_other_fs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kernel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_vdso, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_ids, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_hits, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
