/* A file's stored bytes, as they are on disk (the ciphertext of an
 * encrypted file): file.h e4_inode_stream_raw. */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "file.h"
#include "fs_private.h"

#define RAW_CHUNK_BLOCKS 64

struct raw {
	struct e4_fs *fs;
	uint64_t size;         /* i_size */
	uint64_t done;         /* bytes passed */
	uint8_t *buf;          /* RAW_CHUNK_BLOCKS blocks; zeros for holes */
	e4_sink_fn sink;
	void *arg;
	enum e4_status st;
	int gaps;              /* holes are left out, not passed as zeros */
};

/* Pass zeros up to byte end (a hole, or an unwritten extent). */
static int zeros(struct raw *w, uint64_t end)
{
	size_t cap = (size_t)RAW_CHUNK_BLOCKS * w->fs->info.block_size;

	if (w->gaps) {
		w->done = end > w->done ? end : w->done;
		return 0;
	}
	memset(w->buf, 0, cap);
	while (w->done < end) {
		size_t n = end - w->done < cap ? (size_t)(end - w->done) : cap;

		if (w->sink(w->arg, w->done, w->buf, n)) {
			w->st = E4_STOPPED;
			return 1;
		}
		w->done += n;
	}
	return 0;
}

static int raw_run(void *arg, const struct e4_run *r)
{
	struct raw *w = arg;
	unsigned int bs = w->fs->info.block_size;
	uint64_t start = r->lblk * bs;

	if (start >= w->size)
		return 1;
	if (zeros(w, start))
		return 1;
	if (r->unwritten)
		return zeros(w, start + r->len * bs < w->size ? start + r->len * bs : w->size);
	for (uint64_t b = 0; b < r->len && w->done < w->size; b += RAW_CHUNK_BLOCKS) {
		uint64_t count = r->len - b < RAW_CHUNK_BLOCKS ? r->len - b : RAW_CHUNK_BLOCKS;
		uint64_t n = count * bs;

		if (n > w->size - w->done)
			n = w->size - w->done;
		w->st = e4_read_blocks(w->fs, r->pblk + b, count, w->buf);
		if (w->st != E4_OK)
			return 1;
		if (w->sink(w->arg, w->done, w->buf, (size_t)n)) {
			w->st = E4_STOPPED;
			return 1;
		}
		w->done += n;
	}
	return 0;
}

static enum e4_status stream(struct e4_fs *fs, const struct e4_inode *in,
			     const char *path, uint64_t size, int gaps,
			     e4_sink_fn sink, void *arg)
{
	struct raw w = { fs, size, 0, NULL, sink, arg, E4_OK, gaps };
	enum e4_status st;

	if (!E4_ISREG(in->mode) || (in->flags & E4_INODE_INLINE_DATA_FL))
		return E4_INVALID;
	w.buf = malloc((size_t)RAW_CHUNK_BLOCKS * fs->info.block_size);
	if (!w.buf)
		return E4_NOMEM;
	st = e4_inode_map(fs, in, path, e4_inode_size_blocks(fs, in), raw_run, &w);
	if (st == E4_STOPPED || st == E4_OK)
		st = w.st;
	if (st == E4_OK && !zeros(&w, w.size))
		st = w.st;
	if (st == E4_IO)
		e4_report(fs, E4_DIAG_ERROR, E4_IO, in->ino, path,
			  "stored blocks cannot be read");
	free(w.buf);
	return st;
}

enum e4_status e4_inode_stream_raw(struct e4_fs *fs, const struct e4_inode *in,
				   const char *path, e4_sink_fn sink, void *arg)
{
	return stream(fs, in, path, in->size, 0, sink, arg);
}

enum e4_status e4_inode_stream_blocks(struct e4_fs *fs, const struct e4_inode *in,
				      const char *path, e4_sink_fn sink, void *arg)
{
	return stream(fs, in, path, e4_inode_size_blocks(fs, in) * fs->info.block_size,
		      1, sink, arg);
}
