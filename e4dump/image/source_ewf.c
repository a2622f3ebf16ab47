/* Expert Witness evidence files (E01 and its segments .E02 ...; also
 * Ex01, S01, L01 as far as libewf reads them) through libewf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libewf.h>
#include "container.h"

/* libewf's reason for err (then freed): the first line of its
 * backtrace, the innermost. */
static void ewf_why(libewf_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		libewf_error_backtrace_sprint(err, text, sizeof(text));
		libewf_error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

static ssize_t ewf_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libewf_error_t *err = NULL;
	ssize_t n = libewf_handle_read_random(h, buf, len, (off64_t)off, &err);

	libewf_error_free(&err);
	return n;
}

static void ewf_close(void *h)
{
	libewf_handle_t *handle = h;

	libewf_handle_close(handle, NULL);
	libewf_handle_free(&handle, NULL);
}

enum e4_status e4_source_open_ewf(const char *path, struct e4_source **out,
				  char *why, size_t whylen)
{
	libewf_error_t *err = NULL;
	libewf_handle_t *h = NULL;
	char **names = NULL, *one[1] = { (char *)path };
	int nnames = 0, corrupt = 0, opened = 0;
	size64_t size = 0;

	*out = NULL;
	/* the segments are found by name from the first, as ewfmount does;
	 * a name without a segment extension is one segment by itself */
	if (libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names,
			&nnames, &err) != 1) {
		libewf_error_free(&err);
		names = NULL;
		nnames = 0;
	}
	if (libewf_handle_initialize(&h, &err) != 1 ||
	    (opened = libewf_handle_open(h, names ? names : one,
					 names ? nnames : 1, LIBEWF_OPEN_READ,
					 &err)) != 1 ||
	    libewf_handle_get_media_size(h, &size, &err) != 1 ||
	    (corrupt = libewf_handle_segment_files_corrupted(h, &err)) != 0) {
		if (corrupt == 1)
			snprintf(why, whylen, "segment files missing or corrupt "
				 "(the last one found does not end the set)");
		else
			ewf_why(err, why, whylen);
		if (names)
			libewf_glob_free(names, nnames, NULL);
		if (opened == 1)
			libewf_handle_close(h, NULL);
		if (h)
			libewf_handle_free(&h, NULL);
		return E4_IO;
	}
	if (names)
		libewf_glob_free(names, nnames, NULL);
	return e4_source_serialized(ewf_read_at, ewf_close, h, (uint64_t)size,
				    path, "EWF", out);
}
