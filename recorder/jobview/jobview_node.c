// SPDX-License-Identifier: GPL-2.0
/*
 * jobview's node files: each node's JSON (shardrec job's FILE.json, read
 * with json-c; every field may be absent in older files) and its perf.data
 * (loss__analyze, as `shardrec loss`).
 */
#include "recorder/jobview/jobview_internal.h"
#include "recorder/codec/zunpass.h"
#include "recorder/util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the JSON ---- */

/* String fields: any scalar (job_id may be a number in some writer), NULL when absent or null. */
static const struct {
	const char *key;
	size_t off;
} str_fields[] = {
	{"host", offsetof(struct jv_node, name)},
	{"job_id", offsetof(struct jv_node, job_id)},
	{"step", offsetof(struct jv_node, step)},
	{"launcher", offsetof(struct jv_node, launcher)},
	{"status", offsetof(struct jv_node, status)},
	{"mode", offsetof(struct jv_node, mode)},
	{"reason", offsetof(struct jv_node, reason)},
	{"output", offsetof(struct jv_node, output)},
	{"shard_dir", offsetof(struct jv_node, shard_dir)},
	{"merge_command", offsetof(struct jv_node, merge_command)},
	{"stop_signal", offsetof(struct jv_node, stop_signal)},
};

/* @key of @o as a string: 0 (*@out NULL when absent, null or not a scalar) / -ENOMEM. */
static int js_str(struct json_object *o, const char *key, char **out)
{
	struct json_object *v;
	enum json_type t;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	t = json_object_get_type(v);
	if (t != json_type_string && t != json_type_int && t != json_type_double &&
	    t != json_type_boolean)
		return 0;
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : -ENOMEM;
}

/* @key of @o as a number: whether it is one (null, a string, absent: false). */
static bool js_num(struct json_object *o, const char *key, double *out)
{
	struct json_object *v;
	enum json_type t;

	if (!json_object_object_get_ex(o, key, &v))
		return false;
	t = json_object_get_type(v);
	if (t != json_type_int && t != json_type_double)
		return false;
	*out = json_object_get_double(v);
	return true;
}

static long js_long(struct json_object *o, const char *key, long def)
{
	double d;

	return js_num(o, key, &d) ? (long)d : def;
}

static uint64_t js_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_get_type(v) != json_type_int)
		return 0;
	return json_object_get_uint64(v);
}

static int jv_rank__read(struct jv_rank *r, struct json_object *o)
{
	struct json_object *v;
	double d;

	r->rank = js_long(o, "rank", -1);
	r->local_rank = js_long(o, "local_rank", -1);
	r->pid = js_long(o, "pid", -1);
	r->has_exit = js_num(o, "exit_status", &d);
	r->exit_status = r->has_exit ? (long)d : -1;
	/* Absent in older files: a rank listed by the recorder was recorded. */
	r->recorded = !json_object_object_get_ex(o, "recorded", &v) || json_object_get_boolean(v);
	return js_str(o, "host", &r->host);
}

static int jv_node__read_ranks(struct jv_node *n, struct json_object *o)
{
	struct json_object *arr, *el;
	size_t len;
	int ret = 0;

	if (!json_object_object_get_ex(o, "ranks", &arr) ||
	    json_object_get_type(arr) != json_type_array)
		return 0;
	len = json_object_array_length(arr);
	n->ranks = calloc(len ? len : 1, sizeof(*n->ranks));
	if (!n->ranks)
		return -ENOMEM;
	for (size_t i = 0; i < len && !ret; i++) {
		el = json_object_array_get_idx(arr, i);
		if (json_object_get_type(el) != json_type_object)
			continue;
		ret = jv_rank__read(&n->ranks[n->nr_ranks++], el);
	}
	return ret;
}

static int jv_node__fields(struct jv_node *n, struct json_object *o)
{
	double d;
	int ret = 0;

	for (size_t i = 0; i < sizeof(str_fields) / sizeof(str_fields[0]) && !ret; i++)
		ret = js_str(o, str_fields[i].key, (char **)((char *)n + str_fields[i].off));
	if (ret)
		return ret;
	n->rank = js_long(o, "rank", -1);
	n->local_ranks = js_long(o, "local_ranks", -1);
	n->has_exit = js_num(o, "exit_status", &d);
	n->exit_status = n->has_exit ? (long)d : -1;
	if (js_num(o, "merge_seconds", &d))
		n->merge_seconds = d;
	if (js_num(o, "elapsed_seconds", &d))
		n->elapsed_seconds = d;
	n->json_samples = js_u64(o, "samples");
	n->json_lost = js_u64(o, "lost_samples");
	return jv_node__read_ranks(n, o);
}

/*
 * The perf.data of a JSON whose sibling is missing: its "output", when
 * that is absolute and exists (the JSON was copied without it). A relative
 * one is of the job's directory, which the sibling path already was.
 */
static int jv_node__data_from_json(struct jv_node *n)
{
	char *out;

	if (jv_path__exists(n->data_path) || !n->output || n->output[0] != '/' ||
	    !jv_path__exists(n->output))
		return 0;
	out = strdup(n->output);
	if (!out)
		return -ENOMEM;
	free(n->data_path);
	n->data_path = out;
	return 0;
}

/* *@slot = the message, malloc'ed. 0 / -ENOMEM (*@slot NULL). */
__attribute__((format(printf, 2, 3))) static int jv_node__set_err(char **slot, const char *fmt,
								  ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(slot, fmt, ap);
	va_end(ap);
	if (n >= 0)
		return 0;
	*slot = NULL;
	return -ENOMEM;
}

/*
 * @text as one JSON value: NULL with the reason and the byte where it
 * failed in @why (a node killed while writing leaves a cut file).
 */
static struct json_object *parse_json(const char *text, char *why, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL;
	enum json_tokener_error jerr;
	size_t n = strlen(text), end;

	if (!tok) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)n);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!n)
		snprintf(why, len, "empty file");
	else if (!o && jerr == json_tokener_continue)
		snprintf(why, len, "not JSON: cut short at byte %zu", n);
	else if (!o)
		snprintf(why, len, "not JSON: %s at byte %zu", json_tokener_error_desc(jerr), end);
	else if (text[end + strspn(text + end, " \t\r\n")])
		snprintf(why, len, "not JSON: more after the value, at byte %zu", end);
	if (o && text[end + strspn(text + end, " \t\r\n")]) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

int jv_node__read_json(struct jv_node *n)
{
	struct json_object *o = NULL;
	char *text = NULL, why[256];
	int ret;

	if (!n->json_path)
		return 0;
	ret = filename__read_str(n->json_path, &text);
	if (ret)
		return jv_node__set_err(&n->json_err, "%s: %s", n->json_path, strerror(-ret));
	o = parse_json(text, why, sizeof(why));
	free(text);
	if (!o)
		return jv_node__set_err(&n->json_err, "%s: %s", n->json_path, why);
	if (json_object_get_type(o) != json_type_object) {
		ret = jv_node__set_err(&n->json_err, "%s: not a JSON object: %s", n->json_path,
				       json_type_to_name(json_object_get_type(o)));
		goto out_put;
	}
	ret = jv_node__fields(n, o);
	if (!ret)
		ret = jv_node__data_from_json(n);
	n->json_ok = !ret;
out_put:
	json_object_put(o);
	return ret;
}

/* ---- the perf.data ---- */

/* Bytes of @path: a file's size, or the sum of a perf --threads directory's files. */
static uint64_t path_bytes(const char *path)
{
	struct dirent *d;
	struct stat st;
	uint64_t sum = 0;
	DIR *dir;

	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return st.st_size;
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		if (!fstatat(dirfd(dir), d->d_name, &st, 0) && S_ISREG(st.st_mode))
			sum += st.st_size;
	if (dir)
		closedir(dir);
	return sum;
}

static bool status_is(const struct jv_node *n, const char *s)
{
	return n->status && !strcmp(n->status, s);
}

bool jv_node__has_data(const struct jv_node *n)
{
	if (jv_path__exists(n->data_path))
		return true;
	/* These have no perf.data by design: no error for its absence. */
	return !status_is(n, "unrecorded") && !status_is(n, "kept") && !status_is(n, "recording");
}

int jv_node__read_data(struct jv_node *n)
{
	struct loss_stats st;
	char err[1024];
	int ret;

	ret = loss__analyze(n->data_path, &zunpass__ops, &st, err, sizeof(err));
	if (!ret) {
		loss_total__add(&n->loss, &st);
		n->bytes = path_bytes(n->data_path);
		n->data_ok = true;
	}
	loss_stats__release(&st);
	if (ret == -ENOMEM)
		return ret;
	/* loss's line names the file already. */
	return ret ? jv_node__set_err(&n->data_err, "%s", err) : 0;
}

const char *jv_node__status(const struct jv_node *n)
{
	if (n->data_err)
		return "unreadable";
	if (n->status && n->status[0])
		return n->status;
	if (!n->json_ok && !n->data_ok)
		return "unreadable";
	if (n->merge_command && !n->data_ok)
		return "kept";
	return n->data_ok ? "recorded" : "-";
}

bool jv_node__samples(const struct jv_node *n, uint64_t *v)
{
	*v = n->data_ok ? n->loss.samples : n->json_samples;
	return n->data_ok || (n->json_ok && status_is(n, "unrecorded"));
}

const char *jv_node__stop(const struct jv_node *n)
{
	if (!n->stop_signal)
		return "-";
	return n->stop_signal[0] ? n->stop_signal : "exit";
}

void jv_node__release(struct jv_node *n)
{
	char **strs[] = {
		&n->key, &n->name, &n->data_path, &n->json_path, &n->job_id, &n->step,
		&n->launcher, &n->status, &n->mode, &n->reason, &n->output, &n->shard_dir,
		&n->merge_command, &n->stop_signal, &n->json_err, &n->data_err, &n->perf_err,
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	for (size_t i = 0; i < n->nr_ranks; i++)
		free(n->ranks[i].host);
	free(n->ranks);
	n->ranks = NULL;
	n->nr_ranks = 0;
	jv_profile__release(&n->prof);
}
