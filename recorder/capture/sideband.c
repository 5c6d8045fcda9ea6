// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/sideband.h"
#include "recorder/util/log.h"
#include "recorder/util/perf_event.h"
#include "recorder/util/privs.h"
#include "recorder/util/thread.h"
/* The side band reads its own rings: their size and pointers. */
#include "ringbuf/ring_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* One data page a CPU: a load writes one 32-byte record, and each wakes the thread. */
#define SB_DATA_PAGES 1

/* perf_record_bpf_event (tools/lib/perf/include/perf/event.h), without its tag */
struct sb_bpf_event {
	struct perf_event_header header;
	uint16_t type, flags;
	uint32_t id;
};

/* evlist__add_bpf_sb_event()'s attr: woken at every record, BPF records only. */
static int sb_open_cpu(int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.size = sizeof(a);
	a.sample_id_all = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1;
	a.bpf_event = 1;
	return perf_event__open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int sideband__open(struct sideband *sb, const int *cpus, size_t nr_cpus)
{
	int ret = 0;

	memset(sb, 0, sizeof(*sb));
	sb->stop_fd = -1;
	sb->fds = malloc(nr_cpus * sizeof(*sb->fds));
	sb->rings = calloc(nr_cpus, sizeof(*sb->rings));
	if (!sb->fds || !sb->rings) {
		ret = -ENOMEM;
		goto out_close;
	}
	privs__raise(PRIVS_F(PRIVS_PERFMON) | PRIVS_F(PRIVS_SYS_ADMIN) | PRIVS_F(PRIVS_IPC_LOCK));
	for (; sb->nr < nr_cpus && !ret; sb->nr++) {
		sb->fds[sb->nr] = sb_open_cpu(cpus[sb->nr]);
		ret = sb->fds[sb->nr] < 0 ? -errno : 0;
		if (!ret)
			ret = ring__mmap(&sb->rings[sb->nr], sb->fds[sb->nr], cpus[sb->nr],
					 SB_DATA_PAGES, false);
		if (ret && sb->fds[sb->nr] >= 0)
			close(sb->fds[sb->nr]);
	}
	privs__lower();
	if (ret) {
		sb->nr--; /* the one that failed is closed */
		goto out_close;
	}
	sb->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sb->stop_fd < 0) {
		ret = -errno;
		goto out_close;
	}
	return 0;

out_close:
	sideband__close(sb);
	return ret;
}

/* Each BPF_EVENT load in @len bytes of records at @p. */
static void sb_records(struct sideband *sb, const unsigned char *p, size_t len)
{
	struct sb_bpf_event e;

	for (size_t off = 0; off + sizeof(struct perf_event_header) <= len;) {
		memcpy(&e.header, p + off, sizeof(e.header));
		if (e.header.size < sizeof(e.header) || e.header.size > len - off)
			return; /* not a record the kernel writes: nothing after it either */
		if (e.header.type == PERF_RECORD_BPF_EVENT && e.header.size >= sizeof(e)) {
			memcpy(&e, p + off, sizeof(e));
			if (e.type == PERF_BPF_EVENT_PROG_LOAD) {
				sb->loads++;
				pthread_mutex_lock(sb->lock);
				if (synth_bpf_env__add_loaded(sb->env, e.id))
					pr_debug("BPF program %u: not described (out of memory)", e.id);
				pthread_mutex_unlock(sb->lock);
			}
		}
		off += e.header.size;
	}
}

/* Every ring's records, a ring's whole span at a time (a record may wrap). */
static void sb_drain(struct sideband *sb)
{
	unsigned char buf[SB_DATA_PAGES * 65536];

	for (size_t i = 0; i < sb->nr; i++) {
		struct ring_span s;
		long len = ring__read_init(&sb->rings[i], &s);

		if (len <= 0 || (size_t)len > sizeof(buf))
			continue;
		for (int k = 0, at = 0; k < s.nr_iov; at += (int)s.iov[k].iov_len, k++)
			memcpy(buf + at, s.iov[k].iov_base, s.iov[k].iov_len);
		sb_records(sb, buf, (size_t)len);
		ring__read_done(&sb->rings[i], &s);
	}
}

static void *sb_thread(void *arg)
{
	struct sideband *sb = arg;
	struct pollfd *pfd = calloc(sb->nr + 1, sizeof(*pfd));

	pthread_setname_np(pthread_self(), "shardrec-sb");
	if (!pfd)
		return NULL;
	for (size_t i = 0; i < sb->nr; i++)
		pfd[i] = (struct pollfd){.fd = sb->fds[i], .events = POLLIN};
	pfd[sb->nr] = (struct pollfd){.fd = sb->stop_fd, .events = POLLIN};
	for (;;) {
		if (poll(pfd, sb->nr + 1, -1) < 0 && errno != EINTR)
			break;
		sb_drain(sb);
		if (pfd[sb->nr].revents & POLLIN)
			break;
	}
	free(pfd);
	return NULL;
}

int sideband__start(struct sideband *sb, struct synth_bpf_env *env, pthread_mutex_t *lock)
{
	int ret;

	sb->env = env;
	sb->lock = lock;
	/* Signals belong to the session's signalfd. */
	ret = thread__start_quiet(&sb->thread, sb_thread, sb);
	sb->started = !ret;
	return ret;
}

void sideband__stop(struct sideband *sb)
{
	uint64_t one = 1;

	if (!sb->started)
		return;
	if (write(sb->stop_fd, &one, sizeof(one)) < 0) {
		/* A saturated eventfd is readable already. */
	}
	pthread_join(sb->thread, NULL);
	sb->started = false;
}

void sideband__close(struct sideband *sb)
{
	if (!sb->fds && !sb->rings)
		return; /* never opened */
	sideband__stop(sb);
	for (size_t i = 0; i < sb->nr; i++) {
		ring__munmap(&sb->rings[i]);
		close(sb->fds[i]);
	}
	if (sb->stop_fd >= 0)
		close(sb->stop_fd);
	free(sb->fds);
	free(sb->rings);
	memset(sb, 0, sizeof(*sb));
	sb->stop_fd = -1;
}
