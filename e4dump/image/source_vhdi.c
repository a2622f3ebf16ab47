/* Virtual PC and Hyper-V disks (VHD fixed and dynamic, VHDX) through
 * libvhdi. */
#include <stdio.h>
#include <stdlib.h>
#include <libvhdi.h>
#include "container.h"

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

enum e4_status e4_source_open_vhdi(const char *path, struct e4_source **out,
				   char *why, size_t whylen)
{
	libvhdi_error_t *err = NULL;
	libvhdi_file_t *f = NULL;
	size64_t size = 0;
	uint32_t type = 0;
	int opened = 0, ok;

	*out = NULL;
	ok = libvhdi_file_initialize(&f, &err) == 1 &&
	     (opened = libvhdi_file_open(f, path, LIBVHDI_OPEN_READ, &err)) == 1 &&
	     libvhdi_file_get_media_size(f, &size, &err) == 1 &&
	     libvhdi_file_get_disk_type(f, &type, &err) == 1;
	if (!ok || type == LIBVHDI_DISK_TYPE_DIFFERENTIAL) {
		if (ok)
			/* read alone, its parent's sectors would be zeros */
			snprintf(why, whylen, "a differential disk (it has a parent): not supported; merge or convert it first");
		else
			vhdi_why(err, why, whylen);
		if (opened == 1)
			libvhdi_file_close(f, NULL);
		if (f)
			libvhdi_file_free(&f, NULL);
		return E4_IO;
	}
	return e4_source_serialized(vhdi_read_at, vhdi_close, f, (uint64_t)size,
				    path, "VHD", out);
}
