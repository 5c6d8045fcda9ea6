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
#include "recorder/events/evparse_internal.h"
#include "recorder/util/suggest.h"
#include "recorder/perfdata/recbuf.h"

__attribute__((format(printf, 3, 4))) int ctx__error(struct evparse_ctx *ctx, int ret,
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
__attribute__((format(printf, 2, 3))) void ctx__error_append(struct evparse_ctx *ctx,
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

__attribute__((format(printf, 1, 2))) char *path__new(const char *fmt, ...)
{
	char *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : p;
}

bool path__exists(const char *path)
{
	return access(path, F_OK) == 0;
}

bool path__is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Reads a small sysfs/tracefs file (filename__read_str) into a malloc'ed
 * string without trailing whitespace.
 */
int file__read_str(const char *path, char **out)
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
int num__parse_prefix(const char *s, __u64 *val, const char **end)
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

int num__parse(const char *s, __u64 *val)
{
	const char *end;
	int ret = num__parse_prefix(s, val, &end);

	if (ret)
		return ret;
	return *end ? -EINVAL : 0;
}

int file__read_u64(const char *path, __u64 *val)
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
bool name__is_safe(const char *s, bool glob)
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

bool name__is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Appends a copy of @tmpl: every event reaches *ctx->out through here. */
int ctx__push(struct evparse_ctx *ctx, const struct evparse_event *tmpl)
{
	struct evparse_event *n;

	n = array__grow(*ctx->out, &ctx->cap, *ctx->nr + 1, sizeof(*n), 16);
	if (!n)
		return ctx__error(ctx, -ENOMEM, "out of memory");
	*ctx->out = n;
	n[(*ctx->nr)++] = *tmpl;
	return 0;
}

int ev__set_name(struct evparse_ctx *ctx, struct evparse_event *ev, const char *name)
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
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

/*
 * An unknown name: perf says to run perf list; the nearest symbolic name
 * too, as git's "did you mean" (-e cyclse, -e cpu-clok).
 */
static int sym__unknown(struct evparse_ctx *ctx, const char *text, const char *name)
{
	const char *names[sizeof(syms) / sizeof(syms[0])];
	const char *near;

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		names[i] = syms[i].name;
	near = suggest__closest(name, names, sizeof(syms) / sizeof(syms[0]));
	if (near)
		return ctx__error(ctx, -ENOENT, "unknown event '%s': did you mean '%s'? (shardrec "
				  "list shows this machine's events)", text, near);
	return ctx__error(ctx, -ENOENT, "unknown event '%s' (shardrec list shows this machine's "
			  "events)", text);
}

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

int mods__apply(struct evparse_ctx *ctx, const char *text, const char *s,
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
int mods__apply_group(struct evparse_ctx *ctx, const char *text, const char *s,
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

/*
 * perf's pmu->default_config: the config a PMU's event starts from before
 * its terms (Intel PT's, aux_attr__default_config); true if it has one.
 */
static bool pmu__default_config(struct evparse_ctx *ctx, const char *pmu,
				struct perf_event_attr *attr)
{
	uint64_t config;

	if (!aux_attr__default_config(ctx->root, pmu, &config))
		return false;
	attr->config = config;
	return true;
}

/* ---- event shapes ------------------------------------------------------ */

static int pmu__event(struct evparse_ctx *ctx, const char *text, const char *pmu,
		      const char *terms, const char *mods)
{
	struct evparse_event ev = { 0 };
	struct term_ctx tc = { ctx, text, pmu, NULL, &ev, false, false };
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
	tc.zero = pmu__default_config(ctx, pmu, &ev.attr);
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
	struct term_ctx tc = { ctx, text, NULL, NULL, &ev, false, false };
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

/* ---- list -------------------------------------------------------------- */

int event__parse(struct evparse_ctx *ctx, const char *text)
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
		ret = sym__unknown(ctx, text, work);
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
size_t list__event_len(const char *s)
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

/* ---- names, for `shardrec list` ---------------------------------------- */

static int symbol__call(evparse_symbol_cb cb, void *arg, const char *name, const char *alias,
			__u32 type, __u64 config)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = type, .config = config };

	return cb(name, alias, &attr, arg);
}

/* perf's __evsel__hw_cache_type_op_res_name(): "L1-dcache-loads", "LLC-store-misses". */
static int symbol__foreach_cache(evparse_symbol_cb cb, void *arg)
{
	char name[96];
	int t, op, res, ret;

	for (t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++) {
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(cache_op_valid[t] & (1U << op)))
				continue;
			for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(name, sizeof(name), "%s-%s", cache_types[t][0],
						 cache_ops[op][1]);
				else
					snprintf(name, sizeof(name), "%s-%s-%s", cache_types[t][0],
						 cache_ops[op][0], cache_results[res][0]);
				ret = symbol__call(cb, arg, name, NULL, PERF_TYPE_HW_CACHE,
						   t | (op << 8) | ((__u64)res << 16));
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

int evparse__foreach_symbol(evparse_symbol_cb cb, void *arg)
{
	const size_t n = sizeof(syms) / sizeof(syms[0]);
	const char *alias;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		alias = i + 1 < n && syms[i + 1].type == syms[i].type &&
				syms[i + 1].config == syms[i].config
			? syms[i + 1].name
			: NULL;
		ret = symbol__call(cb, arg, syms[i].name, alias, syms[i].type, syms[i].config);
		if (ret)
			return ret;
		i += alias != NULL;
	}
	return symbol__foreach_cache(cb, arg);
}
