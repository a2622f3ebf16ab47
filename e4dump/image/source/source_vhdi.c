/* Virtual PC and Hyper-V disks (VHD fixed and dynamic, VHDX) through
 * libvhdi. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libvhdi.h>
#include "readers.h"
#include "libyal.h"

/* libvhdi's reason for err (then freed), as ewf_why. */
static void vhdi_why(libvhdi_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		libvhdi_error_backtrace_sprint(err, text, sizeof(text));
		libvhdi_error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

static ssize_t vhdi_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libvhdi_error_t *err = NULL;
	ssize_t n = libvhdi_file_read_buffer_at_offset(h, buf, len, (off64_t)off, &err);

	libvhdi_error_free(&err);
	return n;
}

static void vhdi_close(void *h)
{
	libvhdi_file_t *f = h;

	libvhdi_file_close(f, NULL);
	libvhdi_file_free(&f, NULL);
}

/* An open file, or NULL with err. */
static libvhdi_file_t *vhdi_open_file(const char *path, libvhdi_error_t **err)
{
	libvhdi_file_t *f = NULL;

	if (libvhdi_file_initialize(&f, err) != 1)
		return NULL;
	if (libvhdi_file_open(f, path, LIBVHDI_OPEN_READ, err) != 1) {
		libvhdi_file_free(&f, NULL);
		return NULL;
	}
	return f;
}

static void *vhdi_reopen(void *path)
{
	libvhdi_error_t *err = NULL;
	libvhdi_file_t *f = vhdi_open_file(path, &err);

	libvhdi_error_free(&err);
	return f;
}

static const struct e4_handle_ops vhdi_ops = { vhdi_read_at, vhdi_close,
					       vhdi_reopen, free };

enum e4_status e4_source_open_vhdi(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libvhdi_error_t *err = NULL;
	libvhdi_file_t *f;
	size64_t size = 0;
	uint32_t type = 0;
	int ok;
	char *ctx;

	*out = NULL;
	f = vhdi_open_file(path, &err);
	ok = f && libvhdi_file_get_media_size(f, &size, &err) == 1 &&
	     libvhdi_file_get_disk_type(f, &type, &err) == 1;
	if (!ok || type == LIBVHDI_DISK_TYPE_DIFFERENTIAL) {
		if (ok)
			/* read alone, its parent's sectors would be zeros */
			snprintf(why, whylen, "a differential disk (it has a parent): not supported; merge or convert it first");
		else
			vhdi_why(err, why, whylen);
		if (f)
			vhdi_close(f);
		return E4_IO;
	}
	if (!(ctx = strdup(path))) {
		vhdi_close(f);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	return e4_source_handles(&vhdi_ops, ctx, f, (uint64_t)size, path, "VHD", out);
}
