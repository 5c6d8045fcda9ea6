// SPDX-License-Identifier: GPL-2.0
/* Test-only fault injection for shard writes: see fault.h. */
#include "recorder/capture/fault.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAULT_MAX 8
#define FAULT_ANY_WRITER (~0U)

enum fault_kind { FAULT_ENOSPC, FAULT_EIO, FAULT_SLOW, FAULT_HOLD, FAULT_KILL, FAULT_SYNTH };

struct fault {
	unsigned writer; /* FAULT_HOLD: the CPU; FAULT_KILL, FAULT_SYNTH: the generation */
	enum fault_kind kind;
	uint64_t arg;
	uint64_t hold_start; /* FAULT_HOLD: set by the ring's one writer, read by it alone */
};

/* Written once before any writer reads them (pthread_once orders it). */
static struct fault faults[FAULT_MAX];
static unsigned nr_faults;
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

static int parse_kind(const char *what, const char *s, enum fault_kind *k)
{
	if (!strcmp(what, "ring"))
		return strcmp(s, "hold") ? -EINVAL : (*k = FAULT_HOLD, 0);
	if (!strcmp(what, "switch"))
		return strcmp(s, "kill") ? -EINVAL : (*k = FAULT_KILL, 0);
	if (!strcmp(what, "synth"))
		return strcmp(s, "sleep") ? -EINVAL : (*k = FAULT_SYNTH, 0);
	if (strcmp(what, "writer"))
		return -EINVAL;
	if (!strcmp(s, "enospc_after"))
		*k = FAULT_ENOSPC;
	else if (!strcmp(s, "eio_after"))
		*k = FAULT_EIO;
	else if (!strcmp(s, "slow"))
		*k = FAULT_SLOW;
	else
		return -EINVAL;
	return 0;
}

/* One "writer:IDX:KIND:ARG", "ring:CPU:hold:MS", "switch:GEN:kill:MS" or "synth:1:sleep:MS". */
static int parse_one(char *s, struct fault *f)
{
	char *save = NULL, *tok[4];
	char *end;
	int n = 0;

	for (char *t = strtok_r(s, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (n == 4)
			return -EINVAL;
		tok[n++] = t;
	}
	if (n != 4)
		return -EINVAL;
	if (!strcmp(tok[1], "*") && !strcmp(tok[0], "writer")) {
		f->writer = FAULT_ANY_WRITER;
	} else {
		f->writer = strtoul(tok[1], &end, 10);
		if (*end || !*tok[1])
			return -EINVAL;
	}
	f->arg = strtoull(tok[3], &end, 10);
	if (*end || !*tok[3])
		return -EINVAL;
	f->hold_start = 0;
	return parse_kind(tok[0], tok[2], &f->kind);
}

int fault__set(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	nr_faults = 0;
	for (char *s = strtok_r(copy, ",", &save); s && !ret; s = strtok_r(NULL, ",", &save)) {
		if (nr_faults == FAULT_MAX)
			ret = -EINVAL;
		else
			ret = parse_one(s, &faults[nr_faults++]);
	}
	if (ret)
		nr_faults = 0;
	free(copy);
	return ret;
}

static void fault__init(void)
{
	const char *spec = getenv("SHARDREC_FAULT");

	if (!spec || !*spec)
		return;
	if (fault__set(spec))
		pr_warn("SHARDREC_FAULT='%s' is malformed: no fault injected", spec);
	else
		pr_warn("SHARDREC_FAULT='%s': injecting faults (testing aid)",
			spec);
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int fault__shard_write(unsigned idx, uint64_t off, uint64_t len)
{
	pthread_once(&fault_once, fault__init);
	for (unsigned i = 0; i < nr_faults; i++) {
		const struct fault *f = &faults[i];

		if (f->kind == FAULT_HOLD || f->kind == FAULT_KILL || f->kind == FAULT_SYNTH ||
		    (f->writer != FAULT_ANY_WRITER && f->writer != idx))
			continue;
		if (f->kind == FAULT_SLOW)
			sleep_ms(f->arg);
		else if (off + len > f->arg)
			return f->kind == FAULT_ENOSPC ? -ENOSPC : -EIO;
	}
	return 0;
}

bool fault__ring_held(unsigned cpu, uint64_t now_ns)
{
	pthread_once(&fault_once, fault__init);
	for (unsigned i = 0; i < nr_faults; i++) {
		struct fault *f = &faults[i];

		if (f->kind != FAULT_HOLD || f->writer != cpu)
			continue;
		if (!f->hold_start)
			f->hold_start = now_ns ? now_ns : 1;
		if (now_ns - f->hold_start < f->arg * 1000000)
			return true;
	}
	return false;
}

void fault__switch_taken(unsigned gen)
{
	pthread_once(&fault_once, fault__init);
	for (unsigned i = 0; i < nr_faults; i++)
		if (faults[i].kind == FAULT_KILL && faults[i].writer == gen) {
			sleep_ms(faults[i].arg);
			raise(SIGKILL);
		}
}

void fault__synth_done(void)
{
	pthread_once(&fault_once, fault__init);
	for (unsigned i = 0; i < nr_faults; i++)
		if (faults[i].kind == FAULT_SYNTH && faults[i].writer == 1)
			sleep_ms(faults[i].arg);
}
