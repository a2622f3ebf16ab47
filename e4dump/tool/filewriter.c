/* extract's file writer (filewriter.h).  The queue is a ring of jobs
 * under one mutex, which each side takes once per batch of jobs, and each
 * wakes the other only when it is asleep and there is enough to do: a run
 * of small files costs few futex calls. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "filewriter.h"
#include "record.h"
#include "jsonout.h"

/* Jobs moved between the threads under one lock. */
#define BATCH 16
/* Each writer's read buffers (e4_readbuf). */
#define READBUF (512 * 1024)

struct filewriter {
	struct e4_fs *fs;
	struct outdir *od;
	struct report *r;
	unsigned int threads;       /* writer threads (0: none) */
	pthread_t thread[FILEWRITER_MAX_THREADS];
	pthread_mutex_t lock;
	pthread_cond_t work;        /* the writer waits here */
	pthread_cond_t progress;    /* the submitter waits here */
	struct file_job stage[BATCH]; /* submitted, not yet in the ring */
	unsigned int staged;
	struct file_job *ring;
	unsigned int cap, head, count;
	struct file_job *done;      /* run, to be freed by the caller */
	unsigned int done_cap, done_count;
	unsigned int running;       /* writers holding jobs */
	unsigned int writers_idle;
	int caller_waiting, stopping;
	struct filewriter_totals totals;
	struct e4_readbuf *rb;      /* without threads: the caller's */
};

struct sink {
	struct outdir *od;
	int fd;
	uint64_t end;               /* where the written data ends */
	uint64_t bytes;             /* counted against od->max_output */
	int capped;                 /* refused by it */
};

int pwrite_all(int fd, const uint8_t *data, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, data, len, (off_t)off);

		if (n <= 0)
			return 1;
		data += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int file_sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct sink *s = arg;

	if (off + len > s->end)
		s->end = off + len;
	switch (outdir_write(s->od, s->fd, data, len, off)) {
	case 0:
		break;
	case 2:
		s->capped = 1;
		/* fall through */
	default:
		return 1;
	}
	s->bytes += len;
	return 0;
}

char *ranges_text(const struct e4_lblk_range *v, size_t n, uint64_t total)
{
	size_t cap = n * 42 + 8, len = 0;
	uint64_t listed = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	t[0] = 0;
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(t + len, cap - len, v[i].len > 1 ?
					"%s%" PRIu64 "-%" PRIu64 : "%s%" PRIu64,
					i ? "," : "", v[i].lblk,
					v[i].lblk + v[i].len - 1);
		listed += v[i].len;
	}
	if (total > listed)
		snprintf(t + len, cap - len, "%s...", n ? "," : "");
	return t;
}

void report_max_output(struct report *r, const struct outdir *od,
		       const char *path, uint32_t ino, uint64_t size)
{
	report_error_at(r, path, ino, "not written: its %" PRIu64 " bytes would take the files "
			"written past --max-output %" PRIu64 " (by default the image's size, "
			"which a sound image's files never pass); blocks claimed more than once? "
			"(e4dump verify: block.multiply_claimed)", size, od->max_output);
}

void report_shared_blocks(struct report *r, const struct file_job *job)
{
	uint64_t pblk, a, b, n = e4_file_shared_blocks(job->file, &pblk, &a, &b);

	if (n)
		report_error_at(r, job->path, job->ino, "its block map claims blocks more than once: %" PRIu64
				" of its file blocks map a block another of them maps (block %"
				PRIu64 " is file blocks %" PRIu64 " and %" PRIu64
				"); ext4 maps each block once",
				n, pblk, a, b);
}

/* The record of a job: its status, the hashes of what was written (when
 * it was), and the blocks missing; emitted. */
static void emit_record(struct file_job *job, const char *status,
			const char *hashes, uint64_t bad, const char *ranges)
{
	if (!job->rec)
		return;
	if (hashes)
		json_object_object_add(job->rec, "hashes",
				       record_hashes_json("plaintext", hashes, status));
	json_object_object_add(job->rec, "status", json_object_new_string(status));
	json_object_object_add(job->rec, "unreadable_blocks", json_object_new_uint64(bad));
	json_object_object_add(job->rec, "unreadable",
			       ranges ? json_object_new_string(ranges) : NULL);
	json_emit(job->rec);
	job->rec = NULL;
}

/* Large files: written in segments of this many bytes, each taken by
 * the next thread free; from this size on. */
#define PART_SEGMENT (2u << 20)
#define PART_MIN (4 * PART_SEGMENT)

void filewriter_add_parts(struct filewriter *w, struct file_job *job)
{
	struct e4_fs_info info;

	if (!w->threads || job->size < PART_MIN || !e4_fs_concurrent_reads(w->fs))
		return;
	e4_fs_get_info(w->fs, &info);
	for (job->nparts = 0; job->nparts < w->threads &&
	     job->nparts < FILEWRITER_MAX_PARTS - 1; job->nparts++)
		if (e4_file_dup(job->file, &job->part[job->nparts]) != E4_OK)
			break;
	job->fs = w->fs;
	job->part_bs = info.block_size;
	job->part_blocks = PART_SEGMENT / info.block_size ? PART_SEGMENT / info.block_size : 1;
}

/* One thread's share of a file written in parts. */
struct part {
	struct file_job *job;
	struct e4_file *f;
	struct e4_readbuf *rb;      /* the caller's, or NULL: its own */
	uint64_t *next;             /* the next segment to take (shared) */
	int *stop;                  /* a part failed (shared) */
	struct sink s;
	enum e4_status es;
	int err;
	pthread_t thread;
};

static void *part_main(void *arg)
{
	struct part *p = arg;
	struct file_job *job = p->job;
	struct e4_readbuf *own = NULL;
	uint64_t sb = job->part_blocks, blocks, nseg, k;

	blocks = job->size / job->part_bs + (job->size % job->part_bs != 0);
	nseg = blocks / sb + (blocks % sb != 0);
	/* without a buffer of its own, e4_file_stream_part uses the handle's */
	if (!p->rb && e4_readbuf_new(job->fs, READBUF, &own) == E4_OK)
		p->rb = own;
	p->es = E4_OK;
	while (!__atomic_load_n(p->stop, __ATOMIC_RELAXED) &&
	       (k = __atomic_fetch_add(p->next, 1, __ATOMIC_RELAXED)) < nseg) {
		errno = 0;
		p->es = e4_file_stream_part(p->f, p->rb, k * sb, (k + 1) * sb,
					    file_sink, &p->s);
		if (p->es != E4_OK) {
			p->err = errno;
			__atomic_store_n(p->stop, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	e4_readbuf_free(own);
	return NULL;
}

/* Stream job's file in parts, in job->nparts threads and this one: as
 * one stream would (s: where the data ends, the bytes written, capped;
 * errno: the first failure's). */
static enum e4_status stream_parts(struct file_job *job, struct e4_readbuf *rb,
				   struct sink *s)
{
	struct part p[FILEWRITER_MAX_PARTS];
	uint64_t next = 0;
	unsigned int n = job->nparts + 1, started;
	enum e4_status es = E4_OK;
	int stop = 0, err = 0;

	for (unsigned int i = 0; i < n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].job = job;
		p[i].f = i ? job->part[i - 1] : job->file;
		p[i].rb = i ? NULL : rb;
		p[i].next = &next;
		p[i].stop = &stop;
		p[i].s = *s;
	}
	for (started = 1; started < n; started++)
		if (pthread_create(&p[started].thread, NULL, part_main, &p[started]))
			break; /* the ones started and this one take it all */
	part_main(&p[0]);
	for (unsigned int i = 0; i < started; i++) {
		if (i)
			pthread_join(p[i].thread, NULL);
		if (p[i].s.end > s->end)
			s->end = p[i].s.end;
		s->bytes += p[i].s.bytes;
		s->capped |= p[i].s.capped;
		if (p[i].es != E4_OK && es == E4_OK) {
			es = p[i].es;
			err = p[i].err;
		}
	}
	errno = err;
	return es;
}

static int cmp_range(const void *a, const void *b)
{
	const struct e4_lblk_range *x = a, *y = b;

	return (x->lblk > y->lblk) - (x->lblk < y->lblk);
}

/* The blocks the job's handles could not read: their count, and in
 * *text (malloc'd, or NULL) their ranges in order, merged. */
static uint64_t job_unreadable(const struct file_job *job, char **text)
{
	const struct e4_lblk_range *v;
	struct e4_lblk_range *all = NULL;
	size_t n, nall = 0, cap = 0;
	uint64_t total = 0;

	*text = NULL;
	for (unsigned int i = 0; i <= job->nparts; i++) {
		uint64_t bad = e4_file_unreadable(i ? job->part[i - 1] : job->file, &v, &n);
		struct e4_lblk_range *more;

		if (!bad)
			continue;
		total += bad;
		if (nall + n > cap) {
			cap = (nall + n) * 2;
			more = realloc(all, cap * sizeof(*all));
			if (!more)
				continue;
			all = more;
		}
		memcpy(all + nall, v, n * sizeof(*v));
		nall += n;
	}
	if (!total)
		return 0;
	if (all)
		qsort(all, nall, sizeof(*all), cmp_range);
	/* one range where a part's ended and the next one's begins */
	n = 0;
	for (size_t i = 0; i < nall; i++) {
		if (n && all[n - 1].lblk + all[n - 1].len == all[i].lblk)
			all[n - 1].len += all[i].len;
		else
			all[n++] = all[i];
	}
	nall = n;
	*text = ranges_text(all, nall, total);
	free(all);
	return total;
}

int file_job_run(struct outdir *od, struct report *r, struct file_job *job,
		 struct e4_readbuf *rb)
{
	struct sink s = { od, job->out.fd, 0, 0, 0 };
	char hashes[MANIFEST_HASHES] = "", *ranges = NULL;
	enum e4_status es;
	uint64_t unreadable;
	int err;

	report_shared_blocks(r, job);
	errno = 0;
	if (job->nparts)
		es = stream_parts(job, rb, &s);
	else
		es = rb ? e4_file_stream_buf(job->file, rb, file_sink, &s) :
			  e4_file_stream(job->file, file_sink, &s);
	err = errno;
	/* a hole at the end, which the data did not reach */
	if (es == E4_OK && s.end < job->size &&
	    ftruncate(job->out.fd, (off_t)job->size)) {
		err = errno;
		es = E4_STOPPED;
	}
	if (es != E4_OK) {
		outdir_file_abort(&job->out); /* no partial files */
		outdir_unwrite(od, s.bytes);
		if (es == E4_STOPPED && s.capped)
			report_max_output(r, od, job->path, job->ino, job->size);
		else if (es == E4_STOPPED)
			report_error_at(r, job->path, job->ino, "write failed: %s",
				     err == ENOSPC ? "output device full" :
				     strerror(err ? err : EIO));
		emit_record(job, "error", NULL, 0, NULL);
		return -1;
	}
	unreadable = job_unreadable(job, &ranges);
	if (unreadable) {
		report_error_at(r, job->path, job->ino, "%" PRIu64 " blocks cannot be read (file blocks %s): "
				"written as holes, the rest of the file is extracted",
				unreadable, ranges ? ranges : "?");
	}
	/* the hashes of what was written, put in the manifest once the file
	 * is in place */
	if ((job->man || job->rec) && manifest_hash(job->out.fd, job->size, hashes)) {
		report_error_at(r, job->path, job->ino, "%s: cannot hash what was written",
				job->man ? "--manifest" : "--json");
		job->man = NULL;
		hashes[0] = 0;
	}
	/* before the mode: a read-only one would refuse them */
	xattrs_restore(r, job->path, job->ino, job->xattrs, job->xattrs_level,
		       job->out.fd, -1, NULL);
	if (job->chmod)
		fchmod(job->out.fd, job->mode);
	futimens(job->out.fd, job->times);
	if (job->st && fstat(job->out.fd, job->st))
		memset(job->st, 0, sizeof(*job->st));
	if (outdir_file_commit(od, &job->out)) {
		report_error_at(r, job->path, job->ino, "%s: %s",
			     od->force ? "cannot replace" : "write failed",
			     errno == OUTDIR_EIMAGE ? "it is the image being read" :
			     strerror(errno));
		emit_record(job, "error", NULL, 0, NULL);
		free(ranges);
		return -1;
	}
	if (job->man) {
		manifest_write(job->man, job->man_row, hashes, ranges);
		job->man_row = NULL;
	}
	emit_record(job, unreadable ? "partial" : "complete", hashes[0] ? hashes : NULL,
		    unreadable, ranges);
	if (job->st) {
		job->unreadable_out = ranges; /* for the file's other links */
		ranges = NULL;
	}
	free(ranges);
	return unreadable ? 1 : 0;
}

void file_job_free(struct file_job *job)
{
	manifest_row_free(job->man_row);
	job->man_row = NULL;
	if (job->rec)
		json_object_put(job->rec);
	job->rec = NULL;
	free(job->unreadable_out);
	job->unreadable_out = NULL;
	e4_file_close(job->file);
	job->file = NULL;
	for (unsigned int i = 0; i < job->nparts; i++)
		e4_file_close(job->part[i]);
	job->nparts = 0;
	free(job->path);
	job->path = NULL;
	xattrs_set_free(job->xattrs);
	job->xattrs = NULL;
}

/* Up to BATCH jobs from the head of the ring (called under the lock). */
static unsigned int take_batch(struct filewriter *w, struct file_job *batch)
{
	unsigned int n;

	for (n = 0; n < BATCH && w->count; n++) {
		batch[n] = w->ring[w->head];
		batch[n].out.name = batch[n].name;
		w->head = (w->head + 1) % w->cap;
		w->count--;
	}
	return n;
}

static void count(struct filewriter_totals *t, const struct file_job *job, int rc)
{
	if (rc < 0) {
		t->failed++;
		return;
	}
	t->partial += rc > 0;
	t->bytes += job->size;
}

/* Move what a thread counted into the writer's totals (under its lock). */
static void add_totals(struct filewriter_totals *to, struct filewriter_totals *from)
{
	to->failed += from->failed;
	to->partial += from->partial;
	to->bytes += from->bytes;
	memset(from, 0, sizeof(*from));
}

/* What a job allocated is freed in the thread that allocated it (the
 * caller's): freeing across threads contends for malloc's arena locks. */
static void *writer_main(void *arg)
{
	struct filewriter *w = arg;
	struct file_job batch[BATCH];
	unsigned int n = 0;
	struct filewriter_totals t = { 0, 0, 0 };
	struct e4_readbuf *rb = NULL;

	e4_readbuf_new(w->fs, READBUF, &rb); /* without: e4_file_stream */

	pthread_mutex_lock(&w->lock);
	for (;;) {
		add_totals(&w->totals, &t);
		for (unsigned int i = 0; i < n; i++)
			w->done[w->done_count++] = batch[i];
		while (!w->count && !w->stopping) {
			w->writers_idle++;
			if (w->caller_waiting && !w->running)
				pthread_cond_signal(&w->progress);
			pthread_cond_wait(&w->work, &w->lock);
			w->writers_idle--;
		}
		if (!w->count)
			break;
		n = take_batch(w, batch);
		w->running++;
		if (w->caller_waiting && w->count <= w->cap / 2)
			pthread_cond_signal(&w->progress);
		pthread_mutex_unlock(&w->lock);
		for (unsigned int i = 0; i < n; i++)
			count(&t, &batch[i], file_job_run(w->od, w->r, &batch[i], rb));
		pthread_mutex_lock(&w->lock);
		w->running--;
	}
	pthread_mutex_unlock(&w->lock);
	e4_readbuf_free(rb);
	return NULL;
}

/* Free the jobs the writers are done with (called under the lock). */
static void collect(struct filewriter *w)
{
	for (unsigned int i = 0; i < w->done_count; i++)
		file_job_free(&w->done[i]);
	w->done_count = 0;
}

struct filewriter *filewriter_start(struct e4_fs *fs, struct outdir *od,
				    struct report *r, unsigned int threads,
				    unsigned int queue)
{
	struct filewriter *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fs = fs;
	w->od = od;
	w->r = r;
	if (threads > FILEWRITER_MAX_THREADS)
		threads = FILEWRITER_MAX_THREADS;
	if (!threads) {
		e4_readbuf_new(fs, READBUF, &w->rb); /* without: e4_file_stream */
		return w;
	}
	w->cap = queue < 2 * BATCH ? 2 * BATCH : queue;
	w->ring = calloc(w->cap, sizeof(*w->ring));
	/* done (not yet collected) + in the ring + held by writers: at most
	 * what was there at the last collect and one batch published since */
	w->done_cap = w->cap + (threads + 1) * BATCH;
	w->done = calloc(w->done_cap, sizeof(*w->done));
	if (!w->ring || !w->done)
		goto fail;
	if (pthread_mutex_init(&w->lock, NULL))
		goto fail;
	if (pthread_cond_init(&w->work, NULL) ||
	    pthread_cond_init(&w->progress, NULL)) {
		pthread_mutex_destroy(&w->lock);
		goto fail;
	}
	for (; w->threads < threads; w->threads++)
		if (pthread_create(&w->thread[w->threads], NULL, writer_main, w))
			break;
	if (w->threads) {
		/* the caller's, for the batches it runs itself (publish) */
		e4_readbuf_new(fs, READBUF, &w->rb);
		return w;
	}
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->progress);
	pthread_mutex_destroy(&w->lock);
fail:
	/* run without a thread */
	free(w->ring);
	free(w->done);
	w->ring = w->done = NULL;
	e4_readbuf_new(fs, READBUF, &w->rb);
	return w;
}

/* Wake the writer when it sleeps and has enough to do (a quarter of the
 * queue, or everything when the caller is about to wait). */
static void wake_writer(struct filewriter *w, int all)
{
	if (w->writers_idle && w->count && (all || w->count >= w->cap / 4))
		pthread_cond_signal(&w->work);
}

/* Run a batch of the ring in the caller's thread (called under the lock,
 * with jobs in the ring): when the writers are behind (creating, writing
 * and closing files is most of the work), so that the caller's core
 * writes too instead of waiting. */
static void run_here(struct filewriter *w)
{
	struct file_job batch[BATCH];
	unsigned int n = take_batch(w, batch);
	struct filewriter_totals t = { 0, 0, 0 };

	wake_writer(w, 1);
	pthread_mutex_unlock(&w->lock);
	for (unsigned int k = 0; k < n; k++) {
		count(&t, &batch[k], file_job_run(w->od, w->r, &batch[k], w->rb));
		file_job_free(&batch[k]);
	}
	pthread_mutex_lock(&w->lock);
	add_totals(&w->totals, &t);
	collect(w);
}

/* Move the staged jobs into the ring; when it is full, run jobs here. */
static void publish(struct filewriter *w)
{
	unsigned int i = 0;

	pthread_mutex_lock(&w->lock);
	collect(w);
	while (i < w->staged) {
		while (w->count == w->cap)
			run_here(w);
		for (; i < w->staged && w->count < w->cap; i++)
			w->ring[(w->head + w->count++) % w->cap] = w->stage[i];
	}
	w->staged = 0;
	wake_writer(w, 0);
	pthread_mutex_unlock(&w->lock);
}

void filewriter_submit(struct filewriter *w, const struct file_job *job)
{
	if (!w->threads) {
		struct file_job now = *job;

		now.out.name = now.name;
		count(&w->totals, &now, file_job_run(w->od, w->r, &now, w->rb));
		file_job_free(&now);
		return;
	}
	w->stage[w->staged++] = *job;
	if (w->staged == BATCH)
		publish(w);
}

void filewriter_drain(struct filewriter *w)
{
	if (!w->threads)
		return;
	publish(w);
	pthread_mutex_lock(&w->lock);
	while (w->count || w->running) {
		if (w->count) {
			run_here(w);
			continue;
		}
		wake_writer(w, 1);
		w->caller_waiting = 1;
		pthread_cond_wait(&w->progress, &w->lock);
		w->caller_waiting = 0;
	}
	collect(w);
	pthread_mutex_unlock(&w->lock);
}

void filewriter_finish(struct filewriter *w, struct filewriter_totals *t)
{
	memset(t, 0, sizeof(*t));
	if (!w)
		return;
	if (w->threads) {
		filewriter_drain(w);
		pthread_mutex_lock(&w->lock);
		w->stopping = 1;
		pthread_cond_broadcast(&w->work);
		pthread_mutex_unlock(&w->lock);
		for (unsigned int i = 0; i < w->threads; i++)
			pthread_join(w->thread[i], NULL);
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->progress);
		pthread_mutex_destroy(&w->lock);
	}
	*t = w->totals;
	e4_readbuf_free(w->rb);
	free(w->done);
	free(w->ring);
	free(w);
}
