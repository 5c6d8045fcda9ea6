// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed amount of CPU work in N threads, a few frames deep so -g has
 * stacks to unwind: its run time measures the slowdown a recorder causes.
 * Usage: cpuwork [million iterations per thread, default 200] [threads, default 2]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf(uint64_t x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

__attribute__((noinline)) static uint64_t mid(uint64_t x, long n) { return leaf(x, n) ^ (x >> 7); }

__attribute__((noinline)) static uint64_t top(uint64_t x, long n) { return mid(x, n) + 1; }

static void *thread_main(void *arg)
{
	long total = *(long *)arg, step = 100000;
	uint64_t x = (uintptr_t)&total;

	for (long done = 0; done < total; done += step)
		x = top(x, step);
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long iters = (argc > 1 ? atol(argv[1]) : 200) * 1000000L;
	int n = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[256];

	if (n < 1 || n > 256) {
		fprintf(stderr, "cpuwork: 1..256 threads\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, &iters))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
