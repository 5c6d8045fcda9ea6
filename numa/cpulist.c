// SPDX-License-Identifier: GPL-2.0
/*
 * numa/cpulist.c: the kernel's CPU list syntax ("0-3,8,10-11"), as in
 * /sys/devices/system/cpu/online, -C and --threads.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "numa/numa.h"

/*
 * Larger than any kernel's NR_CPUS (8192 on x86 MAXSMP): rejects typos like
 * "0-4000000000" before they size an allocation.
 */
#define CPULIST_MAX_CPU 65535

/* Appends @s to @buf at *@pos if it fits with its NUL; false if it does not. */
static bool buf__append(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos + n + 1 > len)
		return false;
	memcpy(buf + *pos, s, n + 1);
	*pos += n;
	return true;
}

char *cpulist__format(const int *cpus, size_t nr, char *buf, size_t len)
{
	size_t i = 0, j, pos = 0;
	char item[32];

	if (!len)
		return buf;
	buf[0] = '\0';
	while (i < nr) {
		for (j = i; j + 1 < nr && cpus[j + 1] == cpus[j] + 1; j++)
			;
		if (j == i)
			snprintf(item, sizeof(item), "%s%d", i ? "," : "", cpus[i]);
		else
			snprintf(item, sizeof(item), "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
		if (!buf__append(buf, len, &pos, item)) {
			/* Say it was cut rather than show a shorter, wrong list. */
			if (len >= 4)
				strcpy(buf + (pos + 4 <= len ? pos : len - 4), "...");
			break;
		}
		i = j + 1;
	}
	return buf;
}

/* Parses one decimal CPU number at *@s (no sign, no spaces); -EINVAL if none. */
static int cpulist__number(const char **s)
{
	long v = 0;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	while (isdigit((unsigned char)**s)) {
		v = v * 10 + (**s - '0');
		if (v > CPULIST_MAX_CPU)
			return -EINVAL;
		(*s)++;
	}
	return (int)v;
}

/* Parses "a" or "a-b" at *@s into [*lo, *hi]; -EINVAL on garbage or a > b. */
static int cpulist__range(const char **s, int *lo, int *hi)
{
	*lo = cpulist__number(s);
	if (*lo < 0)
		return -EINVAL;
	*hi = *lo;
	if (**s != '-')
		return 0;
	(*s)++;
	*hi = cpulist__number(s);
	if (*hi < *lo)
		return -EINVAL;
	return 0;
}

/* Marks every CPU of @s in @seen (CPULIST_MAX_CPU + 1 entries); returns the highest or -EINVAL. */
static int cpulist__mark(const char *s, bool *seen)
{
	int lo, hi, max = -1;

	for (;;) {
		if (cpulist__range(&s, &lo, &hi) < 0)
			return -EINVAL;
		for (int c = lo; c <= hi; c++)
			seen[c] = true;
		if (hi > max)
			max = hi;
		if (*s != ',')
			break;
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s ? -EINVAL : max;
}

int cpulist__parse(const char *s, int **cpus)
{
	bool *seen;
	int max, n = 0;

	*cpus = NULL;
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	/* An empty list is valid: sysfs shows a CPU-less node's cpulist as "\n". */
	if (!*s)
		return 0;
	seen = calloc(CPULIST_MAX_CPU + 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	max = cpulist__mark(s, seen);
	if (max < 0)
		goto out_free;
	*cpus = malloc((max + 1) * sizeof(**cpus));
	if (!*cpus) {
		max = -ENOMEM;
		goto out_free;
	}
	for (int c = 0; c <= max; c++)
		if (seen[c])
			(*cpus)[n++] = c;
out_free:
	free(seen);
	return max < 0 ? max : n;
}
