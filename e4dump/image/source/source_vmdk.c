/* VMware disks (a monolithic sparse VMDK, or a descriptor with its extent
 * files beside it) through libvmdk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynlib.h"
#include "readers.h"
#include "libyal.h"

/* libbfio as libvmdk uses it (dynlib.h) */
#define E4_BFIO (e4_dl_bfio(E4_DL_VMDK))

/* libvmdk's reason for err (then freed), as ewf_why. */
static void vmdk_why(libvmdk_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		E4_VMDK->error_backtrace_sprint(err, text, sizeof(text));
		E4_VMDK->error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

/* A library handle, the guarded descriptor file and the pool of guarded
 * extent files it reads (libyal.h). */
struct vmdk {
	libvmdk_handle_t *h;
	libbfio_handle_t *io;
	libbfio_pool_t *pool;
};

static ssize_t vmdk_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct vmdk *v = h;
	libvmdk_error_t *err = NULL;
	ssize_t n = E4_VMDK->handle_read_buffer_at_offset(v->h, buf, len, (off64_t)off, &err);

	E4_VMDK->error_free(&err);
	return n;
}

static void vmdk_close(void *h)
{
	struct vmdk *v = h;

	if (v->h) {
		E4_VMDK->handle_close(v->h, NULL);
		E4_VMDK->handle_free(&v->h, NULL);
	}
	if (v->pool)
		E4_BFIO->pool_free(&v->pool, NULL);
	if (v->io)
		E4_BFIO->handle_free(&v->io, NULL);
	free(v);
}

/* The extent files the descriptor names, as libvmdk finds them (its
 * open_extent_data_files): the last component of each name, beside the
 * descriptor; NULL for a zero extent (no file).  0, or -1 with why. */
static int vmdk_extent_names(libvmdk_handle_t *h, const char *path, char ***names,
			     int *n, char *why, size_t whylen)
{
	libvmdk_error_t *err = NULL;
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char **v;

	*names = NULL;
	if (E4_VMDK->handle_get_number_of_extents(h, n, &err) != 1 || *n < 1 || *n > 65536) {
		if (err)
			vmdk_why(err, why, whylen);
		else
			snprintf(why, whylen, "%d extents", *n);
		return -1;
	}
	if (!(v = calloc((size_t)*n, sizeof(*v)))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	*names = v;
	for (int i = 0; i < *n; i++) {
		libvmdk_extent_descriptor_t *d = NULL;
		uint8_t name[4096];
		size_t size = 0;
		int type = 0;
		const char *base;

		if (E4_VMDK->handle_get_extent_descriptor(h, i, &d, &err) != 1 ||
		    E4_VMDK->extent_descriptor_get_type(d, &type, &err) != 1) {
			vmdk_why(err, why, whylen);
			E4_VMDK->extent_descriptor_free(&d, NULL);
			return -1;
		}
		if (type == LIBVMDK_EXTENT_TYPE_ZERO) {
			E4_VMDK->extent_descriptor_free(&d, NULL);
			continue;
		}
		if (E4_VMDK->extent_descriptor_get_utf8_filename_size(d, &size, &err) != 1 ||
		    size < 2 || size > sizeof(name) ||
		    E4_VMDK->extent_descriptor_get_utf8_filename(d, name, size, &err) != 1) {
			if (err)
				vmdk_why(err, why, whylen);
			else
				snprintf(why, whylen, "extent %d: no file name", i + 1);
			E4_VMDK->extent_descriptor_free(&d, NULL);
			return -1;
		}
		E4_VMDK->extent_descriptor_free(&d, NULL);
		name[size - 1] = 0;
		base = strrchr((char *)name, '/');
		base = base ? base + 1 : (const char *)name;
		if (!*base || (v[i] = malloc((size_t)dirlen + strlen(base) + 1)) == NULL) {
			snprintf(why, whylen, *base ? "out of memory" : "extent %d: no file name", i + 1);
			return -1;
		}
		memcpy(v[i], path, (size_t)dirlen);
		strcpy(v[i] + dirlen, base);
	}
	return 0;
}

static void names_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* An open handle with its extent files, or NULL with why. */
static struct vmdk *vmdk_open_handle(const char *path, char *why, size_t whylen)
{
	libvmdk_error_t *err = NULL;
	struct vmdk *v = calloc(1, sizeof(*v));
	char **names = NULL;
	int n = 0;
	const char *r;

	if (!v) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!(v->io = e4_bfio_open(E4_DL_VMDK, path, E4_BFIO_FOLLOW | E4_BFIO_SHORT, why,
				   whylen))) {
		free(v);
		return NULL;
	}
	if (E4_VMDK->handle_initialize(&v->h, &err) != 1 ||
	    E4_VMDK->handle_open_file_io_handle(v->h, v->io, LIBVMDK_OPEN_READ, &err) != 1) {
		if ((r = e4_bfio_refused(E4_DL_VMDK, v->io))) {
			snprintf(why, whylen, "%s", r);
			E4_VMDK->error_free(&err);
		} else {
			vmdk_why(err, why, whylen);
		}
		if (v->h)
			E4_VMDK->handle_free(&v->h, NULL);
		vmdk_close(v);
		return NULL;
	}
	/* the extent files: only the descriptor the examiner named may be
	 * a symbolic link (a monolithic sparse file is its own extent) */
	if (vmdk_extent_names(v->h, path, &names, &n, why, whylen) ||
	    !(v->pool = e4_bfio_pool(E4_DL_VMDK, "extent file", names, n, path, why,
				     whylen))) {
		names_free(names, n);
		vmdk_close(v);
		return NULL;
	}
	names_free(names, n);
	if (E4_VMDK->handle_open_extent_data_files_file_io_pool(v->h, v->pool, &err) != 1) {
		if ((r = e4_bfio_pool_refused(E4_DL_VMDK, v->pool)) ||
		    (r = e4_bfio_refused(E4_DL_VMDK, v->io))) {
			snprintf(why, whylen, "%s", r);
			E4_VMDK->error_free(&err);
		} else {
			vmdk_why(err, why, whylen);
		}
		vmdk_close(v);
		return NULL;
	}
	return v;
}

static void *vmdk_reopen(void *path)
{
	char why[400];

	return vmdk_open_handle(path, why, sizeof(why));
}

static const struct e4_handle_ops vmdk_ops = { vmdk_read_at, vmdk_close,
					       vmdk_reopen, free };

enum e4_status e4_source_open_vmdk(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libvmdk_error_t *err = NULL;
	struct vmdk *v;
	size64_t size = 0;
	size_t parent = 0;
	int has_parent = 0;
	char *ctx;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_VMDK, why, whylen))
		return E4_UNSUPPORTED;
	if (!(v = vmdk_open_handle(path, why, whylen)))
		return E4_IO;
	if (E4_VMDK->handle_get_media_size(v->h, &size, &err) != 1 ||
	    (has_parent = E4_VMDK->handle_get_utf8_parent_filename_size(v->h, &parent, &err)) == -1) {
		vmdk_why(err, why, whylen);
		vmdk_close(v);
		return E4_IO;
	}
	if (has_parent == 1 && parent > 1) {
		/* read alone, its parent's grains would be zeros */
		snprintf(why, whylen, "a differential disk (it has a parent): not supported; convert it first");
		vmdk_close(v);
		return E4_IO;
	}
	if (!(ctx = strdup(path))) {
		vmdk_close(v);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	return e4_source_handles(&vmdk_ops, ctx, v, (uint64_t)size, path, "VMDK", out);
}
