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

/* A decoded-block cache in front of the handles (e4_source_handles_cache):
 * slots of `bs` bytes keyed by block index, filled by the reader that
 * misses or ahead of it by worker threads, each with a handle of its own
 * (libewf and libqcow decompress inside their read call, one call at a
 * time per handle: several handles decompress on several cores). */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_LOADING, SLOT_READY, SLOT_FAILED };

struct slot {
	uint64_t blk;
	uint64_t used;      /* clock of its last use (LRU) */
	uint8_t *buf;       /* bs bytes, allocated when first filled */
	unsigned int refs;  /* readers copying or waiting: not evicted */
	int state;
	unsigned int mark;  /* read-ahead marker: when a reader first reads
			     * it, queue `mark` more blocks from mark_next */
	uint64_t mark_next;
	int hnext;          /* the next slot in its hash chain, or -1 */
};

#define CACHE_WORKERS 2
#define CACHE_WINDOW (1u << 20) /* largest read-ahead batch, bytes */
#define CACHE_FIRST 4           /* blocks of the first batch */

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
	uint32_t bs;
	unsigned int nslots, window;
	struct slot *slots;
	int *bucket;            /* hash chains by block: the first slot, or -1 */
	unsigned int hmask;
	unsigned int last;      /* the slot found last */
	uint64_t clock;
	pthread_cond_t loaded;  /* a slot left SLOT_LOADING */
	unsigned int waiting;   /* readers waiting for it */
	pthread_cond_t work;    /* the queue grew, or stop */
	unsigned int *queue;    /* slot indices, a ring of nslots */
	unsigned int q_head, q_len;
	pthread_t workers[CACHE_WORKERS];
	unsigned int n_workers;
	int workers_tried, stop;
};

/* A free handle, opening one more when all are busy (under the lock):
 * readers and the cache's workers share at most E4_SOURCE_HANDLES (each
 * libqcow handle keeps megabytes of its own caches). */
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

static size_t block_len(const struct handles *z, uint64_t blk)
{
	uint64_t off = blk * z->bs;

	return z->size - off < z->bs ? (size_t)(z->size - off) : z->bs;
}

/* The slot holding blk, or NULL (under the lock). */
static unsigned int cache_hash(const struct handles *z, uint64_t blk)
{
	return (unsigned int)((blk * 0x9e3779b97f4a7c15ULL) >> 40) & z->hmask;
}

static struct slot *cache_find(struct handles *z, uint64_t blk)
{
	struct slot *s = &z->slots[z->last];

	if (s->state != SLOT_FREE && s->blk == blk)
		return s;
	for (int i = z->bucket[cache_hash(z, blk)]; i >= 0; i = z->slots[i].hnext)
		if (z->slots[i].blk == blk) {
			z->last = (unsigned int)i;
			return &z->slots[i];
		}
	return NULL;
}

/* A slot for blk, the least recently used one that nobody holds (a slot
 * being filled or pinned is never taken), or NULL (under the lock). */
static struct slot *cache_claim(struct handles *z, uint64_t blk, int state)
{
	struct slot *best = NULL;

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
	if (best) {
		int *p;

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
		best->state = state;
		best->mark = 0;
		best->used = ++z->clock;
	}
	return best;
}

/* Fill s (SLOT_LOADING, so the caller's alone) from a handle: SLOT_READY,
 * or SLOT_FAILED when the block cannot be read whole (a damaged chunk in
 * it: the readers then read what they asked for directly, which fails
 * or not as it did without the cache). */
static void cache_fill(struct handles *z, struct slot *s)
{
	int ok = 0;

	if (!s->buf)
		s->buf = malloc(z->bs);
	if (s->buf)
		ok = !handle_read(z, s->blk * z->bs, s->buf, block_len(z, s->blk));
	pthread_mutex_lock(&z->lock);
	s->state = ok ? SLOT_READY : SLOT_FAILED;
	if (z->waiting) /* a wake-up is a system call */
		pthread_cond_broadcast(&z->loaded);
	pthread_mutex_unlock(&z->lock);
}

static void *cache_worker(void *arg)
{
	struct handles *z = arg;

	pthread_mutex_lock(&z->lock);
	for (;;) {
		struct slot *s;

		while (!z->stop && !z->q_len)
			pthread_cond_wait(&z->work, &z->lock);
		if (z->stop)
			break;
		s = &z->slots[z->queue[z->q_head]];
		z->q_head = (z->q_head + 1) % z->nslots;
		z->q_len--;
		/* taken over by a reader that needed it, or evicted */
		if (s->state != SLOT_QUEUED)
			continue;
		s->state = SLOT_LOADING;
		pthread_mutex_unlock(&z->lock);
		cache_fill(z, s);
		pthread_mutex_lock(&z->lock);
	}
	pthread_mutex_unlock(&z->lock);
	return NULL;
}

/* Queue blocks [from, from + n) that are not in the cache for the
 * workers, and mark the first: when a reader reaches it, the next batch,
 * twice as long (up to the window), is queued (under the lock).  As
 * Linux's read-ahead: the batch grows only while the reader keeps using
 * what was read for it, so a reader that stops, or jumps, wastes at most
 * two batches. */
static void cache_ahead(struct handles *z, uint64_t from, unsigned int n)
{
	int queued = 0;
	struct slot *m = NULL;

	if (!z->workers_tried) {
		z->workers_tried = 1;
		for (unsigned int i = 0; i < CACHE_WORKERS; i++) {
			if (pthread_create(&z->workers[i], NULL, cache_worker, z))
				break;
			z->n_workers++;
		}
	}
	if (!z->n_workers)
		return;
	for (uint64_t b = from; b < from + n && b * z->bs < z->size; b++) {
		struct slot *s;

		if (z->q_len == z->nslots)
			break;
		if ((s = cache_find(z, b))) {
			if (!m)
				m = s;
			continue;
		}
		if (!(s = cache_claim(z, b, SLOT_QUEUED)))
			break;
		if (!m)
			m = s;
		z->queue[(z->q_head + z->q_len++) % z->nslots] = (unsigned int)(s - z->slots);
		queued = 1;
	}
	if (m && queued) {
		m->mark = n * 2 > z->window ? z->window : n * 2;
		m->mark_next = from + n;
	}
	if (queued)
		pthread_cond_broadcast(&z->work);
}

/* The part [off, off + len) of block blk into p, from the cache, filling
 * it first when it is not there; a block that is not cached (no slot
 * free, or it could not be read whole) is read directly.  0 or -1. */
static int cache_read(struct handles *z, uint64_t blk, uint64_t off, uint8_t *p,
		      size_t len, int sequential)
{
	struct slot *s;
	int mine = 0, ok;
	uint64_t next = 0;
	unsigned int n = 0;

	pthread_mutex_lock(&z->lock);
	s = cache_find(z, blk);
	/* a reader in order that misses (the block before is cached, or it
	 * reads several blocks at once) starts a read-ahead; one that reaches
	 * a marked block continues it (queued below, once s is held: the
	 * read-ahead may evict any slot nobody holds) */
	if (s && s->mark) {
		next = s->mark_next;
		n = s->mark;
		s->mark = 0;
	} else if (!s && (sequential || (blk && cache_find(z, blk - 1)))) {
		next = blk + 1;
		n = CACHE_FIRST < z->window ? CACHE_FIRST : z->window;
	}
	if (!s) {
		s = cache_claim(z, blk, SLOT_LOADING);
		mine = s != NULL;
	} else if (s->state == SLOT_QUEUED) {
		s->state = SLOT_LOADING; /* the worker skips it */
		mine = 1;
	}
	if (s) {
		s->refs++;
		s->used = ++z->clock;
	}
	if (n)
		cache_ahead(z, next, n);
	pthread_mutex_unlock(&z->lock);
	if (!s)
		return handle_read(z, off, p, len);
	if (mine)
		cache_fill(z, s);
	pthread_mutex_lock(&z->lock);
	while (s->state == SLOT_LOADING) {
		z->waiting++;
		pthread_cond_wait(&z->loaded, &z->lock);
		z->waiting--;
	}
	ok = s->state == SLOT_READY;
	pthread_mutex_unlock(&z->lock);
	if (ok)
		memcpy(p, s->buf + (off - blk * z->bs), len);
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
	if (!z->nslots)
		return handle_read(z, off, p, len);
	/* block by block; a read of several blocks is sequential */
	for (int first = 1; len; first = 0) {
		uint64_t blk = off / z->bs;
		size_t piece = z->bs - (size_t)(off % z->bs);

		if (piece > len)
			piece = len;
		if (cache_read(z, blk, off, p, piece, !first || piece < len))
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

	pthread_mutex_lock(&z->lock);
	z->stop = 1;
	pthread_cond_broadcast(&z->work);
	pthread_mutex_unlock(&z->lock);
	for (unsigned int i = 0; i < z->n_workers; i++)
		pthread_join(z->workers[i], NULL);
	for (unsigned int i = 0; i < z->nslots; i++)
		free(z->slots[i].buf);
	free(z->slots);
	free(z->queue);
	free(z->bucket);
	for (unsigned int i = 0; i < z->n; i++)
		z->ops->close(z->h[i]);
	z->ops->free_ctx(z->ctx);
	pthread_cond_destroy(&z->work);
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
			if (!pthread_cond_init(&z->loaded, NULL)) {
				locks = 3;
				if (!pthread_cond_init(&z->work, NULL))
					locks = 4;
			}
		}
	}
	if (locks < 4) {
		if (locks >= 3)
			pthread_cond_destroy(&z->loaded);
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
	uint32_t bs;

	if (s->ops != &handles_ops || !unit || unit > E4_SOURCE_CACHE / 8)
		return -1;
	z = s->arg;
	if (z->nslots)
		return -1;
	/* whole units (an EWF chunk is decompressed whole, so a block never
	 * splits one), at least 32 KiB so that a block is worth a hand-off */
	bs = unit;
	while (bs < (32u << 10) && bs <= E4_SOURCE_CACHE / 16)
		bs += unit;
	z->nslots = E4_SOURCE_CACHE / bs;
	for (z->hmask = 1; z->hmask < 2 * z->nslots; z->hmask <<= 1)
		;
	z->slots = calloc(z->nslots, sizeof(*z->slots));
	z->queue = calloc(z->nslots, sizeof(*z->queue));
	z->bucket = malloc(z->hmask * sizeof(*z->bucket));
	if (!z->slots || !z->queue || !z->bucket) {
		free(z->slots);
		free(z->queue);
		free(z->bucket);
		z->slots = NULL;
		z->queue = NULL;
		z->bucket = NULL;
		z->nslots = 0;
		return -1;
	}
	for (unsigned int i = 0; i < z->hmask; i++)
		z->bucket[i] = -1;
	z->hmask--;
	z->bs = bs;
	z->window = CACHE_WINDOW / bs;
	if (z->window < 2)
		z->window = 2;
	if (z->window > z->nslots / 2)
		z->window = z->nslots / 2;
	return 0;
}
