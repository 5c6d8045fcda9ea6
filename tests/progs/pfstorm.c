// SPDX-License-Identifier: GPL-2.0
/*
 * A page-fault storm: N threads each map, touch every 4 KiB page of, and
 * unmap an anonymous region, LOOPS times. THP is refused so each page is one
 * fault: LOOPS * MB * 256 faults per thread.
 * Usage: pfstorm [loops, default 50] [threads, default 2] [MB, default 16]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static long loops, bytes;

static void *thread_main(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)arg;
	for (long l = 0; l < loops; l++) {
		char *p =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return (void *)1;
		madvise(p, bytes, MADV_NOHUGEPAGE);
		for (long off = 0; off < bytes; off += page)
			p[off] = 1;
		munmap(p, bytes);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[256];
	void *rc;
	int bad = 0;

	loops = argc > 1 ? atol(argv[1]) : 50;
	bytes = (argc > 3 ? atol(argv[3]) : 16) << 20;
	if (n < 1 || n > 256 || loops < 1 || bytes < 1) {
		fprintf(stderr, "pfstorm: bad arguments\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			return 1;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], &rc);
		bad |= rc != NULL;
	}
	return bad;
}
