// SPDX-License-Identifier: GPL-2.0
/* Synthesized records: layouts, trailers, the test process itself, fake /proc trees. */
#include "recorder/header/synth.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/btf.h>

#include "unit_bpf.h"
#include "unit_util.h"

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct mmap_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

struct mmap2_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct fork_rec {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

struct fixture {
	struct pfile_idlayout layout;
	struct recbuf buf;
	struct synth s;
	char root[64]; /* fake tree, "" if none */
	char proc[128];
};

/* ---- helpers ---- */

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	pfile_idlayout__init(&fx->layout, ST, true);
	fx->s.layout = &fx->layout;
	fx->s.out = &fx->buf;
	*state = fx;
	return 0;
}

/* Same, with an empty fake root: proc_root = ROOT/proc, sys_root = ROOT */
static int setup_fake(void **state)
{
	struct fixture *fx;

	setup(state);
	fx = *state;
	strcpy(fx->root, "/tmp/test_synth.XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	snprintf(fx->proc, sizeof(fx->proc), "%s/proc", fx->root);
	unit_mkdirs(fx->proc);
	fx->s.proc_root = fx->proc;
	fx->s.sys_root = fx->root;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->root[0])
		unit_rmtree(fx->root);
	recbuf__release(&fx->buf);
	free(fx);
	return 0;
}

/* Next record after @prev (NULL: first), checking sizes and alignment. */
static const struct perf_event_header *next_rec(const struct recbuf *b,
						const struct perf_event_header *prev)
{
	size_t off = prev ? (size_t)((const unsigned char *)prev - b->data) + prev->size : 0;
	const struct perf_event_header *h;

	if (off >= b->len)
		return NULL;
	assert_true(b->len - off >= sizeof(*h));
	h = (const void *)(b->data + off);
	assert_true(h->size >= sizeof(*h));
	assert_int_equal(h->size % 8, 0);
	assert_true(h->size <= b->len - off);
	return h;
}

/* Kernel-type synthesized records end with an all-zero trailer: time 0, id 0. */
static void check_trailer(const struct fixture *fx, const struct perf_event_header *h)
{
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t v = 1;

	assert_true(pfile_idlayout__time(&fx->layout, h, &v));
	assert_int_equal(v, 0);
	v = 1;
	assert_true(pfile_idlayout__id(&fx->layout, h, &v));
	assert_int_equal(v, 0);
	for (size_t i = 1; i <= fx->layout.id_hdr_size; i++)
		assert_int_equal(end[-(ssize_t)i], 0);
}

/* filename field: NUL-terminated, zero padding, then exactly the trailer */
static void check_name(const struct fixture *fx, const struct perf_event_header *h, size_t name_off,
		       const char *want)
{
	const char *name = (const char *)h + name_off;
	size_t body = h->size - fx->layout.id_hdr_size;

	assert_string_equal(name, want);
	assert_int_equal(body, name_off + ((strlen(want) + 1 + 7) & ~7ul));
	for (size_t i = name_off + strlen(want); i < body; i++)
		assert_int_equal(((const char *)h)[i], 0);
}

static size_t count_type(const struct recbuf *b, uint32_t type)
{
	size_t n = 0;

	for (const struct perf_event_header *h = next_rec(b, NULL); h; h = next_rec(b, h))
		n += h->type == type;
	return n;
}

/* ---- kernel ---- */

static void test_kernel_mmap_fake(void **state)
{
	struct fixture *fx = *state;
	const struct mmap_rec *m;

	unit_put_file(fx->proc, "kallsyms",
		      "ffffffff81000000 T startup_64\n"
		      "ffffffff81000000 T _stext\n"
		      "ffffffff81000000 T _text\n"
		      "ffffffffc0001000 t _etext\t[mod]\n"
		      "ffffffff82200000 T _etext\n");
	assert_int_equal(synth__kernel_mmap(&fx->s), 0);
	m = (const void *)next_rec(&fx->buf, NULL);
	assert_non_null(m);
	assert_int_equal(m->header.type, PERF_RECORD_MMAP);
	assert_int_equal(m->header.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(m->pid, (uint32_t)-1);
	assert_int_equal(m->tid, 0);
	assert_int_equal(m->start, 0xffffffff81000000ull);
	assert_int_equal(m->pgoff, 0xffffffff81000000ull);
	assert_int_equal(m->len, 0x1200000);
	check_name(fx, &m->header, offsetof(struct mmap_rec, filename), "[kernel.kallsyms]_text");
	/* same size as perf 6.1's own record with a 32-byte trailer: 0x60 */
	assert_int_equal(m->header.size, 64 + fx->layout.id_hdr_size);
	check_trailer(fx, &m->header);
	assert_null(next_rec(&fx->buf, &m->header));
}

/* No _etext: the kernel map ends at the first module; only _stext: named so. */
static void test_kernel_mmap_no_etext(void **state)
{
	struct fixture *fx = *state;
	const struct mmap_rec *m;

	unit_put_file(fx->proc, "kallsyms", "ffffffff81000000 T _stext\n");
	unit_put_file(fx->proc, "modules",
		      "b 4096 0 - Live 0xffffffffc0200000\n"
		      "a 8192 1 b, Live 0xffffffffc0100000 (OE)\n");
	assert_int_equal(synth__kernel_mmap(&fx->s), 0);
	m = (const void *)next_rec(&fx->buf, NULL);
	assert_int_equal(m->start, 0xffffffff81000000ull);
	assert_int_equal(m->len, 0xffffffffc0100000ull - 0xffffffff81000000ull);
	check_name(fx, &m->header, offsetof(struct mmap_rec, filename), "[kernel.kallsyms]_stext");
}

static void test_kernel_mmap_restricted(void **state)
{
	struct fixture *fx = *state;

	unit_put_file(fx->proc, "kallsyms",
		      "0000000000000000 T _stext\n0000000000000000 T _text\n");
	assert_int_equal(synth__kernel_mmap(&fx->s), -EPERM);
	assert_int_equal(fx->buf.len, 0);
	unit_put_file(fx->proc, "kallsyms", "ffffffff81000000 t foo\n");
	assert_int_equal(synth__kernel_mmap(&fx->s), -ENOENT);
}

/* The real machine: either a map, or -EPERM under kptr_restrict. */
static void test_kernel_mmap_real(void **state)
{
	struct fixture *fx = *state;
	const struct mmap_rec *m;
	int err = synth__kernel_mmap(&fx->s);

	if (err == -EPERM || err == -ENOENT || err == -EACCES)
		skip();
	assert_int_equal(err, 0);
	m = (const void *)next_rec(&fx->buf, NULL);
	assert_int_equal(m->start, m->pgoff);
	assert_true(m->len > 0);
	check_trailer(fx, &m->header);
}

/* ---- modules ---- */

static void test_modules_fake(void **state)
{
	struct fixture *fx = *state;
	const struct mmap_rec *m;
	struct utsname u;
	char rel[PATH_MAX], want[PATH_MAX];

	assert_int_equal(uname(&u), 0);
	unit_put_file(fx->proc, "modules",
		      "nf_nat 61440 2 xt_nat, Live 0xffffffffc0a10000\n"
		      "dummy_mod 4096 0 - Live 0xffffffffc0900000 (OE)\n");
	snprintf(rel, sizeof(rel), "lib/modules/%s/modules.dep", u.release);
	unit_put_file(fx->root, rel,
		      "kernel/net/netfilter/nf-nat.ko.zst: kernel/lib/libcrc32c.ko.zst\n"
		      "kernel/lib/libcrc32c.ko.zst:\n");
	assert_int_equal(synth__modules(&fx->s), 0);

	m = (const void *)next_rec(&fx->buf, NULL);
	assert_int_equal(m->header.type, PERF_RECORD_MMAP);
	assert_int_equal(m->header.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(m->pid, (uint32_t)-1);
	assert_int_equal(m->tid, 0);
	assert_int_equal(m->start, 0xffffffffc0a10000ull);
	assert_int_equal(m->len, 61440);
	assert_int_equal(m->pgoff, 0);
	snprintf(want, sizeof(want), "/lib/modules/%s/kernel/net/netfilter/nf-nat.ko.zst",
		 u.release);
	check_name(fx, &m->header, offsetof(struct mmap_rec, filename), want);
	check_trailer(fx, &m->header);

	m = (const void *)next_rec(&fx->buf, &m->header);
	assert_non_null(m);
	assert_int_equal(m->start, 0xffffffffc0900000ull);
	assert_int_equal(m->len, 4096);
	check_name(fx, &m->header, offsetof(struct mmap_rec, filename), "[dummy_mod]");
	assert_null(next_rec(&fx->buf, &m->header));
}

static void test_modules_none_or_hidden(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(synth__modules(&fx->s), 0); /* no /proc/modules */
	assert_int_equal(fx->buf.len, 0);
	unit_put_file(fx->proc, "modules", "nf_nat 61440 2 - Live 0x0000000000000000\n");
	assert_int_equal(synth__modules(&fx->s), -EPERM);
	assert_int_equal(fx->buf.len, 0);
}

/* ---- processes ---- */

static void *idle_thread(void *arg)
{
	pthread_barrier_t *b = arg;

	pthread_barrier_wait(b); /* started */
	pthread_barrier_wait(b); /* test done */
	return NULL;
}

struct self_seen {
	bool comm_leader, fork_leader, fork_thread, mmap_exe;
	size_t nr_comm, nr_fork;
};

static void check_self_rec(const struct fixture *fx, const struct perf_event_header *h,
			   const char *comm, const char *exe, struct self_seen *seen)
{
	pid_t pid = getpid();

	check_trailer(fx, h);
	if (h->type == PERF_RECORD_COMM) {
		const struct comm_rec *c = (const void *)h;

		assert_int_equal(c->pid, pid);
		assert_int_equal(h->misc, 0);
		seen->nr_comm++;
		if (c->tid == (uint32_t)pid) {
			check_name(fx, h, offsetof(struct comm_rec, comm), comm);
			seen->comm_leader = true;
		}
	} else if (h->type == PERF_RECORD_FORK) {
		const struct fork_rec *f = (const void *)h;

		assert_int_equal(f->pid, pid);
		assert_int_equal(h->misc, PERF_RECORD_MISC_FORK_EXEC);
		assert_int_equal(f->ppid, f->ptid);
		assert_int_equal(f->time, 0);
		seen->nr_fork++;
		if (f->tid == (uint32_t)pid) {
			assert_int_equal(f->ppid, getppid());
			seen->fork_leader = true;
		} else {
			assert_int_equal(f->ppid, pid);
			seen->fork_thread = true;
		}
	} else {
		const struct mmap2_rec *m = (const void *)h;

		assert_int_equal(h->type, PERF_RECORD_MMAP2);
		assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
		assert_int_equal(m->pid, pid);
		assert_int_equal(m->tid, pid);
		assert_true(m->prot & PROT_EXEC);
		assert_true(m->flags == MAP_PRIVATE || m->flags == MAP_SHARED);
		assert_int_equal(m->ino_generation, 0);
		assert_int_equal(strlen(m->filename) + 1 + 72 + fx->layout.id_hdr_size +
				     (7 & -(strlen(m->filename) + 1)),
				 h->size);
		if (!strcmp(m->filename, exe)) {
			struct stat st;

			assert_int_equal(stat(exe, &st), 0);
			assert_int_equal(m->ino, st.st_ino);
			seen->mmap_exe = true;
		}
	}
}

static void test_process_self(void **state)
{
	struct fixture *fx = *state;
	char comm[32] = "", exe[PATH_MAX];
	struct self_seen seen = {0};
	pthread_barrier_t b;
	pthread_t th;
	ssize_t n;
	FILE *f;

	pthread_barrier_init(&b, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, idle_thread, &b), 0);
	pthread_barrier_wait(&b);
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';

	assert_int_equal(synth__process(&fx->s, getpid()), 0);
	for (const struct perf_event_header *h = next_rec(&fx->buf, NULL); h;
	     h = next_rec(&fx->buf, h))
		check_self_rec(fx, h, comm, exe, &seen);
	pthread_barrier_wait(&b);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&b);

	assert_true(seen.comm_leader);
	assert_true(seen.fork_leader);
	assert_true(seen.fork_thread);
	assert_true(seen.mmap_exe);
	assert_int_equal(seen.nr_comm, seen.nr_fork);
	assert_true(seen.nr_comm >= 2);
}

/* A fake process: leader 500 (ppid 1), thread 501; maps with anon exec + [vdso]. */
static void put_fake_process(const char *proc)
{
	static const char status[] = "Name:\t%s\nUmask:\t0022\nState:\tS\nTgid:\t500\n"
				     "Ngid:\t0\nPid:\t%d\nPPid:\t1\nVmPeak:\t 1000 kB\n"
				     "Threads:\t2\n";

	unit_put_file(proc, "500/task/500/status", status, "a-very-long-name-x", 500);
	unit_put_file(proc, "500/task/501/status", status, "worker", 501);
	unit_put_file(proc, "500/task/500/maps",
		      "55d0a4a00000-55d0a4a28000 r--p 00000000 fe:00 1234       /usr/bin/fake\n"
		      "55d0a4a28000-55d0a4aa0000 r-xp 00028000 fe:00 1234       /usr/bin/fake\n"
		      "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
		      "7f0000002000-7f0000003000 r-xs 00001000 00:05 77  /dev/shm/x y\n"
		      "7ffd1000000-7ffd1002000 r-xp 00000000 00:00 0                  [vdso]\n"
		      "garbage line\n");
}

static void test_process_fake(void **state)
{
	struct fixture *fx = *state;
	const struct perf_event_header *h = NULL;
	const struct mmap2_rec *m;
	const struct comm_rec *c;
	size_t nr_mmap = 0;

	put_fake_process(fx->proc);
	assert_int_equal(synth__process(&fx->s, 500), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 2);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 2);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_MMAP2), 4);
	while ((h = next_rec(&fx->buf, h))) {
		check_trailer(fx, h);
		if (h->type == PERF_RECORD_COMM) {
			c = (const void *)h;
			if (c->tid == 500) /* truncated to 15 chars like perf */
				check_name(fx, h, 16, "a-very-long-nam");
			else
				check_name(fx, h, 16, "worker");
		}
		if (h->type != PERF_RECORD_MMAP2)
			continue;
		m = (const void *)h;
		switch (nr_mmap++) {
		case 0:
			assert_int_equal(m->start, 0x55d0a4a28000ull);
			assert_int_equal(m->len, 0x78000);
			assert_int_equal(m->pgoff, 0x28000);
			assert_int_equal(m->maj, 0xfe);
			assert_int_equal(m->min, 0);
			assert_int_equal(m->ino, 1234);
			assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
			assert_int_equal(m->flags, MAP_PRIVATE);
			check_name(fx, h, 72, "/usr/bin/fake");
			break;
		case 1:
			assert_int_equal(m->prot, PROT_READ | PROT_WRITE | PROT_EXEC);
			check_name(fx, h, 72, "//anon");
			break;
		case 2:
			assert_int_equal(m->flags, MAP_SHARED);
			assert_int_equal(m->min, 5);
			check_name(fx, h, 72, "/dev/shm/x y");
			break;
		default:
			check_name(fx, h, 72, "[vdso]");
			break;
		}
	}
}

/* FORK then COMM per thread, leader's maps right after its COMM (perf's order) */
static void test_process_order(void **state)
{
	struct fixture *fx = *state;
	const struct perf_event_header *h = NULL;
	uint32_t prev = 0;

	put_fake_process(fx->proc);
	assert_int_equal(synth__process(&fx->s, 500), 0);
	while ((h = next_rec(&fx->buf, h))) {
		if (h->type == PERF_RECORD_COMM)
			assert_int_equal(prev, PERF_RECORD_FORK);
		if (h->type == PERF_RECORD_MMAP2)
			assert_true(prev == PERF_RECORD_COMM || prev == PERF_RECORD_MMAP2);
		prev = h->type;
	}
}

static void test_process_vanished(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(synth__process(&fx->s, 4242), -ESRCH);
	/* task dir left, status gone: exited mid-scan */
	unit_put_file(fx->proc, "4243/task/4243/.keep", "");
	assert_int_equal(synth__process(&fx->s, 4243), -ESRCH);
	assert_int_equal(fx->buf.len, 0);
}

/* Kernel threads (no VmPeak) get FORK + COMM, never maps */
static void test_process_kthread(void **state)
{
	struct fixture *fx = *state;

	unit_put_file(fx->proc, "2/task/2/status",
		      "Name:\tkthreadd\nTgid:\t2\nPid:\t2\nPPid:\t0\n"
		      "Threads:\t1\n");
	unit_put_file(fx->proc, "2/task/2/maps", "");
	assert_int_equal(synth__process(&fx->s, 2), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 1);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 1);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_MMAP2), 0);
}

static void test_all_processes_fake(void **state)
{
	struct fixture *fx = *state;

	put_fake_process(fx->proc);
	unit_put_file(fx->proc, "4243/task/.keep", "");		 /* vanished: no threads left */
	unit_put_file(fx->proc, "self/task/500/status", "junk"); /* not numeric: ignored */
	unit_put_file(fx->proc, "kallsyms", "");
	assert_int_equal(synth__all_processes(&fx->s), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 2);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 2);
}

/* A one-thread kernel-less fake process @pid (parent @ppid), for trees. */
static void put_fake_child(const char *proc, int pid, int ppid)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/task/%d/status", pid, pid);
	unit_put_file(proc, rel, "Name:\tchild\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n"
		      "VmPeak:\t 1000 kB\nThreads:\t1\n", pid, pid, ppid);
	snprintf(rel, sizeof(rel), "%d/task/%d/maps", pid, pid);
	unit_put_file(proc, rel, "");
}

/*
 * synth__tree: the process, the children any of its threads forked, theirs
 * in turn; neither its siblings nor a vanished child.
 */
static void test_tree_fake(void **state)
{
	struct fixture *fx = *state;

	put_fake_process(fx->proc); /* 500 and its thread 501 */
	put_fake_child(fx->proc, 600, 500);
	put_fake_child(fx->proc, 700, 600);
	put_fake_child(fx->proc, 800, 1); /* not below 500 */
	unit_put_file(fx->proc, "500/task/500/children", "");
	unit_put_file(fx->proc, "500/task/501/children", "600 4444 ");
	unit_put_file(fx->proc, "600/task/600/children", "700 ");
	assert_int_equal(synth__tree(&fx->s, 500), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 4);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 4);
	fx->buf.len = 0;
	assert_int_equal(synth__tree(&fx->s, 600), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 2);
	fx->buf.len = 0;
	assert_int_equal(synth__tree(&fx->s, 4444), 0); /* gone: nothing, no error */
	assert_int_equal(fx->buf.len, 0);
}

/*
 * mmap_data (perf's sample_address: -d, DWARF): readable data mappings too,
 * misc MMAP_DATA; unreadable ones never; hugetlbfs files as //anon.
 */
static void test_process_mmap_data(void **state)
{
	struct fixture *fx = *state;
	const struct perf_event_header *h = NULL;
	const struct mmap2_rec *m;
	size_t nr = 0;

	put_fake_process(fx->proc);
	unit_put_file(fx->proc, "mounts", "none /dev/hugepages hugetlbfs rw,relatime 0 0\n");
	unit_put_file(fx->proc, "500/task/500/maps",
		      "55d0a4a00000-55d0a4a28000 r--p 00000000 fe:00 1234       /usr/bin/fake\n"
		      "55d0a4a28000-55d0a4aa0000 r-xp 00028000 fe:00 1234       /usr/bin/fake\n"
		      "55d0a4aa0000-55d0a4aa1000 ---p 00000000 00:00 0 \n"
		      "7f0000000000-7f0000200000 rw-s 00000000 00:2f 9 /dev/hugepages/buf\n");
	fx->s.mmap_data = true;
	assert_int_equal(synth__process(&fx->s, 500), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_MMAP2), 3);
	while ((h = next_rec(&fx->buf, h))) {
		if (h->type != PERF_RECORD_MMAP2)
			continue;
		m = (const void *)h;
		switch (nr++) {
		case 0:
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
			assert_int_equal(m->prot, PROT_READ);
			check_name(fx, h, 72, "/usr/bin/fake");
			break;
		case 1:
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
			break;
		default:
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
			assert_int_equal(m->flags, MAP_SHARED | MAP_HUGETLB);
			check_name(fx, h, 72, "//anon");
			break;
		}
	}
}

/* -p/-t/-u: COMM per listed thread, no FORK; a thread's unlisted leader too. */
static void test_threads_list(void **state)
{
	struct fixture *fx = *state;

	put_fake_process(fx->proc);
	/* /proc/TID of a thread is hidden from readdir but there, as here */
	unit_put_file(fx->proc, "501/task/501/status",
		      "Name:\tworker\nTgid:\t500\nPid:\t501\nPPid:\t1\nVmPeak:\t 1000 kB\n");
	assert_int_equal(synth__threads(&fx->s, (const pid_t[]){500, 501}, 2), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 2);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_MMAP2), 4);
	recbuf__release(&fx->buf);
	memset(&fx->buf, 0, sizeof(fx->buf));

	/* -t 501: its COMM, then the leader's COMM and maps */
	assert_int_equal(synth__threads(&fx->s, (const pid_t[]){501, 4242}, 2), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_FORK), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_COMM), 2);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_MMAP2), 4);
}

/* Unreadable maps: -p fails naming the file; -u (skip_unreadable) counts and goes on. */
static void test_threads_unreadable(void **state)
{
	struct fixture *fx = *state;
	char want[PATH_MAX];

	put_fake_process(fx->proc);
	/* a directory reads as EISDIR: the same path as EACCES, for root too */
	unlink(strcat(strcpy(want, fx->proc), "/500/task/500/maps"));
	unit_mkdirs(want);
	assert_int_equal(synth__threads(&fx->s, (const pid_t[]){500}, 1), -EISDIR);
	assert_string_equal(fx->s.err_path, want);

	fx->s.skip_unreadable = true;
	fx->s.err_path[0] = '\0';
	assert_int_equal(synth__threads(&fx->s, (const pid_t[]){500, 501}, 2), 0);
	assert_int_equal(fx->s.nr_unreadable, 1);
	assert_int_equal(fx->s.unreadable_err, -EISDIR);
	assert_string_equal(fx->s.err_path, want);

	fx->s.nr_unreadable = 0;
	assert_int_equal(synth__all_processes(&fx->s), 0);
	assert_int_equal(fx->s.nr_unreadable, 1);
	assert_string_equal(fx->s.err_path, want);
}

static void test_all_processes_real(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(synth__all_processes(&fx->s), 0);
	assert_true(count_type(&fx->buf, PERF_RECORD_COMM) >= 1);
	for (const struct perf_event_header *h = next_rec(&fx->buf, NULL); h;
	     h = next_rec(&fx->buf, h))
		check_trailer(fx, h);
}

/* ---- user records ---- */

static void test_thread_map(void **state)
{
	struct fixture *fx = *state;
	const pid_t tids[] = {-1, 1234};
	const unsigned char *p;
	uint64_t v;

	assert_int_equal(synth__thread_map(&fx->s, tids, 2), 0);
	assert_int_equal(fx->buf.len, 8 + 8 + 2 * 24);
	p = fx->buf.data;
	assert_int_equal(((const struct perf_event_header *)p)->type, 73);
	assert_int_equal(((const struct perf_event_header *)p)->size, 64);
	memcpy(&v, p + 8, 8);
	assert_int_equal(v, 2);
	memcpy(&v, p + 16, 8);
	assert_int_equal(v, UINT64_MAX);
	memcpy(&v, p + 40, 8);
	assert_int_equal(v, 1234);
	for (int i = 0; i < 16; i++)
		assert_int_equal(p[24 + i] | p[48 + i], 0);
}

static void test_cpu_map(void **state)
{
	struct fixture *fx = *state;
	const int cpus[] = {0, 1, 2, 5, 7};
	const uint16_t want[] = {0, 5, 0, 1, 2, 5, 7};
	const unsigned char *p;

	assert_int_equal(synth__cpu_map(&fx->s, cpus, 5), 0);
	p = fx->buf.data;
	assert_int_equal(((const struct perf_event_header *)p)->type, 74);
	/* 8 + 2 type + 2 nr + 5 * 2 = 22 -> 24 */
	assert_int_equal(((const struct perf_event_header *)p)->size, 24);
	assert_int_equal(fx->buf.len, 24);
	assert_memory_equal(p + 8, want, sizeof(want));
	assert_int_equal(p[22] | p[23], 0);
	assert_int_equal(synth__cpu_map(&fx->s, (const int[]){70000}, 1), -ERANGE);
}

static void test_finished_init(void **state)
{
	struct fixture *fx = *state;
	const struct perf_event_header *h;

	assert_int_equal(synth__finished_init(&fx->s), 0);
	h = next_rec(&fx->buf, NULL);
	assert_int_equal(h->type, 82);
	assert_int_equal(h->size, 8);
	assert_int_equal(fx->buf.len, 8);
}

/* ---- BPF ---- */

struct ksymbol_rec {
	struct perf_event_header header;
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	char name[];
};

/* Trampolines and dispatchers of [bpf], nothing else: perf's kallsyms_process_symbol(). */
static void test_bpf_images_fake(void **state)
{
	struct fixture *fx = *state;
	const struct ksymbol_rec *k;

	unit_put_file(fx->proc, "kallsyms",
		      "ffffffff81000000 T bpf_trampoline_8\n"
		      "ffffffffc0000b98 t bpf_prog_f7904b1e51166c13_shardrec_hot\t[bpf]\n"
		      "ffffffffc0002000 t bpf_trampoline_6442\t[bpf]\n"
		      "ffffffffc0004000 t bpf_trampoline_x\t[bpf]\n"
		      "ffffffffc0005000 t bpf_dispatcher_\t[bpf]\n"
		      "ffffffffc0006000 t bpf_trampoline_7\t[mod]\n"
		      "ffffffffc0003000 t bpf_dispatcher_xdp\t[bpf]\n");
	assert_int_equal(synth__bpf_images(&fx->s), 0);
	k = (const void *)next_rec(&fx->buf, NULL);
	assert_non_null(k);
	assert_int_equal(k->header.type, PERF_RECORD_KSYMBOL);
	assert_int_equal(k->header.misc, 0);
	assert_int_equal(k->addr, 0xffffffffc0002000ull);
	assert_int_equal(k->len, sysconf(_SC_PAGESIZE));
	assert_int_equal(k->ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	assert_int_equal(k->flags, 0);
	check_name(fx, &k->header, offsetof(struct ksymbol_rec, name), "bpf_trampoline_6442");
	check_trailer(fx, &k->header);
	k = (const void *)next_rec(&fx->buf, &k->header);
	assert_non_null(k);
	assert_int_equal(k->addr, 0xffffffffc0003000ull);
	check_name(fx, &k->header, offsetof(struct ksymbol_rec, name), "bpf_dispatcher_xdp");
	assert_null(next_rec(&fx->buf, &k->header));
	/* no program that could have an image (synth__bpf_programs said so): kallsyms unread */
	fx->s.no_bpf_images = true;
	assert_int_equal(synth__bpf_images(&fx->s), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_KSYMBOL), 2);
	fx->s.no_bpf_images = false;
	/* no kallsyms: nothing, and no error (the programs are described already) */
	unlink(strcat(fx->proc, "/kallsyms"));
	assert_int_equal(synth__bpf_images(&fx->s), 0);
	assert_int_equal(count_type(&fx->buf, PERF_RECORD_KSYMBOL), 2);
}

/*
 * synth__bpf_programs says kallsyms can hold no trampoline or dispatcher
 * image only when no listed program could have one: never with an XDP
 * program loaded, and never for a list with such a program in it.
 */
static void test_bpf_images_needed(void **state)
{
	struct fixture *fx = *state;
	struct synth_bpf_env env = {0};
	uint32_t id = 0;
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "srxdp%d", (int)getpid() % 100000);
	fd = unit_bpf_load_type(name, BPF_PROG_TYPE_XDP, &id);
	if (fd == -EPERM || fd == -EACCES)
		skip();
	assert_true(fd >= 0);
	fx->s.no_bpf_images = true;
	assert_int_equal(synth__bpf_programs(&fx->s, true), 0);
	assert_false(fx->s.no_bpf_images);
	close(fd);
	/* without it: whatever the machine runs, never "none" beside one that has an image */
	fx->s.bpf_env = &env;
	assert_int_equal(synth__bpf_programs(&fx->s, true), 0);
	for (size_t i = 0; fx->s.no_bpf_images && i < env.nr_progs; i++) {
		struct bpf_prog_info info;

		memcpy(&info, (const char *)env.progs[i].bpil + 16, sizeof(info.type));
		assert_true(info.type != BPF_PROG_TYPE_TRACING && info.type != BPF_PROG_TYPE_LSM &&
			    info.type != BPF_PROG_TYPE_EXT &&
			    info.type != BPF_PROG_TYPE_STRUCT_OPS && info.type != BPF_PROG_TYPE_XDP);
	}
	synth_bpf_env__release(&env);
	fx->s.bpf_env = NULL;
}

/* The KSYMBOL of the sub-program named bpf_prog_<tag>_@name. */
static const struct ksymbol_rec *ksymbol_named(const struct recbuf *b, const char *name)
{
	for (const struct perf_event_header *h = next_rec(b, NULL); h; h = next_rec(b, h)) {
		const struct ksymbol_rec *k = (const void *)h;
		size_t n = strlen(k->name), m = strlen(name);

		if (h->type == PERF_RECORD_KSYMBOL && n > m && !strcmp(k->name + n - m, name) &&
		    k->name[n - m - 1] == '_')
			return k;
	}
	return NULL;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * What perf's env keeps of a loaded program (BPF_PROG_INFO): its perf_bpil
 * with perf 6.1's info size and seven arrays, each array's address made an
 * 8-byte aligned offset inside the data; the JITed address there is the
 * one its KSYMBOL carries, the tag the info's. Without bpf_event
 * (--no-bpf-event) nothing is kept of it. Needs CAP_SYS_ADMIN (root).
 */
static void test_bpf_env_real(void **state)
{
	/* perf's PERF_BPIL_* bits: JITED_INSNS 0, KSYMS 3, FUNC_LENS 4, FUNC_INFO 5, LINE_INFO 6, JITED_LINE_INFO 7, TAGS 8 */
	const uint64_t arrays = 1 << 0 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8;
	struct fixture *fx = *state;
	struct synth_bpf_env env = {0};
	const struct synth_bpf_prog *e = NULL;
	const struct bpf_prog_info *info;
	const struct ksymbol_rec *k;
	const unsigned char *data;
	uint32_t id = 0, hl[2];
	uint64_t arr;
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "srenv%d", (int)getpid() % 100000);
	fd = unit_bpf_load(name, &id);
	if (fd == -EPERM || fd == -EACCES)
		skip();
	assert_true(fd >= 0);
	fx->s.bpf_env = &env;
	assert_int_equal(synth__bpf_programs(&fx->s, true), 0);
	k = ksymbol_named(&fx->buf, name);
	assert_non_null(k);
	for (size_t i = 0; i < env.nr_progs; i++) {
		assert_true(!i || env.progs[i - 1].id < env.progs[i].id);
		if (env.progs[i].id == id)
			e = &env.progs[i];
	}
	assert_non_null(e);
	memcpy(hl, e->bpil, sizeof(hl));
	memcpy(&arr, (const char *)e->bpil + 8, sizeof(arr));
	assert_int_equal(hl[0], 232);
	assert_int_equal(16 + hl[0] + hl[1], e->len);
	assert_int_equal(arr, arrays);
	info = (const void *)((const char *)e->bpil + 16);
	data = (const unsigned char *)e->bpil + 16 + 232;
	assert_int_equal(info->id, id);
	assert_string_equal(info->name, name);
	assert_int_equal(info->nr_jited_ksyms, 1);
	assert_int_equal(info->jited_ksyms % 8, 0);
	assert_true(info->jited_ksyms + 8 <= hl[1]);
	assert_int_equal(u64_at(data + info->jited_ksyms), k->addr);
	assert_true(info->jited_prog_len > 0 && info->jited_prog_insns + info->jited_prog_len <= hl[1]);
	assert_true(info->prog_tags + 8 <= hl[1]);
	assert_memory_equal(data + info->prog_tags, info->tag, 8);
	synth_bpf_env__release(&env);

	/* --no-bpf-event: the records' names stay, the env keeps no program */
	fx->buf.len = 0;
	assert_int_equal(synth__bpf_programs(&fx->s, false), 0);
	assert_non_null(ksymbol_named(&fx->buf, name));
	assert_int_equal(env.nr_progs, 0);
	synth_bpf_env__release(&env);
	close(fd);
}

/* A program's BTF: header, types from id 1, strings (uapi linux/btf.h). */
#define BTF_INFO(kind, vlen) ((uint32_t)(kind) << 24 | (uint32_t)(vlen))
struct btf_blob {
	struct btf_header h;
	uint32_t types[32];
	char strs[64];
};

static size_t btf_blob__make(struct btf_blob *b, unsigned int odd_kind)
{
	static const char strs[] = "\0int\0shardrec_hot_fn\0second\0a";
	uint32_t *t = b->types;

	memset(b, 0, sizeof(*b));
	/* 1: int, 4 bytes, then its encoding word */
	*t++ = 1, *t++ = BTF_INFO(BTF_KIND_INT, 0), *t++ = 4, *t++ = 32;
	/* 2: a prototype of one parameter (name, type) */
	*t++ = 0, *t++ = BTF_INFO(BTF_KIND_FUNC_PROTO, 1), *t++ = 1, *t++ = 0, *t++ = 1;
	/* 3: the function */
	*t++ = 5, *t++ = BTF_INFO(BTF_KIND_FUNC, 0), *t++ = 2;
	/* 4: a struct of two members (name, type, offset), or a kind we do not know */
	*t++ = 28, *t++ = BTF_INFO(odd_kind, 2), *t++ = 8;
	*t++ = 28, *t++ = 1, *t++ = 0, *t++ = 28, *t++ = 1, *t++ = 32;
	/* 5: a second function */
	*t++ = 21, *t++ = BTF_INFO(BTF_KIND_FUNC, 0), *t++ = 2;
	b->h.magic = BTF_MAGIC;
	b->h.version = BTF_VERSION;
	b->h.hdr_len = sizeof(b->h);
	b->h.type_off = 0;
	b->h.type_len = (uint32_t)((char *)t - (char *)b->types);
	b->h.str_off = b->h.type_len;
	b->h.str_len = sizeof(strs);
	memcpy((char *)b->types + b->h.type_len, strs, sizeof(strs));
	return sizeof(b->h) + b->h.type_len + b->h.str_len;
}

static void test_btf_name(void **state)
{
	struct btf_blob b;
	size_t size = btf_blob__make(&b, BTF_KIND_STRUCT);

	(void)state;
	assert_string_equal(synth__btf_name(&b, size, 1), "int");
	assert_string_equal(synth__btf_name(&b, size, 3), "shardrec_hot_fn");
	assert_string_equal(synth__btf_name(&b, size, 4), "a");
	assert_string_equal(synth__btf_name(&b, size, 5), "second");
	assert_string_equal(synth__btf_name(&b, size, 2), "");
	assert_null(synth__btf_name(&b, size, 0));
	assert_null(synth__btf_name(&b, size, 6));
	/* the strings cut short: the last one does not end */
	assert_null(synth__btf_name(&b, size - 1, 1));
	b.h.str_len--;
	assert_null(synth__btf_name(&b, size - 1, 1));
	b.h.str_len++;
	b.h.type_len += 4096; /* types past the end */
	assert_null(synth__btf_name(&b, size, 1));
	b.h.type_len -= 4096;
	b.h.magic = 0x9feb; /* the other byte order: not ours */
	assert_null(synth__btf_name(&b, size, 1));
	/* a kind newer than the headers: the types after it cannot be found */
	size = btf_blob__make(&b, 31);
	assert_string_equal(synth__btf_name(&b, size, 3), "shardrec_hot_fn");
	assert_string_equal(synth__btf_name(&b, size, 4), "a");
	assert_null(synth__btf_name(&b, size, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_kernel_mmap_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_kernel_mmap_no_etext, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_kernel_mmap_restricted, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_kernel_mmap_real, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_modules_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_modules_none_or_hidden, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_process_self, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_process_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_process_order, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_process_vanished, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_process_kthread, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_all_processes_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_all_processes_real, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tree_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_process_mmap_data, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_threads_list, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_threads_unreadable, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_thread_map, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_map, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_finished_init, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bpf_images_fake, setup_fake, teardown),
	    cmocka_unit_test_setup_teardown(test_bpf_images_needed, setup_fake, teardown),
	    cmocka_unit_test(test_btf_name),
	    cmocka_unit_test_setup_teardown(test_bpf_env_real, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
