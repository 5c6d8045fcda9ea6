/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GNU build ids read from ELF files and the kernel's sysfs notes; the DSOs
 * samples hit are tracked apart (dso_hits.h).
 */
#ifndef SHARDREC_BUILDID_H
#define SHARDREC_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GNU build id of an ELF file (PT_NOTE / NT_GNU_BUILD_ID). 0 / -errno (-ENOENT: no note). */
int buildid__read_elf(const char *path, uint8_t id[20], uint8_t *size);
/* Running kernel's build id from @sys_root/sys/kernel/notes. 0 / -errno */
int buildid__read_kernel(const char *sys_root, uint8_t id[20], uint8_t *size);
/*
 * The build id of this process's [vdso], the kernel's 64-bit one, which
 * perf record writes for every recording whose tasks mapped a [vdso]
 * (perf reads a copy of its own). 0 / -errno.
 */
int buildid__read_vdso(uint8_t id[20], uint8_t *size);
/*
 * This process's [vdso] image (from its /proc/self/maps range) into @fd
 * at offset 0, as perf copies its own for the cache. 0 / -errno.
 */
int buildid__vdso_image(int fd);
/* Module's build id from @sys_root/sys/module/NAME/notes/.note.gnu.build-id. 0 / -errno */
int buildid__read_module(const char *sys_root, const char *name, uint8_t id[20], uint8_t *size);
/*
 * True when the ELF file @path has a section named @name (e.g. ".note.stapsdt",
 * the SDT probes perf's build-id cache lists); false when it has none or
 * cannot be read as ELF.
 */
bool buildid__elf_has_section(const char *path, const char *name);

#endif
