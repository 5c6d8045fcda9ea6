// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a fuzz target without libFuzzer: each file named on the command line
 * (or each file of a directory) goes through LLVMFuzzerTestOneInput once.
 * `make check` uses it to replay tests/fuzz/corpus and tests/fuzz/regress
 * with the normal compiler and sanitizer builds, so crashers stay fixed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, unsigned *n)
{
	struct dirent **names;
	struct stat sb;
	char sub[4096];
	int nr, ret = 0;

	if (stat(path, &sb)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		(*n)++;
		return run_file(path);
	}
	nr = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < nr; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			ret |= run_path(sub, n);
		}
		free(names[i]);
	}
	free(nr >= 0 ? names : NULL);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	int ret = 0;

	for (int i = 1; i < argc; i++)
		ret |= run_path(argv[i], &n);
	printf("%s: %u inputs replayed\n", argv[0], n);
	return ret;
}
