// SPDX-License-Identifier: GPL-2.0
/*
 * zunpass__run under fuzz: a ZPASS payload (COMPRESSED and plain records).
 * The first two input bytes choose the output capacity (in 64-byte units),
 * so short outputs are exercised as well as roomy ones.
 */
#include "recorder/codec/zunpass.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct zunpass u;
	static unsigned char *out;
	size_t cap, bad, got;
	uint16_t sel;

	if (size < 2)
		return 0;
	if (!u.dctx && zunpass__init(&u))
		return 0;
	if (!out && !(out = malloc(65536 * 64)))
		return 0;
	memcpy(&sel, data, 2);
	cap = (size_t)sel * 64;
	zunpass__run(&u, data + 2, size - 2, out, cap, &bad, &got);
	return 0;
}
