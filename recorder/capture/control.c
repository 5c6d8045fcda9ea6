// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int control__parse_fd(const char *s, int *fd)
{
	struct stat st;
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1 << 20)
		return -EINVAL;
	if (fcntl(v, F_GETFD) < 0)
		return -EBADF;
	/* A directory polls readable for ever and reads EISDIR: the run loop would spin. */
	if (!fstat(v, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	*fd = v;
	return 0;
}

/*
 * O_RDWR as perf opens them: a fifo opened for reading alone blocks until
 * a writer comes, and reads EOF whenever the last writer goes.
 */
static int control__open_fifo(const char *path, int flags, int *fd)
{
	struct stat st;

	/*
	 * A FIFO and nothing else: not through a symlink someone planted (the
	 * ack is written to), not a regular file it would overwrite, not a
	 * device such as /dev/zero that never stops sending.
	 */
	*fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | flags);
	if (*fd < 0)
		return -errno; /* -ELOOP: a symlink */
	if (fstat(*fd, &st) || !S_ISFIFO(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return -ENODEV; /* control__strerror: not a FIFO */
	}
	return 0;
}

static int control__open_part(struct control *c, bool fifo, const char *s, bool ack)
{
	int *fd = ack ? &c->ack_fd : &c->fd;
	int ret;

	if (!fifo)
		return control__parse_fd(s, fd);
	ret = control__open_fifo(s, ack ? 0 : O_NONBLOCK, fd);
	if (!ret)
		*(ack ? &c->own_ack : &c->own_fd) = true;
	return ret;
}

static const char *control__strerror(int ret)
{
	if (ret == -ELOOP)
		return "a symbolic link: give the FIFO itself";
	if (ret == -ENODEV)
		return "not a FIFO (create it with mkfifo)";
	return strerror(-ret);
}

int control__open(struct control *c, const char *spec, char *err, size_t errlen)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char buf[4096], *comma;
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = c->ack_fd = -1;
	if (!fifo && strncmp(spec, "fd:", 3)) {
		snprintf(err, errlen, "--control: '%s' is not fifo:CTL[,ACK] or fd:CTL[,ACK]", spec);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec + (fifo ? 5 : 3));
	comma = strchr(buf, ',');
	if (comma)
		*comma++ = 0;
	ret = control__open_part(c, fifo, buf, false);
	if (!ret && comma)
		ret = control__open_part(c, fifo, comma, true);
	if (ret) {
		snprintf(err, errlen, "--control: %s: %s", ret == -EINVAL ? spec :
			 c->fd < 0 ? buf : comma, control__strerror(ret));
		control__close(c);
		return ret;
	}
	/* fd: the caller's fd may block; the session only reads when poll says so. */
	if (!c->own_fd)
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static enum control_cmd control__parse(const char *s)
{
	static const struct {
		const char *word;
		enum control_cmd cmd;
	} cmds[] = {
		{"enable", CONTROL_ENABLE}, {"disable", CONTROL_DISABLE},
		{"snapshot", CONTROL_SNAPSHOT}, {"stop", CONTROL_STOP}, {"ping", CONTROL_PING},
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(s, cmds[i].word))
			return cmds[i].cmd;
	return CONTROL_UNKNOWN;
}

/*
 * Takes the first line out of buf (ended by '\n' or NUL). False if no line
 * is complete. A line longer than the buffer is no command: its first
 * buffer gives CONTROL_TOO_LONG, once, and the rest is dropped up to its
 * end (each buffer of it had been an unknown command, with a warning).
 */
static bool control__take(struct control *c, enum control_cmd *cmd)
{
	size_t n = 0, used;
	bool whole;

	while (n < c->len && c->buf[n] != '\n' && c->buf[n])
		n++;
	whole = n < c->len;
	if (!whole && c->len < sizeof(c->buf))
		return false;
	used = whole ? n + 1 : n;
	if (c->skipping || !whole) {
		*cmd = c->skipping ? CONTROL_NONE : CONTROL_TOO_LONG;
		c->skipping = !whole;
	} else {
		snprintf(c->last, sizeof(c->last), "%.*s", (int)n, c->buf);
		*cmd = *c->last ? control__parse(c->last) : CONTROL_NONE;
	}
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return true;
}

static void control__stop_reading(struct control *c)
{
	if (c->own_fd)
		close(c->fd);
	c->fd = -1;
}

enum control_cmd control__next(struct control *c)
{
	enum control_cmd cmd;
	ssize_t n;

	if (c->fd < 0)
		return CONTROL_NONE;
	for (int reads = 0;; reads++) {
		while (control__take(c, &cmd))
			if (cmd != CONTROL_NONE)
				return cmd;
		/*
		 * A source that never runs dry and holds no command (fd:0 fed from
		 * /dev/zero) would keep this loop, and the session's, spinning:
		 * past CONTROL_MAX_READS buffers of nothing it is ignored.
		 */
		if (reads == CONTROL_MAX_READS) {
			c->flooded = true;
			control__stop_reading(c);
			return CONTROL_NONE;
		}
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		/* EOF (an fd: whose writer is gone) would keep poll firing: stop reading it. */
		if (!n)
			control__stop_reading(c);
		if (n <= 0)
			return CONTROL_NONE;
		c->len += n;
	}
}

void control__ack(struct control *c)
{
	struct pollfd p = {.fd = c->ack_fd, .events = POLLOUT};

	if (c->ack_fd < 0)
		return;
	/*
	 * An ACK nobody reads must not stop the recorder: a fifo: ACK is
	 * opened O_RDWR (shardrec is its own reader), so 64 KiB of unread acks
	 * blocked the write, and with it the main thread and SIGTERM. POLLOUT
	 * on a pipe means PIPE_BUF bytes of room: the 4-byte write cannot
	 * block. Otherwise the ack is dropped, said once.
	 */
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && write(c->ack_fd, "ack\n", 4) == 4)
		return;
	c->acks_dropped++;
}

void control__close(struct control *c)
{
	if (c->own_fd && c->fd >= 0)
		close(c->fd);
	if (c->own_ack && c->ack_fd >= 0)
		close(c->ack_fd);
	c->fd = c->ack_fd = -1;
	c->own_fd = c->own_ack = false;
}
