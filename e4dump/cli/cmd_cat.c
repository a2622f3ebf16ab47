/* e4dump cat: a file's contents (or a symlink's target), decrypted, to
 * standard output or -o FILE; --json (with -o FILE) a record of what was
 * written with its hashes. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bigmem.h"
#include "commands.h"
#include "dir.h"
#include "escape.h"
#include "file.h"
#include "filewriter.h"
#include "linkfacts.h"
#include "jsonout.h"
#include "kdf.h"
#include "manifest.h"
#include "record.h"
#include "session.h"

static int write_zeros(FILE *out, uint64_t n)
{
	static const uint8_t zeros[65536];

	while (n) {
		size_t k = n > sizeof(zeros) ? sizeof(zeros) : (size_t)n;

		if (fwrite(zeros, 1, k, out) != k)
			return -1;
		n -= k;
	}
	return 0;
}

/* What one cat came to (its --json record). */
struct catrun {
	FILE *out;              /* standard output, or -o FILE */
	uint64_t bytes;         /* written */
	uint64_t unreadable;    /* blocks written as zeros */
	int opened;             /* the file could be opened */
	int failed;             /* not all of it was written */
};

struct cat {
	FILE *out;
	uint64_t pos;   /* bytes written so far */
	int failed;
};

static int sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct cat *c = arg;

	if ((off > c->pos && write_zeros(c->out, off - c->pos)) ||
	    fwrite(data, 1, len, c->out) != len) {
		c->failed = 1;
		return 1;
	}
	c->pos = off + len;
	return 0;
}

/* The blocks a handle could not read (written as zeros): reported;
 * their count. */
static uint64_t report_unreadable(struct report *r, const char *path, struct e4_file *f,
				  uint32_t ino)
{
	const struct e4_lblk_range *v;
	size_t n;
	uint64_t bad = e4_file_unreadable(f, &v, &n);
	char *text;

	if (!bad)
		return 0;
	text = ranges_text(v, n, bad);
	report_error_at(r, path, ino, "%" PRIu64 " blocks cannot be read (file blocks %s): written as zeros",
			bad, text ? text : "?");
	free(text);
	return bad;
}

/* Large files are read in segments by reader threads, each segment
 * k by reader k % readers into one of its two slots, while the main
 * thread writes them out in order. */
#define SEGMENT (2u << 20)
#define MIN_PARALLEL (4 * SEGMENT)
#define MAX_READERS 16
#define READBUF (512 * 1024)

struct reader {
	struct par *p;
	unsigned int index;
	struct e4_file *f;          /* its own handle */
	pthread_t thread;
	uint8_t *slot[2];
	size_t len[2];              /* bytes in a filled slot */
	int state[2];               /* EMPTY, FULL or FAILED */
};

enum { EMPTY, FULL, FAILED };

struct par {
	struct e4_fs *fs;
	struct report *report;      /* unreadable blocks, when stopped */
	struct catrun *run;         /* where it goes, what it came to */
	const char *path;
	uint32_t ino;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	uint64_t size, segments;
	unsigned int readers;
	int stop;                   /* the writer gave up */
	struct reader r[MAX_READERS];
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct par *p = rd->p;
	struct e4_readbuf *rb = NULL;
	int failed = 0, stop;

	e4_readbuf_new(p->fs, READBUF, &rb); /* without: the handle's own */

	for (uint64_t k = rd->index; k < p->segments; k += p->readers) {
		int s = (int)((k / p->readers) % 2);
		uint64_t off = k * SEGMENT;
		size_t want = p->size - off < SEGMENT ? (size_t)(p->size - off) : SEGMENT;
		size_t got = 0;

		pthread_mutex_lock(&p->lock);
		while (rd->state[s] != EMPTY && !p->stop)
			pthread_cond_wait(&p->changed, &p->lock);
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		failed = (rb ? e4_file_pread_buf(rd->f, rb, off, rd->slot[s], want, &got) :
			  e4_file_pread(rd->f, off, rd->slot[s], want, &got)) != E4_OK ||
			 got != want;
		pthread_mutex_lock(&p->lock);
		rd->len[s] = got;
		rd->state[s] = failed ? FAILED : FULL;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		if (failed)
			break;
	}
	e4_readbuf_free(rb);
	return NULL;
}

/* Stop the readers (the first started of them run) and free them. */
static void par_stop(struct par *p, unsigned int started)
{
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < p->readers; i++) {
		if (i < started)
			pthread_join(p->r[i].thread, NULL);
		for (int s = 0; s < 2; s++) {
			if (p->r[i].slot[s])
				e4_wipe(p->r[i].slot[s], SEGMENT);
			e4_big_free(p->r[i].slot[s], SEGMENT);
		}
		if (p->r[i].f)
			p->run->unreadable += report_unreadable(p->report, p->path,
								p->r[i].f, p->ino);
		e4_file_close(p->r[i].f);
	}
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
}

/* 0 when written, 1 after a failure (reported), -1 when the threads could
 * not be started (nothing written: read it in this thread). */
static int cat_parallel(struct session *s, struct e4_file *f,
			const struct e4_inode *in, const char *path,
			unsigned int readers, struct catrun *run)
{
	struct e4_fs *fs = s->fs;
	uint64_t size = in->size;
	struct par *p = calloc(1, sizeof(*p));
	int rc = 0, started = 0;

	if (!p || pthread_mutex_init(&p->lock, NULL)) {
		free(p);
		return -1;
	}
	pthread_cond_init(&p->changed, NULL);
	p->fs = fs;
	p->report = s->report;
	p->run = run;
	p->path = path;
	p->ino = in->ino;
	p->size = size;
	p->segments = (size + SEGMENT - 1) / SEGMENT;
	/* every reader is made before any starts: each reads p->readers */
	p->readers = readers;
	for (unsigned int i = 0; i < readers; i++) {
		struct reader *rd = &p->r[i];

		rd->p = p;
		rd->index = i;
		/* one huge page each: no 4 KiB faults on first use */
		rd->slot[0] = e4_big_realloc(NULL, 0, SEGMENT);
		rd->slot[1] = e4_big_realloc(NULL, 0, SEGMENT);
		if (!rd->slot[0] || !rd->slot[1] || e4_file_dup(f, &rd->f) != E4_OK)
			started = -1;
	}
	for (unsigned int i = 0; i < readers && started >= 0; i++) {
		if (pthread_create(&p->r[i].thread, NULL, reader_main, &p->r[i]))
			break;
		started++;
	}
	if (started < (int)readers) {
		/* nothing is written yet: the caller reads it alone */
		par_stop(p, started < 0 ? 0 : (unsigned int)started);
		free(p);
		return -1;
	}
	for (uint64_t k = 0; k < p->segments && !rc; k++) {
		struct reader *rd = &p->r[k % p->readers];
		int s = (int)((k / p->readers) % 2), state;

		pthread_mutex_lock(&p->lock);
		while (rd->state[s] == EMPTY)
			pthread_cond_wait(&p->changed, &p->lock);
		state = rd->state[s];
		pthread_mutex_unlock(&p->lock);
		if (state == FAILED ||
		    fwrite(rd->slot[s], 1, rd->len[s], run->out) != rd->len[s])
			rc = 1;
		else
			run->bytes += rd->len[s];
		pthread_mutex_lock(&p->lock);
		rd->state[s] = EMPTY;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
	par_stop(p, p->readers);
	free(p);
	return rc;
}

static void cat_file(struct session *s, const struct options *o,
		     const struct e4_inode *in, const char *path, struct catrun *run)
{
	struct e4_file *f;
	struct cat c = { run->out, 0, 0 };
	unsigned int extra = session_extra_threads(s, o, MAX_READERS);

	if (e4_file_open(s->fs, in, path, &f) != E4_OK)
		return; /* reported */
	run->opened = 1;
	/* an unreadable block costs that block only */
	e4_file_keep_going(f);
	if (extra && in->size >= MIN_PARALLEL &&
	    (run->failed = cat_parallel(s, f, in, path, extra + 1 > MAX_READERS ?
					MAX_READERS : extra + 1, run)) >= 0) {
		e4_file_close(f);
		return;
	}
	run->failed = 0;
	if (e4_file_stream(f, sink, &c) != E4_OK)
		c.failed = 1;
	else if (!c.failed && c.pos < in->size && write_zeros(run->out, in->size - c.pos))
		c.failed = 1;
	else if (!c.failed)
		c.pos = in->size;
	run->bytes = c.pos;
	run->failed = c.failed;
	run->unreadable += report_unreadable(s->report, path, f, in->ino);
	e4_file_close(f);
}

/* --json: the record of what was read and written (record.h), with the
 * hashes of what was written when it went to a file (-o). */
static void cat_record(struct session *s, const struct options *o, const char *path,
		       uint32_t ino, const struct e4_inode *in, const struct catrun *run,
		       const char *status)
{
	struct record rec;
	char *shown = malloc(E4_ESCAPE_SIZE(strlen(path))), hashes[MANIFEST_HASHES];
	json_object *j = NULL;

	record_init(&rec, "cat");
	rec.status = status;
	if (shown) {
		e4_escape((const uint8_t *)path, strlen(path), shown, 0);
		if (!record_from_inode(&rec, s, ino, in, shown) &&
		    !record_set_output(&rec, o->out_dir)) {
			if (o->out_dir && !fflush(run->out) &&
			    !manifest_hash(fileno(run->out), run->bytes, hashes))
				record_set_hashes(&rec, "plaintext", hashes);
			j = record_json(&rec);
		}
	}
	if (j) {
		json_object_object_add(j, "bytes", json_object_new_uint64(run->bytes));
		json_object_object_add(j, "unreadable_blocks",
				       json_object_new_uint64(run->unreadable));
	}
	json_emit(j);
	record_free(&rec);
	free(shown);
}

/* -o FILE: a new file (never one that exists: not the image, not evidence) */
static FILE *open_out(const char *name, struct report *r)
{
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;

	if (!f) {
		report_error(r, "%s: cannot create: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int cmd_cat(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_inode in;
	const char *path = o->args[1];
	struct catrun run = { stdout, 0, 0, 0, 0 };
	const char *status = "error";
	uint32_t ino = 0;
	int rc, found = 0;

	if (o->json && !o->out_dir) {
		report_error(r, "cat --json needs -o FILE: standard output carries the records");
		return json_finish(1, "cat", r, EXIT_FATAL);
	}
	rc = session_open(&s, o, r, 0);
	if (!rc && o->out_dir && !(run.out = open_out(o->out_dir, r))) {
		session_close(&s);
		rc = EXIT_FATAL;
	}
	if (rc)
		return json_finish(o->json, "cat", r, rc);
	if (e4_path_lookup(s.fs, path, &ino) == E4_OK &&
	    e4_inode_read(s.fs, ino, path, &in) == E4_OK) {
		found = 1;
		if (E4_ISREG(in.mode)) {
			cat_file(&s, o, &in, path, &run);
			status = !run.opened ? (inode_locked(&s, &in) ? "locked" : "error") :
				 run.failed ? "error" : run.unreadable ? "partial" : "complete";
		} else if (E4_ISLNK(in.mode)) {
			char *target;
			size_t len;

			if (e4_symlink_read(s.fs, &in, path, &target, &len) == E4_OK) {
				fwrite(target, 1, len, run.out);
				run.bytes = len;
				status = "complete";
				free(target);
			} else if (inode_locked(&s, &in)) {
				status = "locked";
			}
		} else {
			report_error(r, "%s (inode %u): not a regular file or symlink",
				     path, ino);
			status = "skipped";
		}
	}
	if (run.out != stdout && fflush(run.out)) {
		report_error(r, "%s: write failed: %s", o->out_dir, strerror(errno));
		status = "error";
	}
	rc = session_status(&s);
	if (strcmp(status, "complete"))
		rc = rc > EXIT_SKIPPED ? rc : EXIT_SKIPPED;
	if (o->json) {
		if (ino)
			cat_record(&s, o, path, ino, found ? &in : NULL, &run, status);
		json_emit(json_summary("cat", r, rc));
	}
	if (run.out != stdout && fclose(run.out)) {
		report_error(r, "%s: write failed: %s", o->out_dir, strerror(errno));
		rc = EXIT_FATAL;
	}
	/* nothing read: no empty FILE left to be taken for the file */
	if (run.out != stdout && !run.bytes && strcmp(status, "complete"))
		unlink(o->out_dir);
	session_close(&s);
	return finish_stdout(rc, r);
}
