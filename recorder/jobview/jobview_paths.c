// SPDX-License-Identifier: GPL-2.0
/*
 * jobview's paths: which command-line paths make which nodes (a node's
 * .data, its .data.json, a directory of them; one node per perf.data
 * however often it is named), and a node's name when its JSON gives none.
 */
#include "recorder/jobview/jobview_internal.h"
#include "recorder/perfdata/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

bool jv_path__exists(const char *path)
{
	struct stat st;

	return path && !stat(path, &st);
}

/* @s without its last @cut bytes, malloc'ed. */
static char *strdup_cut(const char *s, size_t cut)
{
	return strndup(s, strlen(s) - cut);
}

/*
 * @path made canonical, so that two spellings of one file compare equal:
 * its realpath, else (no such file yet) its directory's plus its name.
 * Malloc'ed; NULL on ENOMEM.
 */
static char *canonical(const char *path)
{
	char real[PATH_MAX], *dup, *slash, *out = NULL;
	const char *dir = ".", *base = path;

	if (realpath(path, real))
		return strdup(real);
	dup = strdup(path);
	if (!dup)
		return NULL;
	slash = strrchr(dup, '/');
	if (slash) {
		*slash = '\0';
		dir = slash == dup ? "/" : dup;
		base = slash + 1;
	}
	if (!realpath(dir, real))
		out = strdup(path);
	else if (asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "", base) < 0)
		out = NULL;
	free(dup);
	return out;
}

/* Whether @key is already a node: `jobview perf.9.*` names each twice, .data and .data.json. */
static bool jobview__has_node(const struct jobview *jv, const char *key)
{
	for (size_t i = 0; i < jv->nr_nodes; i++)
		if (!strcmp(jv->nodes[i].key, key))
			return true;
	return false;
}

/*
 * A node of @data (the perf.data path, which may not exist: an unrecorded
 * node has none) and @json (NULL: none); both are taken over, even on error.
 * 0 / -ENOMEM.
 */
static int jobview__new_node(struct jobview *jv, char *data, char *json)
{
	char *key = data ? canonical(data) : NULL;
	struct jv_node *n;
	void *grown = NULL;
	int ret = -ENOMEM;

	if (key && jobview__has_node(jv, key)) {
		ret = 0;
		goto out_free;
	}
	if (key)
		grown = array__grow(jv->nodes, &jv->cap_nodes, jv->nr_nodes + 1, sizeof(*n), 16);
	if (!grown)
		goto out_free;
	jv->nodes = grown;
	n = &jv->nodes[jv->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->data_path = data;
	n->json_path = json;
	n->rank = n->local_ranks = n->exit_status = -1;
	n->merge_seconds = n->elapsed_seconds = -1;
	return 0;
out_free:
	free(key);
	free(data);
	free(json);
	return ret;
}

/* A file argument: FILE.json (its perf.data is FILE), or a perf.data with FILE.json beside it. */
static int jobview__add_file(struct jobview *jv, const char *path)
{
	char *json;

	if (ends_with(path, ".json"))
		return jobview__new_node(jv, strdup_cut(path, 5), strdup(path));
	if (asprintf(&json, "%s.json", path) < 0)
		return -ENOMEM;
	if (!jv_path__exists(json)) {
		free(json);
		json = NULL;
	}
	return jobview__new_node(jv, strdup(path), json);
}

static int node_file_filter(const struct dirent *d)
{
	return ends_with(d->d_name, ".data.json") || ends_with(d->d_name, ".data");
}

/*
 * Every *.data.json of @dir with its .data, and every .data without a
 * .json (a node all the same, named from its file). 0 / -errno.
 */
static int jobview__add_dir(struct jobview *jv, const char *dir, char *err, size_t errlen)
{
	struct dirent **ents = NULL;
	size_t before = jv->nr_nodes;
	int n, ret = 0, len = (int)strlen(dir);

	n = scandir(dir, &ents, node_file_filter, alphasort);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	/* "dir/" and "dir" name the files alike. */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (int i = 0; i < n; i++) {
		char *p = NULL;

		if (!ret && asprintf(&p, "%.*s/%s", len, dir, ents[i]->d_name) < 0)
			ret = -ENOMEM;
		/* jobview__add_file takes FILE.data.json after FILE.data as the same node. */
		if (!ret)
			ret = jobview__add_file(jv, p);
		free(p);
		free(ents[i]);
	}
	free(ents);
	if (ret)
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
	else if (jv->nr_nodes == before)
		snprintf(err, errlen, "%s: no *.data.json or *.data file", dir);
	return ret ? ret : jv->nr_nodes == before ? -ENOENT : 0;
}

int jobview__add_path(struct jobview *jv, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *data;
	bool threads_dir;
	int ret;

	if (stat(path, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode) || ends_with(path, ".data") || ends_with(path, ".data/")) {
		ret = jobview__add_file(jv, path);
		if (ret)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	/* A perf record --threads directory (data, data.N) is one perf.data. */
	if (asprintf(&data, "%s/data", path) < 0)
		return -ENOMEM;
	threads_dir = jv_path__exists(data);
	free(data);
	if (threads_dir)
		return jobview__add_file(jv, path);
	return jobview__add_dir(jv, path, err, errlen);
}

/* A node without a JSON host is named by its file: perf.9.node1.data -> perf.9.node1. */
static int jv_node__file_name(struct jv_node *n)
{
	char *copy = strdup(n->data_path);
	char *base;

	if (!copy)
		return -ENOMEM;
	while (ends_with(copy, "/") && strlen(copy) > 1)
		copy[strlen(copy) - 1] = '\0';
	base = basename(copy);
	n->name = ends_with(base, ".data") ? strdup_cut(base, 5) : strdup(base);
	free(copy);
	return n->name ? 0 : -ENOMEM;
}

int jv_node__name(struct jv_node *n)
{
	if (n->name && n->name[0])
		return 0;
	free(n->name);
	n->name = NULL;
	return jv_node__file_name(n);
}

