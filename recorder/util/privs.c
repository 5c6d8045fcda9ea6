// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/privs.h"
#include "recorder/util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* Linux 5.8 */
#endif

#define NEED_PERFMON "CAP_PERFMON (or CAP_SYS_ADMIN)"

static const cap_value_t cap_of[PRIVS_NR] = {
	[PRIVS_PERFMON] = CAP_PERFMON,   [PRIVS_SYS_ADMIN] = CAP_SYS_ADMIN,
	[PRIVS_IPC_LOCK] = CAP_IPC_LOCK, [PRIVS_SYSLOG] = CAP_SYSLOG,
	[PRIVS_SYS_PTRACE] = CAP_SYS_PTRACE, [PRIVS_SYS_NICE] = CAP_SYS_NICE,
};

/* Credentials are per process: so is this, set once by privs__init. */
static struct {
	enum privs_mode mode;
	unsigned int held; /* PRIVS_F() in the permitted set; 0 once dropped */
	uid_t uid;
	gid_t gid;
} st;

/* ---- capability sets ---- */

static int to_values(unsigned int mask, cap_value_t *v)
{
	int n = 0;

	for (int i = 0; i < PRIVS_NR; i++)
		if (mask & PRIVS_F(i))
			v[n++] = cap_of[i];
	return n;
}

static unsigned int permitted_mask(void)
{
	cap_t c = cap_get_proc();
	unsigned int m = 0;

	if (!c)
		return 0;
	for (int i = 0; i < PRIVS_NR; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (CAP_IS_SUPPORTED(cap_of[i]) &&
		    !cap_get_flag(c, cap_of[i], CAP_PERMITTED, &v) && v == CAP_SET)
			m |= PRIVS_F(i);
	}
	cap_free(c);
	return m;
}

static bool permitted_any(void)
{
	cap_t c = cap_get_proc(), none = cap_init();
	bool any = c && none && CAP_DIFFERS(cap_compare(c, none), CAP_PERMITTED);

	cap_free(c);
	cap_free(none);
	return any;
}

/* Replaces all three sets: permitted @perm, effective @eff & @perm, inheritable empty. */
static int set_caps(unsigned int perm, unsigned int eff)
{
	cap_value_t v[PRIVS_NR];
	cap_t c = cap_init();
	int n, ret = 0;

	if (!c)
		return -errno;
	n = to_values(perm, v);
	if (n && cap_set_flag(c, CAP_PERMITTED, n, v, CAP_SET))
		ret = -errno;
	n = to_values(eff & perm, v);
	if (!ret && n && cap_set_flag(c, CAP_EFFECTIVE, n, v, CAP_SET))
		ret = -errno;
	if (!ret && cap_set_proc(c))
		ret = -errno;
	cap_free(c);
	return ret;
}

/* EINVAL before Linux 4.3, which has no ambient set: nothing to clear. */
static void clear_ambient(void)
{
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

int privs__init(char *err, size_t errlen)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int ret;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return -errno;
	st.uid = ru;
	st.gid = rg;
	/* The files would belong to the owner of the binary, not to the user. */
	if (ru != eu || ru != su || rg != eg || rg != sg) {
		snprintf(err, errlen,
			 "set-user-ID/set-group-ID installs are not supported: install with file "
			 "capabilities (setcap cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep)");
		return -EPERM;
	}
	if (!ru) {
		st.mode = PRIVS_ROOT;
		return 0;
	}
	if (!permitted_any()) {
		st.mode = PRIVS_PLAIN;
		return 0;
	}
	st.mode = PRIVS_CAPS;
	st.held = permitted_mask();
	clear_ambient();
	ret = set_caps(st.held, 0);
	/* Nothing shardrec runs may gain privileges: file caps, set-user-ID. */
	if (!ret && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "cannot lower capabilities: %s", strerror(-ret));
	return ret;
}

enum privs_mode privs__mode(void)
{
	return st.mode;
}

int privs__raise(unsigned int mask)
{
	if (st.mode != PRIVS_CAPS || !(mask & st.held))
		return 0;
	return set_caps(st.held, mask);
}

void privs__lower(void)
{
	if (st.mode == PRIVS_CAPS)
		set_caps(st.held, 0);
}

static int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int privs__drop(unsigned int keep, char *err, size_t errlen)
{
	int ret;

	if (st.mode != PRIVS_CAPS)
		return 0;
	/* cap_set_proc() sets the calling thread's sets only. */
	if (nr_threads() > 1) {
		snprintf(err, errlen, "cannot drop capabilities: other threads already run");
		return -EBUSY;
	}
	keep &= st.held;
	ret = set_caps(keep, 0);
	if (ret)
		snprintf(err, errlen, "cannot drop capabilities: %s", strerror(-ret));
	else
		st.held = keep;
	return ret;
}

void privs__thread_drop(void)
{
	if (st.mode == PRIVS_CAPS)
		set_caps(0, 0);
}

void privs__drop_kept(void)
{
	if (st.mode != PRIVS_CAPS || !st.held)
		return;
	/*
	 * The writers read st.held in privs__raise before they signalled
	 * their start (writer__start waits for that): no thread reads it now.
	 */
	if (!set_caps(0, 0))
		st.held = 0;
}

int privs__workload_drop(void)
{
	int ret;

	if (st.mode != PRIVS_CAPS)
		return 0;
	if (setresgid(st.gid, st.gid, st.gid) || setresuid(st.uid, st.uid, st.uid))
		return -errno;
	clear_ambient();
	ret = set_caps(0, 0);
	if (!ret && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = -errno;
	/*
	 * A child of a file-capability process is not dumpable, so opening its
	 * events would need CAP_PERFMON even when shardrec has only
	 * cap_ipc_lock. It now holds nothing of shardrec's: make it an
	 * ordinary process of the user, as exec will anyway.
	 */
	if (!ret && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		ret = -errno;
	return ret;
}

/* The whole of /proc/self/environ, NUL-terminated strings; NULL on failure. */
static char *read_environ(size_t *len)
{
	size_t cap = 4096;
	char *buf = NULL, *n;
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	ssize_t r = 1;

	*len = 0;
	while (fd >= 0 && r > 0) {
		if (*len + 1 >= cap || !buf) {
			n = realloc(buf, cap *= 2);
			if (!n)
				break;
			buf = n;
		}
		r = read(fd, buf + *len, cap - *len - 1);
		if (r > 0)
			*len += r;
	}
	if (fd >= 0)
		close(fd);
	if (r) {
		free(buf);
		return NULL;
	}
	buf[*len] = 0;
	return buf;
}

char **privs__workload_env(void)
{
	size_t len, nr = 0, i = 0;
	char *buf, **env;

	/* Not a secure-execution start: glibc kept the environment as it was. */
	if (st.mode != PRIVS_CAPS || !getauxval(AT_SECURE))
		return environ;
	buf = read_environ(&len);
	for (size_t o = 0; buf && o < len; o += strlen(buf + o) + 1)
		nr++;
	env = buf ? calloc(nr + 1, sizeof(*env)) : NULL;
	if (!env) {
		free(buf);
		return environ;
	}
	for (size_t o = 0; o < len; o += strlen(buf + o) + 1)
		env[i++] = buf + o;
	return env; /* the child execs or exits: never freed */
}

/* ---- environment ---- */

static long read_sysctl(const char *name, long def)
{
	char path[128];
	long v = def;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "re");
	if (!f)
		return def;
	if (fscanf(f, "%ld", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

void privs__env_read(struct privs_env *env)
{
	memset(env, 0, sizeof(*env));
	env->paranoid = read_sysctl("perf_event_paranoid", 2);
	env->kptr_restrict = read_sysctl("kptr_restrict", 1);
	env->held = permitted_mask();
}

/* ---- the decision ---- */

static bool can_perfmon(const struct privs_env *env)
{
	return env->held & (PRIVS_F(PRIVS_PERFMON) | PRIVS_F(PRIVS_SYS_ADMIN));
}

/* The kernel's perf_event_open checks, in its order (kernel/events/core.c). */
static int check_open(const struct privs_env *env, const struct privs_req *req, char *err,
		      size_t errlen)
{
	if (can_perfmon(env))
		return 0;
	/* Debian's and Android's extra level: no perf_event_open at all. */
	if (env->paranoid >= 3) {
		snprintf(err, errlen,
			 "perf_event_open needs " NEED_PERFMON
			 ", or kernel.perf_event_paranoid <= 2 (it is %d)",
			 env->paranoid);
		return -EACCES;
	}
	if (req->cpu_wide && env->paranoid >= 1) {
		snprintf(err, errlen,
			 "%s: system-wide recording needs " NEED_PERFMON
			 ", or kernel.perf_event_paranoid <= 0 (it is %d)",
			 req->cpu_wide, env->paranoid);
		return -EACCES;
	}
	if (req->foreign_tid && !(env->held & PRIVS_F(PRIVS_SYS_PTRACE))) {
		snprintf(err, errlen,
			 "thread %d belongs to another user (or is not dumpable): attaching "
			 "needs CAP_PERFMON or CAP_SYS_PTRACE",
			 (int)req->foreign_tid);
		return -EPERM;
	}
	return 0;
}

/* perf's fallback: "cycles" becomes "cycles:u", "cpu/x/" becomes "cpu/x/u". */
static void fall_back_user(struct evparse_event *ev)
{
	char name[sizeof(ev->name)];
	const char *sep = strchr(ev->name, '/') || strchr(ev->name, ':') ? "" : ":";

	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	snprintf(name, sizeof(name), "%s%su", ev->name, sep);
	memcpy(ev->name, name, sizeof(name));
}

static int check_kernel(const struct privs_env *env, struct evsel *evs, size_t nr, char *err,
			size_t errlen, char *warn, size_t warnlen)
{
	char names[256] = "";
	size_t len = 0;

	if (can_perfmon(env) || env->paranoid < 2)
		return 0;
	for (size_t i = 0; i < nr; i++) {
		struct evparse_event *ev = &evs[i].ev;

		if (ev->attr.exclude_kernel)
			continue;
		if (ev->attr.exclude_user) {
			snprintf(err, errlen,
				 "%s: kernel-only event needs " NEED_PERFMON
				 ", or kernel.perf_event_paranoid <= 1 (it is %d)",
				 ev->name, env->paranoid);
			return -EACCES;
		}
		fall_back_user(ev);
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s", len ? "," : "",
					ev->name);
	}
	if (len)
		snprintf(warn, warnlen,
			 "kernel.perf_event_paranoid=%d and no CAP_PERFMON: recording user space "
			 "only (%s); kernel samples need CAP_PERFMON or the sysctl <= 1",
			 env->paranoid, names);
	return 0;
}

int privs__check(const struct privs_env *env, const struct privs_req *req, struct evsel *ev,
		 size_t nr, char *err, size_t errlen, char *warn, size_t warnlen)
{
	int ret;

	warn[0] = 0;
	ret = check_open(env, req, err, errlen);
	if (!ret)
		ret = check_kernel(env, ev, nr, err, errlen, warn, warnlen);
	return ret;
}

/* ---- record's preflight and open ---- */

int privs__check_output(const char *path, char *err, size_t errlen)
{
	struct stat sb;

	/* Absent is fine: the merge creates FILE.partial with O_EXCL|O_NOFOLLOW. */
	if (lstat(path, &sb) || !S_ISLNK(sb.st_mode))
		return 0;
	snprintf(err, errlen,
		 "%s is a symbolic link: refusing to write through it (remove it or choose "
		 "another -o)",
		 path);
	return -ELOOP;
}

/*
 * A -p/-t thread the kernel will not let us ptrace: /proc/TID belongs to
 * its euid, or to root when it is not dumpable (both fail ptrace_may_access).
 */
static pid_t foreign_thread(const struct evlist *l)
{
	char path[64];
	struct stat sb;

	for (size_t t = 0; t < l->nr_threads; t++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)l->threads[t]);
		if (l->threads[t] > 0 && !stat(path, &sb) && sb.st_uid != getuid())
			return l->threads[t];
	}
	return 0;
}

int privs__preflight(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	struct privs_req req = {0};
	struct privs_env env;
	char warn[512];
	int ret;

	/* hwloc dlopens plugins from $HWLOC_PLUGINS_PATH (plain getenv): not with caps. */
	if (st.mode == PRIVS_CAPS)
		unsetenv("HWLOC_PLUGINS_PATH");
	if (o->dry_run)
		return 0;
	ret = privs__check_output(o->output, err, errlen);
	if (ret)
		return ret;
	privs__env_read(&env);
	req.cpu_wide = o->system_wide ? "-a" : o->cpu_list ? "-C" : NULL;
	if (o->pid_list || o->tid_list)
		req.foreign_tid = foreign_thread(l);
	pr_debug("privileges: mode %d, capabilities 0x%x, perf_event_paranoid %d, "
		 "kptr_restrict %d",
		 st.mode, env.held, env.paranoid, env.kptr_restrict);
	ret = privs__check(&env, &req, l->evsel, l->nr, err, errlen, warn, sizeof(warn));
	if (!ret && warn[0])
		pr_warn("%s", warn);
	return ret;
}

bool privs__samples_kernel(const struct evlist *l)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!l->evsel[i].ev.attr.exclude_kernel)
			return true;
	return false;
}

static unsigned int open_caps(const struct evlist *l)
{
	if (st.held & PRIVS_F(PRIVS_PERFMON))
		return PRIVS_F(PRIVS_PERFMON);
	if (st.held & PRIVS_F(PRIVS_SYS_ADMIN))
		return PRIVS_F(PRIVS_SYS_ADMIN);
	/* Without CAP_PERFMON, attaching to a thread is a ptrace access check. */
	return l->nr_threads && l->threads[0] > 0 ? PRIVS_F(PRIVS_SYS_PTRACE) : 0;
}

static int raise_or_say(unsigned int mask, char *err, size_t errlen)
{
	int ret = privs__raise(mask);

	if (ret)
		snprintf(err, errlen, "cannot raise capabilities: %s", strerror(-ret));
	return ret;
}

int privs__open_events(struct evlist *l, size_t pages, char *err, size_t errlen)
{
	int ret;

	ret = raise_or_say(open_caps(l), err, errlen);
	if (ret)
		return ret;
	ret = evlist__open(l, err, errlen);
	privs__lower();
	if (ret)
		return ret;
	ret = raise_or_say(PRIVS_F(PRIVS_IPC_LOCK), err, errlen);
	if (ret)
		return ret;
	ret = evlist__mmap(l, pages, err, errlen);
	privs__lower();
	return ret;
}
