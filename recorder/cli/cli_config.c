// SPDX-License-Identifier: GPL-2.0
#include "recorder/cli/cli_config.h"
#include "recorder/cli/cli_sample.h"
#include "recorder/events/callchain.h"
#include "recorder/util/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SYSTEM_PERFCONFIG "/etc/perfconfig"

/* Trims blanks at both ends of @s in place. */
static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A git-config value: unquoted, its comment cut (# or ; outside quotes). */
static char *config_value(char *v)
{
	char *out = v, *r = v;
	bool quoted = false;

	for (; *r; r++) {
		if (*r == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*r == '#' || *r == ';'))
			break;
		if (*r == '\\' && r[1])
			r++;
		*out++ = *r;
	}
	*out = '\0';
	return trim(v);
}

static int call_graph(struct record_opts *o, const char *key, const char *v, char *err,
		      size_t errlen)
{
	enum callchain_mode mode;
	uint32_t size = 0;
	char msg[256];

	if (callchain__parse(v, &mode, &size, msg, sizeof(msg))) {
		snprintf(err, errlen, "perf config %s = %s: %s", key, v, msg);
		return -EINVAL;
	}
	o->g_mode = mode;
	if (mode == CALLCHAIN_DWARF)
		o->g_size = size;
	return 0;
}

static int dump_size(struct record_opts *o, const char *key, const char *v, char *err,
		     size_t errlen)
{
	enum callchain_mode mode;
	uint32_t size = 0;
	char spec[64], msg[256];

	/* checked by the same parser as dwarf,SIZE */
	snprintf(spec, sizeof(spec), "dwarf,%s", v);
	if (callchain__parse(spec, &mode, &size, msg, sizeof(msg))) {
		snprintf(err, errlen, "perf config %s = %s: %s", key, v, msg);
		return -EINVAL;
	}
	o->g_size = size;
	return 0;
}

static int build_id(struct record_opts *o, const char *key, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "cache")) {
		o->no_buildid_cache = false;
	} else if (!strcmp(v, "no-cache")) {
		o->no_buildid_cache = true;
	} else if (!strcmp(v, "skip")) {
		o->no_buildid = true;
	} else if (!strcmp(v, "mmap")) {
		pr_warn("perf config %s = mmap: build ids in MMAP2 records are not supported, "
			"they go to the BUILD_ID feature",
			key);
	} else {
		snprintf(err, errlen, "perf config %s = %s: not cache, no-cache, skip or mmap", key,
			 v);
		return -EINVAL;
	}
	return 0;
}

/*
 * buildid.dir, perf's for every command: taken as written (perf's
 * perf_config_dirname() expands nothing). A relative one makes perf cache
 * nothing; it is said here and left unused. The value outlives the file's
 * line buffer, and record_opts__release() frees none of it: one static
 * copy, as perf's own buildid_dir[].
 */
static int buildid_dir(struct record_opts *o, const char *key, const char *v, char *err,
		       size_t errlen)
{
	static char dir[PATH_MAX];

	if (v[0] != '/') {
		pr_warn("perf config %s = %s: not an absolute directory, no build-id cache", key, v);
		return 0;
	}
	if (strlen(v) >= sizeof(dir)) {
		snprintf(err, errlen, "perf config %s: the directory name is too long", key);
		return -EINVAL;
	}
	strcpy(dir, v);
	o->buildid_dir = dir;
	return 0;
}

static int config_key(struct record_opts *o, const char *key, const char *v, char *err,
		      size_t errlen)
{
	char msg[256];

	if (!strcmp(key, "buildid.dir"))
		return buildid_dir(o, key, v, err, errlen);

	if (!strcmp(key, "record.build-id"))
		return build_id(o, key, v, err, errlen);
	if (!strcmp(key, "record.call-graph") || !strcmp(key, "call-graph.record-mode"))
		return call_graph(o, key, v, err, errlen);
	if (!strcmp(key, "call-graph.dump-size"))
		return dump_size(o, key, v, err, errlen);
	if (!strcmp(key, "record.mmap-flush")) {
		if (record_opts__sample(o, "mmap-flush", v, msg, sizeof(msg))) {
			snprintf(err, errlen, "perf config %s = %s: %s", key, v, msg);
			return -EINVAL;
		}
		return 0;
	}
	if (!strncmp(key, "record.", 7))
		pr_warn("perf config %s: not supported by shardrec, ignored", key);
	return 0;
}

/* One config file, git-config syntax: [section] or [section "sub"], key = value. */
static int config_file(struct record_opts *o, const char *path, char *err, size_t errlen)
{
	char section[128] = "", key[320], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0; /* perf goes on without it too */
	while (!ret && getline(&line, &cap, f) > 0) {
		char *s = trim(line), *eq;

		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end)
				*end = '\0';
			s = trim(s + 1);
			s[strcspn(s, " \t\"")] = '\0'; /* subsections do not concern record */
			snprintf(section, sizeof(section), "%s", s);
			for (char *p = section; *p; p++)
				*p = tolower((unsigned char)*p);
			continue;
		}
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		s = trim(s);
		for (char *p = s; *p; p++)
			*p = tolower((unsigned char)*p);
		snprintf(key, sizeof(key), "%s.%s", section, s);
		ret = config_key(o, key, eq ? config_value(eq + 1) : "true", err, errlen);
	}
	free(line);
	fclose(f);
	return ret;
}

int record_opts__config(struct record_opts *o, char *err, size_t errlen)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char path[4096];
	int ret = 0;

	/* perf: "Setting $PERF_CONFIG makes perf read _only_ the given config file." */
	if (only)
		return *only ? config_file(o, only, err, errlen) : 0;
	if (!getenv("PERF_CONFIG_NOSYSTEM"))
		ret = config_file(o, SYSTEM_PERFCONFIG, err, errlen);
	if (!ret && home && *home && !getenv("PERF_CONFIG_NOGLOBAL")) {
		snprintf(path, sizeof(path), "%s/.perfconfig", home);
		ret = config_file(o, path, err, errlen);
	}
	return ret;
}
