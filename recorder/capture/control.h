/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --control: perf record's command channel. A fifo (fifo:CTL[,ACK]) or an
 * inherited fd (fd:CTL[,ACK]) carries commands, one per line or
 * NUL-terminated as perf's evlist__ctlfd_recv reads them; "ack\n" goes to
 * the ACK side after each one handled.
 */
#ifndef SHARDREC_CONTROL_H
#define SHARDREC_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

enum control_cmd {
	CONTROL_NONE,     /* no complete command yet */
	CONTROL_ENABLE,
	CONTROL_DISABLE,
	CONTROL_SNAPSHOT,
	CONTROL_STOP,
	CONTROL_PING,
	CONTROL_UNKNOWN,  /* the text is in control.last */
	CONTROL_TOO_LONG, /* a line longer than the buffer: ignored, said once */
};

struct control {
	int fd, ack_fd;      /* -1 when absent */
	bool own_fd, own_ack; /* opened here (fifo:), not inherited (fd:) */
	char buf[256];
	size_t len;
	char last[64];       /* the last command read, for messages */
	bool flooded;        /* stopped reading: CONTROL_MAX_READS buffers and no command */
	bool skipping;       /* dropping the rest of a line longer than buf */
	unsigned long acks_dropped; /* acks not written: nobody reads the ACK channel */
	bool acks_said;      /* the caller said so (once) */
};

/* Buffers one control__next call reads at most without finding a command. */
#define CONTROL_MAX_READS 64

/*
 * Opens @spec ("fifo:CTL[,ACK]" or "fd:CTL[,ACK]"). 0 / -errno with one
 * line in @err. @c is always left safe for control__close.
 */
int control__open(struct control *c, const char *spec, char *err, size_t errlen);
/*
 * Reads what the channel holds and returns its next complete command, or
 * CONTROL_NONE. Never blocks. At end of file c->fd becomes -1; so it does,
 * with c->flooded set, after CONTROL_MAX_READS buffers without a command.
 */
enum control_cmd control__next(struct control *c);
/*
 * Writes "ack\n" to the ACK side, if any, when it has room; else the ack
 * is dropped and counted in c->acks_dropped: it never blocks.
 */
void control__ack(struct control *c);
/* Closes what control__open opened. Safe on a never-opened, zeroed control with fds -1. */
void control__close(struct control *c);

#endif
