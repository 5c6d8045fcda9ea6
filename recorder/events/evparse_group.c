// SPDX-License-Identifier: GPL-2.0
/* Event groups: {a,b}:mods and NAME{...}, their leaders and modifiers. */
#include "recorder/events/evparse_internal.h"

/* ---- groups ------------------------------------------------------------ */

/* NAME{EVENTS}[:MODS], pointing into the text. */
struct group_text {
	const char *name, *events, *mods; /* mods NULL when there are none */
	size_t name_len, events_len;
};

/* perf's lexer takes a group name as a {name} token. */
static bool group__name_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr("_*?[]", c))
			continue;
		if (i && ((c >= '0' && c <= '9') || c == '.' || c == '!'))
			continue;
		return false;
	}
	return true;
}

/* Splits a group as perf's group and group_def rules take it. */
static int group__split(struct evparse_ctx *ctx, const char *text, struct group_text *g)
{
	const char *open = strchr(text, '{'), *close = strchr(open, '}');
	const char *nested = strchr(open + 1, '{');

	if (!close)
		return ctx__error(ctx, -EINVAL, "unbalanced '{' in '%s'", text);
	if (nested && nested < close)
		return ctx__error(ctx, -EINVAL, "nested event groups are not supported: '%s'",
				  text);
	if (close[1] == '}')
		return ctx__error(ctx, -EINVAL, "unbalanced '}' in '%s'", text);
	if (close[1] && (close[1] != ':' || !close[2]))
		return ctx__error(ctx, -EINVAL, "expected ':MODIFIERS' after the group in '%s'",
				  text);
	g->name = text;
	g->name_len = open - text;
	while (g->name_len && strchr(" \t", text[g->name_len - 1]))
		g->name_len--;
	if (!group__name_ok(g->name, g->name_len))
		return ctx__error(ctx, -EINVAL, "bad group name '%.*s' in '%s'", (int)g->name_len,
				  g->name, text);
	if (g->name_len >= sizeof(((struct evparse_event *)0)->group_name))
		return ctx__error(ctx, -ENAMETOOLONG, "group name too long in '%.64s...'", text);
	g->events = open + 1;
	g->events_len = close - open - 1;
	g->mods = close[1] ? close + 2 : NULL;
	return 0;
}

/*
 * parse_events__set_leader() then parse_events__modifier_group() on the
 * @nr events at @ev: the first leads, the group's modifier goes to all.
 */
static int group__form(struct evparse_ctx *ctx, const char *text, const struct group_text *g,
		       struct evparse_event *ev, size_t nr)
{
	int ret = 0;

	for (size_t i = 0; i < nr && !ret; i++) {
		ev[i].group_idx = i;
		if (g->mods)
			ret = mods__apply_group(ctx, text, g->mods, &ev[i], i == 0);
	}
	if (ret)
		return ret;
	ev[0].nr_members = nr;
	memcpy(ev[0].group_name, g->name, g->name_len);
	ev[0].group_name[g->name_len] = '\0';
	/*
	 * Leader sampling needs PERF_SAMPLE_READ with PERF_FORMAT_GROUP, which
	 * changes what every read() of the fds returns: not supported.
	 */
	if (nr > 1 && ev[0].sample_read)
		return ctx__error(ctx, -EOPNOTSUPP,
				  "leader sampling (modifier 'S' on the group leader) is not "
				  "supported: '%s'",
				  text);
	return 0;
}

/* One group: its events are appended leader first, then formed. */
static int group__parse(struct evparse_ctx *ctx, const char *text)
{
	struct group_text g = { 0 };
	size_t first = *ctx->nr;
	char *events;
	int ret;

	ret = group__split(ctx, text, &g);
	if (ret)
		return ret;
	events = strndup(g.events, g.events_len);
	if (!events)
		return ctx__error(ctx, -ENOMEM, "out of memory");
	if (!events[strspn(events, " \t")])
		ret = ctx__error(ctx, -EINVAL, "empty event group in '%s'", text);
	else
		ret = list__parse(ctx, events);
	free(events);
	if (ret)
		return ret;
	return group__form(ctx, text, &g, *ctx->out + first, *ctx->nr - first);
}

static int list__parse_one(struct evparse_ctx *ctx, const char *s, size_t len)
{
	char *text;
	int ret;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return ctx__error(ctx, -EINVAL, "empty event in list");
	text = strndup(s, len);
	if (!text)
		return ctx__error(ctx, -ENOMEM, "out of memory");
	if (strchr(text, '{'))
		ret = group__parse(ctx, text);
	else if (strchr(text, '}'))
		ret = ctx__error(ctx, -EINVAL, "unbalanced '}' in '%s'", text);
	else
		ret = event__parse(ctx, text);
	free(text);
	return ret;
}

/* Events and groups of @list, appended; a group's events hold no braces. */
int list__parse(struct evparse_ctx *ctx, const char *list)
{
	size_t len;
	const char *s;
	int ret = 0;

	for (s = list; !ret; s += len + 1) {
		len = list__event_len(s);
		ret = list__parse_one(ctx, s, len);
		if (!s[len])
			break;
	}
	return ret;
}

int evparse__parse(const char *list, const struct evparse_opts *o, struct evparse_event **out,
		   size_t *nr, char *err, size_t errlen)
{
	struct evparse_ctx ctx = {.root = "", .err = err, .errlen = errlen, .out = out, .nr = nr};
	size_t saved;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!list || !out || !nr)
		return ctx__error(&ctx, -EINVAL, "no event list");
	if (o && o->sysfs_root)
		ctx.root = o->sysfs_root;
	if (o && o->tracefs_root)
		ctx.tracefs = o->tracefs_root;
	saved = ctx.cap = *nr;
	ret = list__parse(&ctx, list);
	/* all or nothing: drop what this call appended before the failure */
	if (ret)
		*nr = saved;
	return ret;
}
