// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/capture/control.c: perf's --control channel. Commands split across
 * reads, NUL or newline terminated, empty lines, unknown words, overlong
 * lines, acks, end of file, and the spec forms (fifo:, fd:, bad ones).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit_util.h"
#include "recorder/capture/control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pipes {
	int ctl[2], ack[2];
	struct control c;
};

static void pipes_open(struct pipes *p, bool with_ack)
{
	char spec[64], err[256];

	assert_int_equal(pipe(p->ctl), 0);
	p->ack[0] = p->ack[1] = -1;
	if (with_ack) {
		assert_int_equal(pipe(p->ack), 0);
		snprintf(spec, sizeof(spec), "fd:%d,%d", p->ctl[0], p->ack[1]);
	} else {
		snprintf(spec, sizeof(spec), "fd:%d", p->ctl[0]);
	}
	assert_int_equal(control__open(&p->c, spec, err, sizeof(err)), 0);
}

static void pipes_close(struct pipes *p)
{
	control__close(&p->c);
	for (int i = 0; i < 2; i++) {
		if (p->ctl[i] >= 0)
			close(p->ctl[i]);
		if (p->ack[i] >= 0)
			close(p->ack[i]);
	}
}

static void say(struct pipes *p, const char *s, size_t len)
{
	assert_int_equal(write(p->ctl[1], s, len), (ssize_t)len);
}

static void test_commands(void **state)
{
	struct pipes p;

	(void)state;
	pipes_open(&p, false);
	assert_int_equal(control__next(&p.c), CONTROL_NONE);
	say(&p, "enable\nsnap", 11);
	assert_int_equal(control__next(&p.c), CONTROL_ENABLE);
	assert_int_equal(control__next(&p.c), CONTROL_NONE); /* "snap" is not complete */
	say(&p, "shot\n\n\0ping\0disable\nstop\n", 25);
	assert_int_equal(control__next(&p.c), CONTROL_SNAPSHOT);
	assert_int_equal(control__next(&p.c), CONTROL_PING);
	assert_int_equal(control__next(&p.c), CONTROL_DISABLE);
	assert_int_equal(control__next(&p.c), CONTROL_STOP);
	assert_int_equal(control__next(&p.c), CONTROL_NONE);
	say(&p, "enable evname\nbogus\n", 20);
	assert_int_equal(control__next(&p.c), CONTROL_UNKNOWN);
	assert_string_equal(p.c.last, "enable evname");
	assert_int_equal(control__next(&p.c), CONTROL_UNKNOWN);
	assert_string_equal(p.c.last, "bogus");
	pipes_close(&p);
}

/*
 * A line longer than the buffer is CONTROL_TOO_LONG once, however long
 * (a 10 MB line gave 39,063 unknown commands, each warned about), then
 * reading goes on with the next line.
 */
static void test_overlong(void **state)
{
	struct pipes p;
	char big[600];

	(void)state;
	pipes_open(&p, false);
	memset(big, 'x', sizeof(big));
	say(&p, big, sizeof(big));
	say(&p, big, sizeof(big));
	say(&p, "\nping\n", 6);
	assert_int_equal(control__next(&p.c), CONTROL_TOO_LONG);
	assert_int_equal(control__next(&p.c), CONTROL_PING);
	assert_int_equal(control__next(&p.c), CONTROL_NONE);
	/* exactly a buffer's worth with its newline in the next read: still one line */
	say(&p, big, sizeof(p.c.buf));
	assert_int_equal(control__next(&p.c), CONTROL_TOO_LONG);
	say(&p, "\nstop\n", 6);
	assert_int_equal(control__next(&p.c), CONTROL_STOP);
	pipes_close(&p);
}

static void test_ack_and_eof(void **state)
{
	struct pipes p;
	char buf[16] = {0};

	(void)state;
	pipes_open(&p, true);
	say(&p, "ping\n", 5);
	assert_int_equal(control__next(&p.c), CONTROL_PING);
	control__ack(&p.c);
	assert_int_equal(read(p.ack[0], buf, sizeof(buf)), 4);
	assert_string_equal(buf, "ack\n");
	close(p.ctl[1]);
	p.ctl[1] = -1;
	assert_int_equal(control__next(&p.c), CONTROL_NONE);
	assert_int_equal(p.c.fd, -1); /* no poll on a dead channel */
	assert_int_equal(control__next(&p.c), CONTROL_NONE);
	pipes_close(&p);
}

static void test_fifo(void **state)
{
	char dir[] = "/tmp/test_control.XXXXXX", ctl[128], ack[128], spec[300], err[256];
	struct control c;
	int w, r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
	snprintf(ack, sizeof(ack), "%s/ack", dir);
	assert_int_equal(mkfifo(ctl, 0600), 0);
	assert_int_equal(mkfifo(ack, 0600), 0);
	snprintf(spec, sizeof(spec), "fifo:%s,%s", ctl, ack);
	/* opens without a writer or reader on the other side (O_RDWR) */
	assert_int_equal(control__open(&c, spec, err, sizeof(err)), 0);
	w = open(ctl, O_WRONLY);
	r = open(ack, O_RDONLY | O_NONBLOCK);
	assert_true(w >= 0 && r >= 0);
	assert_int_equal(write(w, "snapshot\n", 9), 9);
	assert_int_equal(control__next(&c), CONTROL_SNAPSHOT);
	control__ack(&c);
	assert_int_equal(read(r, err, sizeof(err)), 4);
	/* the last writer going away is not the end of a fifo opened O_RDWR */
	close(w);
	assert_int_equal(control__next(&c), CONTROL_NONE);
	assert_true(c.fd >= 0);
	control__close(&c);
	close(r);
	unlink(ctl);
	unlink(ack);
	rmdir(dir);
}

static void test_bad_specs(void **state)
{
	struct control c;
	char err[256];

	(void)state;
	assert_int_equal(control__open(&c, "pipe:/x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "fifo:CTL"));
	assert_int_equal(c.fd, -1);
	assert_int_equal(control__open(&c, "fd:abc", err, sizeof(err)), -EINVAL);
	assert_int_equal(control__open(&c, "fd:-3", err, sizeof(err)), -EINVAL);
	assert_int_equal(control__open(&c, "fd:1000", err, sizeof(err)), -EBADF);
	{
		/* a directory polls readable for ever: refused, as CTL and as ACK */
		int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
		char spec[64];

		assert_true(dfd >= 0);
		snprintf(spec, sizeof(spec), "fd:%d", dfd);
		assert_int_equal(control__open(&c, spec, err, sizeof(err)), -EISDIR);
		assert_non_null(strstr(err, "Is a directory"));
		snprintf(spec, sizeof(spec), "fd:0,%d", dfd);
		assert_int_equal(control__open(&c, spec, err, sizeof(err)), -EISDIR);
		close(dfd);
	}
	assert_int_equal(control__open(&c, "fifo:/nonexistent/ctl", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/ctl"));
	control__close(&c);
}

/*
 * Issue 20: only a FIFO, never through a symlink (the ack is written to),
 * never a regular file or a device; both sides checked.
 */
static void test_fifo_only(void **state)
{
	char dir[] = "/tmp/test_control.XXXXXX", p[4][160], spec[700], err[512];
	struct control c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p[0], sizeof(p[0]), "%s/ctl", dir);
	snprintf(p[1], sizeof(p[1]), "%s/file", dir);
	snprintf(p[2], sizeof(p[2]), "%s/link", dir);
	snprintf(p[3], sizeof(p[3]), "%s/ack", dir);
	assert_int_equal(mkfifo(p[0], 0600), 0);
	assert_int_equal(mkfifo(p[3], 0600), 0);
	unit_put_file(dir, "file", "precious\n");
	assert_int_equal(symlink(p[3], p[2]), 0);

	snprintf(spec, sizeof(spec), "fifo:%s", p[1]);
	assert_int_equal(control__open(&c, spec, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "not a FIFO"));
	assert_int_equal(control__open(&c, "fifo:/dev/zero", err, sizeof(err)), -ENODEV);
	snprintf(spec, sizeof(spec), "fifo:%s,%s", p[0], p[1]);
	assert_int_equal(control__open(&c, spec, err, sizeof(err)), -ENODEV);
	assert_int_equal(c.fd, -1);
	snprintf(spec, sizeof(spec), "fifo:%s,%s", p[0], p[2]);
	assert_int_equal(control__open(&c, spec, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(c.ack_fd, -1);
	/* the regular file was never written */
	{
		char *text = unit_slurp(p[1], NULL);

		assert_string_equal(text, "precious\n");
		free(text);
	}
	for (int i = 0; i < 4; i++)
		unlink(p[i]);
	rmdir(dir);
}

/* fd: fed from /dev/zero: bounded reads, then the channel is dropped. */
static void test_endless_source(void **state)
{
	struct control c;
	char err[256], spec[32];
	int fd = open("/dev/zero", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	snprintf(spec, sizeof(spec), "fd:%d", fd);
	assert_int_equal(control__open(&c, spec, err, sizeof(err)), 0);
	assert_int_equal(control__next(&c), CONTROL_NONE);
	assert_true(c.flooded);
	assert_int_equal(c.fd, -1);
	assert_int_equal(control__next(&c), CONTROL_NONE);
	control__close(&c);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_commands),   cmocka_unit_test(test_overlong),
	    cmocka_unit_test(test_ack_and_eof), cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_bad_specs),  cmocka_unit_test(test_fifo_only),
	    cmocka_unit_test(test_endless_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
