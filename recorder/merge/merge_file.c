// SPDX-License-Identifier: GPL-2.0
/* Output assembly: header.data, shards and tail.raw in, the perf.data with its features out. */
#include "recorder/merge/merge_internal.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_write.h"

#include <sys/file.h>

/* ---- setup and the rest of the file ---- */

static int shard_name_cmp(const void *a, const void *b)
{
	unsigned x = strtoul(*(char *const *)a + 6, NULL, 10);
	unsigned y = strtoul(*(char *const *)b + 6, NULL, 10);

	return x < y ? -1 : x > y;
}

/* Lists "shard.N" entries of the directory, sorted by N. */
static int list_shards(struct merger *m, char ***names, size_t *nr)
{
	DIR *d = fdopendir(dup(m->dirfd));
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	if (!d)
		return -errno;
	/* The dup shares the recorder's offset: a second merge of the directory starts over. */
	rewinddir(d);
	while ((de = readdir(d))) {
		char **nv;

		if (strncmp(de->d_name, "shard.", 6) || !de->d_name[6] ||
		    strspn(de->d_name + 6, "0123456789") != strlen(de->d_name + 6))
			continue;
		if (n >= MAX_SHARDS) {
			err = -E2BIG;
			break;
		}
		nv = array__grow(v, &cap, n + 1, sizeof(*v), 64);
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			err = -ENOMEM;
			break;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (v)
		qsort(v, n, sizeof(*v), shard_name_cmp);
	*names = v;
	*nr = n;
	return err;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Bytes after a finished shard's end (appended by hand, a copy gone wrong):
 * the passes up to the end are whole, so --recover keeps them and says what
 * it dropped. -EBADMSG without it.
 */
static int check_trailing(struct merger *m, struct mshard *s)
{
	if (!s->r.trailing)
		return 0;
	snprintf(m->err, m->errlen, "%s/%s: %llu bytes after its end at offset %llu (damaged "
		 "shard): %s", m->o->dir, s->r.name, (unsigned long long)s->r.trailing,
		 (unsigned long long)s->r.hdr.end,
		 m->o->recover ? "dropped them, kept every pass before" : "run with --recover to "
		 "drop them and keep every pass before");
	if (!m->o->recover)
		return -EBADMSG;
	m->st->damaged_shards++;
	s->damaged = true;
	return 0;
}

static int open_shards(struct merger *m)
{
	char **names = NULL;
	size_t n = 0;
	int err = list_shards(m, &names, &n);

	if (err) {
		snprintf(m->err, m->errlen, "%s: cannot list shards: %s", m->o->dir, strerror(-err));
		goto out;
	}
	m->shards = calloc(n ? n : 1, sizeof(*m->shards));
	m->sheap.less = shard_less;
	m->fheap.less = frame_less;
	if (!m->shards) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct mshard *s = &m->shards[i];

		err = shard_reader__open(&s->r, m->dirfd, names[i], m->err, m->errlen);
		if (err) {
			char msg[512];

			/* Named in its directory, as the tail files are (merge_run.c). */
			snprintf(msg, sizeof(msg), "%s", m->err);
			snprintf(m->err, m->errlen, "%s/%s", m->o->dir, msg);
			goto out;
		}
		err = check_trailing(m, s);
		if (err)
			goto out;
		/* Being written: only what its writer committed counts (merge_live__poll). */
		if (m->o->live)
			s->r.size = SHARD_HEADER_SIZE;
		m->nr_shards++;
		m->in_total += s->r.size;
		/* perf 6.1 cannot read COMPRESSED records from a pipe, its own included. */
		m->frames |= (s->r.hdr.flags & SHARD_F_ZSTD) && !m->o->decompress && !m->o->pipe;
		err = pheap__push(&m->sheap, s);
		if (err)
			goto out;
	}
out:
	free_names(names, n);
	return err;
}

/* Copies header.data's data section: the synthesized prologue. */
int merger__copy_prologue(struct merger *m)
{
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off;
	int ret = pfile_reader__init(&r, m->hdr.fd, m->hdr.hdr.data.offset, m->hdr.hdr.data.size, 0);

	if (ret)
		return ret;
	while ((ret = pfile_reader__next(&r, &h, &len, &off)) > 0) {
		ret = merger__check_file_rec(m, "header.data", h, len, off);
		if (ret < 0)
			break;
		if (!ret && m->prologue_hook && (ret = m->prologue_hook(m, h)))
			break;
		if (!ret && (ret = merger__emit(m, h, len)))
			break;
	}
	if (!ret && m->prologue_hook)
		ret = m->prologue_hook(m, NULL);
	if (ret < 0 && !m->err[0])
		snprintf(m->err, m->errlen, "header.data: corrupt record at offset %llu",
			 (unsigned long long)r.pos);
	pfile_reader__release(&r);
	return ret;
}

/*
 * Copies the records of tail file @t, if it exists: tail.raw (lost counts
 * the session wrote after recording, appended) or tail.synth (the task
 * records --overwrite and --tail-synthesize write at the end, placed after
 * the prologue).
 */
int merger__copy_tail(struct merger *m, const struct shard_tail *t, const char *name)
{
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off;
	int ret;

	if (t->fd < 0)
		return 0;
	ret = pfile_reader__init(&r, t->fd, SHARD_TAIL_HEADER_SIZE, t->hdr.used, 0);
	if (ret)
		return ret;
	while ((ret = pfile_reader__next(&r, &h, &len, &off)) > 0) {
		ret = merger__check_file_rec(m, name, h, len, off);
		if (ret < 0)
			break;
		if (!ret && (ret = merger__emit(m, h, len)))
			break;
	}
	/* A kill can cut the file: whole records are kept, the rest dropped. */
	if (ret == -EINVAL)
		ret = 0;
	pfile_reader__release(&r);
	return ret;
}

/*
 * HEADER_COMPRESSED: kept, with the achieved ratio, when frames were copied;
 * dropped when the output holds plain records only.
 */
static int finish_compressed(struct merger *m, struct pfile_featset *fs)
{
	uint32_t v[5] = {0, 1, 1, 0, 0}; /* version, type, level, ratio, mmap_len */
	uint64_t zbytes = m->st->bytes_in;

	if (!m->frames) {
		pfile_featset__unset(fs, PFILE_FEAT_COMPRESSED);
		return 0;
	}
	m->st->compressed = true;
	/* The level is the recording's: session wrote it into header.data. */
	if (fs->sec[PFILE_FEAT_COMPRESSED].size >= sizeof(v))
		memcpy(v, fs->sec[PFILE_FEAT_COMPRESSED].data, sizeof(v));
	return pfile_feat__compressed(fs, v[2], zbytes ? m->st->bytes_raw / zbytes : 0,
				      ZPASS_MMAP_LEN);
}

/*
 * HEADER_AUXTRACE as perf's auxtrace_index__write: u64 count, then {file
 * offset, header.size} per AUXTRACE record, pointing into this output.
 * Whatever header.data said is stale: shards moved every record.
 */
static int finish_auxtrace(struct merger *m, struct pfile_featset *fs)
{
	uint64_t nr = m->nr_auxidx;
	size_t len = sizeof(nr) + nr * sizeof(*m->auxidx);
	unsigned char *buf;
	int err;

	pfile_featset__unset(fs, PFILE_FEAT_AUXTRACE);
	if (!nr)
		return 0;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &nr, sizeof(nr));
	memcpy(buf + sizeof(nr), m->auxidx, nr * sizeof(*m->auxidx));
	err = pfile_featset__set(fs, PFILE_FEAT_AUXTRACE, buf, len);
	free(buf);
	return err;
}

static int finish_features(struct merger *m, struct pfile_header *fh)
{
	struct pfile_featset *fs = &m->hdr.feats;
	uint64_t end;
	int err = 0;

	if (m->st->first_time)
		err = pfile_feat__sample_time(fs, m->st->first_time, m->st->last_time);
	if (!err)
		err = finish_compressed(m, fs);
	if (!err)
		err = finish_auxtrace(m, fs);
	if (!err)
		err = merge_run__features(m, fs);
	if (!err && m->hits)
		err = m->o->hits->encode(m->hits, fs, &m->st->nr_build_ids);
	if (!err && m->o->features)
		err = m->o->features(fs, m->o->features_arg);
	if (!err)
		err = pfile__write_features(m->out_fd, merge_out__pos(&m->out), fs, fh->features, &end);
	return err;
}

static int write_file(struct merger *m)
{
	struct pfile_header fh;
	int err;

	pfile_header__init(&fh);
	err = pfile__write_attrs(m->out_fd, PFILE_HEADER_SIZE, m->hdr.events, m->hdr.nr_events,
				 &fh.attrs, &m->data_start);
	if (err)
		return err;
	err = merge_out__init(&m->out, m->out_fd, m->data_start, false);
	if (!err)
		err = merger__copy_prologue(m);
	if (!err)
		err = merger__copy_tail(m, &m->tail_synth, "tail.synth");
	/* A file is read by round (merge.c, emit_whole_run); a live pipe needs sorted output. */
	m->whole_runs = !m->frames && !m->o->live;
	if (!err)
		err = m->frames ? merge_frames(m) : merge_shards(m);
	if (!err)
		err = merger__copy_tail(m, &m->tail_raw, "tail.raw");
	if (!err)
		err = merger__out_flush(m);
	if (err)
		return err;
	fh.data.offset = m->data_start;
	fh.data.size = merge_out__pos(&m->out) - m->data_start;
	m->st->bytes_out = merge_out__pos(&m->out);
	err = finish_features(m, &fh);
	if (!err)
		err = pfile__write_header(m->out_fd, &fh);
	return err;
}

/*
 * What the output takes from header.data besides records: the attrs (no
 * recovery: without them nothing parses) and the feature sections copied
 * as they are (HEADER_AUXTRACE is rebuilt; a damaged one is dropped with
 * --recover). SHARD_FEAT_RUN_ID is shardrec's own and never reaches the
 * output (merge_run__features), so perf's rules do not apply to it.
 */
static int check_header(struct merger *m, const char *path)
{
	const char *why;
	int feat;

	if (!pfile_check__events(&m->hdr, &why)) {
		snprintf(m->err, m->errlen, "%s: damaged attrs (%s): nothing to merge", path, why);
		return -EINVAL;
	}
	for (feat = 0; feat < PFILE_FEAT_BITS; feat++) {
		const struct pfile_featset *fs = &m->hdr.feats;

		if (feat == PFILE_FEAT_AUXTRACE || feat == SHARD_FEAT_RUN_ID ||
		    !pfile_featset__has(fs, feat) ||
		    pfile_check__feature(&m->hdr, feat, fs->sec[feat].data, fs->sec[feat].size, &why))
			continue;
		snprintf(m->err, m->errlen, "%s: damaged feature section %d (%s): %s", path, feat, why,
			 m->o->recover ? "dropped it" : "run with --recover to drop it");
		if (!m->o->recover)
			return -EBADMSG;
		pfile_featset__unset(&m->hdr.feats, feat);
		m->st->dropped_features++;
	}
	return pfile_check__init(&m->chk, &m->hdr);
}

static int gen_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/*
 * Adds generation @g to @gens, which holds @kept of at most @cap: the
 * lowest @cap stay, whatever order readdir (the file system's) gives.
 */
static void gens_keep_lowest(unsigned *gens, unsigned kept, unsigned cap, unsigned g)
{
	unsigned hi = 0;

	if (kept < cap) {
		gens[kept] = g;
		return;
	}
	for (unsigned i = 1; i < cap; i++)
		if (gens[i] > gens[hi])
			hi = i;
	if (g < gens[hi])
		gens[hi] = g;
}

/*
 * A rotated recording's top directory holds one directory per generation
 * (FILE.shards/N, each with its header.data): the first few numbers into
 * @buf, lowest first. How many there are.
 */
static unsigned rotated_gens(struct merger *m, char *buf, size_t len)
{
	DIR *d = fdopendir(dup(m->dirfd));
	unsigned n = 0, gens[8];
	struct dirent *de;
	size_t used = 0;

	if (!d)
		return 0;
	rewinddir(d);
	while ((de = readdir(d))) {
		char hdr[300];

		if (!de->d_name[0] || strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(hdr, sizeof(hdr), "%s/header.data", de->d_name);
		if (faccessat(m->dirfd, hdr, F_OK, AT_SYMLINK_NOFOLLOW))
			continue;
		gens_keep_lowest(gens, n++, 8, strtoul(de->d_name, NULL, 10));
	}
	closedir(d);
	qsort(gens, n < 8 ? n : 8, sizeof(*gens), gen_cmp);
	buf[0] = '\0';
	for (unsigned i = 0; i < n && i < 8 && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? " " : "", gens[i]);
	if (n > 8 && used < len)
		snprintf(buf + used, len - used, " ...");
	return n;
}

static int open_header(struct merger *m)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/header.data", m->o->dir);
	err = pfile__openat(&m->hdr, m->dirfd, "header.data", PFILE_IN_NOFOLLOW, path, m->err,
			    m->errlen);
	/*
	 * The session completes header.data before any writer starts, and a
	 * finished run removes it first: either way no shard can be merged.
	 */
	if (err == -ENOENT) {
		char gens[128];

		if (rotated_gens(m, gens, sizeof(gens))) {
			snprintf(m->err, m->errlen, "%s holds the generations of a rotated recording "
				 "(%s), each one file: merge each, e.g. shardrec merge%s %s/N -o %s.N",
				 m->o->dir, gens, m->o->recover ? " --recover" : "", m->o->dir,
				 m->o->output ? m->o->output : "FILE");
			return err;
		}
	}
	if (err == -ENOENT || err == -EINVAL) {
		size_t n = strlen(m->err);

		snprintf(m->err + n, m->errlen - n, " (%s; nothing to merge)",
			 err == -ENOENT ? "the recorder stopped before recording began, or a "
					  "finished run already removed the directory"
					: "incomplete or damaged: a recorder killed this early had "
					  "recorded nothing yet");
	}
	if (err)
		return err;
	if (!m->hdr.nr_events) {
		snprintf(m->err, m->errlen, "%s: no events", path);
		return -EINVAL;
	}
	err = check_header(m, path);
	if (err)
		return err;
	pfile_idlayout__init(&m->layout, m->hdr.events[0].attr.sample_type,
			     m->hdr.events[0].attr.sample_id_all);
	for (size_t e = 0; e < m->hdr.nr_events; e++)
		m->dumps |= m->hdr.events[e].attr.write_backward;
	m->st->nr_events = m->hdr.nr_events;
	m->st->samples_per_event = calloc(m->hdr.nr_events, sizeof(uint64_t));
	return m->st->samples_per_event ? 0 : -ENOMEM;
}

/*
 * FILE.partial, locked (flock) until it has become FILE: two merges to one
 * output (both publishing, one unlinking the other's file as stale) left
 * none. The second one now fails at once. The lock is taken on the inode
 * the name still holds: one renamed to FILE meanwhile is published, not
 * stale. A .partial nobody holds is a dead merge's: emptied and reused; a
 * symbolic link there is removed, not followed.
 */
static int open_output(struct merger *m, char *tmp, size_t len)
{
	struct stat fs, ps;
	int err = 0;

	snprintf(tmp, len, "%s.partial", m->o->output);
	for (int tries = 0; tries < 8; tries++) {
		m->out_fd = open(tmp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		/* A link there is no merge's (ours are files): planted, it goes, never followed. */
		if (m->out_fd < 0 && errno == ELOOP && !unlink(tmp))
			continue;
		if (m->out_fd < 0)
			break;
		if (flock(m->out_fd, LOCK_EX | LOCK_NB)) {
			err = errno == EWOULDBLOCK ? -EBUSY : -errno;
			break;
		}
		if (!fstat(m->out_fd, &fs) && !stat(tmp, &ps) && fs.st_ino == ps.st_ino &&
		    fs.st_dev == ps.st_dev)
			return ftruncate(m->out_fd, 0) ? -errno : 0;
		close(m->out_fd); /* renamed away while we waited: take the new name */
		m->out_fd = -1;
	}
	if (!err)
		err = m->out_fd < 0 ? -errno : -EBUSY;
	if (m->out_fd >= 0)
		close(m->out_fd);
	m->out_fd = -1;
	if (err == -EBUSY)
		snprintf(m->err, m->errlen, "%s: another merge is writing %s (one merge to one "
			 "output)", tmp, m->o->output);
	else
		snprintf(m->err, m->errlen, "%s: %s", tmp, strerror(-err));
	return err;
}

static void merger_release(struct merger *m)
{
	while (m->nr_rheap)
		run_free(m->rheap[--m->nr_rheap]);
	free(m->rheap);
	free(m->chunks.v);
	for (size_t i = 0; i < m->nr_shards; i++)
		shard_reader__close(&m->shards[i].r);
	free(m->shards);
	pheap__release(&m->sheap);
	while (m->fheap.n) {
		struct mframe *f = pheap__pop(&m->fheap);

		pass_put(f->pass);
		free(f);
	}
	pheap__release(&m->fheap);
	if (m->dec)
		m->o->dec->delete(m->dec);
	free(m->scratch);
	free(m->auxidx);
	free(m->cpu_sw_id);
	merge_out__release(&m->out);
	merger__spare_release(m); /* after the last pass_put: merge_out__release's */
	if (m->hits)
		m->o->hits->delete(m->hits);
	merge_run__release(m);
	pfile_check__release(&m->chk);
	pfile__close(&m->hdr);
	if (m->dirfd >= 0)
		close(m->dirfd);
	if (m->out_fd >= 0)
		close(m->out_fd);
}

static int merger_init(struct merger *m)
{
	int err;

	/*
	 * The recorder's own fd when it gives one: the directory it created,
	 * even if another was put in its place during the run (issue 20).
	 */
	if (m->o->have_dirfd)
		m->dirfd = fcntl(m->o->dirfd, F_DUPFD_CLOEXEC, 0);
	else
		m->dirfd = open(m->o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (m->dirfd < 0) {
		err = -errno;
		snprintf(m->err, m->errlen, "%s: %s", m->o->dir, strerror(errno));
		return err;
	}
	err = open_header(m);
	if (!err)
		err = open_shards(m);
	/* A live recording's tail files are written at its end: checked then. */
	if (!err && !m->o->live)
		err = merge_run__check(m);
	if (err)
		return err;
	if (m->o->dec) {
		m->dec = m->o->dec->new();
		if (!m->dec)
			return -ENOMEM;
	}
	/*
	 * A compressed file gets no build ids, as perf record -z writes none
	 * ("Compression enabled, disabling build id collection"): perf inject's
	 * decompressed copy has none either, and with them on one side only
	 * perf resolved a sample's DSO differently in the two and broke a
	 * callchain tie the other way (its zstd_comp_decomp test, 3 of 60 runs).
	 */
	if (m->o->build_ids && m->o->hits && !m->frames) {
		m->hits = m->o->hits->new(&m->layout);
		if (!m->hits)
			return -ENOMEM;
	}
	return 0;
}

/* run_file: records went out of order, and a wider window places them: merge again. */
#define MERGE_AGAIN 1
#define MERGE_TRIES 3

/*
 * The file: written under a temporary name, published whole. With
 * @may_retry, a file with late records is not published: MERGE_AGAIN.
 */
static int run_file(struct merger *m, bool may_retry)
{
	char tmp[4096];
	int ret = open_output(m, tmp, sizeof(tmp));

	if (ret)
		return ret;
	ret = write_file(m);
	merge_out__release(&m->out); /* its writer is done before the fd closes */
	if (!ret && may_retry && m->st->late && m->need_slack) {
		close(m->out_fd); /* FILE.partial stays: the next try truncates it */
		m->out_fd = -1;
		return MERGE_AGAIN;
	}
	/*
	 * Complete or absent: on disk before it takes the output's name.
	 * fdatasync: the data and what reading it back needs (size, blocks),
	 * not the timestamps; most of it is on disk already (out_writeback).
	 */
	if (!ret && fdatasync(m->out_fd))
		ret = -errno;
	/* Published under the lock (open_output): nobody takes the inode for stale. */
	if (!ret)
		ret = merge__publish(tmp, m->o->output);
	if (ret)
		unlink(tmp);
	if (close(m->out_fd) && !ret)
		ret = -errno;
	m->out_fd = -1;
	return ret;
}

/*
 * One merge with a window of *@slack; MERGE_AGAIN (@may_retry) sets
 * *@slack to the window the late records need. *@lag: the widest lag seen.
 */
static int merge_once(const struct merge_opts *o, struct merge_stats *st, char *err,
		      size_t errlen, uint64_t *slack, uint64_t *lag, bool may_retry)
{
	struct merger m = {.o = o, .st = st, .err = err, .errlen = errlen, .dirfd = -1, .out_fd = -1,
			   .tail_raw = {.fd = -1}, .tail_synth = {.fd = -1}};
	int ret;

	merge_stats__release(st);
	memset(st, 0, sizeof(*st));
	m.hdr.fd = -1;
	err[0] = 0;
	m.slack = *slack;
	ret = merger_init(&m);
	if (!ret)
		ret = o->pipe ? merge_pipe__write(&m) : run_file(&m, may_retry);
	st->window_ns = m.slack;
	/* A wider window sees no lag: the first try's measure stands. */
	st->lag_ns = m.need_slack > *lag ? m.need_slack : *lag;
	*lag = st->lag_ns;
	/* Over the lag by half, and by the usual window for what the first try never saw. */
	if (ret == MERGE_AGAIN)
		*slack = m.need_slack + m.need_slack / 2 + MERGE_SLACK_NS;
	/* A note on success only: a failure's message must win. */
	if (!ret && m.unknown_ids)
		snprintf(err, errlen,
			 "dropped %llu records whose sample id belongs to no event of this "
			 "recording (perf would abort on them)",
			 (unsigned long long)m.unknown_ids);
	else if (!ret && st->relabeled)
		snprintf(err, errlen,
			 "%llu samples carried the id of another recording's event on their CPU "
			 "(the kernel does that when two recordings share a software event or "
			 "tracepoint): given back their CPU's event's id",
			 (unsigned long long)st->relabeled);
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s: %s", o->output, strerror(-ret));
	merger_release(&m);
	return ret;
}

/*
 * A file whose records came out of order (a CPU that published late, past
 * the window) is merged again with a window wide enough for them: the
 * first try measured how late they were (note_lag). Lags are a property
 * of the shards, so the second try places them; a third is the margin.
 */
int merge__run(const struct merge_opts *o, struct merge_stats *st, char *err, size_t errlen)
{
	uint64_t slack = o->slack_ns ? o->slack_ns : MERGE_SLACK_NS, lag = 0;
	double t0 = clock__now_s();
	int ret, tries = 1;

	st->samples_per_event = NULL;
	while ((ret = merge_once(o, st, err, errlen, &slack, &lag, tries < MERGE_TRIES)) == MERGE_AGAIN)
		tries++;
	st->seconds = clock__now_s() - t0;
	return ret;
}

bool merge_stats__late_note(const struct merge_stats *st, char *buf, size_t len)
{
	if (st->late)
		snprintf(buf, len, "%llu records arrived later than the merge window and are out "
			 "of order", (unsigned long long)st->late);
	else if (st->lag_ns)
		snprintf(buf, len, "a CPU published records up to %.1f ms after later ones (a "
			 "stalled CPU or vCPU): merged with a %.1f ms window, in order",
			 st->lag_ns / 1e6, st->window_ns / 1e6);
	return st->late || st->lag_ns;
}

void merge_stats__release(struct merge_stats *st)
{
	free(st->samples_per_event);
	st->samples_per_event = NULL;
}

/* perf's rm_rf_perf_data: a directory of data and data.N files only. */
static bool perf_data_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ours = d != NULL;

	while (ours && (e = readdir(d))) {
		const char *n = e->d_name;

		ours = !strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "data") ||
		       (!strncmp(n, "data.", 5) && n[5] && strspn(n + 5, "0123456789") == strlen(n + 5));
	}
	if (d)
		closedir(d);
	return ours;
}

static int remove_perf_data_dir(const char *dir)
{
	char path[4096 + 64];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	return rmdir(dir) ? -errno : 0;
}

/*
 * FILE.old out of the way of a rename onto it, as perf's check_backup
 * does with rm_rf_perf_data: a file is simply replaced by the rename, a
 * directory goes when it is perf's, else -ENOTEMPTY.
 */
static int clear_old(const char *old)
{
	struct stat sb;

	if (lstat(old, &sb) || !S_ISDIR(sb.st_mode))
		return 0;
	return perf_data_dir(old) ? remove_perf_data_dir(old) : -ENOTEMPTY;
}

int merge__publish(const char *tmp, const char *path)
{
	char old[4096];
	struct stat sb;

	if (!lstat(path, &sb) && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))) {
		int ret;

		snprintf(old, sizeof(old), "%s.old", path);
		ret = clear_old(old);
		if (ret)
			return ret;
		if (rename(path, old))
			return -errno;
	}
	if (rename(tmp, path))
		return -errno;
	return 0;
}

/* The target of link @path into @out, relative to the link's directory. 0 / -errno. */
static int read_link(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	char target[4096];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	int w;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (target[0] == '/' || !slash)
		w = snprintf(out, len, "%s", target);
	else
		w = snprintf(out, len, "%.*s%s", (int)(slash - path) + 1, path, target);
	return w >= 0 && w < (int)len ? 0 : -ENAMETOOLONG;
}

int merge__resolve_output(const char *path, char *out, size_t len)
{
	char cur[4096], next[4096];
	struct stat sb;
	int ret;

	if (lstat(path, &sb) || !S_ISLNK(sb.st_mode) ||
	    (!stat(path, &sb) && !(S_ISREG(sb.st_mode) && !sb.st_size)))
		return snprintf(out, len, "%s", path) < (int)len ? 0 : -ENAMETOOLONG;
	/*
	 * Through every link to the name perf's open would create or truncate:
	 * /dev/stdout -> /proc/self/fd/1 -> the file the shell redirected to
	 * (FILE.partial beside a /proc link could not be created).
	 */
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 8 && !lstat(cur, &sb) && S_ISLNK(sb.st_mode); hops++) {
		ret = read_link(cur, next, sizeof(next));
		if (ret)
			return ret;
		memcpy(cur, next, sizeof(cur));
	}
	return snprintf(out, len, "%s", cur) < (int)len ? 0 : -ENAMETOOLONG;
}

/*
 * Where no file of ours may go: what @path names is a device, FIFO or
 * socket (the merge writes FILE.partial and renames it over FILE: as root,
 * -o /dev/null replaced the device with a regular file), or it would be
 * created in /dev, /proc or /sys. -EINVAL with one line, else 0.
 */
static int check_output_kind(const char *path, char *err, size_t errlen)
{
	static const char *const pseudo[] = {"/dev/", "/proc/", "/sys/"};
	const char *what = NULL;
	struct stat sb;

	if (!stat(path, &sb) && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
		what = S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
		       : S_ISFIFO(sb.st_mode) ? "a FIFO or pipe" : "not a file";
	for (size_t i = 0; !what && i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strncmp(path, pseudo[i], strlen(pseudo[i])) && strncmp(path, "/dev/shm/", 9))
			what = "in a directory of devices or kernel files";
	if (!what)
		return 0;
	snprintf(err, errlen, "-o %s: %s, where the merge cannot write FILE.partial and rename "
		 "it; to stream the output, use -o - (e.g. -o - >%s)", path, what, path);
	return -EINVAL;
}

/*
 * The merge renames an existing FILE to FILE.old: in a sticky directory
 * (/tmp) only FILE's or the directory's owner may. Said before recording,
 * not after it. Root's CAP_FOWNER passes; a capability install does not
 * have it.
 */
static int check_output_rename(const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat sb, db;
	uid_t me = geteuid();

	if (lstat(path, &sb) || S_ISDIR(sb.st_mode) || !me)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (stat(dir, &db) || !(db.st_mode & S_ISVTX) || sb.st_uid == me || db.st_uid == me)
		return 0;
	snprintf(err, errlen, "%s belongs to another user in a sticky directory: the merge could "
		 "not move it to %s.old (remove it or choose another -o)", path, path);
	return -EPERM;
}

int merge__prepare_output(const char *path, char *err, size_t errlen)
{
	char old[4096];
	struct stat sb, ob;
	int ret = check_output_kind(path, err, errlen);

	if (!ret)
		ret = check_output_rename(path, err, errlen);
	if (ret || lstat(path, &sb))
		return ret;
	if (snprintf(old, sizeof(old), "%s.old", path) >= (int)sizeof(old))
		return -ENAMETOOLONG;
	/* A file or link is moved at the merge (merge__publish): FILE.old must be clearable then. */
	if (!S_ISDIR(sb.st_mode) && (stat(path, &sb) || !S_ISDIR(sb.st_mode))) {
		if (!lstat(old, &ob) && S_ISDIR(ob.st_mode) && !perf_data_dir(old))
			ret = -ENOTEMPTY;
	} else {
		/* A directory renames onto a directory only: an old file goes first. */
		if (!lstat(old, &ob) && !S_ISDIR(ob.st_mode))
			ret = unlink(old) ? -errno : 0;
		if (!ret)
			ret = clear_old(old);
		if (!ret && rename(path, old))
			ret = -errno;
	}
	if (ret == -ENOTEMPTY)
		snprintf(err, errlen, "%s is a directory holding more than perf data: cannot move %s "
			 "out of the way (remove %s or choose another -o)", old, path, old);
	else if (ret)
		snprintf(err, errlen, "%s is a directory: cannot move it to %s: %s", path, old,
			 strerror(-ret));
	return ret;
}
