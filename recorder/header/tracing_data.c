// SPDX-License-Identifier: GPL-2.0
#include "recorder/header/tracing_data.h"
#include "recorder/util/fs.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACING_MAGIC "\027\010\104tracing"
#define TRACING_VERSION "0.6"

/* One tracepoint of the recording, found by its id under events/. */
struct tp {
	char sys[256];
	char name[256];
};

struct tdata {
	const char *root; /* tracefs mount */
	struct tp *tps;
	size_t nr;
	struct recbuf out;
	char *err;
	size_t errlen;
};

static int fail(struct tdata *t, int err, const char *what)
{
	snprintf(t->err, t->errlen, "tracing data: %s: %s", what, strerror(-err));
	return err;
}

/* Appends @path's contents after a @hdr_sz-byte size (0 = no size). */
static int tdata__put_file(struct tdata *t, const char *rel, size_t hdr_sz, bool optional)
{
	char path[1024];
	uint64_t size;
	size_t len = 0;
	char *buf;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	ret = filename__read_all(path, 0, &buf, &len);
	if (ret && !optional)
		return fail(t, ret, path);
	size = buf ? len : 0; /* perf writes an empty entry when it cannot read it */
	ret = recbuf__append(&t->out, &size, hdr_sz);
	if (!ret && len)
		ret = recbuf__append(&t->out, buf, len);
	free(buf);
	return ret;
}

static int put(struct tdata *t, const void *p, size_t len)
{
	return recbuf__append(&t->out, p, len);
}

static int put_preamble(struct tdata *t)
{
	uint8_t endian = 0, lsize = sizeof(long);
	uint32_t page = sysconf(_SC_PAGESIZE);
	int ret;

	/* This build is for little-endian hosts only (x86, arm64 ...). */
	ret = put(t, TRACING_MAGIC, 10);
	if (!ret)
		ret = put(t, TRACING_VERSION, sizeof(TRACING_VERSION));
	if (!ret)
		ret = put(t, &endian, 1);
	if (!ret)
		ret = put(t, &lsize, 1);
	if (!ret)
		ret = put(t, &page, 4);
	if (!ret)
		ret = put(t, "header_page", 12);
	if (!ret)
		ret = tdata__put_file(t, "events/header_page", 8, false);
	if (!ret)
		ret = put(t, "header_event", 13);
	if (!ret)
		ret = tdata__put_file(t, "events/header_event", 8, false);
	return ret;
}

/* Every format of system @sys among the recording's tracepoints. */
static int put_system_events(struct tdata *t, const char *sys)
{
	uint32_t count = 0;
	char rel[600];
	int ret = 0;

	for (size_t i = 0; i < t->nr; i++)
		count += !strcmp(t->tps[i].sys, sys);
	ret = put(t, &count, 4);
	for (size_t i = 0; !ret && i < t->nr; i++) {
		if (strcmp(t->tps[i].sys, sys))
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, t->tps[i].name);
		ret = tdata__put_file(t, rel, 8, false);
	}
	return ret;
}

static bool first_of_system(const struct tdata *t, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(t->tps[j].sys, t->tps[i].sys))
			return false;
	return true;
}

/* perf keeps "ftrace" events apart, then one entry per other system. */
static int put_events(struct tdata *t)
{
	uint32_t systems = 0;
	int ret;

	ret = put_system_events(t, "ftrace");
	for (size_t i = 0; i < t->nr; i++)
		systems += strcmp(t->tps[i].sys, "ftrace") && first_of_system(t, i);
	if (!ret)
		ret = put(t, &systems, 4);
	for (size_t i = 0; !ret && i < t->nr; i++) {
		if (!strcmp(t->tps[i].sys, "ftrace") || !first_of_system(t, i))
			continue;
		ret = put(t, t->tps[i].sys, strlen(t->tps[i].sys) + 1);
		if (!ret)
			ret = put_system_events(t, t->tps[i].sys);
	}
	return ret;
}

static int put_trailer(struct tdata *t)
{
	uint32_t kallsyms = 0;
	int ret;

	/* perf 6.1 stores an empty kallsyms "to keep older parsers happy". */
	ret = put(t, &kallsyms, 4);
	if (!ret)
		ret = tdata__put_file(t, "printk_formats", 4, true);
	if (!ret)
		ret = tdata__put_file(t, "saved_cmdlines", 8, true);
	return ret;
}

static bool id_matches(const char *root, const char *sys, const char *name, uint64_t id)
{
	char path[1024];
	long long v;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	return !filename__read_ll(path, &v) && (uint64_t)v == id;
}

static bool find_in_system(const char *root, const char *sys, uint64_t id, struct tp *tp)
{
	char path[600];
	struct dirent *d;
	DIR *dir;
	bool found = false;

	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	dir = opendir(path);
	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || !id_matches(root, sys, d->d_name, id))
			continue;
		snprintf(tp->sys, sizeof(tp->sys), "%s", sys);
		snprintf(tp->name, sizeof(tp->name), "%s", d->d_name);
		found = true;
	}
	if (dir)
		closedir(dir);
	return found;
}

/* perf's tracepoint_id_to_path(): the event directory whose id file says @id. */
static int tp_by_id(struct tdata *t, uint64_t id, const char *hint, struct tp *tp)
{
	const char *colon = hint ? strchr(hint, ':') : NULL;
	char path[600];
	struct dirent *d;
	DIR *dir;
	bool found = false;

	/* The event name is "sys:name" unless a name= term renamed it. */
	if (colon && (size_t)(colon - hint) < sizeof(tp->sys)) {
		snprintf(tp->sys, sizeof(tp->sys), "%.*s", (int)(colon - hint), hint);
		snprintf(tp->name, sizeof(tp->name), "%s", colon + 1);
		if (id_matches(t->root, tp->sys, tp->name, id))
			return 0;
	}
	snprintf(path, sizeof(path), "%s/events", t->root);
	dir = opendir(path);
	if (!dir)
		return fail(t, -errno, path);
	while (!found && (d = readdir(dir)))
		found = d->d_name[0] != '.' && find_in_system(t->root, d->d_name, id, tp);
	closedir(dir);
	if (!found) {
		snprintf(t->err, t->errlen, "tracing data: no tracepoint with id %llu under %s",
			 (unsigned long long)id, path);
		return -ENOENT;
	}
	return 0;
}

static bool known(const struct tdata *t, const struct tp *tp)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->tps[i].sys, tp->sys) && !strcmp(t->tps[i].name, tp->name))
			return true;
	return false;
}

static int collect(struct tdata *t, const struct pfile_event *ev, size_t nr)
{
	t->tps = calloc(nr ? nr : 1, sizeof(*t->tps));
	if (!t->tps)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		struct tp *tp = &t->tps[t->nr];
		int ret;

		if (ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		ret = tp_by_id(t, ev[i].attr.config, ev[i].name, tp);
		if (ret)
			return ret;
		if (!known(t, tp))
			t->nr++;
	}
	return 0;
}

int tracing_data__feature(struct pfile_featset *fs, const struct pfile_event *ev, size_t nr,
			  const char *tracefs, char *err, size_t errlen)
{
	struct tdata t = {.root = tracefs ? tracefs : tracefs__mountpoint(), .err = err, .errlen = errlen};
	size_t i;
	int ret;

	for (i = 0; i < nr && ev[i].attr.type != PERF_TYPE_TRACEPOINT; i++)
		;
	if (i == nr)
		return 0;
	if (!t.root) {
		snprintf(err, errlen, "tracing data: tracefs not found (mount it on "
			 "/sys/kernel/tracing)");
		return -ENOENT;
	}
	ret = collect(&t, ev, nr);
	if (!ret)
		ret = put_preamble(&t);
	if (!ret)
		ret = put_events(&t);
	if (!ret)
		ret = put_trailer(&t);
	if (!ret)
		ret = pfile_featset__set(fs, PFILE_FEAT_TRACING_DATA, t.out.data, t.out.len);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "tracing data: out of memory");
	recbuf__release(&t.out);
	free(t.tps);
	return ret;
}
