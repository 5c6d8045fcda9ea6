// SPDX-License-Identifier: GPL-2.0
/* Progress display (progress.h). */
#include "recorder/util/progress.h"
#include "recorder/util/clock.h"

#include <unistd.h>

#define PROGRESS_DELAY_S 1.0 /* nothing for work shorter than this */
#define PROGRESS_TTY_S 0.2   /* terminal redraw period */
#define PROGRESS_LOG_S 5.0   /* one log line per this period */
#define PROGRESS_BAR 30

void progress__init(struct progress *p, const char *what, FILE *out)
{
	*p = (struct progress){.what = what, .out = out, .tty = isatty(fileno(out))};
	p->t0 = p->last = clock__now_s();
}

static void progress__show(struct progress *p, uint64_t done, uint64_t total, double now)
{
	double pct = total ? 100.0 * (double)done / (double)total : 100.0;
	double rate = now > p->t0 ? (double)done / 1e6 / (now - p->t0) : 0;
	char bar[PROGRESS_BAR + 1];
	int fill = (int)(pct * PROGRESS_BAR / 100);

	if (pct > 100)
		pct = 100, fill = PROGRESS_BAR;
	if (!p->tty) {
		fprintf(p->out, "shardrec: %s: %.1f of %.1f MB (%.0f%%), %.0f MB/s\n", p->what,
			(double)done / 1e6, (double)total / 1e6, pct, rate);
		return;
	}
	for (int i = 0; i < PROGRESS_BAR; i++)
		bar[i] = i < fill ? '=' : ' ';
	bar[PROGRESS_BAR] = '\0';
	/* \r and a cleared tail: the line is redrawn in place. */
	fprintf(p->out, "\rshardrec: %s [%s] %3.0f%%  %.1f of %.1f MB  %.0f MB/s\033[K", p->what,
		bar, pct, (double)done / 1e6, (double)total / 1e6, rate);
	fflush(p->out);
	p->shown = true;
}

void progress__update(struct progress *p, uint64_t done, uint64_t total)
{
	double now = clock__now_s();
	double period = p->tty ? PROGRESS_TTY_S : PROGRESS_LOG_S;

	if (now - p->t0 < (p->tty ? PROGRESS_DELAY_S : PROGRESS_LOG_S) || now - p->last < period)
		return;
	p->last = now;
	progress__show(p, done, total, now);
}

void progress__finish(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->shown)
		return;
	progress__show(p, done, total, clock__now_s());
	fputc('\n', p->out);
	p->shown = false;
}

void progress__cb(uint64_t done, uint64_t total, void *arg)
{
	progress__update(arg, done, total);
}
