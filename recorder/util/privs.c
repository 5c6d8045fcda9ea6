// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/privs.h"
#include "recorder/util/log.h"
#include "recorder/util/fs.h"

#include <dirent.h>
#include <errno.h>
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

char **privs__workload_env(void)
{
	size_t len, nr = 0, i = 0;
	char *buf, **env;

	/* Not a secure-execution start: glibc kept the environment as it was. */
	if (st.mode != PRIVS_CAPS || !getauxval(AT_SECURE))
		return environ;
	/* NUL-separated strings; the reader's NUL after the last ends an unended one. */
	if (filename__read_all("/proc/self/environ", 0, &buf, &len))
		return environ;
	for (size_t o = 0; o < len; o += strlen(buf + o) + 1)
		nr++;
	env = calloc(nr + 1, sizeof(*env));
	if (!env) {
		free(buf);
		return environ;
	}
	for (size_t o = 0; o < len; o += strlen(buf + o) + 1)
		env[i++] = buf + o;
	return env; /* the child execs or exits: never freed */
}

unsigned int privs__permitted(void)
{
	return permitted_mask();
}

unsigned int privs__held(void)
{
	return st.held;
}
