/* QEMU copy-on-write images (QCOW version 1, 2 and 3, compressed
 * clusters included) through libqcow. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libqcow.h>
#include "container.h"

/* libqcow's reason for err (then freed), as ewf_why. */
static void qcow_why(libqcow_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		libqcow_error_backtrace_sprint(err, text, sizeof(text));
		libqcow_error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

static ssize_t qcow_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libqcow_error_t *err = NULL;
	ssize_t n = libqcow_file_read_buffer_at_offset(h, buf, len, (off64_t)off, &err);

	libqcow_error_free(&err);
	return n;
}

static void qcow_close(void *h)
{
	libqcow_file_t *f = h;

	libqcow_file_close(f, NULL);
	libqcow_file_free(&f, NULL);
}

/* An open file, or NULL with err. */
static libqcow_file_t *qcow_open_file(const char *path, libqcow_error_t **err)
{
	libqcow_file_t *f = NULL;

	if (libqcow_file_initialize(&f, err) != 1)
		return NULL;
	if (libqcow_file_open(f, path, LIBQCOW_OPEN_READ, err) != 1) {
		libqcow_file_free(&f, NULL);
		return NULL;
	}
	return f;
}

static void *qcow_reopen(void *path)
{
	libqcow_error_t *err = NULL;
	libqcow_file_t *f = qcow_open_file(path, &err);

	libqcow_error_free(&err);
	return f;
}

static const struct e4_handle_ops qcow_ops = { qcow_read_at, qcow_close,
					       qcow_reopen, free };

/* 1 when f names a backing file, 0 when not, -1 on error. */
static int has_backing_file(libqcow_file_t *f, libqcow_error_t **err)
{
	size_t size = 0;
	int rc = libqcow_file_get_utf8_backing_filename_size(f, &size, err);

	if (rc == -1)
		return -1;
	return rc == 1 && size > 1;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The host offset bits of an L1 or L2 entry (QEMU docs/interop/qcow2.txt). */
#define QCOW_OFFSET_MASK 0x00fffffffffffe00ULL
#define QCOW_COMPRESSED (1ULL << 62)

/* libqcow (Debian's 20221124) copies a whole cluster from a file that
 * ends inside it: an L2 table or uncompressed data cluster the file cuts
 * short overflows its buffer (found by fuzz_image).  qemu never writes
 * one; only a file whose size is not a multiple of the cluster size can
 * hold one (a compressed image is such a file: its compressed clusters
 * are byte ranges, not checked).  0 when there is none, -1 with why.
 * Each L2 table is read once (a bitmap of those checked), so the work is
 * bounded by the file's size. */
static int qcow_check_tail(const char *path, char *why, size_t whylen)
{
	uint8_t h[48], e[8], *l2 = NULL, *seen = NULL;
	uint64_t size, cs, l1_off, l1_n, nclusters;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	uint32_t bits;

	if (fd < 0 || fstat(fd, &st) || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		if (fd >= 0)
			close(fd);
		return 0; /* libqcow says why */
	}
	size = (uint64_t)st.st_size;
	bits = be32(h + 20);
	if (be32(h) != 0x514649fbu || be32(h + 4) < 2 || bits < 9 || bits > 21)
		goto out; /* version 1, or not one libqcow opens */
	cs = (uint64_t)1 << bits;
	if (size % cs == 0)
		goto out;
	l1_off = be64(h + 40);
	l1_n = be32(h + 36);
	if (l1_off >= size)
		goto out;
	if (l1_n > (size - l1_off) / 8)
		l1_n = (size - l1_off) / 8;
	nclusters = size / cs + 1;
	l2 = malloc(cs);
	seen = calloc(nclusters / 8 + 1, 1);
	if (!l2 || !seen) {
		snprintf(why, whylen, "out of memory");
		rc = -1;
		goto out;
	}
	for (uint64_t i = 0; i < l1_n && !rc; i++) {
		uint64_t l2_off, c;

		if (pread(fd, e, 8, (off_t)(l1_off + 8 * i)) != 8)
			break;
		l2_off = be64(e) & QCOW_OFFSET_MASK;
		if (!l2_off)
			continue;
		if (l2_off > size || cs > size - l2_off) {
			snprintf(why, whylen, "an L2 table at byte %llu runs past the end of the file: not read (libqcow would read past its buffer)",
				 (unsigned long long)l2_off);
			rc = -1;
			break;
		}
		c = l2_off / cs;
		if (seen[c / 8] & (1u << (c % 8)))
			continue;
		seen[c / 8] |= (uint8_t)(1u << (c % 8));
		if (pread(fd, l2, cs, (off_t)l2_off) != (ssize_t)cs)
			break;
		for (uint64_t j = 0; j < cs / 8; j++) {
			uint64_t v = be64(l2 + 8 * j), off = v & QCOW_OFFSET_MASK;

			if ((v & QCOW_COMPRESSED) || !off)
				continue;
			if (off > size || cs > size - off) {
				snprintf(why, whylen, "a data cluster at byte %llu runs past the end of the file: not read (libqcow would read past its buffer)",
					 (unsigned long long)off);
				rc = -1;
				break;
			}
		}
	}
out:
	free(l2);
	free(seen);
	close(fd);
	return rc;
}

enum e4_status e4_source_open_qcow(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libqcow_error_t *err = NULL;
	libqcow_file_t *f;
	size64_t size = 0;
	int differential = 0;
	char *ctx;

	*out = NULL;
	if (qcow_check_tail(path, why, whylen))
		return E4_CORRUPT;
	f = qcow_open_file(path, &err);
	if (!f || libqcow_file_get_media_size(f, &size, &err) != 1 ||
	    (differential = has_backing_file(f, &err)) != 0) {
		if (differential == 1)
			/* its unallocated clusters are the backing file's:
			 * read alone, they would be zeros */
			snprintf(why, whylen, "a differential image (it has a backing file): not supported; convert it with qemu-img convert first");
		else
			qcow_why(err, why, whylen);
		if (f)
			qcow_close(f);
		return E4_IO;
	}
	if (!(ctx = strdup(path))) {
		qcow_close(f);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	return e4_source_handles(&qcow_ops, ctx, f, (uint64_t)size, path, "QCOW", out);
}
