/* Expert Witness evidence files (E01 and its segments .E02 ...; also
 * Ex01, S01, L01 as far as libewf reads them) through libewf. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dynlib.h"
#include "readers.h"
#include "libyal.h"

/* libbfio as libewf uses it (dynlib.h) */
#define E4_BFIO (e4_dl_bfio(E4_DL_EWF))
#include "byteorder.h"

/* libewf's reason for err (then freed): the first line of its
 * backtrace, the innermost. */
static void ewf_why(libewf_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		E4_EWF->error_backtrace_sprint(err, text, sizeof(text));
		E4_EWF->error_free(&err);
	}
	e4_container_why(text, why, whylen);
}

/* What libewf has noted of the damaged chunks read so far (its list of
 * checksum errors), copied: sectors [first, end), in libewf's order. */
struct ewf_range {
	uint64_t first, end;
};

/* A library handle and the pool of guarded segment files it reads
 * (libyal.h). */
struct ewf {
	libewf_handle_t *h;
	libbfio_pool_t *pool;
	uint32_t bps;       /* bytes per sector */
	uint32_t spc;       /* sectors per chunk (0: unknown) */
	struct ewf_range *bad;
	uint32_t n_bad, cap_bad;
	int bad_stale;      /* the copy may differ anywhere: fetch it whole */
	int bad_unordered;  /* libewf's list is not sorted and apart */
};

/* libewf's checksum error i into r; 0, or -1 when it cannot be read. */
static int ewf_bad_get(struct ewf *e, uint32_t i, struct ewf_range *r)
{
	uint64_t first = 0, count = 0;

	if (E4_EWF->handle_get_checksum_error(e->h, i, &first, &count, NULL) != 1)
		return -1;
	r->first = first;
	r->end = count > UINT64_MAX - first ? UINT64_MAX : first + count;
	return 0;
}

static int ewf_bad_room(struct ewf *e, uint32_t n)
{
	struct ewf_range *r;

	if (n <= e->cap_bad)
		return 0;
	if (!(r = realloc(e->bad, (size_t)n * sizeof(*r))))
		return -1;
	e->bad = r;
	e->cap_bad = n;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct ewf_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* The copy fetched whole: n calls.  A list that is not sorted and apart
 * (libewf 20140813's is: libcdata's range list merges what touches) is
 * sorted and merged here, and then fetched whole on every read.  0 or
 * -1. */
static int ewf_bad_fetch_all(struct ewf *e, uint32_t n)
{
	uint32_t k = 0;

	e->bad_stale = 1;
	e->n_bad = 0;
	if (ewf_bad_room(e, n))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (ewf_bad_get(e, i, &e->bad[i]))
			return -1;
	for (uint32_t i = 1; i < n && !e->bad_unordered; i++)
		if (e->bad[i - 1].end > e->bad[i].first)
			e->bad_unordered = 1;
	if (e->bad_unordered && n) {
		qsort(e->bad, n, sizeof(*e->bad), range_cmp);
		for (uint32_t i = 1; i < n; i++) {
			if (e->bad[i].first <= e->bad[k].end) {
				if (e->bad[i].end > e->bad[k].end)
					e->bad[k].end = e->bad[i].end;
			} else {
				e->bad[++k] = e->bad[i];
			}
		}
		n = k + 1;
	}
	e->n_bad = n;
	e->bad_stale = e->bad_unordered;
	return 0;
}

/* The first range of the copy that ends at or after sector s. */
static uint32_t ewf_bad_find(const struct ewf *e, uint64_t s)
{
	uint32_t lo = 0, hi = e->n_bad;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->bad[mid].end < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The copy brought up to libewf's list (of n ranges) after a read of the
 * chunks of sectors [rs, re): libewf notes a chunk when it reads it, so
 * only ranges touching these chunks can have been added, grown or merged
 * (the count alone does not tell: a damaged chunk next to one already
 * noted grows that range); those are fetched again, with the ranges
 * around them to check that nothing else moved.  0, or -1: fetch whole. */
static int ewf_bad_update(struct ewf *e, uint64_t rs, uint64_t re, uint32_t n)
{
	uint32_t lo = ewf_bad_find(e, rs), hi = lo, in;
	int64_t now;
	struct ewf_range *got, r;
	int same;

	while (hi < e->n_bad && e->bad[hi].first <= re)
		hi++;
	in = hi - lo;
	now = (int64_t)in + (int64_t)n - (int64_t)e->n_bad;
	if (now < 0)
		return -1;
	if (!now && !in)
		return 0;
	same = now == in;
	if (!(got = malloc((size_t)(now ? now : 1) * sizeof(*got))))
		return -1;
	for (uint32_t i = 0; i < (uint32_t)now; i++) {
		if (ewf_bad_get(e, lo + i, &got[i]) || got[i].end < rs || got[i].first > re ||
		    (i && got[i - 1].end > got[i].first)) {
			free(got);
			return -1;
		}
		if (now != in || memcmp(&got[i], &e->bad[lo + i], sizeof(r)))
			same = 0;
	}
	if (same) {
		free(got);
		return 0;
	}
	/* the neighbours are where they were, and apart from what changed */
	if ((lo && (ewf_bad_get(e, lo - 1, &r) || memcmp(&r, &e->bad[lo - 1], sizeof(r)) ||
		    (now && r.end > got[0].first))) ||
	    (hi < e->n_bad && (ewf_bad_get(e, lo + (uint32_t)now, &r) ||
			       memcmp(&r, &e->bad[hi], sizeof(r)) ||
			       (now && got[now - 1].end > r.first))) ||
	    ewf_bad_room(e, n)) {
		free(got);
		return -1;
	}
	memmove(e->bad + lo + now, e->bad + hi, (e->n_bad - hi) * sizeof(r));
	memcpy(e->bad + lo, got, (size_t)now * sizeof(r));
	e->n_bad = n;
	free(got);
	return 0;
}

/* Whether [off, off + got) touches a chunk whose checksum failed (or
 * whose data did not decompress) when this handle read it: libewf gives
 * such a chunk's bytes (zeros, or what the damaged data decoded to) and
 * only notes the sectors in its list of checksum errors, also on later
 * reads from its cache.  The list is copied and kept up to date by the
 * chunks each read asked for ([off, off + asked)), so that a read costs
 * a search, not a walk of the list.  1 when it does or the list cannot
 * be read. */
static int ewf_damaged(struct ewf *e, uint64_t off, size_t asked, size_t got)
{
	uint32_t n = 0;
	uint64_t s0 = off / e->bps, s1, rs, re, i;

	if (E4_EWF->handle_get_number_of_checksum_errors(e->h, &n, NULL) != 1)
		return 1;
	s1 = off / e->bps + ((off % e->bps + got + e->bps - 1) / e->bps);
	if (e->bad_stale || !e->spc) {
		if (ewf_bad_fetch_all(e, n))
			return 1;
	} else {
		rs = s0 - s0 % e->spc;
		re = off / e->bps + ((off % e->bps + asked + e->bps - 1) / e->bps);
		re = re % e->spc && UINT64_MAX - re >= e->spc ? re - re % e->spc + e->spc : re;
		if (ewf_bad_update(e, rs, re, n) && ewf_bad_fetch_all(e, n))
			return 1;
	}
	i = ewf_bad_find(e, s0 + 1);
	return i < e->n_bad && e->bad[i].first < s1;
}

/* A read of bytes of a damaged chunk fails: they are not the evidence. */
static ssize_t ewf_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	struct ewf *e = h;
	libewf_error_t *err = NULL;
	ssize_t n = E4_EWF->handle_read_random(e->h, buf, len, (off64_t)off, &err);

	E4_EWF->error_free(&err);
	if (n <= 0)
		e->bad_stale = 1; /* what it decoded before it failed is noted */
	if (n > 0 && ewf_damaged(e, off, len, (size_t)n))
		return -1;
	return n;
}

static void ewf_close(void *h)
{
	struct ewf *e = h;

	if (e->h) {
		E4_EWF->handle_close(e->h, NULL);
		E4_EWF->handle_free(&e->h, NULL);
	}
	if (e->pool)
		E4_BFIO->pool_free(&e->pool, NULL);
	free(e->bad);
	free(e);
}

/* The segment files of a set. */
struct segments {
	char **names;
	int n;
	int globbed;        /* names from libewf_glob */
	const char *given;  /* the path the examiner gave (not owned) */
	char *one[1];       /* else the path alone */
};

static void segments_free(void *arg)
{
	struct segments *g = arg;

	if (g->globbed)
		E4_EWF->glob_free(g->names, g->n, NULL);
	free(g->one[0]);
	free(g);
}

/* An open handle on the segments, or NULL with why. */
static struct ewf *ewf_open_handle(struct segments *g, char *why, size_t whylen)
{
	libewf_error_t *err = NULL;
	struct ewf *e = calloc(1, sizeof(*e));

	if (!e) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!(e->pool = e4_bfio_pool(E4_DL_EWF, "segment", g->names, g->n, g->given,
				     why, whylen))) {
		free(e);
		return NULL;
	}
	if (E4_EWF->handle_initialize(&e->h, &err) != 1 ||
	    E4_EWF->handle_open_file_io_pool(e->h, e->pool, LIBEWF_OPEN_READ, &err) != 1) {
		const char *r = e4_bfio_pool_refused(E4_DL_EWF, e->pool);

		if (r) {
			snprintf(why, whylen, "%s", r);
			E4_EWF->error_free(&err);
		} else {
			ewf_why(err, why, whylen);
		}
		/* close too: libewf 20140813 keeps the segment table of a
		 * failed open until then (LeakSanitizer, fuzz_container) */
		if (e->h) {
			E4_EWF->handle_close(e->h, NULL);
			E4_EWF->handle_free(&e->h, NULL);
		}
		ewf_close(e);
		return NULL;
	}
	if (E4_EWF->handle_get_bytes_per_sector(e->h, &e->bps, NULL) != 1 || !e->bps)
		e->bps = 512;
	if (E4_EWF->handle_get_sectors_per_chunk(e->h, &e->spc, NULL) != 1)
		e->spc = 0;
	e->bad_stale = 1;
	return e;
}

static void *ewf_reopen(void *g)
{
	char why[400];

	return ewf_open_handle(g, why, sizeof(why));
}

static const struct e4_handle_ops ewf_ops = { ewf_read_at, ewf_close,
					      ewf_reopen, segments_free };

/* What names a segment's set (EWF.asciidoc, "Segment file set identifier
 * GUID"): the volume (or disk) section of the first segment, the data
 * section of the others, the same 1052 bytes in EWF-E01: the media
 * geometry (bytes 0-23) and the set identifier GUID (64-79). */
struct ewf_set {
	int found;
	uint8_t geometry[24];
	uint8_t guid[16];
	unsigned int segment;   /* the number in the file header */
};

#define EWF_SECTION 76       /* a section descriptor */
#define EWF_VOLUME 1052      /* EWF-E01 volume/data section data */
#define EWF_SECTIONS_MAX 64  /* the set's description is near the start */

/* The set description of one segment file, opened as e4_evidence_open
 * (follow: the examiner gave its name).  0 (found may be 0: a SMART or
 * EWF2 file, or none in the first sections), -1 with why. */
static int ewf_segment_set(const char *path, const char *who, int follow,
			   struct ewf_set *set, char *why, size_t whylen)
{
	uint8_t hdr[13], d[EWF_SECTION], v[EWF_VOLUME];
	uint64_t size = 0, off = sizeof(hdr);
	int fd = e4_evidence_open(path, who, follow, &size, why, whylen);

	memset(set, 0, sizeof(*set));
	if (fd < 0)
		return -1;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    (memcmp(hdr, "EVF\x09\x0d\x0a\xff\x00", 8) &&
	     memcmp(hdr, "LVF\x09\x0d\x0a\xff\x00", 8))) {
		close(fd);
		return 0; /* not EWF-E01/L01: libewf says */
	}
	set->segment = (unsigned int)hdr[9] | (unsigned int)hdr[10] << 8;
	/* the section chain, forward only */
	for (int i = 0; i < EWF_SECTIONS_MAX && off <= size && size - off >= EWF_SECTION; i++) {
		uint64_t next, len;

		if (pread(fd, d, sizeof(d), (off_t)off) != (ssize_t)sizeof(d))
			break;
		next = e4_le64(d + 16);
		len = e4_le64(d + 24);
		if ((!memcmp(d, "volume\0", 7) || !memcmp(d, "disk\0", 5) ||
		     !memcmp(d, "data\0", 5)) && len >= EWF_SECTION + EWF_VOLUME &&
		    size - off >= EWF_SECTION + EWF_VOLUME) {
			if (pread(fd, v, sizeof(v), (off_t)(off + EWF_SECTION)) == (ssize_t)sizeof(v)) {
				memcpy(set->geometry, v, sizeof(set->geometry));
				memcpy(set->guid, v + 64, sizeof(set->guid));
				set->found = 1;
			}
			break;
		}
		if (!memcmp(d, "done\0", 5) || !memcmp(d, "next\0", 5) || next <= off)
			break;
		off = next;
	}
	close(fd);
	return 0;
}

static void hex16(const uint8_t *g, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g[i]);
}

/* Every segment of the set is what it claims: its header's number is its
 * place in the set, and its set description (struct ewf_set) is the
 * first segment's, the same set identifier and geometry.  libewf 20140813
 * reads a segment of another acquisition of the same geometry in place of
 * the set's own without a word.  0, or -1 with why naming the segment. */
static int ewf_check_set(struct segments *g, struct ewf_set *set, char *why,
			 size_t whylen)
{
	struct ewf_set first, s;
	char a[33], b[33];

	memset(set, 0, sizeof(*set));

	for (int i = 0; i < g->n; i++) {
		char who[4200];

		snprintf(who, sizeof(who), "segment %d (%s)", i + 1, g->names[i]);
		if (ewf_segment_set(g->names[i], who, !strcmp(g->names[i], g->given),
				    i ? &s : &first, why, whylen))
			return -1;
		if (!i)
			continue;
		if (first.segment && s.segment && s.segment != (unsigned int)i + 1) {
			snprintf(why, whylen, "segment %d (%s): its header says it is segment %u: not read as a member of this set",
				 i + 1, g->names[i], s.segment);
			return -1;
		}
		if (!first.found || !s.found)
			continue;
		if (memcmp(first.guid, s.guid, sizeof(s.guid))) {
			hex16(first.guid, a);
			hex16(s.guid, b);
			snprintf(why, whylen, "segment %d (%s) belongs to another set: its set identifier %s is not the first segment's (%s)",
				 i + 1, g->names[i], b, a);
			return -1;
		}
		if (memcmp(first.geometry, s.geometry, sizeof(s.geometry))) {
			snprintf(why, whylen, "segment %d (%s) belongs to another set: its media description (chunks, sectors) is not the first segment's",
				 i + 1, g->names[i]);
			return -1;
		}
	}
	*set = first;
	return 0;
}

/* The set identifier among the facts: its GUID, or that there is none
 * (ewfacquire without libuuid writes zeros): then a segment of another
 * acquisition of the same geometry cannot be told from the set's own,
 * short of reading the whole set against its stored hash. */
static void ewf_describe_set(struct e4_source *facts, const struct ewf_set *set,
			     int segments)
{
	static const uint8_t zero[16];
	char hex[33];
	const char *none = segments > 1 ?
		"none (all zero): a segment of another acquisition of the same geometry cannot be told from this set's own; check the stored hash" :
		"none (all zero)";

	if (!set->found)
		return;
	if (memcmp(set->guid, zero, sizeof(zero))) {
		hex16(set->guid, hex);
		e4_source_add_meta(facts, "set identifier", hex, strlen(hex));
	} else {
		e4_source_add_meta(facts, "set identifier", none, strlen(none));
	}
}

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
			  strlen(id), E4_EWF->handle_get_utf8_hash_value_size,
			  E4_EWF->handle_get_utf8_hash_value);
	}
	if (E4_EWF->handle_get_number_of_header_values(h, &n, NULL) != 1)
		return;
	for (uint32_t i = 0; i < n && i < 64; i++) {
		uint8_t id[64];
		size_t idsize = 0;

		if (E4_EWF->handle_get_header_value_identifier_size(h, i, &idsize, NULL) != 1 ||
		    idsize < 2 || idsize > sizeof(id) ||
		    E4_EWF->handle_get_header_value_identifier(h, i, id, idsize, NULL) != 1)
			continue;
		id[idsize - 1] = 0;
		add_value(s, h, (const char *)id, id, strlen((char *)id),
			  E4_EWF->handle_get_utf8_header_value_size,
			  E4_EWF->handle_get_utf8_header_value);
	}
}

enum e4_status e4_source_open_ewf(const char *path, struct e4_source **out,
				  char *why, size_t whylen)
{
	libewf_error_t *err = NULL;
	struct ewf *e;
	struct segments *g = calloc(1, sizeof(*g));
	struct ewf_set set;
	int corrupt = 0, globbed;
	size64_t size = 0;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_EWF, why, whylen)) {
		free(g);
		return E4_UNSUPPORTED;
	}
	if (!g || !(g->one[0] = strdup(path))) {
		free(g);
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	/* the segments are found by name from the first, as ewfmount does;
	 * a name without a segment extension is one segment by itself */
	globbed = E4_EWF->glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &g->names,
			      &g->n, &err);
	if (globbed == 1 && g->n >= 1) {
		g->globbed = 1;
	} else {
		E4_EWF->error_free(&err);
		if (globbed == 1)
			E4_EWF->glob_free(g->names, g->n, NULL);
		g->names = g->one;
		g->n = 1;
	}
	/* only the name the examiner gave may be a symbolic link (the
	 * others libewf found by name) */
	g->given = g->one[0];
	if (ewf_check_set(g, &set, why, whylen)) {
		segments_free(g);
		return E4_CORRUPT;
	}
	if (!(e = ewf_open_handle(g, why, whylen))) {
		segments_free(g);
		return E4_IO;
	}
	if (E4_EWF->handle_get_media_size(e->h, &size, &err) != 1 ||
	    (corrupt = E4_EWF->handle_segment_files_corrupted(e->h, &err)) != 0) {
		if (corrupt == 1)
			snprintf(why, whylen, "segment files missing or corrupt "
				 "(the last one found does not end the set)");
		else
			ewf_why(err, why, whylen);
		ewf_close(e);
		segments_free(g);
		return E4_IO;
	}
	{
		struct e4_source facts = { 0 };
		enum e4_status st;

		ewf_describe(&facts, e->h);
		ewf_describe_set(&facts, &set, g->n);
		uint32_t chunk = e->spc && e->bps <= UINT32_MAX / e->spc ?
				 e->spc * e->bps : 32768;

		st = e4_source_handles(&ewf_ops, g, e, (uint64_t)size, path, "EWF", out);
		if (st == E4_OK) {
			/* small reads (metadata) from decoded chunks:
			 * libewf keeps few and inflates a chunk for each
			 * 4 KiB read beyond them */
			e4_source_handles_cache(*out, chunk);
			(*out)->meta = facts.meta;
			(*out)->n_meta = facts.n_meta;
		} else {
			e4_source_free_meta(&facts);
		}
		return st;
	}
}
