// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec loss --plot`: lost records over time per CPU, drawn by gnuplot
 * (as the bench's bench/plot.gnuplot). The data and script go to a
 * temporary directory; gnuplot runs as a child with its output captured
 * there, so a failure comes back as one line, and nothing is printed here.
 */
#include "recorder/cli/loss_print.h"
#include "recorder/loss/loss.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLOT_BINS 200
#define PLOT_KEY_MAX 16 /* more CPUs than this: no key */

extern char **environ;

/* ---- bins ---- */

static int long_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The distinct CPUs of the points, ascending. */
static int bins_cpus(struct loss_bins *b, const struct loss_stats *st)
{
	size_t n = 0;

	b->cpus = malloc((st->nr_points ? st->nr_points : 1) * sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_points; i++)
		b->cpus[i] = st->points[i].cpu;
	qsort(b->cpus, st->nr_points, sizeof(*b->cpus), long_cmp);
	for (size_t i = 0; i < st->nr_points; i++)
		if (!n || b->cpus[n - 1] != b->cpus[i])
			b->cpus[n++] = b->cpus[i];
	b->nr_cpus = n;
	return 0;
}

/* [origin, end]: the file's timestamps, widened to any point outside them. */
static void bins_span(struct loss_bins *b, const struct loss_stats *st, size_t nr_bins)
{
	uint64_t lo = st->first_time ? st->first_time : UINT64_MAX, hi = st->last_time;

	for (size_t i = 0; i < st->nr_points; i++) {
		if (st->points[i].time < lo)
			lo = st->points[i].time;
		if (st->points[i].time > hi)
			hi = st->points[i].time;
	}
	if (lo > hi)
		lo = hi;
	b->origin = lo;
	b->nr_bins = nr_bins ? nr_bins : 1;
	b->width = (hi - lo) / b->nr_bins + 1;
}

int loss_bins__build(struct loss_bins *b, const struct loss_stats *st, size_t nr_bins)
{
	int ret;

	memset(b, 0, sizeof(*b));
	ret = bins_cpus(b, st);
	if (ret)
		return ret;
	bins_span(b, st, nr_bins);
	b->count = calloc(b->nr_bins * (b->nr_cpus ? b->nr_cpus : 1), sizeof(*b->count));
	if (!b->count)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_points; i++) {
		const struct loss_point *p = &st->points[i];
		const long *col = bsearch(&p->cpu, b->cpus, b->nr_cpus, sizeof(*b->cpus), long_cmp);
		size_t bin = (p->time - b->origin) / b->width;

		b->count[bin * b->nr_cpus + (col - b->cpus)] += p->lost;
	}
	return 0;
}

void loss_bins__release(struct loss_bins *b)
{
	free(b->cpus);
	free(b->count);
	memset(b, 0, sizeof(*b));
}

/* ---- gnuplot input ---- */

/* A gnuplot single-quoted string: only ' is special, doubled. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* Columns: time in s, then one per CPU (one of zeros when nothing was lost). */
static int write_data(const char *path, const struct loss_bins *b)
{
	size_t cols = b->nr_cpus ? b->nr_cpus : 1;
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs("time_s", f);
	for (size_t c = 0; c < b->nr_cpus; c++)
		fprintf(f, b->cpus[c] < 0 ? " cpu?" : " cpu%ld", b->cpus[c]);
	fputs(b->nr_cpus ? "\n" : " none\n", f);
	/* One row more than bins: "steps" draws a bin up to the next row's time. */
	for (size_t i = 0; i <= b->nr_bins; i++) {
		size_t row = i < b->nr_bins ? i : b->nr_bins - 1;

		fprintf(f, "%.6f", (double)i * b->width / 1e9);
		for (size_t c = 0; c < cols; c++)
			fprintf(f, " %llu",
				b->nr_cpus ? (unsigned long long)b->count[row * cols + c] : 0ULL);
		fputc('\n', f);
	}
	return fclose(f) ? -errno : 0;
}

static void write_panel(FILE *f, const char *dat, const char *path, const struct loss_stats *st,
			const struct loss_bins *b)
{
	char title[512];

	snprintf(title, sizeof(title),
		 "%s: lost per CPU in %.3f ms bins (%llu timed loss records, %llu lost in all)%s",
		 path, b->width / 1e6, (unsigned long long)st->nr_points,
		 (unsigned long long)loss_stats__lost(st),
		 b->nr_cpus ? "" : ": no timed loss record");
	fputs("set title ", f);
	gp_str(f, title);
	fprintf(f, "\n%s\nset yrange [0:%s]\n", b->nr_cpus > PLOT_KEY_MAX ? "unset key" : "set key",
		b->nr_cpus ? "*" : "1");
	fputs("plot for [i=2:*] ", f);
	gp_str(f, dat);
	fputs(" using 1:i with steps title columnheader(i)\n", f);
}

static int write_script(const char *script, const char *dir, const char *png,
			const char *const *paths, const struct loss_stats *st,
			const struct loss_bins *bins, size_t n)
{
	char dat[4096];
	FILE *f = fopen(script, "we");

	if (!f)
		return -errno;
	fprintf(f, "set terminal png size 1000,%zu noenhanced\nset output ", 60 + 340 * n);
	gp_str(f, png);
	fputs("\nset xlabel 'seconds since the first record'\nset ylabel 'lost per bin'\n"
	      "set key outside right top\nset grid\n",
	      f);
	if (n > 1)
		fprintf(f, "set multiplot layout %zu,1\n", n);
	for (size_t i = 0; i < n; i++) {
		snprintf(dat, sizeof(dat), "%s/loss.%zu.dat", dir, i);
		write_panel(f, dat, paths[i], &st[i], &bins[i]);
	}
	if (n > 1)
		fputs("unset multiplot\n", f);
	return fclose(f) ? -errno : 0;
}

/* ---- running gnuplot ---- */

/*
 * gnuplot's complaint: it echoes the failing command, then '"FILE" line N:
 * reason', sometimes one more line ("system error: ..."). Reason, then that.
 */
static void gnuplot_error(const char *log, int status, char *err, size_t errlen)
{
	char reason[256] = "", more[256] = "", buf[256];
	FILE *f = fopen(log, "re");

	while (f && fgets(buf, sizeof(buf), f)) {
		char *at = buf[0] == '"' ? strstr(buf, "\" line ") : NULL;

		buf[strcspn(buf, "\n")] = 0;
		if (at && (at = strchr(at, ':'))) {
			snprintf(reason, sizeof(reason), "%s", at + 1 + strspn(at + 1, " "));
			more[0] = 0;
		} else if (reason[0] && buf[0] && !more[0]) {
			snprintf(more, sizeof(more), " (%s)", buf);
		}
	}
	if (f)
		fclose(f);
	if (reason[0])
		snprintf(err, errlen, "gnuplot failed: %s%s", reason, more);
	else
		snprintf(err, errlen, "gnuplot failed (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

static int run_gnuplot(const char *script, const char *log, char *err, size_t errlen)
{
	char *argv[] = {"gnuplot", (char *)script, NULL};
	posix_spawn_file_actions_t fa;
	int status, ret;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	ret = -posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret == -ENOENT) {
		snprintf(err, errlen, "gnuplot not found: install it for --plot (Debian: apt-get "
				      "install gnuplot-nox)");
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "cannot run gnuplot: %s", strerror(-ret));
		return ret;
	}
	if (waitpid(pid, &status, 0) < 0) {
		snprintf(err, errlen, "gnuplot: %s", strerror(errno));
		return -errno;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		gnuplot_error(log, status, err, errlen);
		return -EIO;
	}
	return 0;
}

/* ---- the plot ---- */

static int plot_files(const char *dir, const char *png, const char *const *paths,
		      const struct loss_stats *st, const struct loss_bins *bins, size_t n,
		      char *err, size_t errlen)
{
	char path[4096], log[4096];
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/loss.%zu.dat", dir, i);
		ret = write_data(path, &bins[i]);
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	if (!ret)
		ret = write_script(path, dir, png, paths, st, bins, n);
	if (ret) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	return run_gnuplot(path, log, err, errlen);
}

/* Removes the temporary directory and what was written into it. */
static void remove_dir(const char *dir, size_t n)
{
	char path[4096];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/loss.%zu.dat", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/gnuplot.log", dir);
	unlink(path);
	rmdir(dir);
}

int loss__plot(const char *png, const char *const *paths, const struct loss_stats *st, size_t n,
	       char *err, size_t errlen)
{
	struct loss_bins *bins = calloc(n ? n : 1, sizeof(*bins));
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	int ret = bins ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !ret; i++)
		ret = loss_bins__build(&bins[i], &st[i], PLOT_BINS);
	if (ret) {
		snprintf(err, errlen, "--plot: %s", strerror(-ret));
		goto out_free;
	}
	snprintf(dir, sizeof(dir), "%s/shardrec-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out_free;
	}
	ret = plot_files(dir, png, paths, st, bins, n, err, errlen);
	remove_dir(dir, n);
out_free:
	for (size_t i = 0; bins && i < n; i++)
		loss_bins__release(&bins[i]);
	free(bins);
	return ret;
}
