/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the evparse*.c parts (one parser split along its sections):
 * the parse context, term context and the helpers more than one part calls.
 */
#ifndef SHARDREC_EVPARSE_INTERNAL_H
#define SHARDREC_EVPARSE_INTERNAL_H

#include "recorder/events/evparse.h"
#include "recorder/util/fs.h"
#include "aux/aux.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#define PMU_DEVICES "/sys/bus/event_source/devices"
#define PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"
struct evparse_ctx {
	const char *root;    /* sysfs root prefix, "" for the real one */
	const char *tracefs; /* opts->tracefs_root, or probed on first use */
	char *err;
	size_t errlen;
	struct evparse_event **out;
	size_t *nr;
	size_t cap; /* room in *out: at least *nr, what the caller's array held */
};
/* Where a PMU event's terms are applied; pmu_dir NULL for legacy events. */
struct term_ctx {
	struct evparse_ctx *ctx;
	const char *text;
	const char *pmu;
	char *pmu_dir;
	struct evparse_event *ev;
	bool tracepoint; /* only the terms perf's config_term_tracepoint() takes */
	bool zero;       /* the PMU has a default config: a format term's 0 bits clear it */
};
enum term_pass { PASS_BUILTIN, PASS_FORMAT };
struct mods {
	int eu, ek, eh, eH, eG, eI, precise, pinned, exclusive;
	int exclude, exclude_GH; /* first u/k/h, G/H seen */
	int sample_read, weak;
};


__attribute__((format(printf, 3, 4))) int ctx__error(struct evparse_ctx *ctx, int ret,
							    const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void ctx__error_append(struct evparse_ctx *ctx,
								    const char *fmt, ...);
__attribute__((format(printf, 1, 2))) char *path__new(const char *fmt, ...);
bool path__exists(const char *path);
bool path__is_dir(const char *path);
int file__read_str(const char *path, char **out);
int num__parse_prefix(const char *s, __u64 *val, const char **end);
int num__parse(const char *s, __u64 *val);
int file__read_u64(const char *path, __u64 *val);
bool name__is_safe(const char *s, bool glob);
bool name__is_glob(const char *s);
int ctx__push(struct evparse_ctx *ctx, const struct evparse_event *tmpl);
int ev__set_name(struct evparse_ctx *ctx, struct evparse_event *ev, const char *name);
int mods__apply(struct evparse_ctx *ctx, const char *text, const char *s,
		       struct evparse_event *ev);
int mods__apply_group(struct evparse_ctx *ctx, const char *text, const char *s,
			     struct evparse_event *ev, bool leader);
int terms__apply_all(struct term_ctx *tc, const char *terms);
int bp__event(struct evparse_ctx *ctx, const char *text);
int tp__event(struct evparse_ctx *ctx, const char *text, char *work);
int event__parse(struct evparse_ctx *ctx, const char *text);
size_t list__event_len(const char *s);
int list__parse(struct evparse_ctx *ctx, const char *list);

#endif
