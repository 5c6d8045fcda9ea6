// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for tests/qemu/aux-oracle.sh, where perf 6.1 and shardrec
 * record with a fake Intel PT PMU (type 8, tests/data/intel_pt-pmu.txt):
 * logs every perf_event_open's attr to $ATTRSHIM_OUT (a line each, the
 * fields that are not 0, named as in struct perf_event_attr), opens a
 * dummy in place of the fake PMU's events and gives their AUX area mmaps
 * plain memory, so that each recorder opens all its events and records.
 * Both call perf_event_open through libc's syscall(), which this replaces.
 * It also logs the size of every mmap of an event fd (a data ring at
 * offset 0, else an AUX area), and with $ATTRSHIM_UID set the process
 * becomes that user before anything else runs (a user without
 * capabilities, for perf's unprivileged defaults).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void field(FILE *f, const char *name, unsigned long long v)
{
	if (v)
		fprintf(f, " %s=%#llx", name, v);
}

static FILE *log_open(void)
{
	const char *path = getenv("ATTRSHIM_OUT");

	return path ? fopen(path, "a") : NULL;
}

static void log_attr(const struct perf_event_attr *a, long pid, long cpu, long group, long flags)
{
	FILE *f = log_open();

	if (!f)
		return;
	fprintf(f, "pid=%ld cpu=%ld group=%s flags=%#lx", pid, cpu, group < 0 ? "-1" : "fd", flags);
	field(f, "type", a->type);
	field(f, "size", a->size);
	field(f, "config", a->config);
	field(f, "period", a->sample_period);
	field(f, "sample_type", a->sample_type);
	field(f, "read_format", a->read_format);
#define B(x) field(f, #x, a->x)
	B(disabled); B(inherit); B(pinned); B(exclusive); B(exclude_user); B(exclude_kernel);
	B(exclude_hv); B(exclude_idle); B(mmap); B(comm); B(freq); B(inherit_stat);
	B(enable_on_exec); B(task); B(watermark); B(precise_ip); B(mmap_data); B(sample_id_all);
	B(exclude_host); B(exclude_guest); B(exclude_callchain_kernel); B(exclude_callchain_user);
	B(mmap2); B(comm_exec); B(use_clockid); B(context_switch); B(write_backward);
	B(namespaces); B(ksymbol); B(bpf_event); B(aux_output); B(cgroup); B(text_poke);
	B(build_id); B(inherit_thread); B(remove_on_exec); B(sigtrap);
	B(wakeup_events); B(bp_type); B(config1); B(config2); B(branch_sample_type);
	B(sample_regs_user); B(sample_stack_user); B(clockid); B(sample_regs_intr);
	B(aux_watermark); B(sample_max_stack); B(aux_sample_size); B(sig_data);
#undef B
	fputc('\n', f);
	fclose(f);
}

static char fake_fd[4096]; /* fds opened as dummies in place of a fake AUX PMU */
static char event_fd[4096]; /* fds perf_event_open returned */

/*
 * $ATTRSHIM_UID: that user, no supplementary groups, before main(). The
 * change of credentials makes the process undumpable, and then the
 * kernel's ptrace check refuses this user's perf_event_open on its own
 * workload: a user who logged in is dumpable, so this one is made so.
 */
__attribute__((constructor)) static void become_user(void)
{
	const char *uid = getenv("ATTRSHIM_UID");

	if (uid && *uid && getuid() == 0 &&
	    (setgroups(0, NULL) || setgid(atoi(uid)) || setuid(atoi(uid)) ||
	     prctl(PR_SET_DUMPABLE, 1))) {
		perror("attrshim: ATTRSHIM_UID");
		_exit(126);
	}
}

/* The AUX area of a fake fd (any mmap at a non-zero offset): plain memory. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	FILE *f;

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	if (fd >= 0 && fd < 4096 && event_fd[fd] && (f = log_open())) {
		fprintf(f, "ring=%s len=%#zx\n", off ? "aux" : "data", len);
		fclose(f);
	}
	if (fd >= 0 && fd < 4096 && fake_fd[fd] && off)
		return real(addr, len, prot, (flags & ~MAP_SHARED) | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return real(addr, len, prot, flags, fd, off);
}
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/* A closed fd's number may come back as a file: no longer an event. */
int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd < 4096)
		fake_fd[fd] = event_fd[fd] = 0;
	return real(fd);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_perf_event_open) {
		struct perf_event_attr *at = (void *)a[0], c;
		long fd;

		log_attr(at, a[1], a[2], a[3], a[4]);
		if (at->type == 8) {
			memset(&c, 0, sizeof(c));
			memcpy(&c, at, sizeof(c) < at->size ? sizeof(c) : at->size);
			c.size = sizeof(c);
			c.type = PERF_TYPE_SOFTWARE;
			c.config = PERF_COUNT_SW_DUMMY;
			c.aux_watermark = 0;
			c.aux_sample_size = 0;
			fd = real(nr, &c, a[1], a[2], a[3], a[4]);
			if (fd >= 0 && fd < 4096)
				fake_fd[fd] = event_fd[fd] = 1;
			return fd;
		}
		fd = real(nr, a[0], a[1], a[2], a[3], a[4]);
		if (fd >= 0 && fd < 4096)
			event_fd[fd] = 1;
		return fd;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
