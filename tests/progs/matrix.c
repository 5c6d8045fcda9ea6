// SPDX-License-Identifier: GPL-2.0
/*
 * matrix: stands in for the seed workload. N threads multiply square
 * matrices block by block for a given time, then exit.
 *
 *   matrix [-t THREADS] [-n SIZE] [-s SECONDS]
 *
 * Named, non-inlined functions (main -> run_workers -> worker ->
 * multiply_matrix -> multiply_block -> dot_row) give call-graph tests known
 * frames to look for.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 16

struct job {
	int n;
	double *a, *b, *c;
	double deadline;
	unsigned long rounds;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static double dot_row(const double *a, const double *b, int n, int k0,
						int k1, int j)
{
	double s = 0;

	for (int k = k0; k < k1; k++)
		s += a[k] * b[(size_t)k * n + j];
	return s;
}

__attribute__((noinline)) static void multiply_block(struct job *jb, int i0, int j0, int k0)
{
	int n = jb->n;

	for (int i = i0; i < i0 + BLOCK && i < n; i++)
		for (int j = j0; j < j0 + BLOCK && j < n; j++)
			jb->c[(size_t)i * n + j] +=
				dot_row(jb->a + (size_t)i * n, jb->b, n, k0,
					k0 + BLOCK < n ? k0 + BLOCK : n, j);
}

__attribute__((noinline)) static void multiply_matrix(struct job *jb)
{
	int n = jb->n;

	memset(jb->c, 0, sizeof(double) * n * n);
	for (int i = 0; i < n; i += BLOCK)
		for (int j = 0; j < n; j += BLOCK)
			for (int k = 0; k < n; k += BLOCK)
				multiply_block(jb, i, j, k);
}

static double *new_matrix(int n, unsigned seed)
{
	double *m = malloc(sizeof(double) * n * n);

	if (!m)
		return NULL;
	for (int i = 0; i < n * n; i++) {
		seed = seed * 1103515245 + 12345;
		m[i] = (seed >> 16) / 65536.0;
	}
	return m;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	struct job *jb = arg;

	do {
		multiply_matrix(jb);
		jb->rounds++;
		/* A short sleep per round: context switches for switch-event tests. */
		usleep(1000);
	} while (now() < jb->deadline);
	return NULL;
}

__attribute__((noinline)) static int run_workers(int threads, int n, double secs)
{
	pthread_t tid[64];
	struct job jobs[64];
	unsigned long total = 0;

	for (int t = 0; t < threads; t++) {
		jobs[t] = (struct job){.n = n, .deadline = now() + secs};
		jobs[t].a = new_matrix(n, 1 + t);
		jobs[t].b = new_matrix(n, 100 + t);
		jobs[t].c = malloc(sizeof(double) * n * n);
		if (!jobs[t].a || !jobs[t].b || !jobs[t].c)
			return 1;
		if (pthread_create(&tid[t], NULL, worker, &jobs[t]))
			return 1;
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		total += jobs[t].rounds;
		free(jobs[t].a);
		free(jobs[t].b);
		free(jobs[t].c);
	}
	printf("matrix: %d threads, %dx%d, %lu multiplications\n", threads, n, n, total);
	return 0;
}

int main(int argc, char **argv)
{
	int threads = 2, n = 96, c;
	double secs = 1.0;

	while ((c = getopt(argc, argv, "t:n:s:")) != -1) {
		switch (c) {
		case 't': threads = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 's': secs = atof(optarg); break;
		default:
			fprintf(stderr, "usage: matrix [-t THREADS] [-n SIZE] [-s SECONDS]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64 || n < 1 || secs < 0) {
		fprintf(stderr, "matrix: bad arguments\n");
		return 2;
	}
	return run_workers(threads, n, secs);
}
