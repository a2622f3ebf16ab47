/* QEMU copy-on-write images (QCOW version 1, 2 and 3, compressed
 * clusters included) through libqcow. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dynlib.h"
#include "readers.h"
#include "libyal.h"

/* libbfio as libqcow uses it (dynlib.h) */
#define E4_BFIO (e4_dl_bfio(E4_DL_QCOW))
#include "byteorder.h"

/* libqcow's reason for err (then freed), as ewf_why. */
static void qcow_why(libqcow_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		E4_QCOW->error_backtrace_sprint(err, text, sizeof(text));
		E4_QCOW->error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

/* A library handle and the guarded file it reads (libyal.h). */
struct qcow {
	libqcow_file_t *f;
	libbfio_handle_t *io;
};

static ssize_t qcow_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct qcow *q = h;
	libqcow_error_t *err = NULL;
	ssize_t n = E4_QCOW->file_read_buffer_at_offset(q->f, buf, len, (off64_t)off, &err);

	E4_QCOW->error_free(&err);
	return n;
}

static void qcow_close(void *h)
{
	struct qcow *q = h;

	if (q->f) {
		E4_QCOW->file_close(q->f, NULL);
		E4_QCOW->file_free(&q->f, NULL);
	}
	E4_BFIO->handle_free(&q->io, NULL);
	free(q);
}

/* An open file, or NULL with why. */
static struct qcow *qcow_open_file(const char *path, char *why, size_t whylen)
{
	libqcow_error_t *err = NULL;
	struct qcow *q = calloc(1, sizeof(*q));

	if (!q) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!(q->io = e4_bfio_open(E4_DL_QCOW, path, E4_BFIO_FOLLOW, why, whylen))) {
		free(q);
		return NULL;
	}
	if (E4_QCOW->file_initialize(&q->f, &err) != 1 ||
	    E4_QCOW->file_open_file_io_handle(q->f, q->io, LIBQCOW_OPEN_READ, &err) != 1) {
		const char *r = e4_bfio_refused(E4_DL_QCOW, q->io);

		if (r) {
			snprintf(why, whylen, "%s", r);
			E4_QCOW->error_free(&err);
		} else {
			qcow_why(err, why, whylen);
		}
		if (q->f)
			E4_QCOW->file_free(&q->f, NULL);
		qcow_close(q);
		return NULL;
	}
	return q;
}

static void *qcow_reopen(void *path)
{
	char why[400];

	return qcow_open_file(path, why, sizeof(why));
}

static const struct e4_handle_ops qcow_ops = { qcow_read_at, qcow_close,
					       qcow_reopen, free };

/* 1 when f names a backing file, 0 when not, -1 on error. */
static int has_backing_file(libqcow_file_t *f, libqcow_error_t **err)
{
	size_t size = 0;
	int rc = E4_QCOW->file_get_utf8_backing_filename_size(f, &size, err);

	if (rc == -1)
		return -1;
	return rc == 1 && size > 1;
}

/* An L1 or L2 entry of version 2 and 3 as libqcow 20201213 reads it
 * (libqcow_file.c: offset_bit_mask, compression_flag_bit_mask), not as
 * qcow2.txt defines it (offset bits 9-55): the check below must see the
 * offsets libqcow will read. */
#define QCOW_OFFSET_MASK 0x3fffffffffffffffULL
#define QCOW_COMPRESSED (1ULL << 62)
#define QCOW_MAX_BITS 21 /* 2 MiB, the largest cluster qemu writes */

/* The tables, checked before libqcow reads them: the guarded handle
 * (libyal.h) is not enough here.  libqcow 20201213 cuts its read of a
 * version 2 or 3 data cluster at the end of the file and then copies the
 * whole cluster out of its buffer: a data cluster that starts inside the
 * file and runs past its end showed the process's heap as the cluster's
 * bytes, or crashed (AddressSanitizer: a heap overflow in
 * libqcow_internal_file_read_buffer_from_file_io_handle).  So such an
 * entry is refused before libqcow sees the file, read as libqcow reads
 * entries (QCOW_OFFSET_MASK, whatever the cluster size and whether or not
 * the file's size is a multiple of it; offsets are not even 512-aligned
 * to libqcow).  The L1 table must be inside the file and every L2 table
 * at a cluster boundary (qemu refuses others too; the bitmap below relies
 * on it) and whole in the file, clusters at most 2 MiB.  A data cluster
 * wholly past the end is left to libqcow, which fails those reads: those
 * blocks are I/O errors and the rest of the volume is read.  Compressed
 * clusters libqcow bounds by the file; version 1 clusters it reads whole
 * or fails.  0 when all are safe, -1 with why.  Each L2 table is read
 * once (a bitmap by cluster), so the work is bounded by the file's size.
 * compressed: set to the cluster size when a compressed cluster is seen
 * (left as it is otherwise). */
static int qcow_check_tables(const char *path, uint32_t *compressed, char *why,
			     size_t whylen)
{
	uint8_t h[48], *l1 = NULL, *l2 = NULL, *seen = NULL;
	uint64_t size = 0, cs, l1_off, l1_n, nclusters;
	int fd = e4_evidence_fd(path, 1, &size), rc = 0;
	uint32_t bits;

	if (fd < 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		if (fd >= 0)
			close(fd);
		return 0; /* libqcow says why */
	}
	bits = e4_be32(h + 20);
	if (e4_be32(h) != 0x514649fbu || e4_be32(h + 4) < 2 || e4_be32(h + 4) > 3 || bits < 9)
		goto out; /* version 1, or not one libqcow opens */
	if (bits > QCOW_MAX_BITS) {
		/* libqcow takes up to 2^63 */
		snprintf(why, whylen, "clusters of 2^%u bytes: larger than qemu writes (2 MiB): not read",
			 bits);
		rc = -1;
		goto out;
	}
	cs = (uint64_t)1 << bits;
	l1_off = e4_be64(h + 40);
	l1_n = e4_be32(h + 36);
	if (!l1_n)
		goto out;
	if (l1_off > size || l1_n > (size - l1_off) / 8) {
		snprintf(why, whylen, "the L1 table (%llu entries at byte %llu) runs past the end of the file (%llu bytes): not read",
			 (unsigned long long)l1_n, (unsigned long long)l1_off,
			 (unsigned long long)size);
		rc = -1;
		goto out;
	}
	nclusters = size / cs + 1;
	l1 = malloc(l1_n * 8);
	l2 = malloc(cs);
	seen = calloc(nclusters / 8 + 1, 1);
	if (!l1 || !l2 || !seen) {
		snprintf(why, whylen, "out of memory");
		rc = -1;
		goto out;
	}
	if (pread(fd, l1, l1_n * 8, (off_t)l1_off) != (ssize_t)(l1_n * 8))
		goto out; /* the guard refuses it too */
	for (uint64_t i = 0; i < l1_n && !rc; i++) {
		uint64_t l2_off = e4_be64(l1 + 8 * i) & QCOW_OFFSET_MASK, c;

		if (!l2_off)
			continue;
		if (l2_off % cs || (l2_off < size && cs > size - l2_off)) {
			snprintf(why, whylen, "L1 entry %llu: its L2 table at byte %llu %s (the file has %llu bytes; clusters of %llu bytes): not read",
				 (unsigned long long)i, (unsigned long long)l2_off,
				 l2_off % cs ? "is not at a cluster boundary" :
					       "runs past the end of the file",
				 (unsigned long long)size, (unsigned long long)cs);
			rc = -1;
			break;
		}
		if (l2_off >= size)
			continue; /* libqcow fails its reads */
		c = l2_off / cs;
		if (seen[c / 8] & (1u << (c % 8)))
			continue;
		seen[c / 8] |= (uint8_t)(1u << (c % 8));
		if (pread(fd, l2, cs, (off_t)l2_off) != (ssize_t)cs)
			break;
		for (uint64_t j = 0; j < cs / 8; j++) {
			uint64_t v = e4_be64(l2 + 8 * j), off = v & QCOW_OFFSET_MASK;

			/* a compressed cluster's range libqcow bounds by the
			 * file itself (libqcow_internal_file_read_cluster_block) */
			if (v & QCOW_COMPRESSED)
				*compressed = (uint32_t)cs;
			if ((v & QCOW_COMPRESSED) || !off)
				continue;
			if (off < size && cs > size - off) {
				snprintf(why, whylen, "L2 table at byte %llu, entry %llu: a data cluster at byte %llu runs past the end of the file (%llu bytes; clusters of %llu bytes): not read",
					 (unsigned long long)l2_off, (unsigned long long)j,
					 (unsigned long long)off, (unsigned long long)size,
					 (unsigned long long)cs);
				rc = -1;
				break;
			}
		}
	}
out:
	free(l1);
	free(l2);
	free(seen);
	if (fd >= 0)
		close(fd);
	return rc;
}

enum e4_status e4_source_open_qcow(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libqcow_error_t *err = NULL;
	struct qcow *q;
	size64_t size = 0;
	int differential = 0;
	char *ctx;
	uint32_t compressed = 0;
	enum e4_status st;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_QCOW, why, whylen))
		return E4_UNSUPPORTED;
	if (qcow_check_tables(path, &compressed, why, whylen))
		return E4_CORRUPT;
	if (!(q = qcow_open_file(path, why, whylen)))
		return E4_IO;
	if (E4_QCOW->file_get_media_size(q->f, &size, &err) != 1 ||
	    (differential = has_backing_file(q->f, &err)) != 0) {
		if (differential == 1)
			/* its unallocated clusters are the backing file's:
			 * read alone, they would be zeros */
			snprintf(why, whylen, "a differential image (it has a backing file): not supported; convert it with qemu-img convert first");
		else
			qcow_why(err, why, whylen);
		qcow_close(q);
		return E4_IO;
	}
	if (!(ctx = strdup(path))) {
		qcow_close(q);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	st = e4_source_handles(&qcow_ops, ctx, q, (uint64_t)size, path, "QCOW", out);
	/* small reads (metadata) from decoded clusters when there are
	 * compressed ones (libqcow inflates a cluster for each 4 KiB read
	 * beyond the few it keeps); others libqcow only copies, and a cache
	 * would copy once more */
	if (st == E4_OK && compressed)
		e4_source_handles_cache(*out, compressed);
	return st;
}
