/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF program of a unit test's own, for the tests of what the recorder
 * reads of loaded programs (test_synth, test_sideband). Needs root
 * (CAP_SYS_ADMIN): callers skip on -EPERM. Header only, as unit_util.h.
 */
#ifndef SHARDREC_UNIT_BPF_H
#define SHARDREC_UNIT_BPF_H

#include "unit_util.h"

#include <errno.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

/*
 * A program of type @type of our own (r0 = 0; exit: a socket filter that
 * drops, an XDP program that aborts), named @name, not attached: its fd,
 * or -errno.
 */
static inline int unit_bpf_load_type(const char *name, uint32_t type, uint32_t *id)
{
	static const struct bpf_insn prog[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_prog_info info;
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uintptr_t) "GPL";
	snprintf(a.prog_name, sizeof(a.prog_name), "%s", name);
	fd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	memset(&info, 0, sizeof(info));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	assert_int_equal(syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)), 0);
	*id = info.id;
	return fd;
}

/* A socket filter of our own (r0 = 0; exit), named @name: its fd, or -errno. */
static inline int unit_bpf_load(const char *name, uint32_t *id)
{
	return unit_bpf_load_type(name, BPF_PROG_TYPE_SOCKET_FILTER, id);
}

#endif
