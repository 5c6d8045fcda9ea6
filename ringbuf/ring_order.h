/* SPDX-License-Identifier: GPL-2.0 */
/*
 * All memory ordering of the heads and tails of perf ring control pages
 * lives here.
 *
 * The kernel (kernel/events/ring_buffer.c, perf_output_put_handle) writes a
 * record, then smp_wmb(), then data_head. Our acquire load of data_head
 * pairs with that barrier: every byte below the head we read is visible.
 *
 * The kernel reads data_tail in perf_output_begin and issues smp_mb()
 * before writing new data over old space. Our release store of data_tail
 * orders all our reads (and the pwritev that copied them) before the
 * kernel can see the space as free.
 *
 * The same pairs hold for aux_head/aux_tail on the AUX area.
 *
 * A backward ring is read by copying it out, then reading data_head again
 * (ring_order__recheck_head) to drop what records published meanwhile may
 * have written over. The acquire fence keeps every load of the copy before
 * that second load, so a record published after it was not written under
 * the copy, unless the kernel had already begun it (it writes, then
 * publishes): with the ring paused, only a record begun before the pause
 * took effect can be such a one (backward.c).
 */
#ifndef SHARDREC_RING_ORDER_H
#define SHARDREC_RING_ORDER_H

#include <linux/types.h>

static inline __u64 ring_order__load_head(const volatile __u64 *head)
{
	return __atomic_load_n(head, __ATOMIC_ACQUIRE);
}

static inline void ring_order__store_tail(volatile __u64 *tail, __u64 v)
{
	__atomic_store_n(tail, v, __ATOMIC_RELEASE);
}

/* data_head again after copying data out: no load of the copy may pass it. */
static inline __u64 ring_order__recheck_head(const volatile __u64 *head)
{
#ifdef __SANITIZE_THREAD__
	/*
	 * gcc's TSan has no thread fences (-Werror=tsan) and does not model
	 * them: a compiler barrier keeps the build; x86 orders loads anyway.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
	return __atomic_load_n(head, __ATOMIC_ACQUIRE);
}

/* Producer side, for simulated rings in tests: publish data then head. */
static inline void ring_order__store_head(volatile __u64 *head, __u64 v)
{
	__atomic_store_n(head, v, __ATOMIC_RELEASE);
}

static inline __u64 ring_order__load_tail(const volatile __u64 *tail)
{
	return __atomic_load_n(tail, __ATOMIC_ACQUIRE);
}

#endif
