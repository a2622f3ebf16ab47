/* Split raw images (disk.001, disk.002, ...; disk.raw.000; xaa, xab, ...)
 * through libsmraw, which knows the naming schemas the field uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define LIBSMRAW_HAVE_BFIO
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

/* A library handle and the pool of guarded segment files it reads
 * (libyal.h). */
struct smraw {
	libsmraw_handle_t *h;
	libbfio_pool_t *pool;
};

static ssize_t smraw_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct smraw *r = h;
	libsmraw_error_t *err = NULL;
	ssize_t n = libsmraw_handle_read_buffer_at_offset(r->h, buf, len,
							  (off64_t)off, &err);

	libsmraw_error_free(&err);
	return n;
}

static void smraw_close(void *h)
{
	struct smraw *r = h;

	if (r->h) {
		libsmraw_handle_close(r->h, NULL);
		libsmraw_handle_free(&r->h, NULL);
	}
	if (r->pool)
		libbfio_pool_free(&r->pool, NULL);
	free(r);
}

struct segments {
	char **names;
	int n;
	char *given;        /* the path the examiner gave */
};

static void segments_free(void *arg)
{
	struct segments *g = arg;

	libsmraw_glob_free(g->names, g->n, NULL);
	free(g->given);
	free(g);
}

/* An open handle on the segments, or NULL with why. */
static struct smraw *smraw_open_handle(struct segments *g, char *why, size_t whylen)
{
	libsmraw_error_t *err = NULL;
	struct smraw *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!(r->pool = e4_bfio_pool("segment", g->names, g->n, g->given, why, whylen))) {
		free(r);
		return NULL;
	}
	if (libsmraw_handle_initialize(&r->h, &err) != 1 ||
	    libsmraw_handle_open_file_io_pool(r->h, r->pool, LIBSMRAW_OPEN_READ, &err) != 1) {
		const char *refused = e4_bfio_pool_refused(r->pool);

		if (refused) {
			snprintf(why, whylen, "%s", refused);
			libsmraw_error_free(&err);
		} else {
			smraw_why(err, why, whylen);
		}
		if (r->h)
			libsmraw_handle_free(&r->h, NULL);
		smraw_close(r);
		return NULL;
	}
	return r;
}

static void *smraw_reopen(void *g)
{
	char why[400];

	return smraw_open_handle(g, why, sizeof(why));
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
	struct smraw *r;
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
	if (g->n < 1) {
		snprintf(why, whylen, "no segments");
		segments_free(g);
		return E4_IO;
	}
	/* only the name the examiner gave may be a symbolic link; a FIFO
	 * segment is refused without blocking (libyal.h) */
	if (!(g->given = strdup(path))) {
		segments_free(g);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	if (!(r = smraw_open_handle(g, why, whylen))) {
		segments_free(g);
		return E4_IO;
	}
	if (libsmraw_handle_get_media_size(r->h, &size, &err) != 1) {
		smraw_why(err, why, whylen);
		smraw_close(r);
		segments_free(g);
		return E4_IO;
	}
	return e4_source_handles(&smraw_ops, g, r, (uint64_t)size, path,
				 "split raw", out);
}
