/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GNU build ids read from ELF files and the kernel's sysfs notes; the DSOs
 * samples hit are tracked apart (dso_hits.h).
 */
#ifndef SHARDREC_BUILDID_H
#define SHARDREC_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* GNU build id of an ELF file (PT_NOTE / NT_GNU_BUILD_ID). 0 / -errno (-ENOENT: no note). */
int buildid__read_elf(const char *path, uint8_t id[20], uint8_t *size);
/* Running kernel's build id from @sys_root/sys/kernel/notes. 0 / -errno */
int buildid__read_kernel(const char *sys_root, uint8_t id[20], uint8_t *size);
/* Module's build id from @sys_root/sys/module/NAME/notes/.note.gnu.build-id. 0 / -errno */
int buildid__read_module(const char *sys_root, const char *name, uint8_t id[20], uint8_t *size);

#endif
