// SPDX-License-Identifier: GPL-2.0
/*
 * Build ids (perf's symbol-minimal.c / util/build-id.c) and the DSOs that
 * samples hit (perf record's process_buildids() + dsos__hit_all, without
 * perf's machine model: just the address maps of each pid).
 *
 * The ELF reader takes arbitrary files from the maps of arbitrary
 * processes: every offset and size read from the file is checked against
 * the file size before use, and note segments are capped.
 */
#include "recorder/header/buildid.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_write.h"
#include "recorder/util/fs.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_ID_SIZE 20
#define NOTES_MAX (1u << 20) /* a note area larger than this is not a build id's */

/* ---- notes ---- */

static uint32_t rd32(const unsigned char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const unsigned char *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static uint64_t rd64(const unsigned char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/*
 * Walks a note area ({namesz, descsz, type, name, desc}, name and desc
 * padded to @align) for NT_GNU_BUILD_ID owned by "GNU". 0 / -ENOENT.
 */
static int notes__find(const unsigned char *buf, size_t len, bool swap, uint64_t align,
		       uint8_t id[20], uint8_t *size)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz = rd32(buf + off, swap), descsz = rd32(buf + off + 4, swap);
		uint32_t type = rd32(buf + off + 8, swap);
		uint64_t name_len = align_up(namesz, align), desc_len = align_up(descsz, align);

		off += 12;
		if (name_len > len - off || descsz > len - off - name_len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + off, "GNU", 4) &&
		    descsz) {
			size_t sz = descsz < BUILD_ID_SIZE ? descsz : BUILD_ID_SIZE;

			memset(id, 0, BUILD_ID_SIZE);
			memcpy(id, buf + off + name_len, sz);
			*size = sz;
			return 0;
		}
		if (desc_len > len - off - name_len)
			break;
		off += name_len + desc_len;
	}
	return -ENOENT;
}

/* Reads [off, off+len) of @fd into a new buffer. NULL with errno set. */
static unsigned char *read_range(int fd, uint64_t off, size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	int ret;

	if (!buf)
		return NULL;
	ret = pfile__pread_full(fd, buf, len, off);
	if (ret) {
		free(buf);
		errno = -ret;
		return NULL;
	}
	return buf;
}

/* ---- ELF ---- */

/* What the walk needs from the ELF header, whatever the class and byte order. */
struct elf_info {
	int fd;
	uint64_t file_size;
	bool is64, swap;
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
};

static int elf_info__init(struct elf_info *e, const unsigned char *eh, size_t len)
{
	bool little = eh[EI_DATA] == ELFDATA2LSB;

	if (len < EI_NIDENT || memcmp(eh, ELFMAG, SELFMAG))
		return -EINVAL;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
	e->swap = little != (__BYTE_ORDER == __LITTLE_ENDIAN);
	if (eh[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		e->is64 = true;
		e->phoff = rd64(eh + offsetof(Elf64_Ehdr, e_phoff), e->swap);
		e->shoff = rd64(eh + offsetof(Elf64_Ehdr, e_shoff), e->swap);
		e->phentsize = rd16(eh + offsetof(Elf64_Ehdr, e_phentsize), e->swap);
		e->phnum = rd16(eh + offsetof(Elf64_Ehdr, e_phnum), e->swap);
		e->shentsize = rd16(eh + offsetof(Elf64_Ehdr, e_shentsize), e->swap);
		e->shnum = rd16(eh + offsetof(Elf64_Ehdr, e_shnum), e->swap);
		e->shstrndx = rd16(eh + offsetof(Elf64_Ehdr, e_shstrndx), e->swap);
	} else if (eh[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		e->is64 = false;
		e->phoff = rd32(eh + offsetof(Elf32_Ehdr, e_phoff), e->swap);
		e->shoff = rd32(eh + offsetof(Elf32_Ehdr, e_shoff), e->swap);
		e->phentsize = rd16(eh + offsetof(Elf32_Ehdr, e_phentsize), e->swap);
		e->phnum = rd16(eh + offsetof(Elf32_Ehdr, e_phnum), e->swap);
		e->shentsize = rd16(eh + offsetof(Elf32_Ehdr, e_shentsize), e->swap);
		e->shnum = rd16(eh + offsetof(Elf32_Ehdr, e_shnum), e->swap);
		e->shstrndx = rd16(eh + offsetof(Elf32_Ehdr, e_shstrndx), e->swap);
	} else {
		return -EINVAL;
	}
	return 0;
}

/* A note area found in a program or section header. */
struct note_area {
	uint32_t type;
	uint64_t offset, size, align;
};

static bool elf_info__table_ok(const struct elf_info *e, uint64_t off, uint16_t entsize,
			       uint16_t num, size_t minsize)
{
	return off && num && entsize >= minsize && off <= e->file_size &&
	       (uint64_t)entsize * num <= e->file_size - off;
}

static void elf__phdr(const struct elf_info *e, const unsigned char *p, struct note_area *a)
{
	if (e->is64) {
		a->type = rd32(p + offsetof(Elf64_Phdr, p_type), e->swap);
		a->offset = rd64(p + offsetof(Elf64_Phdr, p_offset), e->swap);
		a->size = rd64(p + offsetof(Elf64_Phdr, p_filesz), e->swap);
		a->align = rd64(p + offsetof(Elf64_Phdr, p_align), e->swap);
	} else {
		a->type = rd32(p + offsetof(Elf32_Phdr, p_type), e->swap);
		a->offset = rd32(p + offsetof(Elf32_Phdr, p_offset), e->swap);
		a->size = rd32(p + offsetof(Elf32_Phdr, p_filesz), e->swap);
		a->align = rd32(p + offsetof(Elf32_Phdr, p_align), e->swap);
	}
	if (a->type != PT_NOTE)
		a->type = 0;
}

static void elf__shdr(const struct elf_info *e, const unsigned char *p, struct note_area *a)
{
	if (e->is64) {
		a->type = rd32(p + offsetof(Elf64_Shdr, sh_type), e->swap);
		a->offset = rd64(p + offsetof(Elf64_Shdr, sh_offset), e->swap);
		a->size = rd64(p + offsetof(Elf64_Shdr, sh_size), e->swap);
		a->align = rd64(p + offsetof(Elf64_Shdr, sh_addralign), e->swap);
	} else {
		a->type = rd32(p + offsetof(Elf32_Shdr, sh_type), e->swap);
		a->offset = rd32(p + offsetof(Elf32_Shdr, sh_offset), e->swap);
		a->size = rd32(p + offsetof(Elf32_Shdr, sh_size), e->swap);
		a->align = rd32(p + offsetof(Elf32_Shdr, sh_addralign), e->swap);
	}
	if (a->type != SHT_NOTE)
		a->type = 0;
}

/* Notes are 4-byte aligned, except in 8-aligned areas (gABI, e.g. .note.gnu.property). */
static int elf__scan_area(const struct elf_info *e, const struct note_area *a, uint8_t id[20],
			  uint8_t *size)
{
	unsigned char *buf;
	int err;

	if (!a->type || !a->size || a->size > NOTES_MAX || a->offset > e->file_size ||
	    a->size > e->file_size - a->offset)
		return -ENOENT;
	buf = read_range(e->fd, a->offset, a->size);
	if (!buf)
		return -errno;
	err = notes__find(buf, a->size, e->swap, a->align == 8 ? 8 : 4, id, size);
	free(buf);
	return err;
}

/* Scans every note area of one header table (program or section headers). */
static int elf__scan_table(const struct elf_info *e, bool sections, uint8_t id[20], uint8_t *size)
{
	uint64_t off = sections ? e->shoff : e->phoff;
	uint16_t entsize = sections ? e->shentsize : e->phentsize;
	uint16_t num = sections ? e->shnum : e->phnum;
	size_t minsize = e->is64 ? (sections ? sizeof(Elf64_Shdr) : sizeof(Elf64_Phdr))
				 : (sections ? sizeof(Elf32_Shdr) : sizeof(Elf32_Phdr));
	unsigned char *tab;
	int err = -ENOENT;

	/* PN_XNUM/SHN_XINDEX-sized tables (num in entry 0) are not worth the trouble here. */
	if (num == PN_XNUM || !elf_info__table_ok(e, off, entsize, num, minsize))
		return -ENOENT;
	tab = read_range(e->fd, off, (size_t)entsize * num);
	if (!tab)
		return -errno;
	for (uint16_t i = 0; i < num && err == -ENOENT; i++) {
		struct note_area a;

		if (sections)
			elf__shdr(e, tab + (size_t)i * entsize, &a);
		else
			elf__phdr(e, tab + (size_t)i * entsize, &a);
		err = elf__scan_area(e, &a, id, size);
	}
	free(tab);
	return err;
}

/* The build id of the ELF image in @fd (the caller's). 0 / -errno. */
static int buildid__read_fd(int fd, uint8_t id[20], uint8_t *size)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	struct elf_info e = {.fd = fd};
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;
	int err;

	if (end < 0)
		return -EINVAL;
	e.file_size = end;
	n = pread(fd, eh, sizeof(eh), 0);
	if (n < 0 || elf_info__init(&e, eh, n))
		return -EINVAL;
	err = elf__scan_table(&e, false, id, size);
	if (err == -ENOENT)
		err = elf__scan_table(&e, true, id, size);
	return err;
}

int buildid__read_elf(const char *path, uint8_t id[20], uint8_t *size)
{
	int fd, err;

	/* Maps may name FIFOs or devices: only regular files are read (-EINVAL otherwise). */
	fd = pfile__open_input(AT_FDCWD, path, 0);
	if (fd < 0)
		return fd == -ENODEV ? -EINVAL : fd;
	err = buildid__read_fd(fd, id, size);
	close(fd);
	return err;
}

/* [start, end) of this process's [vdso] mapping, from /proc/self/maps. 0 / -ENOENT. */
static int vdso_range(uintptr_t *start, uintptr_t *end)
{
	char *maps = NULL, *line, *next;
	int err = filename__read_str("/proc/self/maps", &maps);

	for (line = err ? NULL : maps; line && *line; line = next) {
		char *eol = strchr(line, '\n');
		size_t len;

		next = eol ? eol + 1 : NULL;
		if (eol)
			*eol = '\0';
		len = strlen(line);
		if (len >= 6 && !strcmp(line + len - 6, "[vdso]") &&
		    sscanf(line, "%" SCNxPTR "-%" SCNxPTR, start, end) == 2) {
			free(maps);
			return 0;
		}
	}
	free(maps);
	return err ? err : -ENOENT;
}

int buildid__vdso_image(int fd)
{
	uintptr_t start, end;
	int err = vdso_range(&start, &end);

	return err ? err : pfile__pwrite_full(fd, (const void *)start, end - start, 0);
}

int buildid__read_vdso(uint8_t id[20], uint8_t *size)
{
	/* As perf copies its own vdso to a file: the fd reader checks every offset. */
	int fd = memfd_create("shardrec-vdso", MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = buildid__vdso_image(fd);
	if (!err)
		err = buildid__read_fd(fd, id, size);
	close(fd);
	return err;
}

/* Section @i's sh_name and the file range it covers (no bounds checked here). */
static void elf__shdr_name(const struct elf_info *e, const unsigned char *p, uint32_t *name,
			   struct note_area *a)
{
	*name = rd32(p + (e->is64 ? offsetof(Elf64_Shdr, sh_name) : offsetof(Elf32_Shdr, sh_name)),
		     e->swap);
	elf__shdr(e, p, a);
}

/* True when one of @tab's @e->shnum section headers is named @name in @strtab. */
static bool elf__find_section(const struct elf_info *e, const unsigned char *tab,
			      const char *strtab, size_t strsize, const char *name)
{
	size_t len = strlen(name);

	for (uint16_t i = 0; i < e->shnum; i++) {
		struct note_area a;
		uint32_t off;

		elf__shdr_name(e, tab + (size_t)i * e->shentsize, &off, &a);
		if (off < strsize && len < strsize - off && !memcmp(strtab + off, name, len + 1))
			return true;
	}
	return false;
}

bool buildid__elf_has_section(const char *path, const char *name)
{
	unsigned char eh[sizeof(Elf64_Ehdr)], *tab = NULL, *strtab = NULL;
	struct elf_info e = {.fd = -1};
	struct note_area str;
	uint32_t unused;
	bool found = false;
	off_t end;
	ssize_t n;

	e.fd = pfile__open_input(AT_FDCWD, path, 0);
	if (e.fd < 0)
		return false;
	end = lseek(e.fd, 0, SEEK_END);
	n = pread(e.fd, eh, sizeof(eh), 0);
	e.file_size = end < 0 ? 0 : end;
	if (n < 0 || elf_info__init(&e, eh, n) || e.shnum == 0 || e.shstrndx >= e.shnum ||
	    !elf_info__table_ok(&e, e.shoff, e.shentsize, e.shnum,
				e.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		goto out_close;
	tab = read_range(e.fd, e.shoff, (size_t)e.shentsize * e.shnum);
	if (!tab)
		goto out_close;
	/* The section names: SHT_STRTAB, so elf__shdr() leaves its type 0, not its range. */
	elf__shdr_name(&e, tab + (size_t)e.shstrndx * e.shentsize, &unused, &str);
	if (!str.size || str.size > NOTES_MAX || str.offset > e.file_size ||
	    str.size > e.file_size - str.offset)
		goto out_free;
	strtab = read_range(e.fd, str.offset, str.size);
	if (strtab)
		found = elf__find_section(&e, tab, (const char *)strtab, str.size, name);
	free(strtab);
out_free:
	free(tab);
out_close:
	close(e.fd);
	return found;
}

/* ---- sysfs notes ---- */

/* sysfs__read_build_id(): a raw native-endian note sequence, 4-byte aligned. */
static int buildid__read_notes_file(const char *path, uint8_t id[20], uint8_t *size)
{
	size_t len;
	char *buf;
	int err;

	/* NOTES_MAX bounds the read: a build id note sits near the start. */
	err = filename__read_all(path, NOTES_MAX, &buf, &len);
	if (err)
		return err;
	err = notes__find((unsigned char *)buf, len, false, 4, id, size);
	free(buf);
	return err;
}

int buildid__read_kernel(const char *sys_root, uint8_t id[20], uint8_t *size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/sys/kernel/notes", sys_root ? sys_root : "") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return buildid__read_notes_file(path, id, size);
}

int buildid__read_module(const char *sys_root, const char *name, uint8_t id[20], uint8_t *size)
{
	char path[PATH_MAX];

	if (!name[0] || strchr(name, '/'))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/sys/module/%s/notes/.note.gnu.build-id",
		     sys_root ? sys_root : "", name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return buildid__read_notes_file(path, id, size);
}
