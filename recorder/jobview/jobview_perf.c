// SPDX-License-Identifier: GPL-2.0
/*
 * jobview's symbols and per-thread samples, from perf itself: symbol
 * resolution (ELF, build ids, kallsyms, JIT maps, demangling) is perf's
 * work, and the shares must be the Overhead that perf report prints. Per
 * node, one
 *
 *   perf report -i FILE --stdio --no-children --no-group --percent-limit 0
 *               --sort pid,dso,sym -F period,sample,pid,dso,sym -t SEP
 *
 * gives exact integer periods and sample counts per (thread, object,
 * symbol), one section per sampling event; and, when the node's JSON lists
 * rank pids, one `perf report -i FILE --stdio --tasks` maps each thread to
 * its process (perf's "pid" sort key is the thread id: an OpenMP rank's
 * threads are rows of their own).
 */
#include "recorder/jobview/jobview_internal.h"
#include "recorder/perfdata/recbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The column separator: perf puts no padding-only columns around it and
 * replaces it inside names (repsep_snprintf), so symbols with spaces or
 * commas (C++) stay one field.
 */
#define SEP "\x1f"

extern char **environ;

/* One line of perf's stdout; 0 / -errno stops the parse. */
typedef int (*line_fn)(char *line, void *arg);

/*
 * The environment for perf: ours with LC_ALL=C, so that no locale changes
 * how numbers are printed. Malloc'ed array of borrowed strings; NULL on ENOMEM.
 */
static char **perf_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7))
			env[k++] = environ[i];
	env[k] = "LC_ALL=C";
	return env;
}

/*
 * Starts @argv with stdin /dev/null, stdout into *@out (a pipe) and stderr
 * into *@errfd (a memfd, read after). The fds are close-on-exec: the other
 * workers' children must not hold this pipe open. 0 / -errno.
 */
static int perf_spawn(char *const argv[], pid_t *pid, int *out, int *errfd)
{
	posix_spawn_file_actions_t fa;
	int p[2], ret;
	char **env = perf_env();

	*out = *errfd = -1;
	if (!env)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC)) {
		ret = -errno;
		goto out_env;
	}
	*errfd = memfd_create("jobview-perf-stderr", MFD_CLOEXEC);
	ret = *errfd < 0 ? -errno : -posix_spawn_file_actions_init(&fa);
	if (ret)
		goto out_pipe;
	ret = -posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, *errfd, 2);
	if (!ret)
		ret = -posix_spawnp(pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
out_pipe:
	close(p[1]);
	if (ret) {
		close(p[0]);
		if (*errfd >= 0)
			close(*errfd);
		*errfd = -1;
	} else {
		*out = p[0];
	}
out_env:
	free(env);
	return ret;
}

/*
 * perf's reason for failing, from the end of its stderr (warnings come
 * first, by the thousand for missing build ids): the line after "Error:",
 * else the last line; "exit status N" when it said nothing.
 */
static void perf_reason(int errfd, int status, char *err, size_t errlen)
{
	char buf[4096], *line, *save = NULL, *last = NULL;
	off_t size = lseek(errfd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = pread(errfd, buf, sizeof(buf) - 1, from);
	bool after_error = false;

	buf[n > 0 ? n : 0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!*line)
			continue;
		if (after_error) {
			last = line;
			break;
		}
		after_error = !strcmp(line, "Error:");
		last = after_error ? last : line;
	}
	if (last)
		snprintf(err, errlen, "%s", last);
	else if (WIFSIGNALED(status))
		snprintf(err, errlen, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(err, errlen, "exit status %d", WEXITSTATUS(status));
}

/* Reads @fd line by line into @fn, to its end even after a parse error (perf must not block). */
static int perf_read(int fd, line_fn fn, void *arg)
{
	FILE *f = fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!f) {
		close(fd);
		return -errno;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (!ret)
			ret = fn(line, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * Runs @argv and parses its stdout with @fn. 0 / -errno with one line in
 * @err: the spawn's errno (-ENOENT: no such perf), -EIO when perf failed,
 * or @fn's error.
 */
static int perf_run(char *const argv[], line_fn fn, void *arg, char *err, size_t errlen)
{
	int out, errfd, status = 0, ret;
	pid_t pid;

	ret = perf_spawn(argv, &pid, &out, &errfd);
	if (ret) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(-ret));
		return ret;
	}
	ret = perf_read(out, fn, arg);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* 127 and not a word: the exec failed in a child that could not say so (no vfork). */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && lseek(errfd, 0, SEEK_END) == 0) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(ENOENT));
		ret = -ENOENT;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char why[1024];

		perf_reason(errfd, status, why, sizeof(why));
		snprintf(err, errlen, "perf %s: %s", argv[1], why);
		ret = -EIO;
	} else if (ret) {
		snprintf(err, errlen, "perf %s: unexpected output (%s)", argv[1], strerror(-ret));
	}
	close(errfd);
	return ret;
}

/* ---- perf report --sort pid,dso,sym ---- */

struct report_ctx {
	struct jv_profile *p;
	size_t cap_syms, cap_tids;
	uint64_t sum, header_total;
	bool has_header_total;
};

/* "# Samples: 1K of event 'cycles'" (perf says "events" with --no-group): the name. */
static int report_section(struct report_ctx *c, const char *line)
{
	const char *q = strstr(line, " of event");
	const char *a = q ? strchr(q, '\'') : NULL;
	const char *b = a ? strrchr(a + 1, '\'') : NULL;

	if (++c->p->nr_events > 1 || !b)
		return 0;
	c->p->event = strndup(a + 1, b - a - 1);
	return c->p->event ? 0 : -ENOMEM;
}

static int report_comment(struct report_ctx *c, const char *line)
{
	static const char count[] = "# Event count (approx.):";

	if (!strncmp(line, "# Samples:", 10))
		return report_section(c, line);
	if (c->p->nr_events == 1 && !strncmp(line, count, sizeof(count) - 1)) {
		c->header_total = strtoull(line + sizeof(count) - 1, NULL, 10);
		c->has_header_total = true;
	}
	return 0;
}

/* The next field of a separated line, trimmed, in place; NULL past the last. */
static char *field(char **save)
{
	char *f = strsep(save, SEP);
	size_t n;

	if (!f)
		return NULL;
	f += strspn(f, " ");
	n = strlen(f);
	while (n && f[n - 1] == ' ')
		f[--n] = '\0';
	return f;
}

static int report_add(struct report_ctx *c, const struct jv_sym *s, long tid)
{
	struct jv_profile *p = c->p;
	void *g;

	g = array__grow(p->syms, &c->cap_syms, p->nr_syms + 1, sizeof(*p->syms), 256);
	if (!g)
		return -ENOMEM;
	p->syms = g;
	p->syms[p->nr_syms++] = *s;
	g = array__grow(p->tids, &c->cap_tids, p->nr_tids + 1, sizeof(*p->tids), 256);
	if (!g)
		return -ENOMEM;
	p->tids = g;
	p->tids[p->nr_tids++] = (struct jv_tid){.tid = tid, .pid = tid, .samples = s->samples};
	c->sum += s->period;
	return 0;
}

/* " 299250000 SEP 1197 SEP 17386:hot SEP hot SEP [.] hot_loop" */
static int report_row(struct report_ctx *c, char *line)
{
	char *save = line, *period, *samples, *thread, *dso, *sym, *end;
	struct jv_sym s = {0};
	long tid;
	int ret;

	period = field(&save);
	samples = field(&save);
	thread = field(&save);
	dso = field(&save);
	sym = field(&save);
	if (!sym || !c->p->nr_events)
		return -EINVAL;
	s.period = strtoull(period, &end, 10);
	if (*end || !*period)
		return -EINVAL;
	s.samples = strtoull(samples, &end, 10);
	if (*end || !*samples)
		return -EINVAL;
	tid = strtol(thread, NULL, 10); /* "TID:COMM" */
	if (sym[0] == '[' && sym[1] && sym[2] == ']' && sym[3] == ' ') {
		s.level = sym[1];
		sym += 4;
	}
	s.dso = strdup(dso);
	s.name = strdup(sym);
	ret = s.dso && s.name ? report_add(c, &s, tid) : -ENOMEM;
	if (ret) {
		free(s.dso);
		free(s.name);
	}
	return ret;
}

static int report_line(char *line, void *arg)
{
	struct report_ctx *c = arg;

	if (line[0] == '#')
		return report_comment(c, line);
	if (!line[strspn(line, " ")])
		return 0;
	/* Only the first event's section: its shares are of one period unit. */
	return c->p->nr_events > 1 ? 0 : report_row(c, line);
}

int jv_sym__cmp(const struct jv_sym *a, const struct jv_sym *b)
{
	int d = strcmp(a->dso, b->dso);

	d = d ? d : strcmp(a->name, b->name);
	return d ? d : a->level - b->level;
}

static int sym_cmp(const void *a, const void *b)
{
	return jv_sym__cmp(a, b);
}

static int tid_cmp(const void *a, const void *b)
{
	const struct jv_tid *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The rows were per thread: one per (dso, symbol), as perf report --sort sym shows them. */
static void merge_syms(struct jv_profile *p)
{
	size_t k = 0;

	if (p->nr_syms)
		qsort(p->syms, p->nr_syms, sizeof(*p->syms), sym_cmp);
	for (size_t i = 0; i < p->nr_syms; i++) {
		if (k && !sym_cmp(&p->syms[k - 1], &p->syms[i])) {
			p->syms[k - 1].period += p->syms[i].period;
			p->syms[k - 1].samples += p->syms[i].samples;
			free(p->syms[i].dso);
			free(p->syms[i].name);
			continue;
		}
		p->syms[k++] = p->syms[i];
	}
	p->nr_syms = k;
}

static void merge_tids(struct jv_profile *p)
{
	size_t k = 0;

	if (p->nr_tids)
		qsort(p->tids, p->nr_tids, sizeof(*p->tids), tid_cmp);
	for (size_t i = 0; i < p->nr_tids; i++) {
		if (k && p->tids[k - 1].tid == p->tids[i].tid)
			p->tids[k - 1].samples += p->tids[i].samples;
		else
			p->tids[k++] = p->tids[i];
	}
	p->nr_tids = k;
}

/* ---- perf report --tasks ---- */

/* "     17927    17929    17927 |        hot": pid, tid, ppid. */
static int tasks_line(char *line, void *arg)
{
	struct jv_profile *p = arg;
	struct jv_tid key, *t;
	long pid, tid, ppid;

	if (line[0] == '#' || sscanf(line, "%ld %ld %ld", &pid, &tid, &ppid) != 3)
		return 0;
	key.tid = tid;
	t = p->nr_tids ? bsearch(&key, p->tids, p->nr_tids, sizeof(*t), tid_cmp) : NULL;
	if (t)
		t->pid = pid;
	return 0;
}

int jv_profile__read(const char *perf, const char *file, bool want_pids, struct jv_profile *p,
		     char *err, size_t errlen)
{
	char *report[] = {(char *)perf, "report", "-i", (char *)file, "--stdio", "--no-children",
			  "--no-group", "--percent-limit", "0", "--sort", "pid,dso,sym", "-F",
			  "period,sample,pid,dso,sym", "-t", SEP, NULL};
	char *tasks[] = {(char *)perf, "report", "-i", (char *)file, "--stdio", "--tasks", NULL};
	struct report_ctx c = {.p = p};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = perf_run(report, report_line, &c, err, errlen);
	merge_syms(p);
	merge_tids(p);
	/* perf's Overhead divides by the header's total (rows under a percent limit included). */
	p->total_period = c.has_header_total ? c.header_total : c.sum;
	if (!ret && want_pids && p->nr_tids)
		ret = perf_run(tasks, tasks_line, p, err, errlen);
	return ret;
}

uint64_t jv_profile__pid_samples(const struct jv_profile *p, long pid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nr_tids; i++)
		if (p->tids[i].pid == pid)
			n += p->tids[i].samples;
	return n;
}

void jv_profile__release(struct jv_profile *p)
{
	for (size_t i = 0; i < p->nr_syms; i++) {
		free(p->syms[i].dso);
		free(p->syms[i].name);
	}
	free(p->syms);
	free(p->tids);
	free(p->event);
	memset(p, 0, sizeof(*p));
}
