/* extract's file writer: one regular file's data streamed from the image
 * into a created output file, then its mode and times, then put in place.
 * With a thread, the writing overlaps the walk: the walking thread
 * creates the file and opens it in the image (cheap), the writer thread
 * reads, decrypts and writes it (the system calls that cost). */
#ifndef E4DUMP_FILEWRITER_H
#define E4DUMP_FILEWRITER_H

#include <json-c/json.h>
#include <sys/stat.h>
#include <time.h>
#include "file.h"
#include "outdir.h"
#include "manifest.h"
#include "report.h"
#include "xattrs.h"

/* A large file is written in parts by this many threads at most. */
#define FILEWRITER_MAX_PARTS 16

struct file_job {
	struct e4_file *file;       /* file_job_free closes it */
	/* a large file: more handles on it (filewriter_add_parts), each
	 * streaming parts of it in a thread of its own while file does too;
	 * file_job_free closes them */
	struct e4_file *part[FILEWRITER_MAX_PARTS - 1];
	unsigned int nparts;
	struct e4_fs *fs;           /* with parts: their read buffers' */
	uint64_t part_bs;           /* with parts: the block size, */
	uint64_t part_blocks;       /* and blocks in a segment */
	struct out_file out;        /* created; closed by the writer */
	char name[OUTDIR_NAME_MAX]; /* out.name points here when queued */
	char *path;                 /* for messages; file_job_free frees it */
	uint32_t ino;
	uint64_t size;
	struct timespec times[2];   /* atime, mtime */
	mode_t mode;                /* final mode */
	int chmod;                  /* mode needs an fchmod (more than made) */
	struct stat *st;            /* when set, the file's stat at the end */
	struct manifest *man;       /* --manifest: its row is written */
	struct manifest_row *man_row; /* manifest_row_start; freed by the run */
	json_object *rec;           /* --json: its record, emitted by the run
				     * with "status" added */
	char *unreadable_out;       /* with st: the blocks it lacks, or NULL */
	struct xattr_set *xattrs;   /* --xattrs: set on it (freed by
				     * file_job_free), at this level */
	int xattrs_level;
};

/* What the jobs handed over came to. */
struct filewriter_totals {
	size_t failed;              /* nothing written */
	size_t partial;             /* written, some blocks unreadable */
	uint64_t bytes;             /* sizes of the files written */
};

struct filewriter;

#define FILEWRITER_MAX_THREADS 16

/* Start a writer: with threads (at most queue jobs waiting), or with none
 * one that runs each job at once in the caller; NULL when out of memory.
 * Without threads, nothing of the image is read outside the calling
 * thread. */
struct filewriter *filewriter_start(struct e4_fs *fs, struct outdir *od,
				    struct report *r, unsigned int threads,
				    unsigned int queue);

/* For a large file (job->file and job->size set), when the writer has
 * threads: handles to write it in parts in that many threads at once
 * (its block reads and decryption, both cores busy), made here, in the
 * thread that uses the filesystem.  Nothing when it is small, the image
 * cannot be read in several threads, or a handle cannot be made. */
void filewriter_add_parts(struct filewriter *w, struct file_job *job);

/* Hand a job over (copied; waits while the queue is full; without a
 * thread it runs at once).  A job that fails is reported and counted. */
void filewriter_submit(struct filewriter *w, const struct file_job *job);

/* Wait until every job handed over is done: before closing a directory
 * descriptor a job may use, or changing what its jobs write into. */
void filewriter_drain(struct filewriter *w);

/* Drain, stop, free; what the handed-over jobs came to. */
void filewriter_finish(struct filewriter *w, struct filewriter_totals *t);

/* Run one job in the calling thread (reading through rb when not NULL):
 * 0; 1 when written with holes where blocks could not be read (reported,
 * with the ranges); -1 (reported; nothing left in the output).  Then
 * file_job_free, in the thread that made the job. */
int file_job_run(struct outdir *od, struct report *r, struct file_job *job,
		 struct e4_readbuf *rb);
void file_job_free(struct file_job *job);

/* The error for a file refused by od->max_output (outdir.h), and the
 * error for a file whose block map claims a block twice (when it does). */
void report_max_output(struct report *r, const struct outdir *od,
		       const char *path, uint32_t ino, uint64_t size);
void report_shared_blocks(struct report *r, const struct file_job *job);

/* Write all of data at off: 0, or 1 with errno. */
int pwrite_all(int fd, const uint8_t *data, size_t len, uint64_t off);

/* File block ranges as text, "12-15,40", ending in ",..." when total
 * counts more blocks than the ranges hold; malloc'd, or NULL. */
char *ranges_text(const struct e4_lblk_range *v, size_t n, uint64_t total);

#endif
