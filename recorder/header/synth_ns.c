// SPDX-License-Identifier: GPL-2.0
/*
 * NAMESPACES and CGROUP records (perf record --namespaces, --all-cgroups):
 * perf_event__synthesize_namespaces and perf_event__synthesize_cgroups.
 */
#include "recorder/header/synth_internal.h"

#include <fcntl.h>
#include <sys/stat.h>

#define NR_NAMESPACES 7 /* perf's NR_NAMESPACES, linux/perf_event.h's order */
#define CGROUP_PATH_MAX 4096

struct namespaces_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t nr_namespaces;
	struct {
		uint64_t dev, ino;
	} link_info[NR_NAMESPACES];
};
_Static_assert(sizeof(struct namespaces_head) == 24 + 16 * NR_NAMESPACES,
	       "perf_record_namespaces layout");

int synth__namespaces(struct synth *s, pid_t pid, pid_t tid)
{
	static const char *const names[NR_NAMESPACES] = {"net",	 "uts", "ipc",	 "pid",
							 "user", "mnt", "cgroup"};
	struct namespaces_head h = {
	    .header = {.type = PERF_RECORD_NAMESPACES},
	    .pid = pid,
	    .tid = tid,
	    .nr_namespaces = NR_NAMESPACES,
	};
	char path[PATH_MAX];
	struct stat st;

	for (int i = 0; i < NR_NAMESPACES; i++) {
		snprintf(path, sizeof(path), "%s/%d/ns/%s", synth__proc(s), pid, names[i]);
		if (!stat(path, &st)) {
			h.link_info[i].dev = st.st_dev;
			h.link_info[i].ino = st.st_ino;
		}
	}
	return synth__emit(s, &h, sizeof(h), NULL);
}

struct cgroup_head {
	struct perf_event_header header;
	uint64_t id;
};
_Static_assert(sizeof(struct cgroup_head) == 16, "perf_record_cgroup head layout");

/* The cgroup's id: the kernel's file handle of its directory (perf's get_cgroup_id). */
static int cgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh.handle_bytes = sizeof(uint64_t)};
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return -errno;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* CGROUP for @dir (its path below the root's @root_len bytes; "/" for the root), then its children.
 */
static int synth__cgroup_tree(struct synth *s, char *dir, size_t root_len, int depth)
{
	struct cgroup_head h = {.header = {.type = PERF_RECORD_CGROUP}};
	size_t len = strlen(dir);
	struct dirent *de;
	DIR *d;
	int err;

	if (cgroup_id(dir, &h.id))
		return 0; /* gone meanwhile, or not a cgroup: perf skips it too */
	err = synth__emit(s, &h, sizeof(h), len > root_len ? dir + root_len : "/");
	if (err || depth > 64)
		return err;
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (len + 1 + strlen(de->d_name) >= CGROUP_PATH_MAX)
			continue;
		snprintf(dir + len, CGROUP_PATH_MAX - len, "/%s", de->d_name);
		err = synth__cgroup_tree(s, dir, root_len, depth + 1);
		dir[len] = '\0';
	}
	closedir(d);
	return err;
}

int synth__cgroups(struct synth *s, const char *root)
{
	char *dir = malloc(CGROUP_PATH_MAX);
	int err;

	if (!dir)
		return -ENOMEM;
	snprintf(dir, CGROUP_PATH_MAX, "%s", root);
	err = synth__cgroup_tree(s, dir, strlen(dir), 0);
	free(dir);
	return err;
}
