// SPDX-License-Identifier: GPL-2.0
/* PMU event terms: "pmu/key=val,.../" through sysfs format files and aliases. */
#include "recorder/events/evparse_internal.h"

/* ---- terms ------------------------------------------------------------- */

static const char *const builtin_terms[] = {"config", "config1", "config2",
					     "name",   "period",  "freq"};

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

static bool term__is_builtin(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(builtin_terms) / sizeof(builtin_terms[0]); i++)
		if (!strcmp(key, builtin_terms[i]))
			return true;
	return false;
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

static int term__apply_builtin(struct term_ctx *tc, const char *key, char *val)
{
	struct perf_event_attr *attr = &tc->ev->attr;
	__u64 num;
	int ret;

	if (!strcmp(key, "name")) {
		val = val ? term__unquote(val) : NULL;
		if (!val || !*val)
			return ctx__error(tc->ctx, -EINVAL, "term 'name' needs a value in '%s'",
					  tc->text);
		return ev__set_name(tc->ctx, tc->ev, val);
	}
	ret = term__num(tc, key, val, &num);
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

/* pmu_format_value(): scatter @val's low bits into the bits of @mask. */
static void format__scatter(__u64 mask, __u64 val, __u64 *dst)
{
	unsigned int fbit, vbit = 0;

	for (fbit = 0; fbit < 64; fbit++) {
		if (!(mask & (1ULL << fbit)))
			continue;
		if (val & (1ULL << vbit++))
			*dst |= 1ULL << fbit;
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
	format__scatter(mask, num, dst[field]);
out_free:
	free(spec);
	return ret;
}

/* Lists the terms @tc accepts: the PMU's format/ files, then the built-ins. */
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
	for (j = 0; j < sizeof(builtin_terms) / sizeof(builtin_terms[0]); j++)
		ctx__error_append(tc->ctx, "%s%s", j ? "," : "", builtin_terms[j]);
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
	char *val = strchr(tok, '=');

	if (val)
		*val++ = '\0';
	if (!name__is_safe(tok, false))
		return ctx__error(tc->ctx, -EINVAL, "bad term '%s' in '%s'", tok, tc->text);
	if (term__is_builtin(tok))
		return pass == PASS_BUILTIN ? term__apply_builtin(tc, tok, val) : 0;
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
