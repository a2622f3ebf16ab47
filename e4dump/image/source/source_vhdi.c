/* Virtual PC and Hyper-V disks (VHD fixed and dynamic, VHDX) through
 * libvhdi. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynlib.h"
#include "readers.h"
#include "libyal.h"

/* libbfio as libvhdi uses it (dynlib.h) */
#define E4_BFIO (e4_dl_bfio(E4_DL_VHDI))

/* libvhdi's reason for err (then freed), as ewf_why. */
static void vhdi_why(libvhdi_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		E4_VHDI->error_backtrace_sprint(err, text, sizeof(text));
		E4_VHDI->error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

/* A library handle and the guarded file it reads (libyal.h). */
struct vhdi {
	libvhdi_file_t *f;
	libbfio_handle_t *io;
};

static ssize_t vhdi_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct vhdi *v = h;
	libvhdi_error_t *err = NULL;
	ssize_t n = E4_VHDI->file_read_buffer_at_offset(v->f, buf, len, (off64_t)off, &err);

	E4_VHDI->error_free(&err);
	return n;
}

static void vhdi_close(void *h)
{
	struct vhdi *v = h;

	if (v->f) {
		E4_VHDI->file_close(v->f, NULL);
		E4_VHDI->file_free(&v->f, NULL);
	}
	E4_BFIO->handle_free(&v->io, NULL);
	free(v);
}

/* An open file, or NULL with why. */
static struct vhdi *vhdi_open_file(const char *path, char *why, size_t whylen)
{
	libvhdi_error_t *err = NULL;
	struct vhdi *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!(v->io = e4_bfio_open(E4_DL_VHDI, path, E4_BFIO_FOLLOW, why, whylen))) {
		free(v);
		return NULL;
	}
	if (E4_VHDI->file_initialize(&v->f, &err) != 1 ||
	    E4_VHDI->file_open_file_io_handle(v->f, v->io, LIBVHDI_OPEN_READ, &err) != 1) {
		const char *r = e4_bfio_refused(E4_DL_VHDI, v->io);

		if (r) {
			snprintf(why, whylen, "%s", r);
			E4_VHDI->error_free(&err);
		} else {
			vhdi_why(err, why, whylen);
		}
		if (v->f)
			E4_VHDI->file_free(&v->f, NULL);
		vhdi_close(v);
		return NULL;
	}
	return v;
}

static void *vhdi_reopen(void *path)
{
	char why[400];

	return vhdi_open_file(path, why, sizeof(why));
}

static const struct e4_handle_ops vhdi_ops = { vhdi_read_at, vhdi_close,
					       vhdi_reopen, free };

enum e4_status e4_source_open_vhdi(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libvhdi_error_t *err = NULL;
	struct vhdi *v;
	size64_t size = 0;
	uint32_t type = 0;
	char *ctx;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_VHDI, why, whylen))
		return E4_UNSUPPORTED;
	if (!(v = vhdi_open_file(path, why, whylen)))
		return E4_IO;
	if (E4_VHDI->file_get_media_size(v->f, &size, &err) != 1 ||
	    E4_VHDI->file_get_disk_type(v->f, &type, &err) != 1) {
		vhdi_why(err, why, whylen);
		vhdi_close(v);
		return E4_IO;
	}
	if (type == LIBVHDI_DISK_TYPE_DIFFERENTIAL) {
		/* read alone, its parent's sectors would be zeros */
		snprintf(why, whylen, "a differential disk (it has a parent): not supported; merge or convert it first");
		vhdi_close(v);
		return E4_IO;
	}
	if (!(ctx = strdup(path))) {
		vhdi_close(v);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	return e4_source_handles(&vhdi_ops, ctx, v, (uint64_t)size, path, "VHD", out);
}
