/* Split raw images (disk.001, disk.002, ...; disk.raw.000; xaa, xab, ...)
 * through libsmraw, which knows the naming schemas the field uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libsmraw.h>
#include "readers.h"
#include "libyal.h"

static void smraw_why(libsmraw_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		libsmraw_error_backtrace_sprint(err, text, sizeof(text));
		libsmraw_error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

static ssize_t smraw_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libsmraw_error_t *err = NULL;
	ssize_t n = libsmraw_handle_read_buffer_at_offset(h, buf, len,
							  (off64_t)off, &err);

	libsmraw_error_free(&err);
	return n;
}

static void smraw_close(void *h)
{
	libsmraw_handle_t *handle = h;

	libsmraw_handle_close(handle, NULL);
	libsmraw_handle_free(&handle, NULL);
}

struct segments {
	char **names;
	int n;
};

static void segments_free(void *arg)
{
	struct segments *g = arg;

	libsmraw_glob_free(g->names, g->n, NULL);
	free(g);
}

static libsmraw_handle_t *smraw_open_handle(struct segments *g,
					    libsmraw_error_t **err)
{
	libsmraw_handle_t *h = NULL;

	if (libsmraw_handle_initialize(&h, err) != 1)
		return NULL;
	if (libsmraw_handle_open(h, g->names, g->n, LIBSMRAW_OPEN_READ, err) != 1) {
		libsmraw_handle_free(&h, NULL);
		return NULL;
	}
	return h;
}

static void *smraw_reopen(void *g)
{
	libsmraw_error_t *err = NULL;
	libsmraw_handle_t *h = smraw_open_handle(g, &err);

	libsmraw_error_free(&err);
	return h;
}

static const struct e4_handle_ops smraw_ops = { smraw_read_at, smraw_close,
						smraw_reopen, segments_free };

int e4_split_raw_segments(const char *path)
{
	libsmraw_error_t *err = NULL;
	char **names = NULL;
	int n = 0;

	if (libsmraw_glob(path, strlen(path), &names, &n, &err) != 1) {
		libsmraw_error_free(&err);
		return 0;
	}
	libsmraw_glob_free(names, n, NULL);
	return n;
}

enum e4_status e4_source_open_smraw(const char *path, struct e4_source **out,
				    char *why, size_t whylen)
{
	libsmraw_error_t *err = NULL;
	libsmraw_handle_t *h = NULL;
	struct segments *g = calloc(1, sizeof(*g));
	size64_t size = 0;

	*out = NULL;
	if (!g) {
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	if (libsmraw_glob(path, strlen(path), &g->names, &g->n, &err) != 1) {
		smraw_why(err, why, whylen);
		free(g);
		return E4_IO;
	}
	/* libsmraw would block on a FIFO segment */
	for (int i = 0; i < g->n; i++) {
		struct stat st;

		if (stat(g->names[i], &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
			snprintf(why, whylen, "segment %d (%s): not a regular file or block device",
				 i + 1, g->names[i]);
			segments_free(g);
			return E4_IO;
		}
	}
	h = smraw_open_handle(g, &err);
	if (!h || libsmraw_handle_get_media_size(h, &size, &err) != 1) {
		smraw_why(err, why, whylen);
		if (h)
			smraw_close(h);
		segments_free(g);
		return E4_IO;
	}
	return e4_source_handles(&smraw_ops, g, h, (uint64_t)size, path,
				 "split raw", out);
}
