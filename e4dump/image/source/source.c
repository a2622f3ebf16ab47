#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include "source.h"

struct file_source {
	int fd;
};

static int file_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct file_source *f = arg;
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(f->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO; /* shorter than it was */
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void file_close(void *arg)
{
	struct file_source *f = arg;

	close(f->fd);
	free(f);
}

static const struct e4_source_ops file_ops = { file_read, file_close };

int e4_evidence_fd(const char *path, int follow, uint64_t *size)
{
	struct stat st;
	int fd, err, flags;

	/* O_NONBLOCK: open() of a FIFO without a writer would wait for one */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			(follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		/* a directory, FIFO, socket or terminal is no image */
		err = errno;
		if (!err || !fstat(fd, &st))
			err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = err;
		return -1;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	*size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;

		if (!ioctl(fd, BLKGETSIZE64, &bytes))
			*size = bytes;
	}
	return fd;
}

enum e4_status e4_source_open_file(const char *path, struct e4_source **out)
{
	struct file_source *f;
	uint64_t size;
	int fd;

	*out = NULL;
	fd = e4_evidence_fd(path, 1, &size);
	if (fd < 0)
		return E4_IO;
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		errno = ENOMEM;
		return E4_NOMEM;
	}
	f->fd = fd;
	/* pread: concurrent */
	return e4_source_new(&file_ops, f, size, path, 1, "raw", out);
}

enum e4_status e4_source_new(const struct e4_source_ops *ops, void *arg,
			     uint64_t size, const char *name, int concurrent,
			     const char *kind, struct e4_source **out)
{
	struct e4_source *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->name = strdup(name))) {
		free(s);
		ops->close(arg);
		errno = ENOMEM;
		return E4_NOMEM;
	}
	s->ops = ops;
	s->arg = arg;
	s->size = size;
	s->concurrent = concurrent;
	s->kind = kind;
	s->disk_size = size;
	*out = s;
	return E4_OK;
}

struct window {
	struct e4_source *base;
	uint64_t offset;
	int owns;
};

static int window_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct window *w = arg;

	return w->base->ops->read(w->base->arg, w->offset + off, buf, len);
}

static void window_close(void *arg)
{
	struct window *w = arg;

	if (w->owns)
		e4_source_close(w->base);
	free(w);
}

static const struct e4_source_ops window_ops = { window_read, window_close };

static enum e4_status window(struct e4_source *base, uint64_t offset,
			     uint64_t size, int owns, struct e4_source **out)
{
	struct window *w;

	*out = NULL;
	if (offset > base->size || (size && size > base->size - offset)) {
		if (owns)
			e4_source_close(base);
		return E4_INVALID;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		if (owns)
			e4_source_close(base);
		return E4_NOMEM;
	}
	w->base = base;
	w->offset = offset;
	w->owns = owns;
	if (e4_source_new(&window_ops, w, size ? size : base->size - offset,
			  base->name, base->concurrent, base->kind, out) != E4_OK)
		return E4_NOMEM;
	(*out)->disk_offset = base->disk_offset + offset;
	(*out)->disk_size = base->disk_size;
	return E4_OK;
}

enum e4_status e4_source_window(struct e4_source *base, uint64_t offset,
				uint64_t size, struct e4_source **out)
{
	return window(base, offset, size, 1, out);
}

enum e4_status e4_source_view(struct e4_source *base, uint64_t offset,
			      uint64_t size, struct e4_source **out)
{
	return window(base, offset, size, 0, out);
}

enum e4_status e4_source_read(struct e4_source *s, uint64_t off, void *buf,
			      size_t len)
{
	if (off > s->size || len > s->size - off) {
		errno = EIO;
		return E4_IO;
	}
	return s->ops->read(s->arg, off, buf, len) ? E4_IO : E4_OK;
}

int e4_source_add_meta(struct e4_source *s, const char *key,
		       const void *value, size_t len)
{
	struct e4_source_meta *m = realloc(s->meta, (s->n_meta + 1) * sizeof(*m));
	char *k, *v;

	if (!m)
		return -1;
	s->meta = m;
	k = strdup(key);
	v = malloc(len + 1);
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	memcpy(v, value, len);
	v[len] = 0;
	m[s->n_meta].key = k;
	m[s->n_meta++].value = v;
	return 0;
}

void e4_source_free_meta(struct e4_source *s)
{
	for (size_t i = 0; i < s->n_meta; i++) {
		free(s->meta[i].key);
		free(s->meta[i].value);
	}
	free(s->meta);
	s->meta = NULL;
	s->n_meta = 0;
}

void e4_source_close(struct e4_source *s)
{
	if (!s)
		return;
	e4_source_free_meta(s);
	s->ops->close(s->arg);
	free(s->name);
	free(s);
}

/* A cache of decoded units (e4_source_handles_cache) in front of the
 * handles, for reads of less than two units: metadata is read 4 KiB at a
 * time, and libewf and libqcow decode the whole chunk or cluster for each
 * such read beyond the few they keep (verify through a compressed qcow2
 * inflated 1,875 clusters of 64 KiB for 33 MiB read).  Larger reads go
 * to a handle directly, into the caller's buffer (no copy). */
enum { SLOT_FREE, SLOT_LOADING, SLOT_READY, SLOT_FAILED };

struct slot {
	uint64_t blk;
	uint64_t used;      /* clock of its last use (LRU) */
	uint8_t *buf;       /* unit bytes, allocated when first filled */
	unsigned int refs;  /* readers copying or waiting: not evicted */
	int state;
	int hnext;          /* the next slot in its hash chain, or -1 */
};

struct handles {
	const struct e4_handle_ops *ops;
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t freed;
	void *h[E4_SOURCE_HANDLES];
	int busy[E4_SOURCE_HANDLES];
	unsigned int n;
	int cannot_reopen;
	uint64_t size;
	/* the cache (nslots 0: none) */
	uint32_t unit;
	unsigned int nslots;
	struct slot *slots;
	int *bucket;            /* hash chains by unit: the first slot, or -1 */
	unsigned int hmask;
	uint64_t clock;
	pthread_cond_t loaded;  /* a slot left SLOT_LOADING */
	unsigned int waiting;   /* readers waiting for it */
	uint64_t hits, fills;   /* e4_source_handles_cache_stats */
};

/* A free handle, opening one more when all are busy (under the lock). */
static unsigned int take_handle(struct handles *z)
{
	for (;;) {
		for (unsigned int i = 0; i < z->n; i++)
			if (!z->busy[i]) {
				z->busy[i] = 1;
				return i;
			}
		if (z->n < E4_SOURCE_HANDLES && !z->cannot_reopen) {
			void *h = z->ops->reopen(z->ctx);

			if (h) {
				z->h[z->n] = h;
				z->busy[z->n] = 1;
				return z->n++;
			}
			z->cannot_reopen = 1; /* share the ones there are */
			continue;
		}
		pthread_cond_wait(&z->freed, &z->lock);
	}
}

/* len bytes at off through one handle; 0, or -1 with errno (buf's bytes
 * past what was read are left as they are). */
static int handle_read(struct handles *z, uint64_t off, uint8_t *p, size_t len)
{
	unsigned int i;
	int rc = 0;

	pthread_mutex_lock(&z->lock);
	i = take_handle(z);
	pthread_mutex_unlock(&z->lock);
	while (len) {
		ssize_t n = z->ops->read_at(z->h[i], p, len, off);

		if (n <= 0 || (size_t)n > len) {
			errno = EIO;
			rc = -1;
			break;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	pthread_mutex_lock(&z->lock);
	z->busy[i] = 0;
	pthread_cond_signal(&z->freed);
	pthread_mutex_unlock(&z->lock);
	return rc;
}

/* (under the lock) */
static unsigned int cache_hash(const struct handles *z, uint64_t blk)
{
	return (unsigned int)((blk * 0x9e3779b97f4a7c15ULL) >> 40) & z->hmask;
}

static struct slot *cache_find(struct handles *z, uint64_t blk)
{
	for (int i = z->bucket[cache_hash(z, blk)]; i >= 0; i = z->slots[i].hnext)
		if (z->slots[i].blk == blk && z->slots[i].state != SLOT_FREE)
			return &z->slots[i];
	return NULL;
}

/* The least recently used slot nobody holds, now blk's and SLOT_LOADING,
 * or NULL. */
static struct slot *cache_claim(struct handles *z, uint64_t blk)
{
	struct slot *best = NULL;
	int *p;

	for (unsigned int i = 0; i < z->nslots; i++) {
		struct slot *s = &z->slots[i];

		if (s->refs || s->state == SLOT_LOADING)
			continue;
		if (s->state == SLOT_FREE) {
			best = s;
			break;
		}
		if (!best || s->used < best->used)
			best = s;
	}
	if (!best)
		return NULL;
	if (best->state != SLOT_FREE) {
		/* out of its old chain */
		for (p = &z->bucket[cache_hash(z, best->blk)];
		     *p != (int)(best - z->slots); p = &z->slots[*p].hnext)
			;
		*p = best->hnext;
	}
	p = &z->bucket[cache_hash(z, blk)];
	best->hnext = *p;
	*p = (int)(best - z->slots);
	best->blk = blk;
	best->state = SLOT_LOADING;
	return best;
}

/* [off, off + len), within unit blk, from the cache, decoding the whole
 * unit first when it is not there; a unit that cannot be cached (no slot
 * free, or it cannot be read whole: a damaged chunk) is read directly,
 * so it fails exactly as without the cache.  0 or -1. */
static int cache_read(struct handles *z, uint64_t blk, uint64_t off, uint8_t *p,
		      size_t len)
{
	struct slot *s;
	int mine = 0, ok;

	pthread_mutex_lock(&z->lock);
	if (!(s = cache_find(z, blk)))
		mine = (s = cache_claim(z, blk)) != NULL;
	if (s) {
		s->refs++;
		s->used = ++z->clock;
	}
	if (s && !mine)
		z->hits++;
	pthread_mutex_unlock(&z->lock);
	if (!s)
		return handle_read(z, off, p, len);
	if (mine) {
		uint64_t start = blk * z->unit;
		size_t n = z->size - start < z->unit ? (size_t)(z->size - start) : z->unit;

		ok = 0;
		if (!s->buf)
			s->buf = malloc(z->unit);
		if (s->buf)
			ok = !handle_read(z, start, s->buf, n);
		pthread_mutex_lock(&z->lock);
		z->fills++;
		s->state = ok ? SLOT_READY : SLOT_FAILED;
		if (z->waiting) /* a wake-up is a system call */
			pthread_cond_broadcast(&z->loaded);
	} else {
		pthread_mutex_lock(&z->lock);
		while (s->state == SLOT_LOADING) {
			z->waiting++;
			pthread_cond_wait(&z->loaded, &z->lock);
			z->waiting--;
		}
	}
	ok = s->state == SLOT_READY;
	pthread_mutex_unlock(&z->lock);
	/* a READY slot held (refs) is neither refilled nor evicted */
	if (ok)
		memcpy(p, s->buf + (off - blk * z->unit), len);
	pthread_mutex_lock(&z->lock);
	s->refs--;
	pthread_mutex_unlock(&z->lock);
	return ok ? 0 : handle_read(z, off, p, len);
}

static int handles_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct handles *z = arg;
	uint8_t *p = buf;

	/* what a library says it read and did not is zeros, never what the
	 * buffer held before */
	memset(buf, 0, len);
	if (!z->nslots || len >= 2 * (size_t)z->unit)
		return handle_read(z, off, buf, len);
	/* less than two units: one or two pieces */
	while (len) {
		uint64_t blk = off / z->unit;
		size_t piece = z->unit - (size_t)(off % z->unit);

		if (piece > len)
			piece = len;
		if (cache_read(z, blk, off, p, piece))
			return -1;
		p += piece;
		off += piece;
		len -= piece;
	}
	return 0;
}

static void handles_close(void *arg)
{
	struct handles *z = arg;

	for (unsigned int i = 0; i < z->nslots; i++)
		free(z->slots[i].buf);
	free(z->slots);
	free(z->bucket);
	for (unsigned int i = 0; i < z->n; i++)
		z->ops->close(z->h[i]);
	z->ops->free_ctx(z->ctx);
	pthread_cond_destroy(&z->loaded);
	pthread_cond_destroy(&z->freed);
	pthread_mutex_destroy(&z->lock);
	free(z);
}

static const struct e4_source_ops handles_ops = { handles_read, handles_close };

enum e4_status e4_source_handles(const struct e4_handle_ops *ops, void *ctx,
				 void *first, uint64_t size, const char *name,
				 const char *kind, struct e4_source **out)
{
	struct handles *z = calloc(1, sizeof(*z));
	int locks = 0;

	*out = NULL;
	if (z && !pthread_mutex_init(&z->lock, NULL)) {
		locks = 1;
		if (!pthread_cond_init(&z->freed, NULL)) {
			locks = 2;
			if (!pthread_cond_init(&z->loaded, NULL))
				locks = 3;
		}
	}
	if (locks < 3) {
		if (locks >= 2)
			pthread_cond_destroy(&z->freed);
		if (locks >= 1)
			pthread_mutex_destroy(&z->lock);
		free(z);
		ops->close(first);
		ops->free_ctx(ctx);
		return E4_NOMEM;
	}
	z->ops = ops;
	z->ctx = ctx;
	z->h[0] = first;
	z->n = 1;
	z->size = size;
	return e4_source_new(&handles_ops, z, size, name, 1, kind, out);
}

int e4_source_handles_cache(struct e4_source *s, uint32_t unit)
{
	struct handles *z;

	if (s->ops != &handles_ops || !unit || unit > E4_SOURCE_CACHE / 8 ||
	    ((struct handles *)s->arg)->nslots)
		return -1;
	z = s->arg;
	z->nslots = E4_SOURCE_CACHE / unit;
	for (z->hmask = 1; z->hmask < 2 * z->nslots; z->hmask <<= 1)
		;
	z->slots = calloc(z->nslots, sizeof(*z->slots));
	z->bucket = malloc(z->hmask * sizeof(*z->bucket));
	if (!z->slots || !z->bucket) {
		free(z->slots);
		free(z->bucket);
		z->slots = NULL;
		z->bucket = NULL;
		z->nslots = 0;
		return -1;
	}
	for (unsigned int i = 0; i < z->hmask; i++)
		z->bucket[i] = -1;
	z->hmask--;
	z->unit = unit;
	return 0;
}

int e4_source_handles_cache_stats(struct e4_source *s, uint64_t *hits,
				  uint64_t *fills)
{
	struct handles *z = s->arg;

	if (s->ops != &handles_ops || !z->nslots)
		return -1;
	pthread_mutex_lock(&z->lock);
	*hits = z->hits;
	*fills = z->fills;
	pthread_mutex_unlock(&z->lock);
	return 0;
}
