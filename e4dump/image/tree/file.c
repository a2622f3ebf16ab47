/* Regular files (file.h): the checked block map as a run list, read in
 * large chunks (stream) or anywhere (pread), decrypted block by block. */
#include <stdlib.h>
#include <string.h>
#include "file.h"
#include "fs_private.h"
#include "kdf.h"

/* Blocks read (and decrypted) at once. */
#define CHUNK_BLOCKS 64

struct e4_file {
	struct e4_fs *fs;
	struct e4_inode in;
	char *path;
	struct e4_cipher *cipher;   /* NULL: not encrypted, or no data */
	struct e4_context ctx;      /* when encrypted: for e4_file_dup */
	struct e4_run *runs;        /* initialized runs, increasing */
	size_t nruns;
	uint8_t *inline_data;       /* inline files: their bytes */
	size_t inline_len;
	struct e4_readbuf *rb;      /* this handle's own, made when needed */
	int keep_going;             /* e4_file_keep_going */
	struct e4_lblk_range *bad; /* unreadable ranges, at most MAX_BAD */
	size_t nbad;
	uint64_t bad_blocks;        /* all of them, also past MAX_BAD */
};

/* Unreadable ranges remembered per handle; more are only counted (a
 * truncated image may cut a file into as many ranges as it has runs). */
#define MAX_BAD 1024

/* The contents cipher of an encrypted file (none is needed, only an
 * open policy, when no block is mapped). */
static enum e4_status file_cipher(struct e4_file *f)
{
	struct e4_fs *fs = f->fs;
	const char *why;
	enum e4_status st = e4_inode_context(fs, &f->in, &f->ctx, &why);

	if (st == E4_NOT_FOUND) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, f->in.ino, f->path,
			  "encrypted inode without an encryption context");
		return E4_CORRUPT;
	}
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st, f->in.ino, f->path,
			  "encryption context: %s", why);
		return st;
	}
	return e4_fs_inode_cipher_reported(fs, f->in.ino, &f->ctx,
					   E4_KEY_CONTENTS, f->path,
					   f->nruns ? &f->cipher : NULL);
}

static enum e4_status open_file(struct e4_fs *fs, const struct e4_inode *in,
				const char *path, int raw, struct e4_file **out)
{
	struct e4_file *f;
	enum e4_status st;

	*out = NULL;
	if (!E4_ISREG(in->mode)) {
		e4_report(fs, E4_DIAG_ERROR, E4_INVALID, in->ino, path,
			  "not a regular file");
		return E4_INVALID;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return E4_NOMEM;
	f->fs = fs;
	f->in = *in;
	f->path = path ? strdup(path) : NULL;
	if (in->flags & E4_INODE_INLINE_DATA_FL) {
		if (in->encrypted) {
			/* Linux never makes one (ext4_set_context refuses) */
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "encrypted file with inline data");
			st = E4_CORRUPT;
			goto fail;
		}
		st = e4_inline_data(fs, in, path, &f->inline_data, &f->inline_len);
		if (st != E4_OK)
			goto fail;
	} else {
		/* unwritten (preallocated) extents read as zeros, like holes */
		st = e4_inode_runs(fs, in, path, e4_inode_size_blocks(fs, in),
				   &f->runs, &f->nruns);
		if (st != E4_OK)
			goto fail;
	}
	if (in->encrypted && !raw) {
		st = file_cipher(f);
		if (st != E4_OK)
			goto fail;
	}
	*out = f;
	return E4_OK;
fail:
	e4_file_close(f);
	return st;
}

enum e4_status e4_file_open(struct e4_fs *fs, const struct e4_inode *in,
			    const char *path, struct e4_file **out)
{
	return open_file(fs, in, path, 0, out);
}

enum e4_status e4_file_open_raw(struct e4_fs *fs, const struct e4_inode *in,
				const char *path, struct e4_file **out)
{
	return open_file(fs, in, path, 1, out);
}

enum e4_status e4_file_dup(const struct e4_file *f, struct e4_file **out)
{
	struct e4_file *g = calloc(1, sizeof(*g));
	enum e4_status st = E4_NOMEM;

	*out = NULL;
	if (!g)
		return E4_NOMEM;
	g->fs = f->fs;
	g->in = f->in;
	g->ctx = f->ctx;
	g->keep_going = f->keep_going;
	if (f->path && !(g->path = strdup(f->path)))
		goto fail;
	if (f->nruns) {
		g->runs = malloc(f->nruns * sizeof(*g->runs));
		if (!g->runs)
			goto fail;
		memcpy(g->runs, f->runs, f->nruns * sizeof(*g->runs));
		g->nruns = f->nruns;
	}
	if (f->inline_data) {
		g->inline_data = malloc(f->inline_len);
		if (!g->inline_data)
			goto fail;
		memcpy(g->inline_data, f->inline_data, f->inline_len);
		g->inline_len = f->inline_len;
	}
	if (f->cipher) {
		/* the policy is decided: this derives the same key again */
		st = e4_fs_inode_cipher(f->fs, f->in.ino, &f->ctx,
					E4_KEY_CONTENTS, &g->cipher);
		if (st != E4_OK)
			goto fail;
	}
	*out = g;
	return E4_OK;
fail:
	e4_file_close(g);
	return st;
}

void e4_file_close(struct e4_file *f)
{
	if (!f)
		return;
	e4_cipher_free(f->cipher);
	e4_readbuf_free(f->rb);
	free(f->runs);
	free(f->bad);
	if (f->inline_data)
		e4_wipe(f->inline_data, f->inline_len);
	free(f->inline_data);
	free(f->path);
	free(f);
}

uint64_t e4_file_size(const struct e4_file *f)
{
	return f->in.size;
}

/* Decrypt n blocks from in to out, the first being logical block lblk. */
static enum e4_status decrypt(struct e4_file *f, uint64_t lblk, const uint8_t *in,
			      uint8_t *out, uint64_t n)
{
	unsigned int bs = f->fs->info.block_size;

	for (uint64_t i = 0; i < n; i++) {
		if (e4_decrypt_data_unit(f->cipher, lblk + i, in + i * bs,
					 out + i * bs, bs) != E4_OK) {
			e4_report(f->fs, E4_DIAG_ERROR, E4_CRYPTO, f->in.ino, f->path,
				  "decryption of block %llu failed",
				  (unsigned long long)(lblk + i));
			return E4_CRYPTO;
		}
	}
	return E4_OK;
}

/* Files without runs to read: inline data, or nothing.  1 when done. */
static int stream_trivial(struct e4_file *f, e4_sink_fn sink, void *arg,
			  enum e4_status *st)
{
	*st = E4_OK;
	if (f->inline_data) {
		size_t n = f->inline_len < f->in.size ? f->inline_len :
							(size_t)f->in.size;

		if (n && sink(arg, 0, f->inline_data, n))
			*st = E4_STOPPED;
		return 1;
	}
	return !f->nruns;
}

struct e4_readbuf {
	unsigned int bs;
	uint8_t *win, *out;         /* read window, decrypted chunk */
	uint64_t blocks;            /* size of each, in blocks */
	uint64_t win_start, win_len; /* the image blocks in win */
};

enum e4_status e4_readbuf_new(const struct e4_fs *fs, size_t bytes,
			      struct e4_readbuf **out)
{
	struct e4_readbuf *rb = calloc(1, sizeof(*rb));
	unsigned int bs = fs->info.block_size;

	*out = NULL;
	if (!rb)
		return E4_NOMEM;
	rb->bs = bs;
	rb->blocks = bytes / 2 / bs ? bytes / 2 / bs : 1;
	rb->win = malloc((size_t)rb->blocks * bs);
	rb->out = malloc((size_t)rb->blocks * bs);
	if (!rb->win || !rb->out) {
		e4_readbuf_free(rb);
		return E4_NOMEM;
	}
	*out = rb;
	return E4_OK;
}

void e4_readbuf_free(struct e4_readbuf *rb)
{
	if (!rb)
		return;
	if (rb->out)
		e4_wipe(rb->out, (size_t)rb->blocks * rb->bs);
	free(rb->win);
	free(rb->out);
	free(rb);
}

/* Blocks pblk..pblk+n-1 (n <= rb->blocks) in the window, reading them
 * when they are not: a read that continues the window's blocks reads a
 * whole window ahead (files written one after another), any other only
 * what is asked. */
static enum e4_status window_read(struct e4_file *f, struct e4_readbuf *rb,
				  uint64_t lblk, uint64_t pblk, uint64_t n,
				  const uint8_t **data)
{
	uint64_t want = n, total = f->fs->range.blocks;
	enum e4_status st;

	if (pblk >= rb->win_start && pblk - rb->win_start <= rb->win_len &&
	    n <= rb->win_len - (pblk - rb->win_start)) {
		*data = rb->win + (pblk - rb->win_start) * rb->bs;
		return E4_OK;
	}
	if (rb->win_len && pblk == rb->win_start + rb->win_len && pblk < total)
		want = total - pblk < rb->blocks ? total - pblk : rb->blocks;
	if (want < n)
		want = n;
	st = e4_read_blocks(f->fs, pblk, want, rb->win);
	if (st != E4_OK && want > n)
		st = e4_read_blocks(f->fs, pblk, want = n, rb->win);
	if (st != E4_OK) {
		rb->win_len = 0;
		if (f->keep_going)
			return E4_IO; /* the caller retries block by block */
		e4_report(f->fs, E4_DIAG_ERROR, E4_IO, f->in.ino, f->path,
			  "blocks %llu..%llu (file blocks %llu..%llu) cannot be read",
			  (unsigned long long)pblk, (unsigned long long)(pblk + n - 1),
			  (unsigned long long)lblk, (unsigned long long)(lblk + n - 1));
		return E4_IO;
	}
	rb->win_start = pblk;
	rb->win_len = want;
	*data = rb->win;
	return E4_OK;
}

void e4_file_keep_going(struct e4_file *f)
{
	f->keep_going = 1;
}

uint64_t e4_file_unreadable(const struct e4_file *f,
			    const struct e4_lblk_range **ranges, size_t *n)
{
	*ranges = f->bad;
	*n = f->nbad;
	return f->bad_blocks;
}

/* Remember that file blocks lblk..lblk+count-1 cannot be read (recorded
 * in increasing order per stream; a pread may go back, and starts a
 * range). */
static void record_bad_n(struct e4_file *f, uint64_t lblk, uint64_t count)
{
	struct e4_lblk_range *last = f->nbad ? &f->bad[f->nbad - 1] : NULL;

	f->bad_blocks += count;
	if (last && last->lblk + last->len == lblk) {
		last->len += count;
		return;
	}
	if (f->nbad == MAX_BAD)
		return;
	if (!f->bad && !(f->bad = malloc(MAX_BAD * sizeof(*f->bad))))
		return;
	f->bad[f->nbad].lblk = lblk;
	f->bad[f->nbad++].len = count;
}

static void record_bad(struct e4_file *f, uint64_t lblk)
{
	record_bad_n(f, lblk, 1);
}

/* The first block the image does not hold (cut short, or the filesystem
 * longer than its volume): that block and every one after it cannot be
 * read, so a run that starts there is lost whole at once, not block by
 * block (a hostile extent may claim terabytes past the end). */
static uint64_t source_end(const struct e4_file *f)
{
	return f->fs->src->size / f->fs->info.block_size;
}

/* Read one block (keep-going mode, after a failed larger read): its data,
 * or NULL after recording it unreadable. */
static const uint8_t *one_block(struct e4_file *f, struct e4_readbuf *rb,
				uint64_t lblk, uint64_t pblk)
{
	const uint8_t *data;

	if (window_read(f, rb, lblk, pblk, 1, &data) == E4_OK)
		return data;
	record_bad(f, lblk);
	return NULL;
}

/* Stream n blocks one at a time, leaving out those that cannot be read
 * (a gap for the sink: never bytes that did not come from the image). */
static enum e4_status stream_blocks(struct e4_file *f, struct e4_readbuf *rb,
				    uint64_t lblk, uint64_t pblk, uint64_t n,
				    e4_sink_fn sink, void *arg)
{
	unsigned int bs = f->fs->info.block_size;
	enum e4_status st;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (lblk + i) * bs, len = bs;
		const uint8_t *data;

		if (off >= f->in.size)
			break;
		data = one_block(f, rb, lblk + i, pblk + i);
		if (!data)
			continue;
		if (f->cipher) {
			st = decrypt(f, lblk + i, data, rb->out, 1);
			if (st != E4_OK)
				return st;
			data = rb->out;
		}
		if (len > f->in.size - off)
			len = f->in.size - off;
		if (sink(arg, off, data, (size_t)len))
			return E4_STOPPED;
	}
	return E4_OK;
}

static size_t run_at(const struct e4_file *f, uint64_t lblk);
static enum e4_status own_readbuf(struct e4_file *f);

enum e4_status e4_file_stream_part(struct e4_file *f, struct e4_readbuf *rb,
				   uint64_t from, uint64_t to,
				   e4_sink_fn sink, void *arg)
{
	unsigned int bs = f->fs->info.block_size;
	uint64_t size = f->in.size;
	enum e4_status st;

	if (f->inline_data || !f->nruns) {
		/* no blocks: all of it is in the part that starts the file */
		if (from)
			return E4_OK;
		stream_trivial(f, sink, arg, &st);
		return st;
	}
	if (!rb) {
		st = own_readbuf(f);
		if (st != E4_OK)
			return st;
		rb = f->rb;
	}
	if (rb->bs != bs)
		return E4_INVALID;
	for (size_t r = run_at(f, from); r < f->nruns && f->runs[r].lblk < to; r++) {
		uint64_t lblk = f->runs[r].lblk, pblk = f->runs[r].pblk;
		uint64_t left = f->runs[r].len;

		if (lblk < from) {
			pblk += from - lblk;
			left -= from - lblk;
			lblk = from;
		}
		if (left > to - lblk)
			left = to - lblk;
		while (left) {
			uint64_t n = left < rb->blocks ? left : rb->blocks;
			uint64_t off = lblk * bs, len = n * bs;
			const uint8_t *data;

			if (off >= size)
				return E4_OK;
			if (f->keep_going && pblk >= source_end(f)) {
				/* the rest of the run, up to i_size */
				uint64_t upto = (size - off + bs - 1) / bs;

				record_bad_n(f, lblk, left < upto ? left : upto);
				break;
			}
			st = window_read(f, rb, lblk, pblk, n, &data);
			if (st != E4_OK && f->keep_going) {
				st = stream_blocks(f, rb, lblk, pblk, n, sink, arg);
				if (st != E4_OK)
					return st;
				goto next;
			}
			if (st != E4_OK)
				return st;
			if (f->cipher) {
				st = decrypt(f, lblk, data, rb->out, n);
				if (st != E4_OK)
					return st;
				data = rb->out;
			}
			if (len > size - off)
				len = size - off;
			if (sink(arg, off, data, (size_t)len))
				return E4_STOPPED;
next:
			lblk += n;
			pblk += n;
			left -= n;
		}
	}
	return E4_OK;
}

enum e4_status e4_file_stream_buf(struct e4_file *f, struct e4_readbuf *rb,
				  e4_sink_fn sink, void *arg)
{
	return e4_file_stream_part(f, rb, 0, UINT64_MAX, sink, arg);
}

/* The index of the first run that ends after lblk (nruns: none). */
static size_t run_at(const struct e4_file *f, uint64_t lblk)
{
	size_t lo = 0, hi = f->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->runs[mid].lblk + f->runs[mid].len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static enum e4_status inline_pread(struct e4_file *f, uint64_t off, void *buf,
				   size_t len, size_t *got)
{
	uint8_t *out = buf;
	size_t n = 0;

	*got = 0;
	if (off >= f->in.size)
		return E4_OK;
	if (len > f->in.size - off)
		len = (size_t)(f->in.size - off);
	if (off < f->inline_len)
		n = f->inline_len - (size_t)off < len ? f->inline_len - (size_t)off : len;
	if (n)
		memcpy(out, f->inline_data + off, n);
	memset(out + n, 0, len - n);
	*got = len;
	return E4_OK;
}

enum e4_status e4_file_pread_buf(struct e4_file *f, struct e4_readbuf *rb,
				 uint64_t off, void *buf, size_t len, size_t *got)
{
	unsigned int bs = f->fs->info.block_size;
	uint8_t *out = buf;
	enum e4_status st;

	*got = 0;
	if (rb->bs != bs)
		return E4_INVALID;
	if (off >= f->in.size)
		return E4_OK;
	if (len > f->in.size - off)
		len = (size_t)(f->in.size - off);
	if (f->inline_data)
		return inline_pread(f, off, buf, len, got);
	while (*got < len) {
		uint64_t pos = off + *got, lblk = pos / bs, n;
		size_t skip = (size_t)(pos % bs), take;
		size_t i = run_at(f, lblk);
		const struct e4_run *r = i < f->nruns ? &f->runs[i] : NULL;
		const uint8_t *data;

		if (!r || r->lblk > lblk) {
			/* a hole: up to the next run, or the end */
			size_t next = len - *got;

			if (r && r->lblk * bs - pos < next)
				next = (size_t)(r->lblk * bs - pos);
			memset(out + *got, 0, next);
			*got += next;
			continue;
		}
		n = r->lblk + r->len - lblk;
		if (n > rb->blocks)
			n = rb->blocks;
		if (n > (skip + len - *got + bs - 1) / bs)
			n = (skip + len - *got + bs - 1) / bs;
		if (f->keep_going && r->pblk + (lblk - r->lblk) >= source_end(f)) {
			/* past the image: zeros to the end of the run or the
			 * request, recorded at once */
			uint64_t run_end = (r->lblk + r->len) * bs;

			take = run_end - pos < len - *got ? (size_t)(run_end - pos) : len - *got;
			memset(out + *got, 0, take);
			record_bad_n(f, lblk, (skip + take + bs - 1) / bs);
			*got += take;
			continue;
		}
		st = window_read(f, rb, lblk, r->pblk + (lblk - r->lblk), n, &data);
		if (st != E4_OK && f->keep_going) {
			/* this block alone; zeros where it cannot be read */
			n = 1;
			data = one_block(f, rb, lblk, r->pblk + (lblk - r->lblk));
			if (!data) {
				take = bs - skip < len - *got ? bs - skip : len - *got;
				memset(out + *got, 0, take);
				*got += take;
				continue;
			}
			st = E4_OK;
		}
		if (st != E4_OK)
			return st;
		take = (size_t)(n * bs - skip);
		if (take > len - *got)
			take = len - *got;
		if (f->cipher && !skip && take == n * bs) {
			/* whole blocks: decrypted where they go */
			st = decrypt(f, lblk, data, out + *got, n);
			if (st != E4_OK)
				return st;
		} else {
			if (f->cipher) {
				st = decrypt(f, lblk, data, rb->out, n);
				if (st != E4_OK)
					return st;
				data = rb->out;
			}
			memcpy(out + *got, data + skip, take);
		}
		*got += take;
	}
	return E4_OK;
}

/* The handle's own read buffers, as large as the file needs (up to
 * CHUNK_BLOCKS): a small file gets small ones. */
static enum e4_status own_readbuf(struct e4_file *f)
{
	uint64_t want = f->nruns ? f->runs[f->nruns - 1].lblk + f->runs[f->nruns - 1].len : 1;

	if (f->rb)
		return E4_OK;
	if (want > CHUNK_BLOCKS)
		want = CHUNK_BLOCKS;
	return e4_readbuf_new(f->fs, 2 * (size_t)want * f->fs->info.block_size,
			      &f->rb);
}

enum e4_status e4_file_stream(struct e4_file *f, e4_sink_fn sink, void *arg)
{
	enum e4_status st;

	if (stream_trivial(f, sink, arg, &st))
		return st;
	st = own_readbuf(f);
	return st != E4_OK ? st : e4_file_stream_buf(f, f->rb, sink, arg);
}

enum e4_status e4_file_pread(struct e4_file *f, uint64_t off, void *buf,
			     size_t len, size_t *got)
{
	enum e4_status st;

	*got = 0;
	if (f->inline_data)
		return inline_pread(f, off, buf, len, got);
	st = own_readbuf(f);
	return st != E4_OK ? st : e4_file_pread_buf(f, f->rb, off, buf, len, got);
}

static int cmp_run_pblk(const void *a, const void *b)
{
	const struct e4_run *x = a, *y = b;

	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	return (x->lblk > y->lblk) - (x->lblk < y->lblk);
}

uint64_t e4_file_shared_blocks(const struct e4_file *f, uint64_t *pblk,
			       uint64_t *lblk_first, uint64_t *lblk_again)
{
	struct e4_run *v, reach = { 0, 0, 0, 0 };
	uint64_t shared = 0;

	*pblk = *lblk_first = *lblk_again = 0;
	if (f->nruns < 2)
		return 0;
	if (!(v = malloc(f->nruns * sizeof(*v))))
		return 0;
	memcpy(v, f->runs, f->nruns * sizeof(*v));
	qsort(v, f->nruns, sizeof(*v), cmp_run_pblk);
	/* reach: the run (so far) that ends highest; a run starting below
	 * its end overlaps it */
	reach = v[0];
	for (size_t i = 1; i < f->nruns; i++) {
		uint64_t end = reach.pblk + reach.len;

		if (v[i].pblk < end) {
			uint64_t over = end - v[i].pblk;

			if (over > v[i].len)
				over = v[i].len;
			if (!shared) {
				*pblk = v[i].pblk;
				*lblk_first = reach.lblk + (v[i].pblk - reach.pblk);
				*lblk_again = v[i].lblk;
				if (*lblk_first > *lblk_again) {
					uint64_t t = *lblk_first;

					*lblk_first = *lblk_again;
					*lblk_again = t;
				}
			}
			shared += over;
		}
		if (v[i].pblk + v[i].len > end)
			reach = v[i];
	}
	free(v);
	return shared;
}
