// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known hot function: hot_loop() burns the CPU for the
 * given milliseconds (default 500) in every thread; cold_setup() runs once.
 * Usage: hot [ms] [threads]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t cold_setup(void)
{
	return (uint64_t)now();
}

__attribute__((noinline)) void hot_loop(double seconds)
{
	double end = now() + seconds;
	uint64_t x = cold_setup();

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static void *thread_main(void *arg)
{
	hot_loop(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = (argc > 1 ? atof(argv[1]) : 500) / 1000.0;
	int n = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	for (int i = 1; i < n; i++)
		pthread_create(&t[i], NULL, thread_main, &secs);
	hot_loop(secs);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
