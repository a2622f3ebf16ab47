#include <stdlib.h>
#include <string.h>
#include "content.h"
#include "report.h"
#include "symlink.h"

#define CHUNK_BLOCKS 64

struct reader {
	struct img *im;
	struct e4_cipher *cipher; /* NULL for plain files */
	uint64_t size;
	uint8_t *buf, *out;
	content_sink sink;
	void *arg;
	const char *path;
	ext2_ino_t ino;
};

static int read_run(void *arg, uint64_t lblk, uint64_t pblk, uint64_t count)
{
	struct reader *r = arg;
	unsigned int bs = r->im->blocksize;

	while (count) {
		uint64_t off = lblk * bs, n = count, len;

		if (off >= r->size)
			return 1; /* blocks past i_size are not file data */
		if (n > CHUNK_BLOCKS)
			n = CHUNK_BLOCKS;
		if (img_read_blocks(r->im, pblk, n, r->buf))
			return -1;
		for (uint64_t i = 0; i < n; i++) {
			uint8_t *in = r->buf + i * bs, *out = r->out + i * bs;

			if (!r->cipher) {
				memcpy(out, in, bs);
				continue;
			}
			if (e4_decrypt_data_unit(r->cipher, lblk + i, in, out, bs)) {
				report_error("%s (inode %u): decryption of block %llu failed",
					     r->path, r->ino,
					     (unsigned long long)(lblk + i));
				return -1;
			}
		}
		len = n * bs;
		if (len > r->size - off)
			len = r->size - off;
		if (r->sink(r->arg, off, r->out, (size_t)len))
			return -1;
		lblk += n;
		pblk += n;
		count -= n;
	}
	return 0;
}

/* The cipher for an encrypted inode's contents or names, or NULL.  Returns
 * 1 when no key opens it, -1 on other errors (both reported). */
static int inode_cipher(struct keyring *kr, ext2_ino_t ino, const char *path,
			int names, struct e4_cipher **c)
{
	struct e4_context ctx;
	const char *why;
	enum e4_status st;

	*c = NULL;
	switch (img_read_context(kr->im, ino, &ctx, &why)) {
	case CTX_OK:
		break;
	case CTX_NONE:
		report_error("%s (inode %u): encrypted inode without an encryption context",
			     path, ino);
		return -1;
	default:
		report_error("%s (inode %u): encryption context: %s", path, ino,
			     why);
		return -1;
	}
	st = keyring_inode_cipher(kr, ino, &ctx, names, c);
	if (st == E4_OK)
		return 0;
	if (st == E4_BAD_KEY) {
		char hex[33];

		e4_context_key_id_hex(&ctx, hex);
		report_error("%s (inode %u): skipped: no key for %s %s",
			     path, ino, ctx.version == E4_CONTEXT_V1 ?
			     "descriptor" : "identifier", hex);
		return 1;
	}
	if (st == E4_UNSUPPORTED)
		report_error("%s (inode %u): unsupported encryption mode %u",
			     path, ino,
			     names ? ctx.filenames_mode : ctx.contents_mode);
	else
		report_error("%s (inode %u): cannot set up decryption: %s",
			     path, ino, e4_status_str(st));
	return -1;
}

int content_read(struct keyring *kr, ext2_ino_t ino,
		 struct ext2_inode_large *inode, const char *path,
		 content_sink sink, void *arg)
{
	struct reader r = { kr->im, NULL, img_inode_size(inode), NULL, NULL,
			    sink, arg, path, ino };
	size_t chunk = (size_t)CHUNK_BLOCKS * kr->im->blocksize;
	int ret;

	if (img_inode_encrypted(inode)) {
		ret = inode_cipher(kr, ino, path, 0, &r.cipher);
		if (ret)
			return ret;
	}
	if (!img_inode_encrypted(inode) && (inode->i_flags & EXT4_INLINE_DATA_FL)) {
		/* Plain inline data: let libext2fs read it. */
		size_t size = 0;
		uint8_t *data = malloc(EXT2_INODE_SIZE(kr->im->fs->super) + 60);

		ret = -1;
		if (data && !ext2fs_inline_data_get(kr->im->fs, ino,
						    (struct ext2_inode *)inode,
						    data, &size)) {
			if (size > r.size)
				size = (size_t)r.size;
			ret = size ? sink(arg, 0, data, size) : 0;
		} else {
			report_error("%s (inode %u): cannot read inline data", path, ino);
		}
		free(data);
		return ret;
	}
	r.buf = malloc(chunk);
	r.out = malloc(chunk);
	if (!r.buf || !r.out) {
		report_error("%s (inode %u): out of memory", path, ino);
		ret = -1;
	} else {
		ret = img_map_blocks(kr->im, ino, inode, read_run, &r);
		if (ret > 0)
			ret = 0;
	}
	if (r.out)
		memset(r.out, 0, chunk); /* plaintext */
	free(r.buf);
	free(r.out);
	e4_cipher_free(r.cipher);
	return ret;
}

int symlink_target(struct keyring *kr, ext2_ino_t ino,
		   struct ext2_inode_large *inode, const char *path,
		   char **target, size_t *len)
{
	struct e4_cipher *c;
	uint8_t *blob, *plain;
	size_t size, n;
	enum e4_status st;
	int ret;

	*target = NULL;
	*len = 0;
	if (img_read_symlink(kr->im, ino, inode, &blob, &size))
		return -1;
	if (!img_inode_encrypted(inode)) {
		*target = (char *)blob;
		*len = strnlen((char *)blob, size);
		return 0;
	}
	ret = inode_cipher(kr, ino, path, 1, &c);
	if (ret) {
		free(blob);
		return ret;
	}
	plain = malloc(size + 1);
	st = plain ? e4_symlink_decrypt(c, blob, size, plain, &n) : E4_NOMEM;
	e4_cipher_free(c);
	free(blob);
	if (st) {
		report_error("%s (inode %u): symlink target: %s", path, ino,
			     st == E4_CORRUPT ? "corrupt header or length" :
			     st == E4_BAD_KEY ? "does not decrypt to a valid path" :
			     e4_status_str(st));
		free(plain);
		return -1;
	}
	*target = (char *)plain;
	*len = n;
	return 0;
}
