// SPDX-License-Identifier: GPL-2.0
#include "recorder/perfdata/shard_tail.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int shard_tail__create(struct shard_tail *t, int dirfd, const char *name, const uint8_t *run_id,
		       uint64_t cap)
{
	int ret;

	memset(t, 0, sizeof(*t));
	memcpy(t->hdr.magic, SHARD_TAIL_MAGIC, 8);
	t->hdr.version = SHARD_TAIL_VERSION;
	t->hdr.cap = cap;
	if (run_id)
		memcpy(t->hdr.run_id, run_id, SHARD_RUN_ID_SIZE);
	t->fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (t->fd < 0)
		return -errno;
	/* posix_fallocate returns the error number itself. */
	ret = -posix_fallocate(t->fd, 0, SHARD_TAIL_HEADER_SIZE + cap);
	if (!ret)
		ret = pfile__pwrite_full(t->fd, &t->hdr, sizeof(t->hdr), 0);
	if (ret) {
		shard_tail__close(t);
		unlinkat(dirfd, name, 0);
	}
	return ret;
}

int shard_tail__finish(struct shard_tail *t, const void *recs, size_t len)
{
	int ret;

	if (len > t->hdr.cap)
		return -E2BIG;
	ret = pfile__pwrite_full(t->fd, recs, len, SHARD_TAIL_HEADER_SIZE);
	if (ret)
		return ret;
	t->hdr.used = len;
	t->hdr.flags |= SHARD_TAIL_F_COMPLETE;
	return pfile__pwrite_full(t->fd, &t->hdr, sizeof(t->hdr), 0);
}

void shard_tail__close(struct shard_tail *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int shard_tail__open(struct shard_tail *t, int dirfd, const char *name, char *err,
		     size_t errlen)
{
	off_t size;

	memset(t, 0, sizeof(*t));
	t->fd = pfile__open_input(dirfd, name, PFILE_IN_NOFOLLOW);
	if (t->fd < 0) {
		int ret = t->fd;

		t->fd = -1;
		if (ret != -ENOENT)
			snprintf(err, errlen, "%s: %s", name, pfile__strerror(ret));
		return ret;
	}
	size = lseek(t->fd, 0, SEEK_END);
	if (size < SHARD_TAIL_HEADER_SIZE ||
	    pread(t->fd, &t->hdr, sizeof(t->hdr), 0) != (ssize_t)sizeof(t->hdr) ||
	    memcmp(t->hdr.magic, SHARD_TAIL_MAGIC, 8) || t->hdr.version != SHARD_TAIL_VERSION) {
		snprintf(err, errlen, "%s: not a shardrec tail file (bad header)", name);
		shard_tail__close(t);
		return -EBADMSG;
	}
	if (t->hdr.used > (uint64_t)size - SHARD_TAIL_HEADER_SIZE)
		t->hdr.used = size - SHARD_TAIL_HEADER_SIZE;
	return 0;
}
