/* QEMU copy-on-write images (QCOW version 1, 2 and 3, compressed
 * clusters included) through libqcow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

enum e4_status e4_source_open_qcow(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libqcow_error_t *err = NULL;
	libqcow_file_t *f;
	size64_t size = 0;
	int differential = 0;
	char *ctx;

	*out = NULL;
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
