/* VMware disks (a monolithic sparse VMDK, or a descriptor with its extent
 * files beside it) through libvmdk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libvmdk.h>
#include "readers.h"
#include "libyal.h"

/* libvmdk's reason for err (then freed), as ewf_why. */
static void vmdk_why(libvmdk_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		libvmdk_error_backtrace_sprint(err, text, sizeof(text));
		libvmdk_error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

static ssize_t vmdk_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libvmdk_error_t *err = NULL;
	ssize_t n = libvmdk_handle_read_buffer_at_offset(h, buf, len, (off64_t)off, &err);

	libvmdk_error_free(&err);
	return n;
}

static void vmdk_close(void *h)
{
	libvmdk_handle_t *v = h;

	libvmdk_handle_close(v, NULL);
	libvmdk_handle_free(&v, NULL);
}

/* An open handle with its extent files, or NULL with err. */
static libvmdk_handle_t *vmdk_open_handle(const char *path, libvmdk_error_t **err)
{
	libvmdk_handle_t *v = NULL;

	if (libvmdk_handle_initialize(&v, err) != 1)
		return NULL;
	if (libvmdk_handle_open(v, path, LIBVMDK_OPEN_READ, err) != 1) {
		libvmdk_handle_free(&v, NULL);
		return NULL;
	}
	if (libvmdk_handle_open_extent_data_files(v, err) != 1) {
		vmdk_close(v);
		return NULL;
	}
	return v;
}

static void *vmdk_reopen(void *path)
{
	libvmdk_error_t *err = NULL;
	libvmdk_handle_t *v = vmdk_open_handle(path, &err);

	libvmdk_error_free(&err);
	return v;
}

static const struct e4_handle_ops vmdk_ops = { vmdk_read_at, vmdk_close,
					       vmdk_reopen, free };

enum e4_status e4_source_open_vmdk(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libvmdk_error_t *err = NULL;
	libvmdk_handle_t *v;
	size64_t size = 0;
	size_t parent = 0;
	int ok, has_parent = 0;
	char *ctx;

	*out = NULL;
	v = vmdk_open_handle(path, &err);
	ok = v && libvmdk_handle_get_media_size(v, &size, &err) == 1 &&
	     (has_parent = libvmdk_handle_get_utf8_parent_filename_size(v, &parent, &err)) != -1;
	if (!ok || (has_parent == 1 && parent > 1)) {
		if (ok)
			/* read alone, its parent's grains would be zeros */
			snprintf(why, whylen, "a differential disk (it has a parent): not supported; convert it first");
		else
			vmdk_why(err, why, whylen);
		if (v)
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
