/* Split raw images (disk.001, disk.002, ...; disk.raw.000; xaa, xab, ...)
 * through libsmraw, which knows the naming schemas the field uses. */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynlib.h"
#include "readers.h"
#include "libyal.h"

/* libbfio as libsmraw uses it (dynlib.h) */
#define E4_BFIO (e4_dl_bfio(E4_DL_SMRAW))

static void smraw_why(libsmraw_error_t *err, char *why, size_t whylen)
{
	char text[1024] = "";

	if (err) {
		E4_SMRAW->error_backtrace_sprint(err, text, sizeof(text));
		E4_SMRAW->error_free(&err);
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
	ssize_t n = E4_SMRAW->handle_read_buffer_at_offset(r->h, buf, len,
							  (off64_t)off, &err);

	E4_SMRAW->error_free(&err);
	return n;
}

static void smraw_close(void *h)
{
	struct smraw *r = h;

	if (r->h) {
		E4_SMRAW->handle_close(r->h, NULL);
		E4_SMRAW->handle_free(&r->h, NULL);
	}
	if (r->pool)
		E4_BFIO->pool_free(&r->pool, NULL);
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

	E4_SMRAW->glob_free(g->names, g->n, NULL);
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
	if (!(r->pool = e4_bfio_pool(E4_DL_SMRAW, "segment", g->names, g->n, g->given,
				     why, whylen))) {
		free(r);
		return NULL;
	}
	if (E4_SMRAW->handle_initialize(&r->h, &err) != 1 ||
	    E4_SMRAW->handle_open_file_io_pool(r->h, r->pool, LIBSMRAW_OPEN_READ, &err) != 1) {
		const char *refused = e4_bfio_pool_refused(E4_DL_SMRAW, r->pool);

		if (refused) {
			snprintf(why, whylen, "%s", refused);
			E4_SMRAW->error_free(&err);
		} else {
			smraw_why(err, why, whylen);
		}
		if (r->h)
			E4_SMRAW->handle_free(&r->h, NULL);
		smraw_close(r);
		return NULL;
	}
	return r;
}

/* The members of a set are of one size but the last, which is not
 * longer (libsmraw reads each member at its own size: one cut short
 * would shift every byte after it, and a larger last one would be
 * another set's).  0, or -1 with why naming the member. */
static int check_sizes(const struct segments *g, libbfio_pool_t *pool, char *why,
		       size_t whylen)
{
	size64_t first = 0, size = 0;

	for (int i = 0; i < g->n; i++) {
		if (E4_BFIO->pool_get_size(pool, i, &size, NULL) != 1) {
			snprintf(why, whylen, "segment %d (%s): its size cannot be read",
				 i + 1, g->names[i]);
			return -1;
		}
		if (!i) {
			first = size;
			continue;
		}
		if (i < g->n - 1 && size != first) {
			snprintf(why, whylen, "segment %d (%s) is %llu bytes, segment 1 (%s) %llu: the members of a split set but the last are of one size (one cut short would shift every byte after it)",
				 i + 1, g->names[i], (unsigned long long)size, g->names[0],
				 (unsigned long long)first);
			return -1;
		}
		if (i == g->n - 1 && (size > first || !size)) {
			snprintf(why, whylen, "segment %d (%s), the last, is %llu bytes, segment 1 (%s) %llu: %s",
				 i + 1, g->names[i], (unsigned long long)size, g->names[0],
				 (unsigned long long)first,
				 size ? "the last member of a split set is not longer than the others" :
					"an empty member");
			return -1;
		}
	}
	if (g->n && !first) {
		snprintf(why, whylen, "segment 1 (%s) is empty", g->names[0]);
		return -1;
	}
	return 0;
}

static void *smraw_reopen(void *g)
{
	char why[400];

	return smraw_open_handle(g, why, sizeof(why));
}

static const struct e4_handle_ops smraw_ops = { smraw_read_at, smraw_close,
						smraw_reopen, segments_free };

/* A split raw set's name: STEM.DIGITS (3 to 9 digits), as FTK Imager
 * and split -d write them: the stem's length (with the dot), the width
 * and the number.  0 when path is no such name. */
struct split_name {
	size_t stem;
	int width;
	unsigned long num;
};

static int split_name(const char *path, struct split_name *sn)
{
	size_t n = strlen(path), d = 0;

	while (d < n && path[n - 1 - d] >= '0' && path[n - 1 - d] <= '9')
		d++;
	/* (".001" alone crashes libsmraw_glob: a name before the dot) */
	if (d < 3 || d > 9 || d + 1 >= n || path[n - 1 - d] != '.' || path[n - 2 - d] == '/')
		return 0;
	sn->stem = n - d;
	sn->width = (int)d;
	sn->num = strtoul(path + n - d, NULL, 10);
	return 1;
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The numbers of the names STEM.DIGITS (sn's width) in path's directory,
 * sorted, in *nums (malloc'd): their count, or -1 (errno). */
static long set_members(const char *path, const struct split_name *sn,
			unsigned long **nums)
{
	const char *slash = memrchr(path, '/', sn->stem);
	const char *base = slash ? slash + 1 : path;
	size_t blen = (size_t)(path + sn->stem - base);
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	size_t n = 0, cap = 0;

	free(dir);
	*nums = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		const char *num = e->d_name + blen;
		unsigned long *more;

		if (strncmp(e->d_name, base, blen) || strlen(num) != (size_t)sn->width ||
		    strspn(num, "0123456789") != (size_t)sn->width)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			more = realloc(*nums, cap * sizeof(**nums));
			if (!more) {
				closedir(d);
				free(*nums);
				*nums = NULL;
				errno = ENOMEM;
				return -1;
			}
			*nums = more;
		}
		(*nums)[n++] = strtoul(num, NULL, 10);
	}
	closedir(d);
	if (n)
		qsort(*nums, n, sizeof(**nums), by_number);
	return (long)n;
}

static int has(const unsigned long *nums, long n, unsigned long x)
{
	return n > 0 && bsearch(&x, nums, (size_t)n, sizeof(x), by_number) != NULL;
}

/* The first of the sorted nums above x (there is one: the caller checked
 * the largest), found by bisection: names far apart cost nothing. */
static unsigned long next_above(const unsigned long *nums, long n, unsigned long x)
{
	long lo = 0, hi = n - 1;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (nums[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return nums[lo];
}

int e4_split_raw_set(const char *path, char *why, size_t whylen)
{
	struct split_name sn;
	unsigned long *nums, last, k;
	long n;
	int rc = 0;

	if (!split_name(path, &sn))
		return 0;
	n = set_members(path, &sn, &nums);
	if (n < 0) {
		snprintf(why, whylen, "split raw image: cannot list the directory of %s: %s",
			 path, strerror(errno));
		return -1;
	}
	k = sn.num;
	for (last = k; has(nums, n, last + 1); last++)
		;
	if (k && has(nums, n, k - 1)) {
		unsigned long first = k - 1;

		while (first && has(nums, n, first - 1))
			first--;
		snprintf(why, whylen, "split raw image: a later segment; its set starts at %.*s%0*lu",
			 (int)sn.stem, path, sn.width, first);
		rc = -1;
	} else if (n && nums[n - 1] > last) {
		unsigned long next = next_above(nums, n, last);

		snprintf(why, whylen, "split raw image: segment %lu (%.*s%0*lu) is missing: the set goes on with %.*s%0*lu",
			 last + 2 - k, (int)sn.stem, path, sn.width, last + 1,
			 (int)sn.stem, path, sn.width, next);
		rc = -1;
	} else if (k > 1 && last > k) {
		snprintf(why, whylen, "split raw image: %s is a later segment of a set whose first is missing (%.*s%0*lu not found)",
			 path, (int)sn.stem, path, sn.width, k - 1);
		rc = -1;
	} else if (k <= 1 && last > k) {
		rc = 1;
	}
	free(nums);
	return rc;
}

enum e4_status e4_source_open_smraw(const char *path, struct e4_source **out,
				    char *why, size_t whylen)
{
	libsmraw_error_t *err = NULL;
	struct smraw *r;
	struct segments *g = calloc(1, sizeof(*g));
	size64_t size = 0;

	*out = NULL;
	/* the library is loaded for the first image that needs it */
	if (e4_dl_need(E4_DL_SMRAW, why, whylen)) {
		free(g);
		return E4_UNSUPPORTED;
	}
	if (!g) {
		snprintf(why, whylen, "out of memory");
		return E4_NOMEM;
	}
	if (E4_SMRAW->glob(path, strlen(path), &g->names, &g->n, &err) != 1) {
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
	if (check_sizes(g, r->pool, why, whylen)) {
		smraw_close(r);
		segments_free(g);
		return E4_CORRUPT;
	}
	if (E4_SMRAW->handle_get_media_size(r->h, &size, &err) != 1) {
		smraw_why(err, why, whylen);
		smraw_close(r);
		segments_free(g);
		return E4_IO;
	}
	return e4_source_handles(&smraw_ops, g, r, (uint64_t)size, path,
				 "split raw", out);
}
