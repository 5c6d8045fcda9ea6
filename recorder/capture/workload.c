// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/workload.h"
#include "recorder/util/privs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_run(int go, int errw, char **argv, int pdeathsig, pid_t parent)
{
	/* First thing: a privileged shardrec's child holds its capabilities. */
	int dropped = privs__workload_drop();
	sigset_t none;
	char c;
	int e;

	/* After the drop: a credential change clears the parent-death signal. */
	if (pdeathsig && (prctl(PR_SET_PDEATHSIG, pdeathsig) || getppid() != parent))
		_exit(127);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Wait for the events; EOF means the recorder died: do not run unrecorded. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	close(go);
	if (!dropped)
		execvpe(argv[0], argv, privs__workload_env());
	e = dropped ? -dropped : errno;
	if (write(errw, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int workload__prepare(struct workload *w, char **argv, int pdeathsig)
{
	pid_t parent = getpid();
	int go[2], ep[2];

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	w->pid = fork();
	if (w->pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return err;
	}
	if (!w->pid) {
		close(go[1]);
		close(ep[0]);
		child_run(go[0], ep[1], argv, pdeathsig, parent);
	}
	close(go[0]);
	close(ep[1]);
	w->go_fd = go[1];
	w->err_fd = ep[0];
	return 0;
}

int workload__start(struct workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	/* The error pipe is CLOEXEC: EOF means exec succeeded. */
	do {
		n = read(w->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(w->pid, &w->status, 0);
		w->exited = true;
		return -e;
	}
	return 0;
}

bool workload__reap(struct workload *w)
{
	if (!w->exited && w->pid > 0 && waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->exited = true;
	return w->exited;
}

void workload__terminate(struct workload *w)
{
	if (w->go_fd >= 0) {
		close(w->go_fd); /* a held child sees EOF and exits 127 */
		w->go_fd = -1;
	}
	if (w->err_fd >= 0) {
		close(w->err_fd);
		w->err_fd = -1;
	}
	if (w->pid <= 0 || w->exited)
		return;
	if (!workload__reap(w))
		kill(w->pid, SIGTERM);
	if (!w->exited && waitpid(w->pid, &w->status, 0) == w->pid)
		w->exited = true;
}

int workload__exit_code(const struct workload *w)
{
	if (!w->exited)
		return 0;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}
