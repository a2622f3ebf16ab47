/* Regular files (file.h): the checked block map as a run list, read in
 * large chunks (stream) or anywhere (pread), decrypted block by block. */
#include <stdlib.h>
#include <string.h>
#include "file.h"
#include "fs_private.h"
#include "kdf.h"

#define CHUNK_BLOCKS 64

struct e4_file {
	struct e4_fs *fs;
	struct e4_inode in;
	char *path;
	struct e4_cipher *cipher;   /* NULL: not encrypted */
	struct e4_run *runs;        /* initialized runs, increasing */
	size_t nruns;
	uint8_t *inline_data;       /* inline files: their bytes */
	size_t inline_len;
	uint8_t *block;             /* pread: one block */
};

enum e4_status e4_file_open(struct e4_fs *fs, const struct e4_inode *in,
			    const char *path, struct e4_file **out)
{
	struct e4_file *f;
	struct e4_context ctx;
	const char *why;
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
	if (in->encrypted) {
		st = e4_inode_context(fs, in, &ctx, &why);
		if (st == E4_NOT_FOUND) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "encrypted inode without an encryption context");
			st = E4_CORRUPT;
		} else if (st != E4_OK) {
			e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
				  "encryption context: %s", why);
		} else {
			st = e4_fs_inode_cipher_reported(fs, in->ino, &ctx,
							 E4_KEY_CONTENTS, path,
							 &f->cipher);
		}
		if (st != E4_OK)
			goto fail;
	}
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
	*out = f;
	return E4_OK;
fail:
	e4_file_close(f);
	return st;
}

void e4_file_close(struct e4_file *f)
{
	if (!f)
		return;
	e4_cipher_free(f->cipher);
	if (f->block)
		e4_wipe(f->block, f->fs->info.block_size);
	free(f->block);
	free(f->runs);
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

static enum e4_status chunk_buffers(struct e4_fs *fs)
{
	size_t size = (size_t)CHUNK_BLOCKS * fs->info.block_size;

	if (fs->chunk_size == size)
		return E4_OK;
	fs->chunk_in = malloc(size);
	fs->chunk_out = malloc(size);
	if (!fs->chunk_in || !fs->chunk_out) {
		free(fs->chunk_in);
		free(fs->chunk_out);
		fs->chunk_in = fs->chunk_out = NULL;
		return E4_NOMEM;
	}
	fs->chunk_size = size;
	return E4_OK;
}

enum e4_status e4_file_stream(struct e4_file *f, e4_sink_fn sink, void *arg)
{
	struct e4_fs *fs = f->fs;
	unsigned int bs = fs->info.block_size;
	uint64_t size = f->in.size;
	enum e4_status st;

	if (f->inline_data) {
		size_t n = f->inline_len < size ? f->inline_len : (size_t)size;

		return n && sink(arg, 0, f->inline_data, n) ? E4_STOPPED : E4_OK;
	}
	st = chunk_buffers(fs);
	if (st != E4_OK)
		return st;
	for (size_t r = 0; r < f->nruns; r++) {
		uint64_t lblk = f->runs[r].lblk, pblk = f->runs[r].pblk;
		uint64_t left = f->runs[r].len;

		while (left) {
			uint64_t n = left < CHUNK_BLOCKS ? left : CHUNK_BLOCKS;
			uint64_t off = lblk * bs, len = n * bs;
			const uint8_t *data = fs->chunk_in;

			if (off >= size)
				return E4_OK;
			st = e4_read_blocks(fs, pblk, n, fs->chunk_in);
			if (st != E4_OK) {
				e4_report(fs, E4_DIAG_ERROR, E4_IO, f->in.ino, f->path,
					  "blocks %llu..%llu (file blocks %llu..%llu) cannot be read",
					  (unsigned long long)pblk,
					  (unsigned long long)(pblk + n - 1),
					  (unsigned long long)lblk,
					  (unsigned long long)(lblk + n - 1));
				return E4_IO;
			}
			if (f->cipher) {
				st = decrypt(f, lblk, fs->chunk_in, fs->chunk_out, n);
				if (st != E4_OK)
					return st;
				data = fs->chunk_out;
			}
			if (len > size - off)
				len = size - off;
			if (sink(arg, off, data, (size_t)len))
				return E4_STOPPED;
			lblk += n;
			pblk += n;
			left -= n;
		}
	}
	return E4_OK;
}

/* The run holding lblk, or NULL (a hole). */
static const struct e4_run *find_run(const struct e4_file *f, uint64_t lblk)
{
	size_t lo = 0, hi = f->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct e4_run *r = &f->runs[mid];

		if (lblk < r->lblk)
			hi = mid;
		else if (lblk >= r->lblk + r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

enum e4_status e4_file_pread(struct e4_file *f, uint64_t off, void *buf,
			     size_t len, size_t *got)
{
	unsigned int bs = f->fs->info.block_size;
	uint8_t *out = buf;
	uint8_t in[65536];

	*got = 0;
	if (off >= f->in.size)
		return E4_OK;
	if (len > f->in.size - off)
		len = (size_t)(f->in.size - off);
	if (f->inline_data) {
		size_t n = 0;

		if (off < f->inline_len)
			n = f->inline_len - (size_t)off < len ?
			    f->inline_len - (size_t)off : len;
		memcpy(out, f->inline_data + off, n);
		memset(out + n, 0, len - n);
		*got = len;
		return E4_OK;
	}
	if (!f->block && !(f->block = malloc(bs)))
		return E4_NOMEM;
	while (*got < len) {
		uint64_t lblk = (off + *got) / bs;
		size_t skip = (size_t)((off + *got) % bs);
		size_t n = bs - skip < len - *got ? bs - skip : len - *got;
		const struct e4_run *r = find_run(f, lblk);

		if (!r) {
			memset(out + *got, 0, n);
		} else {
			uint64_t pblk = r->pblk + (lblk - r->lblk);
			enum e4_status st = e4_read_blocks(f->fs, pblk, 1, in);

			if (st == E4_OK && f->cipher)
				st = decrypt(f, lblk, in, f->block, 1);
			else if (st == E4_OK)
				memcpy(f->block, in, bs);
			else
				e4_report(f->fs, E4_DIAG_ERROR, E4_IO, f->in.ino,
					  f->path, "block %llu (file block %llu) cannot be read",
					  (unsigned long long)pblk,
					  (unsigned long long)lblk);
			if (st != E4_OK)
				return st;
			memcpy(out + *got, f->block + skip, n);
		}
		*got += n;
	}
	e4_wipe(in, sizeof(in));
	return E4_OK;
}
