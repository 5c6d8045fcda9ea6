// SPDX-License-Identifier: GPL-2.0
/*
 * Event terms: "pmu/key=val,.../" through sysfs format files and aliases,
 * and perf 6.1's built-in terms on any event (a subset on tracepoints).
 */
#include "recorder/events/evparse_internal.h"
#include "recorder/events/branch_filter.h"
#include "recorder/events/callchain.h"

/* ---- terms ------------------------------------------------------------- */

/*
 * How a built-in term's value is taken (perf 6.1's config_term_common()):
 * into the attr, as the name, as a string (a number is refused, as perf's
 * lexer makes a number of it), as a number (none given: 1), as 0 or 1
 * only, or as a flag (non-zero: 1; the no-* spellings invert it).
 */
enum term_kind { TERM_ATTR, TERM_NAME, TERM_STR, TERM_NUM, TERM_BIT, TERM_FLAG };

static const struct builtin_term {
	const char *key;
	enum term_kind kind;
	int type;        /* EVPARSE_TERM_* kept in evparse_event.terms; -1: checked, not kept */
	bool invert;     /* no-inherit, no-overwrite */
	bool tracepoint; /* config_term_tracepoint() takes it */
} builtin_terms[] = {
	/* perf 6.1's order, as its "valid terms:" line */
	{"config", TERM_ATTR, -1, false, false},
	{"config1", TERM_ATTR, -1, false, false},
	{"config2", TERM_ATTR, -1, false, false},
	{"name", TERM_NAME, -1, false, false},
	{"period", TERM_ATTR, -1, false, false},
	{"freq", TERM_ATTR, -1, false, false},
	{"branch_type", TERM_STR, EVPARSE_TERM_BRANCH, false, false},
	{"time", TERM_BIT, EVPARSE_TERM_TIME, false, false},
	{"call-graph", TERM_STR, EVPARSE_TERM_CALLGRAPH, false, true},
	{"stack-size", TERM_NUM, EVPARSE_TERM_STACK_SIZE, false, true},
	{"no-inherit", TERM_FLAG, EVPARSE_TERM_INHERIT, true, true},
	{"inherit", TERM_FLAG, EVPARSE_TERM_INHERIT, false, true},
	{"max-stack", TERM_NUM, EVPARSE_TERM_MAX_STACK, false, true},
	{"nr", TERM_NUM, -1, false, true}, /* perf trace's max events: no effect on record */
	{"no-overwrite", TERM_FLAG, EVPARSE_TERM_OVERWRITE, true, true},
	{"overwrite", TERM_FLAG, EVPARSE_TERM_OVERWRITE, false, true},
	{"percore", TERM_BIT, -1, false, false},  /* perf stat's aggregation */
	{"aux-output", TERM_FLAG, EVPARSE_TERM_AUX_OUTPUT, false, true},
	{"aux-sample-size", TERM_NUM, EVPARSE_TERM_AUX_SAMPLE_SIZE, false, true},
	{"metric-id", TERM_STR, -1, false, false}, /* perf stat's metrics */
};

#define NR_BUILTIN (sizeof(builtin_terms) / sizeof(builtin_terms[0]))

/* Next comma-separated term of *s; commas inside '...' or "..." are kept. */
static char *term__next(char **s)
{
	char *tok = *s, *p;
	char quote = 0;

	if (!tok)
		return NULL;
	for (p = tok; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == ',') {
			*p = '\0';
			*s = p + 1;
			return tok;
		}
	}
	*s = NULL;
	return tok;
}

static char *term__unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

static const struct builtin_term *term__builtin(const char *key)
{
	size_t i;

	for (i = 0; i < NR_BUILTIN; i++)
		if (!strcmp(key, builtin_terms[i].key))
			return &builtin_terms[i];
	return NULL;
}

/* A term with no value means 1, as perf's term_num_noval does. */
static int term__num(struct term_ctx *tc, const char *key, const char *val, __u64 *num)
{
	if (!val) {
		*num = 1;
		return 0;
	}
	if (num__parse(val, num))
		return ctx__error(tc->ctx, -EINVAL, "term '%s' needs a number, not '%s', in '%s'",
				  key, val, tc->text);
	return 0;
}

/* config, config1, config2, period, freq: straight into the attr. */
static int term__apply_attr(struct term_ctx *tc, const char *key, const char *val)
{
	struct perf_event_attr *attr = &tc->ev->attr;
	__u64 num;
	int ret = term__num(tc, key, val, &num);

	if (ret)
		return ret;
	if (!strcmp(key, "config")) {
		attr->config = num;
	} else if (!strcmp(key, "config1")) {
		attr->config1 = num;
	} else if (!strcmp(key, "config2")) {
		attr->config2 = num;
	} else if (!strcmp(key, "period")) {
		attr->sample_period = num;
		attr->freq = 0;
		tc->ev->period_set = true;
	} else {
		attr->sample_freq = num;
		attr->freq = 1;
		tc->ev->period_set = true;
	}
	return 0;
}

/* Keeps a per-event config term, in the order given. */
static int term__keep(struct term_ctx *tc, int type, __u64 val)
{
	struct evparse_event *ev = tc->ev;

	if (type < 0)
		return 0;
	if (ev->nr_terms == EVPARSE_MAX_TERMS)
		return ctx__error(tc->ctx, -EINVAL, "too many terms in '%s' (at most %d)",
				  tc->text, EVPARSE_MAX_TERMS);
	ev->terms[ev->nr_terms].type = type;
	ev->terms[ev->nr_terms++].val = val;
	return 0;
}

/* call-graph=fp|dwarf|no: perf's parse_callchain_record() names, without ",N". */
static int term__callgraph(struct term_ctx *tc, const char *val, __u64 *mode)
{
	if (!strcmp(val, "fp"))
		*mode = CALLCHAIN_FP;
	else if (!strcmp(val, "dwarf"))
		*mode = CALLCHAIN_DWARF;
	else if (!strcmp(val, "no"))
		*mode = CALLCHAIN_NONE;
	else if (!strcmp(val, "lbr"))
		return ctx__error(tc->ctx, -EINVAL,
				  "call-graph=lbr in '%s': not supported (LBR call graphs need a "
				  "hardware PMU; use fp or dwarf)", tc->text);
	else
		return ctx__error(tc->ctx, -EINVAL,
				  "call-graph=%s in '%s': not a call graph mode (fp, dwarf or no)",
				  val, tc->text);
	return 0;
}

/*
 * branch_type=MODE|no. perf's config_term_common() already ORs the mode
 * into the attr while parsing, and evsel__apply_config_terms() again later.
 */
static int term__branch(struct term_ctx *tc, const char *val, __u64 *bit)
{
	uint64_t mode = tc->ev->attr.branch_sample_type;

	if (!strcmp(val, "no")) {
		*bit = 0;
		return 0;
	}
	*bit = branch_filter__mode(val);
	if (!*bit)
		return ctx__error(tc->ctx, -EINVAL, "branch_type=%s in '%s': unknown branch filter "
				  "(valid: no,%s)", val, tc->text, BRANCH_FILTER_MODES);
	branch_filter__add(&mode, *bit);
	tc->ev->attr.branch_sample_type = mode;
	return 0;
}

/* call-graph, branch_type, metric-id: a string, which perf's lexer never takes from digits. */
static int term__apply_str(struct term_ctx *tc, const struct builtin_term *bt, char *val)
{
	__u64 num = 0;
	int ret = 0;

	if (!val || !num__parse(val, &num))
		return ctx__error(tc->ctx, -EINVAL, "term '%s' needs a string value in '%s'",
				  bt->key, tc->text);
	val = term__unquote(val);
	if (bt->type == EVPARSE_TERM_CALLGRAPH)
		ret = term__callgraph(tc, val, &num);
	else if (bt->type == EVPARSE_TERM_BRANCH)
		ret = term__branch(tc, val, &num);
	return ret ? ret : term__keep(tc, bt->type, num);
}

/* The numeric per-event terms, checked as perf 6.1's config_term_common(). */
static int term__apply_num(struct term_ctx *tc, const struct builtin_term *bt, const char *val)
{
	__u64 num;
	int ret = term__num(tc, bt->key, val, &num);

	if (ret)
		return ret;
	if (bt->kind == TERM_BIT && num > 1)
		return ctx__error(tc->ctx, -EINVAL, "term '%s' takes 0 or 1, not '%s', in '%s'",
				  bt->key, val, tc->text);
	if (bt->type == EVPARSE_TERM_AUX_SAMPLE_SIZE && num > UINT32_MAX)
		return ctx__error(tc->ctx, -EINVAL, "aux-sample-size=%s too big in '%s'", val,
				  tc->text);
	if (bt->type == EVPARSE_TERM_STACK_SIZE && num > UINT32_MAX)
		return ctx__error(tc->ctx, -EINVAL, "stack-size=%s too big in '%s'", val, tc->text);
	if (bt->kind == TERM_FLAG)
		num = bt->invert ? !num : !!num;
	return term__keep(tc, bt->type, num);
}

static int term__apply_builtin(struct term_ctx *tc, const struct builtin_term *bt, char *val)
{
	switch (bt->kind) {
	case TERM_NAME:
		val = val ? term__unquote(val) : NULL;
		if (!val || !*val)
			return ctx__error(tc->ctx, -EINVAL, "term 'name' needs a value in '%s'",
					  tc->text);
		return ev__set_name(tc->ctx, tc->ev, val);
	case TERM_ATTR:
		return term__apply_attr(tc, bt->key, val);
	case TERM_STR:
		return term__apply_str(tc, bt, val);
	default:
		return term__apply_num(tc, bt, val);
	}
}

/* "config1:0-7,32-35" -> field 1 and a mask of the bits it names. */
static int format__parse(const char *spec, int *field, __u64 *mask)
{
	const char *p;
	__u64 lo, hi;

	if (!strncmp(spec, "config:", 7))
		*field = 0, p = spec + 7;
	else if (!strncmp(spec, "config1:", 8))
		*field = 1, p = spec + 8;
	else if (!strncmp(spec, "config2:", 8))
		*field = 2, p = spec + 8;
	else
		return -EINVAL;
	for (*mask = 0;; p++) {
		if (num__parse_prefix(p, &lo, &p))
			return -EINVAL;
		hi = lo;
		if (*p == '-' && num__parse_prefix(p + 1, &hi, &p))
			return -EINVAL;
		if (lo > hi || hi > 63)
			return -EINVAL;
		*mask |= (hi - lo == 63 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1)) << lo;
		if (*p != ',')
			break;
	}
	return *p ? -EINVAL : 0;
}

/*
 * pmu_format_value(): scatter @val's low bits into the bits of @mask; with
 * @zero (a PMU with a default config) its 0 bits clear theirs too.
 */
static void format__scatter(__u64 mask, __u64 val, __u64 *dst, bool zero)
{
	unsigned int fbit, vbit = 0;

	for (fbit = 0; fbit < 64; fbit++) {
		if (!(mask & (1ULL << fbit)))
			continue;
		if (val & (1ULL << vbit++))
			*dst |= 1ULL << fbit;
		else if (zero)
			*dst &= ~(1ULL << fbit);
	}
}

static int term__apply_format(struct term_ctx *tc, const char *key, const char *path,
			      const char *val)
{
	__u64 *dst[3] = { &tc->ev->attr.config, &tc->ev->attr.config1, &tc->ev->attr.config2 };
	__u64 num, mask;
	char *spec;
	int field, ret, bits;

	ret = term__num(tc, key, val, &num);
	if (ret)
		return ret;
	ret = file__read_str(path, &spec);
	if (ret)
		return ctx__error(tc->ctx, ret, "cannot read %s: %s", path, strerror(-ret));
	ret = format__parse(spec, &field, &mask);
	if (ret) {
		ctx__error(tc->ctx, ret, "bad format '%s' in %s", spec, path);
		goto out_free;
	}
	bits = __builtin_popcountll(mask);
	if (bits < 64 && (num >> bits)) {
		ret = ctx__error(tc->ctx, -EINVAL,
				 "value %#" PRIx64 " too big for term '%s' in '%s', maximum is %#" PRIx64,
				 (uint64_t)num, key, tc->text, (uint64_t)((1ULL << bits) - 1));
		goto out_free;
	}
	format__scatter(mask, num, dst[field], tc->zero);
out_free:
	free(spec);
	return ret;
}

/*
 * Lists the terms @tc accepts: the PMU's format/ files, then the built-ins
 * (for a tracepoint those config_term_tracepoint() takes).
 */
static void term__list_valid(struct term_ctx *tc)
{
	struct dirent **ents = NULL;
	char *dir = NULL;
	int i, n = -1;
	size_t j;

	ctx__error_append(tc->ctx, "; valid terms: ");
	if (tc->pmu_dir) {
		dir = path__new("%s/format", tc->pmu_dir);
		n = dir ? scandir(dir, &ents, NULL, alphasort) : -1;
	}
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.')
			ctx__error_append(tc->ctx, "%s,", ents[i]->d_name);
		free(ents[i]);
	}
	for (j = 0, n = 0; j < NR_BUILTIN; j++)
		if (!tc->tracepoint || builtin_terms[j].tracepoint)
			ctx__error_append(tc->ctx, "%s%s", n++ ? "," : "", builtin_terms[j].key);
	free(ents);
	free(dir);
}

static int terms__apply(struct term_ctx *tc, const char *terms, enum term_pass pass, int depth);

/*
 * A PMU term: format/<key> wins, then (valueless) events/<key> aliases as in
 * perf_pmu__check_alias(); an alias file holds more terms.
 */
static int term__apply_pmu(struct term_ctx *tc, const char *key, char *val, enum term_pass pass,
			   int depth)
{
	char *fmt = NULL, *alias = NULL, *def = NULL;
	int ret = 0;

	fmt = path__new("%s/format/%s", tc->pmu_dir, key);
	alias = path__new("%s/events/%s", tc->pmu_dir, key);
	if (!fmt || !alias) {
		ret = ctx__error(tc->ctx, -ENOMEM, "out of memory");
		goto out_free;
	}
	if (path__exists(fmt)) {
		if (pass == PASS_FORMAT)
			ret = term__apply_format(tc, key, fmt, val);
	} else if (!val && depth == 0 && path__exists(alias)) {
		ret = file__read_str(alias, &def);
		if (ret)
			ctx__error(tc->ctx, ret, "cannot read %s: %s", alias, strerror(-ret));
		else
			ret = terms__apply(tc, def, pass, depth + 1);
	} else if (pass == PASS_FORMAT) {
		ret = ctx__error(tc->ctx, -EINVAL, "unknown term '%s' for PMU '%s' in '%s'", key,
				 tc->pmu, tc->text);
		term__list_valid(tc);
	}
out_free:
	free(def);
	free(alias);
	free(fmt);
	return ret;
}

static int term__apply(struct term_ctx *tc, char *tok, enum term_pass pass, int depth)
{
	const struct builtin_term *bt;
	char *val = strchr(tok, '=');

	if (val)
		*val++ = '\0';
	if (!name__is_safe(tok, false))
		return ctx__error(tc->ctx, -EINVAL, "bad term '%s' in '%s'", tok, tc->text);
	bt = term__builtin(tok);
	if (bt && tc->tracepoint && !bt->tracepoint) {
		ctx__error(tc->ctx, -EINVAL, "term '%s' does not apply to a tracepoint, in '%s'",
			   tok, tc->text);
		term__list_valid(tc);
		return -EINVAL;
	}
	if (bt)
		return pass == PASS_BUILTIN ? term__apply_builtin(tc, bt, val) : 0;
	if (tc->pmu_dir)
		return term__apply_pmu(tc, tok, val, pass, depth);
	if (pass == PASS_BUILTIN)
		return 0;
	ctx__error(tc->ctx, -EINVAL, "unknown term '%s' in '%s'", tok, tc->text);
	term__list_valid(tc);
	return -EINVAL;
}

/* One pass over a term list (tokenised on a private copy). */
static int terms__apply(struct term_ctx *tc, const char *terms, enum term_pass pass, int depth)
{
	char *copy, *s, *tok;
	int ret = 0;

	copy = strdup(terms);
	if (!copy)
		return ctx__error(tc->ctx, -ENOMEM, "out of memory");
	for (s = copy; !ret && (tok = term__next(&s));) {
		if (*tok)
			ret = term__apply(tc, tok, pass, depth);
	}
	free(copy);
	return ret;
}

/*
 * perf applies the built-in terms (config= assigns) before the format terms
 * (which OR their bits in): keep that order with two passes.
 */
int terms__apply_all(struct term_ctx *tc, const char *terms)
{
	int ret = terms__apply(tc, terms, PASS_BUILTIN, 0);

	return ret ? ret : terms__apply(tc, terms, PASS_FORMAT, 0);
}
