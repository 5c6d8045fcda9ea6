// SPDX-License-Identifier: GPL-2.0
/*
 * perf's build-id cache (buildid_cache.h), after perf 6.1's util/build-id.c
 * (build_id_cache__add, __cachedir, __linkname, __find_debug),
 * util/copyfile.c (copyfile_mode_ns) and util/vdso.c (the vdso image in a
 * /tmp file).
 */
#include "recorder/header/buildid_cache.h"
#include "recorder/header/buildid.h"
#include "recorder/perfdata/pcursor.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_DIR_MODE 0755
#define CACHE_COPY_MODE 0755 /* perf's copyfile(): fchmod()ed, whatever the source's mode */
#define CACHE_PROBES_MODE 0644
#define BUILD_ID_MIN 2 /* the link's name is the hex past its first two digits */
#define BUILD_ID_MAX 20
#define KALLSYMS_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"
#define DEBUG_DIR "/usr/lib/debug/.build-id"
#define SDT_SECTION ".note.stapsdt"

/* What an entry holds: the file's name in DIR/NAME/HEX and where it comes from. */
enum ent_kind { ENT_ELF, ENT_KALLSYMS, ENT_VDSO };

/* One entry being made: DIR/NAME/HEX. */
struct cache_ent {
	const char *top; /* the cache directory */
	size_t top_len;
	char hex[2 * BUILD_ID_MAX + 1];
	char dir[PATH_MAX];
};

/* snprintf()'s verdict as 0 / -ENAMETOOLONG. */
static int fits(int n, size_t len) { return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0; }

int buildid_cache__dir(const char *dir, char *buf, size_t len)
{
	const char *home = getenv("HOME");

	/* perf's set_buildid_dir(): --buildid-dir or buildid.dir, else $HOME/.debug, else .debug */
	if (dir)
		return fits(snprintf(buf, len, "%s", dir), len);
	if (home)
		return fits(snprintf(buf, len, "%s/.debug", home), len);
	return fits(snprintf(buf, len, ".debug"), len);
}

/*
 * Resolves @dir into @buf and makes it with one mkdir(), as perf's
 * __perf_session__cache_build_ids() does: a cache whose parent is missing
 * is not made. 0 / -errno (-EINVAL: relative).
 */
static int cache__open_top(const char *dir, char *buf, size_t len)
{
	int ret = buildid_cache__dir(dir, buf, len);

	if (ret)
		return ret;
	/* perf's mkdir_p() fails on relative paths: perf then caches nothing. */
	if (buf[0] != '/')
		return -EINVAL;
	if (mkdir(buf, CACHE_DIR_MODE) && errno != EEXIST)
		return -errno;
	return 0;
}

/* mkdir -p of the absolute @path: each missing component 0755 less the umask. 0 / -errno. */
static int mkdir_p(char *path)
{
	for (char *p = path + 1;; p++) {
		char c = *p;
		int ret;

		if (c && c != '/')
			continue;
		*p = '\0';
		/* an existing entry says EEXIST before any EACCES or EROFS */
		ret = mkdir(path, CACHE_DIR_MODE) && errno != EEXIST ? -errno : 0;
		*p = c;
		if (ret || !c)
			return ret;
	}
}

static int path_join(char *buf, const char *dir, const char *name)
{
	return fits(snprintf(buf, PATH_MAX, "%s/%s", dir, name), PATH_MAX);
}

/* All of @in, read to its end, into the empty @out. 0 / -errno. */
static int fd__copy(int in, int out)
{
	char buf[65536];
	uint64_t off = 0;

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		ret = pfile__pwrite_full(out, buf, n, off);
		if (ret)
			return ret;
		off += n;
	}
}

/*
 * perf's copyfile(): @src into a hidden temporary beside @dst
 * (".NAME.XXXXXX"), made 0755, then linked to @dst: readers never see half
 * a file, and of two recorders racing one wins whole. Read to the end, not
 * to st_size, which is 0 for /proc/kallsyms. 0 / -errno.
 */
static int cache__copy(const char *src, const char *dst)
{
	const char *slash = strrchr(dst, '/');
	char tmp[PATH_MAX];
	int in, out, ret;

	ret =
	    fits(snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", (int)(slash - dst), dst, slash + 1),
		 sizeof(tmp));
	if (ret)
		return ret;
	/* a regular file only: a DSO path may name a FIFO by now */
	in = pfile__open_input(AT_FDCWD, src, 0);
	if (in < 0)
		return in == -ENODEV ? -EINVAL : in;
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		ret = -errno;
		goto out_close_in;
	}
	ret = fd__copy(in, out);
	if (!ret && fchmod(out, CACHE_COPY_MODE))
		ret = -errno;
	if (close(out) && !ret)
		ret = -errno;
	if (!ret && link(tmp, dst) && errno != EEXIST)
		ret = -errno;
	unlink(tmp);
out_close_in:
	close(in);
	return ret;
}

/*
 * @dst as a hard link to @src, else (another file system, protected
 * hardlinks) a copy; an existing @dst is kept, as perf's access() test
 * does. 0 / -errno.
 */
static int cache__link_new(const char *src, const char *dst, bool may_link)
{
	if (!access(dst, F_OK))
		return 0;
	if (may_link && (!link(src, dst) || errno == EEXIST))
		return 0;
	return cache__copy(src, dst);
}

static void hex__put(char *hex, const uint8_t *id, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * len] = '\0';
}

/* DIR/@name/HEX: @name is a real path, or "/[kernel.kallsyms]" and the like. */
static int cache_ent__init(struct cache_ent *e, const char *top, const char *name,
			   const uint8_t *id, size_t len)
{
	if (len < BUILD_ID_MIN || len > BUILD_ID_MAX)
		return -EINVAL;
	hex__put(e->hex, id, len);
	e->top = top;
	e->top_len = strlen(top);
	return fits(snprintf(e->dir, sizeof(e->dir), "%s%s/%s", top, name, e->hex), sizeof(e->dir));
}

/* perf's build_id_cache__find_debug(): the distribution's separate debug info, if readable. */
static int cache_ent__add_debug(const struct cache_ent *e)
{
	char debug[PATH_MAX], real[PATH_MAX], dst[PATH_MAX];
	int ret;

	ret = fits(snprintf(debug, sizeof(debug), DEBUG_DIR "/%.2s/%s.debug", e->hex, e->hex + 2),
		   sizeof(debug));
	if (ret || !realpath(debug, real) || access(real, R_OK))
		return 0;
	ret = path_join(dst, e->dir, "debug");
	return ret ? ret : cache__link_new(real, dst, true);
}

/*
 * DIR/.build-id/H[0:2]/H[2:] -> ../../NAME/HEX, relative so that the cache
 * can move. A link already there is kept whatever it names (the same
 * build id under another path), as perf does.
 */
static int cache_ent__link(const struct cache_ent *e)
{
	char link[PATH_MAX], target[PATH_MAX];
	size_t len;
	int ret;

	ret = fits(snprintf(link, sizeof(link), "%s/.build-id/%.2s", e->top, e->hex), sizeof(link));
	if (!ret)
		ret = mkdir_p(link);
	len = strlen(link);
	if (!ret)
		ret = fits(snprintf(link + len, sizeof(link) - len, "/%s", e->hex + 2),
			   sizeof(link) - len);
	if (!ret)
		ret = fits(snprintf(target, sizeof(target), "../..%s", e->dir + e->top_len),
			   sizeof(target));
	if (ret)
		return ret;
	return symlink(target, link) && errno != EEXIST ? -errno : 0;
}

/*
 * perf probe's SDT cache: perf built with libelf opens DIR/NAME/HEX/probes
 * with O_CREAT for every file it adds and writes there the SDT notes it
 * finds, so a file without them gets an empty one. Writing the notes
 * (uprobe argument syntax) is perf probe's business: with notes, the file
 * is left for perf's next add of the DSO, which rewrites it. A failure
 * loses only this file, as in perf.
 */
static void cache_ent__probes(const struct cache_ent *e, const char *src)
{
	char path[PATH_MAX];
	int fd;

	if (buildid__elf_has_section(src, SDT_SECTION) || path_join(path, e->dir, "probes"))
		return;
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, CACHE_PROBES_MODE);
	if (fd >= 0)
		close(fd);
}

/* True for a kernel module's file, which perf looks up no debug file for. */
static bool is_ko(const char *path)
{
	size_t len = strlen(path);

	return len >= 3 && !strcmp(path + len - 3, ".ko");
}

/* perf's build_id_cache__add() for the entry @e of @kind, its contents from @src. */
static int cache_ent__add(const struct cache_ent *e, enum ent_kind kind, const char *src)
{
	static const char *const base[] = {"elf", "kallsyms", "vdso"};
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat st;
	int ret;

	/* perf 3.x cached DIR/NAME/HEX as a file: perf removes it, so do we */
	if (!lstat(e->dir, &st) && S_ISREG(st.st_mode) && unlink(e->dir))
		return -errno;
	memcpy(dir, e->dir, sizeof(dir));
	ret = mkdir_p(dir);
	if (!ret)
		ret = path_join(path, e->dir, base[kind]);
	/* kallsyms is always a copy: /proc cannot be linked */
	if (!ret)
		ret = cache__link_new(src, path, kind != ENT_KALLSYMS);
	if (!ret && kind == ENT_ELF && !is_ko(src))
		ret = cache_ent__add_debug(e);
	if (!ret)
		ret = cache_ent__link(e);
	if (!ret && kind != ENT_KALLSYMS)
		cache_ent__probes(e, src);
	return ret;
}

int buildid_cache__add(const char *dir, const char *path, const uint8_t *id, size_t len)
{
	char top[PATH_MAX], real[PATH_MAX];
	uint8_t now[BUILD_ID_MAX];
	struct cache_ent e;
	uint8_t size;
	int ret = cache__open_top(dir, top, sizeof(top));

	if (ret)
		return ret;
	/* perf's cache path is the DSO's real path (nsinfo__realpath) */
	if (!realpath(path, real))
		return -errno;
	ret = cache_ent__init(&e, top, real, id, len);
	if (ret)
		return ret;
	/*
	 * A file rebuilt since its build id was read would be cached under an
	 * id it does not have, and perf report would trust it: refused.
	 * (Compressed modules have no readable note: their id came from sysfs.)
	 */
	if (!buildid__read_elf(real, now, &size) && (size != len || memcmp(now, id, len)))
		return -ESTALE;
	return cache_ent__add(&e, ENT_ELF, real);
}

int buildid_cache__add_kernel(const char *dir, const uint8_t *id, size_t len)
{
	char top[PATH_MAX];
	struct cache_ent e;
	int ret = cache__open_top(dir, top, sizeof(top));

	if (!ret)
		ret = cache_ent__init(&e, top, "/" KALLSYMS_NAME, id, len);
	return ret ? ret : cache_ent__add(&e, ENT_KALLSYMS, "/proc/kallsyms");
}

int buildid_cache__add_vdso(const char *dir)
{
	/* perf's VDSO__TEMP_FILE_NAME: /tmp, which decides between link and copy as for perf */
	char top[PATH_MAX], tmp[] = "/tmp/shardrec-vdso.so-XXXXXX";
	uint8_t id[BUILD_ID_MAX], size;
	struct cache_ent e;
	int fd, ret = cache__open_top(dir, top, sizeof(top));

	if (ret)
		return ret;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = buildid__vdso_image(fd);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret)
		ret = buildid__read_elf(tmp, id, &size);
	if (!ret)
		ret = cache_ent__init(&e, top, "/" VDSO_NAME, id, size);
	if (!ret)
		ret = cache_ent__add(&e, ENT_VDSO, tmp);
	unlink(tmp);
	return ret;
}

/* Keeps the first failure of buildid_cache__add_ids() and says it in @err. */
static void note_failure(int *first, int ret, const char *what, char *err, size_t errlen)
{
	if (!ret || *first)
		return;
	*first = ret;
	snprintf(err, errlen, "%s: %s", what,
		 ret == -ESTALE ? "rebuilt since it was recorded" : strerror(-ret));
}

int buildid_cache__add_ids(const char *dir, const struct pfile_build_id *b, size_t nr, char *err,
			   size_t errlen)
{
	uint8_t kid[BUILD_ID_MAX], ksize;
	char top[PATH_MAX];
	int first = 0, ret;

	if (errlen)
		err[0] = '\0';
	ret = cache__open_top(dir, top, sizeof(top));
	if (ret) {
		snprintf(err, errlen, "%s: %s", dir ? dir : top,
			 ret == -EINVAL ? "not an absolute directory" : strerror(-ret));
		return ret;
	}
	/* perf reads the running kernel's build id as it starts and caches it, hit or not */
	if (!buildid__read_kernel(NULL, kid, &ksize))
		note_failure(&first, buildid_cache__add_kernel(top, kid, ksize), KALLSYMS_NAME, err,
			     errlen);
	/* ... and the [vdso] every recorded process maps, hit or not */
	ret = buildid_cache__add_vdso(top);
	note_failure(&first, ret == -ENOENT ? 0 : ret, VDSO_NAME, err, errlen);
	/* the kernel's own entry is above; a module named without a file has nothing to cache */
	for (size_t i = 0; i < nr; i++)
		if (b[i].path && b[i].path[0] == '/')
			note_failure(&first, buildid_cache__add(top, b[i].path, b[i].id, b[i].size),
				     b[i].path, err, errlen);
	return first;
}

/*
 * The host's entries of a BUILD_ID feature (perf_record_header_build_id
 * each, pfile_feat__build_ids()), paths pointing into @data. Guests'
 * entries are skipped: their files are not this machine's. *@out malloc'ed.
 * 0 / -EINVAL (malformed) / -ENOMEM.
 */
static int build_ids__decode(const unsigned char *data, size_t size, struct pfile_build_id **out,
			     size_t *nr_out)
{
	struct pfile_build_id *b = calloc(size / PFILE_BUILD_ID_REC_SIZE + 1, sizeof(*b));
	struct pcursor c = {data, size};
	size_t nr = 0;

	if (!b)
		return -ENOMEM;
	while (c.left) {
		const unsigned char *e = c.p;
		struct perf_event_header h;
		uint16_t mode;

		if (!pcursor__take(&c, &h, sizeof(h)) || h.size <= PFILE_BUILD_ID_REC_SIZE ||
		    !pcursor__take(&c, NULL, h.size - sizeof(h)) ||
		    !memchr(e + PFILE_BUILD_ID_REC_SIZE, '\0', h.size - PFILE_BUILD_ID_REC_SIZE)) {
			free(b);
			return -EINVAL;
		}
		mode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER)
			continue;
		/* header, pid, then 20 id bytes and (with BUILD_ID_SIZE) their count */
		memcpy(b[nr].id, e + 12, BUILD_ID_MAX);
		b[nr].size =
		    h.misc & PFILE_MISC_BUILD_ID_SIZE ? e[12 + BUILD_ID_MAX] : BUILD_ID_MAX;
		b[nr].kernel = mode == PERF_RECORD_MISC_KERNEL;
		b[nr].path = (const char *)e + PFILE_BUILD_ID_REC_SIZE;
		nr++;
	}
	*out = b;
	*nr_out = nr;
	return 0;
}

int buildid_cache__add_hits(const char *dir, const char *perf_data, char *err, size_t errlen)
{
	const int feat = PFILE_FEAT_BUILD_ID;
	struct pfile_build_id *b;
	struct pfile pf;
	size_t nr;
	int ret;

	if (errlen)
		err[0] = '\0';
	ret = pfile__open(&pf, perf_data, err, errlen);
	if (ret)
		return ret;
	/* perf fills the cache as it writes BUILD_ID: without the feature, nothing */
	if (!(pf.hdr.features[feat / 64] >> (feat % 64) & 1))
		goto out_close;
	ret = build_ids__decode(pf.feats.sec[feat].data, pf.feats.sec[feat].size, &b, &nr);
	if (ret) {
		snprintf(err, errlen, "%s: %s", perf_data,
			 ret == -EINVAL ? "malformed BUILD_ID feature" : strerror(-ret));
		goto out_close;
	}
	ret = buildid_cache__add_ids(dir, b, nr, err, errlen);
	free(b);
out_close:
	pfile__close(&pf);
	return ret;
}
