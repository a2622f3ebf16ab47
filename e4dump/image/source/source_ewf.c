/* Expert Witness evidence files (E01 and its segments .E02 ...; also
 * Ex01, S01, L01 as far as libewf reads them) through libewf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libewf.h>
#include "readers.h"
#include "libyal.h"

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

/* The segment files of a set. */
struct segments {
	char **names;
	int n;
	int globbed;        /* names from libewf_glob */
	char *one[1];       /* else the path alone */
};

static void segments_free(void *arg)
{
	struct segments *g = arg;

	if (g->globbed)
		libewf_glob_free(g->names, g->n, NULL);
	free(g->one[0]);
	free(g);
}

/* An open handle on the segments, or NULL with err. */
static libewf_handle_t *ewf_open_handle(struct segments *g, libewf_error_t **err)
{
	libewf_handle_t *h = NULL;

	if (libewf_handle_initialize(&h, err) != 1)
		return NULL;
	if (libewf_handle_open(h, g->names, g->n, LIBEWF_OPEN_READ, err) != 1) {
		libewf_handle_free(&h, NULL);
		return NULL;
	}
	return h;
}

static void *ewf_reopen(void *g)
{
	libewf_error_t *err = NULL;
	libewf_handle_t *h = ewf_open_handle(g, &err);

	libewf_error_free(&err);
	return h;
}

static const struct e4_handle_ops ewf_ops = { ewf_read_at, ewf_close,
					      ewf_reopen, segments_free };

#define EWF_VALUE_MAX (1u << 20) /* longer values are left out */

/* One stored value (UTF-8) by identifier, added to the source's facts
 * under key; get_size/get are the header or the hash value getters. */
static void add_value(struct e4_source *s, libewf_handle_t *h, const char *key,
		      const uint8_t *id, size_t idlen,
		      int (*get_size)(libewf_handle_t *, const uint8_t *, size_t,
				      size_t *, libewf_error_t **),
		      int (*get)(libewf_handle_t *, const uint8_t *, size_t,
				 uint8_t *, size_t, libewf_error_t **))
{
	uint8_t *value;
	size_t size = 0;

	if (get_size(h, id, idlen, &size, NULL) != 1 || size < 2 ||
	    size > EWF_VALUE_MAX || !(value = malloc(size)))
		return;
	if (get(h, id, idlen, value, size, NULL) == 1)
		e4_source_add_meta(s, key, value, strnlen((char *)value, size));
	free(value);
}

/* What the acquisition recorded: the stored hashes (MD5, SHA1), then
 * the header values (case number, examiner, acquiry date, ...), each
 * under libewf's identifier. */
static void ewf_describe(struct e4_source *s, libewf_handle_t *h)
{
	uint32_t n = 0;

	for (int k = 0; k < 2; k++) {
		const char *id = k ? "SHA1" : "MD5";

		add_value(s, h, k ? "stored sha1" : "stored md5", (const uint8_t *)id,
			  strlen(id), libewf_handle_get_utf8_hash_value_size,
			  libewf_handle_get_utf8_hash_value);
	}
	if (libewf_handle_get_number_of_header_values(h, &n, NULL) != 1)
		return;
	for (uint32_t i = 0; i < n && i < 64; i++) {
		uint8_t id[64];
		size_t idsize = 0;

		if (libewf_handle_get_header_value_identifier_size(h, i, &idsize, NULL) != 1 ||
		    idsize < 2 || idsize > sizeof(id) ||
		    libewf_handle_get_header_value_identifier(h, i, id, idsize, NULL) != 1)
			continue;
		id[idsize - 1] = 0;
		add_value(s, h, (const char *)id, id, strlen((char *)id),
			  libewf_handle_get_utf8_header_value_size,
			  libewf_handle_get_utf8_header_value);
	}
}

enum e4_status e4_source_open_ewf(const char *path, struct e4_source **out,
				  char *why, size_t whylen)
{
	libewf_error_t *err = NULL;
	libewf_handle_t *h;
	struct segments *g = calloc(1, sizeof(*g));
	int corrupt = 0;
	size64_t size = 0;

	*out = NULL;
	if (!g || !(g->one[0] = strdup(path))) {
		free(g);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	/* the segments are found by name from the first, as ewfmount does;
	 * a name without a segment extension is one segment by itself */
	if (libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &g->names,
			&g->n, &err) == 1) {
		g->globbed = 1;
	} else {
		libewf_error_free(&err);
		g->names = g->one;
		g->n = 1;
	}
	h = ewf_open_handle(g, &err);
	if (!h || libewf_handle_get_media_size(h, &size, &err) != 1 ||
	    (corrupt = libewf_handle_segment_files_corrupted(h, &err)) != 0) {
		if (corrupt == 1)
			snprintf(why, whylen, "segment files missing or corrupt "
				 "(the last one found does not end the set)");
		else
			ewf_why(err, why, whylen);
		if (h)
			ewf_close(h);
		segments_free(g);
		return E4_IO;
	}
	{
		struct e4_source facts = { 0 };
		enum e4_status st;

		ewf_describe(&facts, h);
		st = e4_source_handles(&ewf_ops, g, h, (uint64_t)size, path, "EWF", out);
		if (st == E4_OK) {
			(*out)->meta = facts.meta;
			(*out)->n_meta = facts.n_meta;
		} else {
			e4_source_free_meta(&facts);
		}
		return st;
	}
}
