/* libyal.h: the guarded libbfio handles the libyal readers are given,
 * and the reason from a libyal error. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libyal.h"
#include "source.h"

void e4_container_why(const char *text, char *why, size_t whylen)
{
	const char *colon = strstr(text, ": ");
	size_t n;

	if (colon && colon < text + strcspn(text, " \n"))
		text = colon + 2;
	n = strcspn(text, "\n");
	if (n && text[n - 1] == '.')
		n--;
	if (!n)
		snprintf(why, whylen, "unknown error");
	else
		snprintf(why, whylen, "%.*s", (int)n, text);
}

/* e4_evidence_open with the file named as who in why. */
static int evidence_open(const char *path, const char *who, int follow,
			 uint64_t *size, char *why, size_t whylen)
{
	int fd = e4_evidence_fd(path, follow, size), err = errno;
	struct stat st;

	if (fd >= 0)
		return fd;
	if (!follow && (err == ELOOP || err == EMLINK) && !lstat(path, &st) &&
	    S_ISLNK(st.st_mode))
		snprintf(why, whylen, "%s: a symbolic link: not read as a member of the evidence (it could be any file on this machine; give the files themselves)",
			 who);
	else if (err == EINVAL)
		snprintf(why, whylen, "%s: not a regular file or block device: not evidence",
			 who);
	else
		snprintf(why, whylen, "%s: %s", who, strerror(err));
	errno = err;
	return -1;
}

int e4_evidence_open(const char *path, const char *who, int follow,
		     uint64_t *size, char *why, size_t whylen)
{
	return evidence_open(path, who ? who : path, follow, size, why, whylen);
}

/* The io_handle of a guarded libbfio handle. */
struct guard {
	char *path;
	char *who;         /* the path, or "segment N (path)" */
	int follow;
	int short_reads;   /* E4_BFIO_SHORT */
	int fd;            /* -1 while closed */
	uint64_t size;     /* as first opened; a reopen must find the same */
	int sized;
	uint64_t pos;
	char refused[512]; /* why the last read was refused, or "" */
};

static int guard_free(intptr_t **io, libbfio_error_t **error)
{
	struct guard *g = (struct guard *)*io;

	(void)error;
	if (g) {
		if (g->fd >= 0)
			close(g->fd);
		free(g->path);
		free(g->who);
		free(g);
	}
	*io = NULL;
	return 1;
}

static struct guard *guard_new(const char *path, const char *who, int follow)
{
	struct guard *g = calloc(1, sizeof(*g));

	if (!g || !(g->path = strdup(path)) || !(g->who = strdup(who))) {
		if (g)
			free(g->path);
		free(g);
		return NULL;
	}
	g->follow = follow;
	g->fd = -1;
	return g;
}

static int guard_clone(intptr_t **dst, intptr_t *src, libbfio_error_t **error)
{
	struct guard *s = (struct guard *)src, *g;

	(void)error;
	if (!s || !(g = guard_new(s->path, s->who, s->follow)))
		return -1;
	g->short_reads = s->short_reads;
	g->size = s->size;
	g->sized = s->sized;
	*dst = (intptr_t *)g;
	return 1;
}

static int guard_open(intptr_t *io, int access, libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;
	char why[400];
	uint64_t size;
	int fd;

	(void)error;
	if (access & ~LIBBFIO_ACCESS_FLAG_READ)
		return -1; /* the evidence is never written */
	if (g->fd >= 0)
		return 1;
	fd = evidence_open(g->path, g->who, g->follow, &size, why, sizeof(why));
	if (fd < 0) {
		snprintf(g->refused, sizeof(g->refused), "%s", why);
		return -1;
	}
	if (g->sized && size != g->size) {
		snprintf(g->refused, sizeof(g->refused), "%s: its size changed while it was read",
			 g->who);
		close(fd);
		return -1;
	}
	g->fd = fd;
	g->size = size;
	g->sized = 1;
	g->pos = 0;
	return 1;
}

static int guard_close(intptr_t *io, libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;

	(void)error;
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	return 0;
}

/* All len bytes at pos, or -1: nothing past the end of the file, and
 * never fewer bytes than asked (a file that shrank fails). */
static ssize_t guard_read(intptr_t *io, uint8_t *buf, size_t len,
			  libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;
	size_t done = 0;

	(void)error;
	if (g->fd < 0 || len > SSIZE_MAX)
		return -1;
	if (g->short_reads && g->pos <= g->size && len > g->size - g->pos) {
		memset(buf + (g->size - g->pos), 0, len - (size_t)(g->size - g->pos));
		len = (size_t)(g->size - g->pos);
	}
	if (g->pos > g->size || len > g->size - g->pos) {
		snprintf(g->refused, sizeof(g->refused),
			 "%s: a read of %zu bytes at byte %llu runs past the end of the file (%llu bytes): refused",
			 g->who, len, (unsigned long long)g->pos,
			 (unsigned long long)g->size);
		return -1;
	}
	while (done < len) {
		ssize_t n = pread(g->fd, buf + done, len - done, (off_t)(g->pos + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(g->refused, sizeof(g->refused), "%s: %s", g->who,
				 n ? strerror(errno) : "shorter than when it was opened");
			return -1;
		}
		done += (size_t)n;
	}
	g->pos += len;
	return (ssize_t)len;
}

static ssize_t guard_write(intptr_t *io, const uint8_t *buf, size_t len,
			   libbfio_error_t **error)
{
	(void)io;
	(void)buf;
	(void)len;
	(void)error;
	return -1;
}

static off64_t guard_seek(intptr_t *io, off64_t off, int whence,
			  libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;
	off64_t base;

	(void)error;
	if (whence == SEEK_SET)
		base = 0;
	else if (whence == SEEK_CUR)
		base = (off64_t)g->pos;
	else if (whence == SEEK_END)
		base = (off64_t)g->size;
	else
		return -1;
	if ((off < 0 && (off == INT64_MIN || -off > base)) ||
	    (off > 0 && off > INT64_MAX - base))
		return -1;
	g->pos = (uint64_t)(base + off);
	return (off64_t)g->pos;
}

static int guard_exists(intptr_t *io, libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;
	struct stat st;

	(void)error;
	return (g->follow ? stat(g->path, &st) : lstat(g->path, &st)) ? 0 : 1;
}

static int guard_is_open(intptr_t *io, libbfio_error_t **error)
{
	(void)error;
	return ((struct guard *)io)->fd >= 0;
}

static int guard_get_size(intptr_t *io, size64_t *size, libbfio_error_t **error)
{
	struct guard *g = (struct guard *)io;

	(void)error;
	if (!g->sized)
		return -1;
	*size = g->size;
	return 1;
}

/* e4_bfio_open with the file named as who in messages. */
static libbfio_handle_t *bfio_open(enum e4_dl_lib lib, const char *path,
				   const char *who, int flags, char *why, size_t whylen)
{
	const struct e4_dl_bfio *bfio = e4_dl_bfio(lib);
	libbfio_handle_t *h = NULL;
	struct guard *g;

	if (e4_dl_need(lib, why, whylen))
		return NULL;
	if (!(g = guard_new(path, who, flags & E4_BFIO_FOLLOW))) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	g->short_reads = !!(flags & E4_BFIO_SHORT);
	if (bfio->handle_initialize(&h, (intptr_t *)g, guard_free, guard_clone,
				      guard_open, guard_close, guard_read, guard_write,
				      guard_seek, guard_exists, guard_is_open,
				      guard_get_size, LIBBFIO_FLAG_IO_HANDLE_MANAGED |
				      LIBBFIO_FLAG_IO_HANDLE_CLONE_BY_FUNCTION,
				      NULL) != 1) {
		guard_free((intptr_t **)&g, NULL);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	/* opened here, so that a member that is not evidence is refused
	 * with its own reason, not the library's */
	if (bfio->handle_open(h, LIBBFIO_OPEN_READ, NULL) != 1) {
		snprintf(why, whylen, "%s", g->refused[0] ? g->refused : path);
		bfio->handle_free(&h, NULL);
		return NULL;
	}
	return h;
}

libbfio_handle_t *e4_bfio_open(enum e4_dl_lib lib, const char *path, int flags,
			       char *why, size_t whylen)
{
	return bfio_open(lib, path, path, flags, why, whylen);
}

libbfio_pool_t *e4_bfio_pool(enum e4_dl_lib lib, const char *member,
			     char *const *names, int n, const char *given, char *why,
			     size_t whylen)
{
	const struct e4_dl_bfio *bfio = e4_dl_bfio(lib);
	libbfio_pool_t *p = NULL;

	if (e4_dl_need(lib, why, whylen))
		return NULL;
	if (bfio->pool_initialize(&p, n, LIBBFIO_POOL_UNLIMITED_NUMBER_OF_OPEN_HANDLES,
				    NULL) != 1) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		libbfio_handle_t *h;

		char who[4200];

		if (!names[i])
			continue;
		snprintf(who, sizeof(who), "%s %d (%s)", member, i + 1, names[i]);
		h = bfio_open(lib, names[i], who, strcmp(names[i], given) ? 0 : E4_BFIO_FOLLOW,
			      why, whylen);
		if (!h) {
			bfio->pool_free(&p, NULL);
			return NULL;
		}
		if (bfio->pool_set_handle(p, i, h, LIBBFIO_OPEN_READ, NULL) != 1) {
			bfio->handle_free(&h, NULL);
			bfio->pool_free(&p, NULL);
			snprintf(why, whylen, "out of memory");
			return NULL;
		}
	}
	return p;
}

const char *e4_bfio_refused(enum e4_dl_lib lib, libbfio_handle_t *h)
{
	const struct e4_dl_bfio *bfio = e4_dl_bfio(lib);
	intptr_t *io = NULL;
	struct guard *g;

	if (!h || bfio->handle_get_io_handle(h, &io, NULL) != 1 || !io)
		return NULL;
	g = (struct guard *)io;
	return g->refused[0] ? g->refused : NULL;
}

const char *e4_bfio_pool_refused(enum e4_dl_lib lib, libbfio_pool_t *p)
{
	const struct e4_dl_bfio *bfio = e4_dl_bfio(lib);
	int n = 0;

	if (!p || bfio->pool_get_number_of_handles(p, &n, NULL) != 1)
		return NULL;
	for (int i = 0; i < n; i++) {
		libbfio_handle_t *h = NULL;
		const char *r;

		if (bfio->pool_get_handle(p, i, &h, NULL) == 1 && (r = e4_bfio_refused(lib, h)))
			return r;
	}
	return NULL;
}
