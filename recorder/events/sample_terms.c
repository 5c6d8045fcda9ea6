// SPDX-License-Identifier: GPL-2.0
/*
 * Per-event config terms over the record options: perf 6.1's
 * evsel__apply_config_terms(), which evsel__config() runs last, so that a
 * term wins over the option it overrides (call-graph=, stack-size= and
 * max-stack= over -g/--call-graph, inherit over -i, branch_type= over -j).
 *
 * Followed to the bit, quirks included, so that `perf evlist -v` shows
 * the same attr as for perf's recording: a per-event call graph clears the
 * global one's CALLCHAIN (and for dwarf REGS_USER and STACK_USER) sample
 * bits but not its values (sample_regs_user, sample_stack_user,
 * exclude_callchain_user, ADDR, DATA_SRC); stack-size= alone turns the
 * global call graph off for the event.
 *
 * Refused with one line where perf would record something shardrec
 * cannot: time=0 (the merge orders the shards by sample time), overwrite
 * on some events only (one ring per CPU, backward for every event or for
 * none) and aux-sample-size (no AUX area sampling). perf records
 * call-graph=NAME it cannot parse with the global setting after a
 * message; evparse refuses the name instead. max-stack= above
 * kernel.perf_event_max_stack, and a dwarf stack above 65528 bytes, which
 * the kernel refuses at open, are refused before it.
 */
#include "recorder/events/evlist.h"
#include "recorder/events/branch_filter.h"
#include "recorder/events/callchain.h"
#include "recorder/util/fs.h"

#include <errno.h>
#include <stdio.h>

/* What the call graph terms of one event ask for. */
struct term_callgraph {
	bool given;         /* call-graph= (perf's callgraph_buf) */
	int mode;           /* its CALLCHAIN_* */
	uint64_t dump_size; /* stack-size=, 0 = not given */
	uint64_t max_stack; /* max-stack=, 0 = not given */
};

/* evsel__reset_callgraph(): the sample bits of the global call graph. */
static void reset_callgraph(struct perf_event_attr *a, const struct record_opts *o)
{
	a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph_dwarf)
		a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

/* __evsel__config_callchain() for an fp or dwarf call graph of the event's own. */
static void config_callchain(struct perf_event_attr *a, const struct record_opts *o, int mode,
			     uint32_t dump_size, uint16_t max_stack)
{
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->sample_max_stack = max_stack;
	if (o->user_callchains)
		a->exclude_callchain_kernel = 1;
	if (mode != CALLCHAIN_DWARF)
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* perf: a --user-regs subset gets the registers unwinding needs */
	a->sample_regs_user |= o->user_regs ? callchain__dwarf_min_regs() : callchain__all_regs();
	a->sample_stack_user = dump_size;
	a->exclude_callchain_user = 1;
}

/* The values the kernel would refuse at open, refused now with one line. */
static int check_callgraph(const struct evsel *e, int mode, uint64_t dump, uint64_t max_stack,
			   char *err, size_t errlen)
{
	long long limit = sysctl__read_kernel("perf_event_max_stack", 127);

	if (mode == CALLCHAIN_DWARF && dump > CALLCHAIN_DWARF_MAX) {
		snprintf(err, errlen, "%s: stack-size=%llu: a dwarf stack copy is 8..%d bytes",
			 e->ev.name, (unsigned long long)dump, CALLCHAIN_DWARF_MAX);
		return -EINVAL;
	}
	if (max_stack > (uint64_t)limit || max_stack > UINT16_MAX) {
		snprintf(err, errlen, "%s: max-stack=%llu is above kernel.perf_event_max_stack (%lld)",
			 e->ev.name, (unsigned long long)max_stack, limit);
		return -EINVAL;
	}
	return 0;
}

/* The call graph half of evsel__apply_config_terms(), once every term is read. */
static int apply_callgraph(struct evsel *e, const struct record_opts *o,
			   const struct term_callgraph *cg, char *err, size_t errlen)
{
	struct perf_event_attr *a = &e->ev.attr;
	int mode = cg->given ? cg->mode : cg->max_stack ? CALLCHAIN_FP : CALLCHAIN_NONE;
	uint64_t dump = mode == CALLCHAIN_DWARF ? CALLCHAIN_DWARF_DEFAULT : 0;
	int ret;

	if (!cg->given && !cg->dump_size && !cg->max_stack)
		return 0;
	if (cg->dump_size)
		dump = (cg->dump_size + 7) & ~7ULL;
	ret = mode == CALLCHAIN_NONE ? 0 : check_callgraph(e, mode, dump, cg->max_stack, err, errlen);
	if (ret)
		return ret;
	if (o->callgraph_fp || o->callgraph_dwarf)
		reset_callgraph(a, o);
	if (mode == CALLCHAIN_NONE)
		return 0;
	if (mode == CALLCHAIN_DWARF) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		a->mmap_data = a->mmap; /* perf: mmap_data = track */
	}
	config_callchain(a, o, mode, dump, cg->max_stack);
	return 0;
}

/* branch_type=MODE ORed into what -j or the parser set; branch_type=no: no stack. */
static void apply_branch(struct perf_event_attr *a, uint64_t bit)
{
	uint64_t mode = a->branch_sample_type;

	if (!bit) {
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
		return;
	}
	a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	branch_filter__add(&mode, bit);
	a->branch_sample_type = mode;
}

/* The terms shardrec cannot apply: one line naming the event. */
static int refuse(const struct evsel *e, const struct evparse_term *t, const struct record_opts *o,
		  bool has_aux, char *err, size_t errlen)
{
	if (t->type == EVPARSE_TERM_TIME)
		snprintf(err, errlen, "%s: time=0: not supported (shardrec merges its per-CPU "
			 "shards by sample time, every sample needs one)", e->ev.name);
	else if (t->type == EVPARSE_TERM_OVERWRITE && !o->overwrite)
		snprintf(err, errlen, "%s: overwrite: not supported on some events only (one ring "
			 "per CPU, backward for every event with --overwrite)", e->ev.name);
	else if (t->type == EVPARSE_TERM_OVERWRITE)
		snprintf(err, errlen, "%s: no-overwrite: not supported with --overwrite (one ring "
			 "per CPU, backward for every event)", e->ev.name);
	else if (has_aux)
		snprintf(err, errlen, "%s: aux-sample-size: AUX area sampling (PERF_SAMPLE_AUX) "
			 "is not supported", e->ev.name);
	else
		snprintf(err, errlen, "%s: aux-sample-size: No AUX area event to sample (the "
			 "group's leader must be one, e.g. intel_pt//)", e->ev.name);
	return -EINVAL;
}

/* evsel__apply_config_terms() for event @e; @has_aux: an AUX area event is in the list. */
static int apply_terms(struct evsel *e, const struct record_opts *o, bool has_aux, char *err,
		       size_t errlen)
{
	struct perf_event_attr *a = &e->ev.attr;
	struct term_callgraph cg = {0};

	for (unsigned int i = 0; i < e->ev.nr_terms; i++) {
		const struct evparse_term *t = &e->ev.terms[i];

		switch (t->type) {
		case EVPARSE_TERM_TIME:
			if (!t->val)
				return refuse(e, t, o, has_aux, err, errlen);
			a->sample_type |= PERF_SAMPLE_TIME;
			break;
		case EVPARSE_TERM_CALLGRAPH:
			cg.given = true;
			cg.mode = (int)t->val;
			break;
		case EVPARSE_TERM_BRANCH:
			apply_branch(a, t->val);
			break;
		case EVPARSE_TERM_STACK_SIZE:
			cg.dump_size = t->val;
			break;
		case EVPARSE_TERM_MAX_STACK:
			cg.max_stack = t->val;
			break;
		case EVPARSE_TERM_INHERIT:
			a->inherit = t->val;
			break;
		case EVPARSE_TERM_OVERWRITE:
			if (t->val != o->overwrite)
				return refuse(e, t, o, has_aux, err, errlen);
			break;
		case EVPARSE_TERM_AUX_OUTPUT:
			a->aux_output = t->val;
			break;
		case EVPARSE_TERM_AUX_SAMPLE_SIZE:
			return refuse(e, t, o, has_aux, err, errlen);
		}
	}
	return apply_callgraph(e, o, &cg, err, errlen);
}

int sample_terms__apply(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	bool has_aux = false;
	int ret;

	for (size_t i = 0; i < l->nr; i++)
		has_aux |= l->evsel[i].ev.pmu[0] && aux_pmu__is_aux(NULL, l->evsel[i].ev.pmu);
	for (size_t i = 0; i < l->nr; i++) {
		ret = apply_terms(&l->evsel[i], o, has_aux, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
