// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose hot code is a JITed BPF program: loads a socket filter
 * named NAME (-n, default "shardrec_hot"; a bounded loop of 20000 steps),
 * runs it with BPF_PROG_TEST_RUN for the given milliseconds (default 500),
 * then unloads it. Samples land in the kernel, in bpf_prog_<tag>_NAME,
 * which only a KSYMBOL record of the recording can name once the program is
 * gone. The tag is the code's hash, the same in every copy: a test names
 * its own program (-n) to find it among others'. With -r FILE it creates
 * FILE once the program is loaded: a recording started then finds the
 * program there, as perf's synthesis must describe.
 * Exits 77 (skip) where bpf() is refused or missing.
 * Usage: bpfhot [-r FILE] [-n NAME] [ms]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOOPS 20000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* r1 = 0; do r1 += 1; while (r1 < LOOPS); return 0 (bounded: kernel >= 5.3) */
static int load(const char *name)
{
	static const struct bpf_insn prog[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0},
	    {.code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = 1},
	    {.code = BPF_JMP | BPF_JLT | BPF_K, .dst_reg = BPF_REG_1, .off = -2, .imm = LOOPS},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	a.license = (uintptr_t) "GPL";
	/* BPF_OBJ_NAME_LEN: 15 characters and the NUL */
	snprintf(a.prog_name, sizeof(a.prog_name), "%s", name);
	return sys_bpf(BPF_PROG_LOAD, &a);
}

/* -r FILE: tell whoever waits that the program is loaded. */
static int ready(const char *path)
{
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -2;

	if (fd == -1) {
		perror(path);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready_path = NULL, *name = "shardrec_hot";
	unsigned char pkt[64] = {0};
	unsigned long runs = 0;
	union bpf_attr a;
	double end;
	int c, fd;

	while ((c = getopt(argc, argv, "r:n:")) != -1) {
		if (c == 'r')
			ready_path = optarg;
		else if (c == 'n')
			name = optarg;
		else
			return 2;
	}
	fd = load(name);

	if (fd < 0) {
		fprintf(stderr, "bpfhot: BPF_PROG_LOAD: %s\n", strerror(errno));
		return errno == EPERM || errno == ENOSYS || errno == EINVAL ? 77 : 1;
	}
	if (ready(ready_path)) {
		close(fd);
		return 1;
	}
	end = now() + (optind < argc ? atoi(argv[optind]) : 500) / 1000.0;
	do {
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = fd;
		a.test.data_in = (uintptr_t)pkt;
		a.test.data_size_in = sizeof(pkt);
		a.test.repeat = 100;
		if (sys_bpf(BPF_PROG_TEST_RUN, &a)) {
			fprintf(stderr, "bpfhot: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			close(fd);
			/* 524: the kernel's ENOTSUPP, a program type without test runs */
			return errno == EPERM || errno == EOPNOTSUPP || errno == 524 ||
				       errno == EINVAL
				   ? 77
				   : 1;
		}
		runs += a.test.repeat;
	} while (now() < end);
	close(fd);
	printf("bpfhot: %lu runs of %s\n", runs, name);
	return 0;
}
