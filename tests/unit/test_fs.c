// SPDX-License-Identifier: GPL-2.0
/*
 * util/fs: the whole-file reader keeps NUL bytes and counts them, reads
 * past its 4 KiB chunk and stops at @max; a missing file is -ENOENT; the
 * string form ends at the first NUL; the line reader's errno says why it
 * read nothing; the cgroup2 finder gives a path.
 */
#include "unit_util.h"

#include "recorder/util/fs.h"

#include <errno.h>

static char dir[] = "/tmp/shardrec-test-fs-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rmtree(dir);
}

static void test_nul_bytes_kept(void **state)
{
	static const char bytes[] = {'a', 'b', 0, 'c', 'd', 0, 'e'};
	char path[PATH_MAX], *buf;
	size_t size;

	(void)state;
	unit_put_bytes(dir, "nul", bytes, sizeof(bytes));
	snprintf(path, sizeof(path), "%s/nul", dir);
	assert_int_equal(filename__read_all(path, 0, &buf, &size), 0);
	assert_int_equal(size, sizeof(bytes));
	assert_memory_equal(buf, bytes, sizeof(bytes));
	/* One NUL after the bytes, not counted: text may be used as a string. */
	assert_int_equal(buf[size], 0);
	free(buf);
	/* The string form ends where the file's first NUL is. */
	assert_int_equal(filename__read_str(path, &buf), 0);
	assert_string_equal(buf, "ab");
	free(buf);
}

static void test_large_and_max(void **state)
{
	size_t len = 3 * 4096 + 123, size;
	char path[PATH_MAX], *bytes = malloc(len), *buf;

	(void)state;
	assert_non_null(bytes);
	for (size_t i = 0; i < len; i++)
		bytes[i] = (char)(i % 7 ? i : 0);
	unit_put_bytes(dir, "large", bytes, len);
	snprintf(path, sizeof(path), "%s/large", dir);
	assert_int_equal(filename__read_all(path, 0, &buf, &size), 0);
	assert_int_equal(size, len);
	assert_memory_equal(buf, bytes, len);
	free(buf);
	/* @max cuts the read, mid-chunk too. */
	assert_int_equal(filename__read_all(path, 5000, &buf, &size), 0);
	assert_int_equal(size, 5000);
	assert_memory_equal(buf, bytes, 5000);
	assert_int_equal(buf[size], 0);
	free(buf);
	free(bytes);
}

static void test_empty_and_missing(void **state)
{
	char path[PATH_MAX], *buf;
	size_t size = 1;

	(void)state;
	unit_put_bytes(dir, "empty", "", 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	assert_int_equal(filename__read_all(path, 0, &buf, &size), 0);
	assert_int_equal(size, 0);
	assert_non_null(buf);
	assert_int_equal(buf[0], 0);
	free(buf);
	assert_int_equal(filename__read_str(path, &buf), 0);
	assert_string_equal(buf, "");
	free(buf);

	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(filename__read_all(path, 0, &buf, &size), -ENOENT);
	assert_null(buf);
	assert_int_equal(size, 0);
	assert_int_equal(filename__read_str(path, &buf), -ENOENT);
	assert_null(buf);
}

/* The line reader's NULL says why in errno: 0 for an empty file. */
static void test_read_line_errno(void **state)
{
	char path[PATH_MAX], *line;

	(void)state;
	unit_put_bytes(dir, "line", "one\ntwo\n", 8);
	line = filename__read_linef("%s/line", dir);
	assert_non_null(line);
	assert_string_equal(line, "one");
	free(line);
	unit_put_bytes(dir, "empty-line", "", 0);
	errno = EBADF;
	assert_null(filename__read_linef("%s/empty-line", dir));
	assert_int_equal(errno, 0);
	assert_null(filename__read_linef("%s/missing", dir));
	assert_int_equal(errno, ENOENT);
	/* A directory opens, then fails to read. */
	assert_null(filename__read_linef("%s", dir));
	assert_int_equal(errno, EISDIR);
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	assert_null(filename__read_linef("%s/%s", dir, path));
	assert_int_equal(errno, ENAMETOOLONG);
}

/* procfs reports a size of 0: the reader goes to EOF all the same. */
static void test_procfs(void **state)
{
	char *buf;
	size_t size;

	(void)state;
	assert_int_equal(filename__read_all("/proc/self/cmdline", 0, &buf, &size), 0);
	assert_true(size > 0);
	/* NUL-separated arguments, the last one NUL-ended too. */
	assert_int_equal(buf[size - 1], 0);
	assert_non_null(strstr(buf, "test_fs"));
	free(buf);
}

static void test_cgroup2_mountpoint(void **state)
{
	char buf[4096];

	(void)state;
	/* /proc/self/mounts' cgroup2 mount, else /sys/fs/cgroup: an absolute path. */
	assert_ptr_equal(cgroup2__mountpoint(buf, sizeof(buf)), buf);
	assert_int_equal(buf[0], '/');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nul_bytes_kept),
		cmocka_unit_test(test_large_and_max),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_read_line_errno),
		cmocka_unit_test(test_procfs),
		cmocka_unit_test(test_cgroup2_mountpoint),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
