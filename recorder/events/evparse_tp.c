// SPDX-License-Identifier: GPL-2.0
/* Breakpoint (mem:ADDR[/LEN][:rwx]) and tracepoint (sys:name, globs) events. */
#include "recorder/events/evparse_internal.h"

/* ---- breakpoints ------------------------------------------------------- */

static bool bp__parse_type(const char *s, size_t len, __u32 *type)
{
	__u32 bit;
	size_t i;

	if (!len || len > 3)
		return false;
	for (*type = 0, i = 0; i < len; i++) {
		bit = s[i] == 'r' ? HW_BREAKPOINT_R : s[i] == 'w' ? HW_BREAKPOINT_W
			: s[i] == 'x' ? HW_BREAKPOINT_X : 0;
		if (!bit || (*type & bit))
			return false;
		*type |= bit;
	}
	return true;
}

/*
 * mem:ADDR[/LEN][:rwx][:MODS], parse_events_add_breakpoint(): rw by default,
 * LEN sizeof(long) for x else 4; sample_period 1 as perf sets it (a weak
 * default: period_set stays false so -c/-F may still override).
 */
int bp__event(struct evparse_ctx *ctx, const char *text)
{
	struct evparse_event ev = { 0 };
	const char *p = text + 4, *mods = "";
	__u64 addr, len = 0;
	__u32 type = 0;
	size_t seg;
	int ret;

	if (num__parse_prefix(p, &addr, &p))
		return ctx__error(ctx, -EINVAL, "bad breakpoint address in '%s'", text);
	if (*p == '/' && (num__parse_prefix(p + 1, &len, &p) || !len))
		return ctx__error(ctx, -EINVAL, "bad breakpoint length in '%s'", text);
	if (*p == ':') {
		seg = strcspn(p + 1, ":");
		if (bp__parse_type(p + 1, seg, &type))
			p += 1 + seg;
		if (*p == ':')
			p++;
		mods = p;
	} else if (*p) {
		return ctx__error(ctx, -EINVAL, "bad breakpoint syntax in '%s'", text);
	}
	if (!type)
		type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len)
		len = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	ev.attr.type = PERF_TYPE_BREAKPOINT;
	ev.attr.bp_type = type;
	ev.attr.bp_addr = addr;
	ev.attr.bp_len = len;
	ev.attr.sample_period = 1;
	ret = ev__set_name(ctx, &ev, text);
	if (!ret)
		ret = mods__apply(ctx, text, mods, &ev);
	return ret ? ret : ctx__push(ctx, &ev);
}

/* ---- tracepoints ------------------------------------------------------- */

/* Sets ctx->tracefs: the caller's root, else the first mounted candidate. */
static int tracefs__probe(struct evparse_ctx *ctx)
{
	if (!ctx->tracefs)
		ctx->tracefs = tracefs__mountpoint();
	if (!ctx->tracefs)
		return ctx__error(ctx, -ENOENT,
				  "tracefs not found (mount it on /sys/kernel/tracing)");
	return 0;
}

/* Adds sys:name; perf's evsel__newtp() also sets sample_period 1 (weak). */
static int tp__add(struct evparse_ctx *ctx, struct evparse_event *tmpl, const char *sys,
		   const char *name, bool quiet)
{
	char *path, *full;
	__u64 id;
	int ret;

	path = path__new("%s/events/%s/%s/id", ctx->tracefs, sys, name);
	full = path__new("%s:%s", sys, name);
	if (!path || !full) {
		ret = ctx__error(ctx, -ENOMEM, "out of memory");
		goto out_free;
	}
	ret = file__read_u64(path, &id);
	if (ret) {
		/* globs also meet the "enable" and "filter" control files */
		if (!quiet || (ret != -ENOENT && ret != -ENOTDIR))
			ctx__error(ctx, ret, "unknown tracepoint '%s' (%s: %s)", full, path,
				   strerror(-ret));
		goto out_free;
	}
	tmpl->attr.type = PERF_TYPE_TRACEPOINT;
	tmpl->attr.config = id;
	tmpl->attr.sample_period = 1;
	tmpl->tracepoint = true;
	ret = ev__set_name(ctx, tmpl, full);
	if (!ret)
		ret = ctx__push(ctx, tmpl);
out_free:
	free(full);
	free(path);
	return ret;
}

/* Sorted names in @dir matching @pattern; control files have no id and skip. */
static int tp__glob_dir(struct evparse_ctx *ctx, struct evparse_event *tmpl, const char *sys,
			const char *pattern, int *found)
{
	struct dirent **ents = NULL;
	char *dir;
	int i, n, ret = 0;

	dir = path__new("%s/events/%s", ctx->tracefs, sys);
	n = dir ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;

		if (!ret && d[0] != '.' && !fnmatch(pattern, d, 0)) {
			ret = tp__add(ctx, tmpl, sys, d, true);
			if (ret == -ENOENT || ret == -ENOTDIR)
				ret = 0;
			else if (!ret)
				(*found)++;
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return ret;
}

static int tp__glob(struct evparse_ctx *ctx, struct evparse_event *tmpl, const char *sys,
		    const char *name, const char *text)
{
	struct dirent **ents = NULL;
	char *dir;
	int i, n, found = 0, ret = 0;

	dir = path__new("%s/events", ctx->tracefs);
	n = dir ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;

		if (!ret && d[0] != '.' && !fnmatch(sys, d, 0))
			ret = tp__glob_dir(ctx, tmpl, d, name, &found);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	if (!ret && !found)
		ret = ctx__error(ctx, -ENOENT, "no tracepoint matches '%s'", text);
	return ret;
}

/*
 * Splits NAME[/TERMS/][[:]MODS] (parse-events.y's event_legacy_tracepoint
 * with its opt_event_config) in place: *@terms NULL when there are none.
 */
static int tp__split(struct evparse_ctx *ctx, const char *text, char *name, char **terms,
		     char **mods)
{
	char *slash = strchr(name, '/'), *colon = strchr(name, ':');

	*terms = NULL;
	*mods = NULL;
	if (!slash || (colon && colon < slash)) {
		if (colon)
			*colon = '\0', *mods = colon + 1;
		return 0;
	}
	*slash = '\0';
	*terms = slash + 1;
	slash = strchr(*terms, '/');
	if (!slash)
		return ctx__error(ctx, -EINVAL, "missing closing '/' in '%s'", text);
	*slash = '\0';
	*mods = slash + 1 + (slash[1] == ':');
	return 0;
}

/* SYS:NAME[/TERMS/][[:]MODS]; @work is a private copy of @text. */
int tp__event(struct evparse_ctx *ctx, const char *text, char *work)
{
	struct evparse_event tmpl = { 0 };
	struct term_ctx tc = { ctx, text, NULL, NULL, &tmpl, true, false };
	char *name, *mods, *terms;
	int ret;

	name = strchr(work, ':');
	*name++ = '\0';
	ret = tp__split(ctx, text, name, &terms, &mods);
	if (ret)
		return ret;
	if (!name__is_safe(work, true) || !name__is_safe(name, true))
		return ctx__error(ctx, -EINVAL, "unknown event '%s'", text);
	ret = tracefs__probe(ctx);
	if (ret)
		return ret;
	if (terms)
		ret = terms__apply_all(&tc, terms);
	if (!ret)
		ret = mods__apply(ctx, text, mods ? mods : "", &tmpl);
	if (ret)
		return ret;
	if (name__is_glob(work) || name__is_glob(name))
		return tp__glob(ctx, &tmpl, work, name, text);
	return tp__add(ctx, &tmpl, work, name, false);
}
