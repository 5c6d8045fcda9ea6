// SPDX-License-Identifier: GPL-2.0
/*
 * A process with many executable file mappings, so that recording it
 * synthesizes a large prologue (one MMAP2 record each). It maps the first
 * page of its own binary N times, each on its own (same file offset, so
 * the kernel cannot merge neighbours), creates READY, and then burns the
 * CPU until killed or SECONDS (default 60) have passed: a test that fails
 * before it kills it leaves nothing behind for long.
 * Usage: manymaps N READY [SECONDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (n < 1 || fd < 0)
		return 2;
	for (long i = 0; i < n; i++)
		if (mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	alarm(argc > 3 ? atoi(argv[3]) : 60);
	for (volatile unsigned long x = 0;; x++)
		;
}
