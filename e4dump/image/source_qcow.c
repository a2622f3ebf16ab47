/* QEMU copy-on-write images (QCOW version 1, 2 and 3, compressed
 * clusters included) through libqcow. */
#include <stdio.h>
#include <stdlib.h>
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
	libqcow_file_t *f = NULL;
	size64_t size = 0;
	int differential = 0, opened = 0;

	*out = NULL;
	if (libqcow_file_initialize(&f, &err) != 1 ||
	    (opened = libqcow_file_open(f, path, LIBQCOW_OPEN_READ, &err)) != 1 ||
	    libqcow_file_get_media_size(f, &size, &err) != 1 ||
	    (differential = has_backing_file(f, &err)) != 0) {
		if (differential == 1)
			/* its unallocated clusters are the backing file's:
			 * read alone, they would be zeros */
			snprintf(why, whylen, "a differential image (it has a backing file): not supported; convert it with qemu-img convert first");
		else
			qcow_why(err, why, whylen);
		if (opened == 1)
			libqcow_file_close(f, NULL);
		if (f)
			libqcow_file_free(&f, NULL);
		return E4_IO;
	}
	return e4_source_serialized(qcow_read_at, qcow_close, f, (uint64_t)size,
				    path, "QCOW", out);
}
