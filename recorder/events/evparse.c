// SPDX-License-Identifier: GPL-2.0
/*
 * Event list parsing, following perf 6.1's parse-events.{l,y,c} and pmu.c.
 *
 * The list is split on commas that are not inside /.../ or {...}; each event
 * text then takes one of these shapes:
 *
 *   mem:ADDR[/LEN][:rwx][:MODS]        breakpoint
 *   HEAD/TERMS/[MODS]                  HEAD a generic/cache/raw name: built-in
 *                                      terms only; otherwise HEAD is a PMU
 *   NAME[:MODS]                        generic, hw cache, raw rNNN, or a PMU
 *                                      alias found in some PMU's events/
 *   SYS:EVENT[:MODS]                   tracepoint, SYS and EVENT may be globs
 *   [NAME]{EVENT,...}[:MODS]           group (parse-events.y group_def): the
 *                                      first event leads, MODS merge into
 *                                      every member's own; no nesting
 *
 * Naming follows perf: a name= term wins; tracepoints are "sys:event" and hw
 * cache events their cache name without modifiers (perf builds those names
 * itself); everything else keeps the text as written, modifiers included.
 */
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
};

/* Where a PMU event's terms are applied; pmu_dir NULL for legacy events. */
struct term_ctx {
	struct evparse_ctx *ctx;
	const char *text;
	const char *pmu;
	char *pmu_dir;
	struct evparse_event *ev;
};

enum term_pass { PASS_BUILTIN, PASS_FORMAT };

static const char *const builtin_terms[] = { "config", "config1", "config2",
					     "name",   "period",  "freq" };

__attribute__((format(printf, 3, 4))) static int ctx__error(struct evparse_ctx *ctx, int ret,
							    const char *fmt, ...)
{
	va_list ap;

	if (ctx->err && ctx->errlen) {
		va_start(ap, fmt);
		vsnprintf(ctx->err, ctx->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Appends to the message ctx__error() wrote; truncation is harmless. */
__attribute__((format(printf, 2, 3))) static void ctx__error_append(struct evparse_ctx *ctx,
								    const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!ctx->err || !ctx->errlen)
		return;
	used = strlen(ctx->err);
	if (used + 1 >= ctx->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->err + used, ctx->errlen - used, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2))) static char *path__new(const char *fmt, ...)
{
	char *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

static bool path__exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool path__is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Reads a small sysfs/tracefs file (filename__read_str) into a malloc'ed
 * string without trailing whitespace.
 */
static int file__read_str(const char *path, char **out)
{
	size_t len;
	int ret = filename__read_str(path, out);

	if (ret)
		return ret;
	len = strlen(*out);
	while (len && ((*out)[len - 1] == '\n' || (*out)[len - 1] == ' ' || (*out)[len - 1] == '\t'))
		len--;
	(*out)[len] = '\0';
	return 0;
}

/* perf's number tokens: 0x-prefixed hex or plain decimal, nothing else. */
static int num__parse_prefix(const char *s, __u64 *val, const char **end)
{
	unsigned int base = 10, d;
	__u64 v = 0;
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (s = p; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (p == s)
		return -EINVAL;
	*val = v;
	*end = p;
	return 0;
}

static int num__parse(const char *s, __u64 *val)
{
	const char *end;
	int ret = num__parse_prefix(s, val, &end);

	if (ret)
		return ret;
	return *end ? -EINVAL : 0;
}

static int file__read_u64(const char *path, __u64 *val)
{
	char *s;
	int ret = file__read_str(path, &s);

	if (ret)
		return ret;
	ret = num__parse(s, val);
	free(s);
	return ret;
}

/* Names that become path components: no '/', no leading '.', so no "..". */
static bool name__is_safe(const char *s, bool glob)
{
	const char *p;

	if (!*s || *s == '.')
		return false;
	for (p = s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_-.", *p))
			continue;
		if (glob && strchr("*?[]", *p))
			continue;
		return false;
	}
	return true;
}

static bool name__is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Appends a copy of @tmpl: every event reaches *ctx->out through here. */
static int ctx__push(struct evparse_ctx *ctx, const struct evparse_event *tmpl)
{
	struct evparse_event *n;

	n = realloc(*ctx->out, (*ctx->nr + 1) * sizeof(*n));
	if (!n)
		return ctx__error(ctx, -ENOMEM, "out of memory");
	*ctx->out = n;
	n[(*ctx->nr)++] = *tmpl;
	return 0;
}

static int ev__set_name(struct evparse_ctx *ctx, struct evparse_event *ev, const char *name)
{
	if (strlen(name) >= sizeof(ev->name))
		return ctx__error(ctx, -ENAMETOOLONG, "event name too long: '%.64s...'", name);
	strcpy(ev->name, name);
	return 0;
}

/* ---- generic, hw cache and raw names ---------------------------------- */

struct sym {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct sym syms[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
};

#define CACHE_ALIASES 5

/* evsel.c's evsel__hw_cache* tables: the spellings perf's lexer accepts. */
static const char *const cache_types[PERF_COUNT_HW_CACHE_MAX][CACHE_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][CACHE_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][CACHE_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

#define OP(x) (1U << PERF_COUNT_HW_CACHE_OP_##x)
/* evsel__is_cache_op_valid(): which ops each cache type has. */
static const unsigned int cache_op_valid[PERF_COUNT_HW_CACHE_MAX] = {
	OP(READ) | OP(WRITE) | OP(PREFETCH), /* L1D */
	OP(READ) | OP(PREFETCH),             /* L1I */
	OP(READ) | OP(WRITE) | OP(PREFETCH), /* LL */
	OP(READ) | OP(WRITE) | OP(PREFETCH), /* DTLB */
	OP(READ),                            /* ITLB */
	OP(READ),                            /* BPU */
	OP(READ) | OP(WRITE) | OP(PREFETCH), /* NODE */
};
#undef OP

/*
 * Longest alias of any row that @s starts with, ending at a '-' or the end
 * of @s. Returns the row or -1; *len gets the matched length.
 */
static int cache__match(const char *s, const char *const (*tab)[CACHE_ALIASES], int rows,
			size_t *len)
{
	size_t best = 0, n;
	int row = -1, i, j;

	for (i = 0; i < rows; i++) {
		for (j = 0; j < CACHE_ALIASES && tab[i][j]; j++) {
			n = strlen(tab[i][j]);
			if (n > best && !strncmp(s, tab[i][j], n) && (!s[n] || s[n] == '-')) {
				best = n;
				row = i;
			}
		}
	}
	*len = best;
	return row;
}

/* TYPE[-OP][-RESULT] (OP and RESULT in either order, as perf allows). */
static bool cache__lookup(const char *s, __u64 *config)
{
	int type, op = -1, res = -1, i, r;
	size_t len;

	type = cache__match(s, cache_types, PERF_COUNT_HW_CACHE_MAX, &len);
	if (type < 0)
		return false;
	for (s += len, i = 0; *s && i < 2; i++, s += len) {
		s++; /* the '-' cache__match stopped at */
		r = op < 0 ? cache__match(s, cache_ops, PERF_COUNT_HW_CACHE_OP_MAX, &len) : -1;
		if (r >= 0) {
			op = r;
			continue;
		}
		r = res < 0 ? cache__match(s, cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX, &len)
			    : -1;
		if (r < 0)
			return false;
		res = r;
	}
	if (*s)
		return false;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_op_valid[type] & (1U << op)))
		return false;
	*config = type | (op << 8) | ((__u64)res << 16);
	return true;
}

/* rNNNN: perf's r{num_raw_hex}, hex digits without 0x. */
static bool raw__lookup(const char *s, __u64 *config)
{
	const char *end;

	if (s[0] != 'r' || !s[1])
		return false;
	for (end = s + 1; *end; end++)
		if (!strchr("0123456789abcdefABCDEF", *end))
			return false;
	if (strlen(s + 1) > 16)
		return false;
	*config = strtoull(s + 1, NULL, 16);
	return true;
}

/* Fills type/config for a generic, cache or raw name; *is_cache for naming. */
static bool sym__lookup(const char *name, struct perf_event_attr *attr, bool *is_cache)
{
	size_t i;

	*is_cache = false;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (!strcmp(name, syms[i].name)) {
			attr->type = syms[i].type;
			attr->config = syms[i].config;
			return true;
		}
	}
	if (cache__lookup(name, &attr->config)) {
		attr->type = PERF_TYPE_HW_CACHE;
		*is_cache = true;
		return true;
	}
	if (raw__lookup(name, &attr->config)) {
		attr->type = PERF_TYPE_RAW;
		return true;
	}
	return false;
}

/* ---- modifiers --------------------------------------------------------- */

struct mods {
	int eu, ek, eh, eH, eG, eI, precise, pinned, exclusive;
	int exclude, exclude_GH; /* first u/k/h, G/H seen */
	int sample_read, weak;
};

/*
 * perf's get_event_modifier() with perf_guest false (perf record): the first
 * of u/k/h excludes all three and each then re-includes its own level; u and
 * p also exclude the guest unless G/H said otherwise. S (sample read) and W
 * (weak group) matter to groups only; P (max precise) and b (bpf counter)
 * are accepted for perf compatibility but have no attr bit here.
 */
static bool mods__step(struct mods *m, char c)
{
	switch (c) {
	case 'u':
	case 'k':
	case 'h':
		if (!m->exclude)
			m->exclude = m->eu = m->ek = m->eh = 1;
		if (c == 'u' && !m->exclude_GH)
			m->eG = 1;
		*(c == 'u' ? &m->eu : c == 'k' ? &m->ek : &m->eh) = 0;
		return true;
	case 'G':
	case 'H':
		if (!m->exclude_GH)
			m->exclude_GH = m->eG = m->eH = 1;
		*(c == 'G' ? &m->eG : &m->eH) = 0;
		return true;
	case 'p':
		m->precise++;
		if (!m->exclude_GH) /* precise requires exclude_guest */
			m->eG = 1;
		return true;
	case 'I':
		m->eI = 1;
		return true;
	case 'D':
		m->pinned = 1;
		return true;
	case 'e':
		m->exclusive = 1;
		return true;
	case 'S':
		m->sample_read = 1;
		return true;
	case 'W':
		m->weak = 1;
		return true;
	case 'P':
	case 'b':
		return true;
	}
	return false;
}

/* perf's check_modifier() then get_event_modifier() over @s, from *@m. */
static int mods__run(struct evparse_ctx *ctx, const char *text, const char *s, struct mods *m)
{
	const char *p;

	if (strlen(s) > strlen("ukhGHpppPSDIWeb"))
		return ctx__error(ctx, -EINVAL, "too many modifiers '%s' in '%s'", s, text);
	for (p = s; *p; p++) {
		if (!mods__step(m, *p))
			return ctx__error(ctx, -EINVAL, "bad modifier '%c' in '%s' (valid: %s)", *p,
					  text, "ukhGHpPSDIWeb");
		if (*p != 'p' && strchr(p + 1, *p))
			return ctx__error(ctx, -EINVAL, "duplicate modifier '%c' in '%s'", *p,
					  text);
	}
	if (m->precise > 3)
		return ctx__error(ctx, -EINVAL, "at most 3 'p' modifiers allowed in '%s'", text);
	return 0;
}

/*
 * parse_events__modifier_event(): pinned and exclusive go to group leaders
 * only (an event is its own leader until its group is formed).
 */
static void mods__store(const struct mods *m, struct evparse_event *ev, bool leader)
{
	struct perf_event_attr *attr = &ev->attr;

	attr->exclude_user = m->eu;
	attr->exclude_kernel = m->ek;
	attr->exclude_hv = m->eh;
	attr->exclude_host = m->eH;
	attr->exclude_guest = m->eG;
	attr->exclude_idle = m->eI;
	attr->precise_ip = m->precise;
	ev->exclude_GH = m->exclude_GH;
	ev->sample_read = m->sample_read;
	ev->weak_group = m->weak;
	if (leader) {
		attr->pinned = m->pinned;
		attr->exclusive = m->exclusive;
	}
}

static int mods__apply(struct evparse_ctx *ctx, const char *text, const char *s,
		       struct evparse_event *ev)
{
	struct mods m = { 0 };
	int ret;

	if (!*s) {
		/* event_attr_init(): exclude_guest unless a modifier decides */
		ev->attr.exclude_guest = 1;
		return 0;
	}
	ret = mods__run(ctx, text, s, &m);
	if (!ret)
		mods__store(&m, ev, true);
	return ret;
}

/*
 * A group's modifier on one member, parse_events__modifier_group(): perf's
 * get_event_modifier() starts from what the member's own modifiers set, so
 * "{cs:k,cpu-clock}:u" keeps cs's kernel level and adds user.
 */
static int mods__apply_group(struct evparse_ctx *ctx, const char *text, const char *s,
			     struct evparse_event *ev, bool leader)
{
	const struct perf_event_attr *a = &ev->attr;
	struct mods m = {
		.eu = a->exclude_user, .ek = a->exclude_kernel, .eh = a->exclude_hv,
		.eH = a->exclude_host, .eG = a->exclude_guest, .eI = a->exclude_idle,
		.precise = a->precise_ip, .pinned = a->pinned, .exclusive = a->exclusive,
		.exclude = a->exclude_user | a->exclude_kernel | a->exclude_hv,
		.exclude_GH = ev->exclude_GH,
	};
	int ret = mods__run(ctx, text, s, &m);

	if (!ret)
		mods__store(&m, ev, leader);
	return ret;
}

/* ---- terms ------------------------------------------------------------- */

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
static int terms__apply_all(struct term_ctx *tc, const char *terms)
{
	int ret = terms__apply(tc, terms, PASS_BUILTIN, 0);

	return ret ? ret : terms__apply(tc, terms, PASS_FORMAT, 0);
}

/* ---- event shapes ------------------------------------------------------ */

static int pmu__event(struct evparse_ctx *ctx, const char *text, const char *pmu,
		      const char *terms, const char *mods)
{
	struct evparse_event ev = { 0 };
	struct term_ctx tc = { ctx, text, pmu, NULL, &ev };
	char *type_path = NULL;
	__u64 type;
	int ret;

	if (!name__is_safe(pmu, false) || strlen(pmu) >= sizeof(ev.pmu))
		return ctx__error(ctx, -EINVAL, "bad PMU name '%s' in '%s'", pmu, text);
	tc.pmu_dir = path__new("%s" PMU_DEVICES "/%s", ctx->root, pmu);
	type_path = tc.pmu_dir ? path__new("%s/type", tc.pmu_dir) : NULL;
	if (!type_path) {
		ret = ctx__error(ctx, -ENOMEM, "out of memory");
		goto out_free;
	}
	ret = file__read_u64(type_path, &type);
	/* A PMU this machine lacks, not a misspelling: -ENODEV (the CLI exits 1, not 2). */
	if (ret && aux_pmu__type(pmu) != AUX_TYPE_UNKNOWN) {
		ret = ctx__error(ctx, -ENODEV,
				 "AUX area PMU '%s' not present on this machine (no %s in sysfs): "
				 "cannot record '%s'", pmu, tc.pmu_dir, text);
		goto out_free;
	}
	if (ret) {
		ret = ctx__error(ctx, -ENOENT, "unknown PMU '%s' in '%s'", pmu, text);
		goto out_free;
	}
	ev.attr.type = type;
	strcpy(ev.pmu, pmu);
	ret = ev__set_name(ctx, &ev, text);
	if (!ret)
		ret = terms__apply_all(&tc, terms);
	if (!ret)
		ret = mods__apply(ctx, text, mods, &ev);
	if (!ret)
		ret = ctx__push(ctx, &ev);
out_free:
	free(type_path);
	free(tc.pmu_dir);
	return ret;
}

/* A generic/cache/raw name, optionally with built-in terms. */
static int sym__event(struct evparse_ctx *ctx, const char *text, const char *head,
		      const char *terms, const char *mods)
{
	struct evparse_event ev = { 0 };
	struct term_ctx tc = { ctx, text, NULL, NULL, &ev };
	bool is_cache;
	int ret;

	if (!sym__lookup(head, &ev.attr, &is_cache))
		return -ENOENT;
	/* parse_events_add_cache() names the event itself, without modifiers */
	ret = ev__set_name(ctx, &ev, is_cache ? head : text);
	if (!ret && terms)
		ret = terms__apply_all(&tc, terms);
	if (!ret)
		ret = mods__apply(ctx, text, mods, &ev);
	return ret ? ret : ctx__push(ctx, &ev);
}

/* A bare PMU alias ("tsc", "cycles-t"): added once per PMU that has it. */
static int alias__event(struct evparse_ctx *ctx, const char *text, const char *alias,
			const char *mods)
{
	struct dirent **ents = NULL;
	char *dir, *path;
	int i, n, found = 0, ret = 0;

	if (!name__is_safe(alias, false))
		return -ENOENT;
	dir = path__new("%s" PMU_DEVICES, ctx->root);
	n = dir ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		path = path__new("%s/%s/events/%s", dir, ents[i]->d_name, alias);
		if (!ret && ents[i]->d_name[0] != '.' && path && path__exists(path)) {
			ret = pmu__event(ctx, text, ents[i]->d_name, alias, mods);
			found++;
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return ret ? ret : found ? 0 : -ENOENT;
}

/* HEAD/TERMS/[:]MODS: legacy event with terms, or a PMU event. */
static int slashed__event(struct evparse_ctx *ctx, const char *text, char *work)
{
	char *terms, *mods;
	int ret;

	terms = strchr(work, '/');
	*terms++ = '\0';
	mods = strchr(terms, '/');
	if (!mods)
		return ctx__error(ctx, -EINVAL, "missing closing '/' in '%s'", text);
	*mods++ = '\0';
	if (*mods == ':')
		mods++;
	ret = sym__event(ctx, text, work, terms, mods);
	if (ret != -ENOENT)
		return ret;
	return pmu__event(ctx, text, work, terms, mods);
}

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
static int bp__event(struct evparse_ctx *ctx, const char *text)
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
	static const char *const probe[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char *events;
	size_t i;

	for (i = 0; !ctx->tracefs && i < sizeof(probe) / sizeof(probe[0]); i++) {
		events = path__new("%s/events", probe[i]);
		if (events && path__is_dir(events))
			ctx->tracefs = probe[i];
		free(events);
	}
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

/* SYS:NAME[:MODS]; @work is a private copy of @text. */
static int tp__event(struct evparse_ctx *ctx, const char *text, char *work)
{
	struct evparse_event tmpl = { 0 };
	char *name, *mods;
	int ret;

	name = strchr(work, ':');
	*name++ = '\0';
	mods = strchr(name, ':');
	if (mods)
		*mods++ = '\0';
	if (!name__is_safe(work, true) || !name__is_safe(name, true))
		return ctx__error(ctx, -EINVAL, "unknown event '%s'", text);
	ret = tracefs__probe(ctx);
	if (ret)
		return ret;
	ret = mods__apply(ctx, text, mods ? mods : "", &tmpl);
	if (ret)
		return ret;
	if (name__is_glob(work) || name__is_glob(name))
		return tp__glob(ctx, &tmpl, work, name, text);
	return tp__add(ctx, &tmpl, work, name, false);
}

/* ---- list -------------------------------------------------------------- */

static int event__parse(struct evparse_ctx *ctx, const char *text)
{
	char *work, *slash, *colon;
	int ret;

	if (!strncmp(text, "mem:", 4))
		return bp__event(ctx, text);
	work = strdup(text);
	if (!work)
		return ctx__error(ctx, -ENOMEM, "out of memory");
	slash = strchr(work, '/');
	colon = strchr(work, ':');
	if (slash && (!colon || slash < colon)) {
		ret = slashed__event(ctx, text, work);
		goto out_free;
	}
	if (colon)
		*colon = '\0';
	ret = sym__event(ctx, text, work, NULL, colon ? colon + 1 : "");
	if (ret == -ENOENT)
		ret = alias__event(ctx, text, work, colon ? colon + 1 : "");
	if (ret == -ENOENT && colon) {
		*colon = ':';
		ret = tp__event(ctx, text, work);
	} else if (ret == -ENOENT) {
		ret = ctx__error(ctx, -ENOENT, "unknown event '%s'", text);
	}
out_free:
	free(work);
	return ret;
}

/*
 * Length of the event or group at @s: up to a comma outside /.../ and
 * {...}. A mem: event's single '/' is its length separator, not a term
 * list; inside a group only the braces count (its events split later).
 */
static size_t list__event_len(const char *s)
{
	bool in_slash = false, mem = !strncmp(s + strspn(s, " \t"), "mem:", 4);
	int depth = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '/' && !mem && !depth)
			in_slash = !in_slash;
		else if (*p == '{')
			depth++;
		else if (*p == '}' && depth)
			depth--;
		else if (*p == ',' && !in_slash && !depth)
			break;
	}
	return p - s;
}

static int list__parse(struct evparse_ctx *ctx, const char *list);

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
static int list__parse(struct evparse_ctx *ctx, const char *list)
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
	struct evparse_ctx ctx = { "", NULL, err, errlen, out, nr };
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
	saved = *nr;
	ret = list__parse(&ctx, list);
	/* all or nothing: drop what this call appended before the failure */
	if (ret)
		*nr = saved;
	return ret;
}

/* ---- perf_event_open errors -------------------------------------------- */

/* perf's evsel__add_modifiers(): the suffix evsel__name() derives from the attr. */
static void name__add_modifiers(const struct perf_event_attr *a, char *name, size_t size)
{
	bool guest_default = a->exclude_kernel || a->exclude_user || a->exclude_hv;
	size_t n = 0, len = strlen(name);
	char mods[16];

	if (guest_default) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
	}
	for (unsigned int i = 0; i < a->precise_ip && i < 3; i++)
		mods[n++] = 'p';
	guest_default |= a->precise_ip != 0;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = '\0';
	if (n && len < size)
		snprintf(name + len, size - len, ":%s", mods);
}

bool evparse__fallback(struct evparse_event *ev, int err, char *msg, size_t len)
{
	err = err < 0 ? -err : err;
	if ((err != ENOENT && err != ENXIO && err != ENODEV) ||
	    ev->attr.type != PERF_TYPE_HARDWARE || ev->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	snprintf(msg, len, "The cycles event is not supported, trying to fall back to "
		 "cpu-clock-ticks");
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(ev->name, sizeof(ev->name), "cpu-clock");
	name__add_modifiers(&ev->attr, ev->name, sizeof(ev->name));
	return true;
}

/* perf's is_pmu_core(): x86 "cpu", or any PMU with a cpus file (arm, hybrid). */
static bool pmu__have_core(const char *root)
{
	struct dirent **ents = NULL;
	char *dir, *path;
	bool found;
	int i, n;

	path = path__new("%s" PMU_DEVICES "/cpu", root);
	found = path && path__exists(path);
	free(path);
	dir = path__new("%s" PMU_DEVICES, root);
	n = dir && !found ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		path = path__new("%s/%s/cpus", dir, ents[i]->d_name);
		found = found || (ents[i]->d_name[0] != '.' && path && path__exists(path));
		free(path);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return found;
}

static bool ev__is_hw(const struct evparse_event *ev)
{
	return ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
	       ev->attr.type == PERF_TYPE_RAW;
}

static char *strerror__access(const struct evparse_event *ev, int err, const char *root,
			      char *buf, size_t len)
{
	char *path = path__new("%s" PARANOID_FILE, root);
	char *val = NULL;
	bool kernel_hint;

	if (!path || file__read_str(path, &val))
		val = NULL;
	/* >= 2 is the usual distro default and stops kernel sampling only */
	kernel_hint = val && atoi(val) >= 2 && !ev->attr.exclude_kernel;
	snprintf(buf, len,
		 "%s: no permission to open the event (%s): %s is %s (>= 0 forbids raw and "
		 "tracepoint access, >= 1 CPU-wide events, >= 2 kernel profiling%s); lower it or "
		 "run with CAP_PERFMON (or CAP_SYS_ADMIN)",
		 ev->name, err == EPERM ? "EPERM" : "EACCES", PARANOID_FILE, val ? val : "unknown",
		 kernel_hint ? ": add the :u modifier to count user space only" : "");
	free(val);
	free(path);
	return buf;
}

static char *strerror__unsupported(const struct evparse_event *ev, int err, const char *root,
				   char *buf, size_t len)
{
	if (ev__is_hw(ev) && !pmu__have_core(root))
		snprintf(buf, len,
			 "%s: hardware event not supported: this machine has no hardware PMU (no "
			 "%s" PMU_DEVICES "/cpu); try cpu-clock",
			 ev->name, root);
	else if (ev->attr.precise_ip)
		snprintf(buf, len,
			 "%s: 'precise' modifier (p) may not be supported by this event; try "
			 "removing 'p'",
			 ev->name);
	else if (ev->tracepoint && err == ENOENT)
		snprintf(buf, len,
			 "%s: tracepoint not available (is tracefs mounted and the event in this "
			 "kernel?)",
			 ev->name);
	else if (err == EOPNOTSUPP)
		snprintf(buf, len,
			 "%s: the PMU does not support sampling (overflow interrupts) for this "
			 "event",
			 ev->name);
	else if (err == ENODEV)
		snprintf(buf, len, "%s: no such device: PMU or CPU not available (CPU out of range?)",
			 ev->name);
	else
		snprintf(buf, len, "%s: event not supported by this kernel or PMU", ev->name);
	return buf;
}

static char *strerror__einval(const struct evparse_event *ev, char *buf, size_t len)
{
	/* perf_event_open(): "Only a group leader can be exclusive or pinned" */
	if (ev->group_idx && (ev->attr.pinned || ev->attr.exclusive))
		snprintf(buf, len,
			 "%s: only a group leader can be pinned (D) or exclusive (e); move the "
			 "modifier to the group",
			 ev->name);
	else if (ev->attr.precise_ip)
		snprintf(buf, len,
			 "%s: 'precise' modifier (p) not supported by this event; try removing 'p'",
			 ev->name);
	else if (ev->attr.type == PERF_TYPE_BREAKPOINT)
		snprintf(buf, len, "%s: invalid breakpoint (check address alignment and length)",
			 ev->name);
	else if (ev->pmu[0])
		snprintf(buf, len,
			 "%s: invalid event for PMU '%s' (bad terms, or an uncore PMU that needs "
			 "system-wide mode)",
			 ev->name, ev->pmu);
	else
		snprintf(buf, len, "%s: perf_event_open failed: %s", ev->name, strerror(EINVAL));
	return buf;
}

char *evparse__strerror_opts(const struct evparse_event *ev, int err,
			     const struct evparse_opts *o, char *buf, size_t len)
{
	const char *root = o && o->sysfs_root ? o->sysfs_root : "";

	if (!buf || !len)
		return buf;
	err = err < 0 ? -err : err;
	switch (err) {
	case EPERM:
	case EACCES:
		return strerror__access(ev, err, root, buf, len);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return strerror__unsupported(ev, err, root, buf, len);
	case EINVAL:
		return strerror__einval(ev, buf, len);
	case EMFILE:
		snprintf(buf, len,
			 "%s: too many open files: the file descriptor limit was reached; open "
			 "fewer events or raise it with 'ulimit -n <limit>'",
			 ev->name);
		return buf;
	case EBUSY:
		snprintf(buf, len,
			 "%s: the PMU counters are busy (taken by another profiler or a "
			 "pinned/exclusive event)",
			 ev->name);
		return buf;
	case ESRCH:
		snprintf(buf, len, "%s: the target process no longer exists", ev->name);
		return buf;
	case ENOSPC:
		if (ev->attr.type == PERF_TYPE_BREAKPOINT) {
			snprintf(buf, len, "%s: no free hardware breakpoint slot", ev->name);
			return buf;
		}
		break;
	}
	snprintf(buf, len, "%s: perf_event_open failed: %s", ev->name, strerror(err));
	return buf;
}

char *evparse__strerror(const struct evparse_event *ev, int err, char *buf, size_t len)
{
	return evparse__strerror_opts(ev, err, NULL, buf, len);
}
