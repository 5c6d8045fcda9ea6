/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz targets: the input goes into a memfd that the readers
 * open by its /proc/self/fd path, the way they open real files (pread on a
 * real fd, lseek for the size), without touching the disk.
 */
#ifndef SHARDREC_FUZZ_UTIL_H
#define SHARDREC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* A memfd holding @len bytes of @data, its path in @path; -1 on failure. */
static inline int fuzz_memfd(const uint8_t *data, size_t len, char *path, size_t pathlen)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += n;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
