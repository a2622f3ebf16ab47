/* Symbolic links: stored bytes, and the target (decrypted when needed). */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "fs_private.h"
#include "nokey.h"
#include "kdf.h"
#include "symlink.h"

struct first_block {
	struct e4_fs *fs;
	uint8_t *buf;
	enum e4_status st;
	int got;
};

static int first_block(void *arg, const struct e4_run *r)
{
	struct first_block *f = arg;

	if (r->lblk == 0 && !r->unwritten) {
		f->st = e4_read_blocks(f->fs, r->pblk, 1, f->buf);
		f->got = f->st == E4_OK;
	}
	return 1;
}

enum e4_status e4_symlink_raw(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, uint8_t **blob, size_t *size)
{
	struct first_block f = { fs, NULL, E4_OK, 0 };
	unsigned int bs = fs->info.block_size;
	uint64_t meta = 0;
	enum e4_status st;

	*blob = NULL;
	*size = 0;
	if (!E4_ISLNK(in->mode))
		return E4_INVALID;
	/* ext4_symlink() stores at most a block; the kernel refuses more. */
	if (in->size == 0 || in->size >= bs) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "symlink size %llu is out of range (1..%u)",
			  (unsigned long long)in->size, bs - 1);
		return E4_CORRUPT;
	}
	f.buf = calloc(1, bs + 1);
	if (!f.buf)
		return E4_NOMEM;
	if (in->flags & E4_INODE_INLINE_DATA_FL) {
		uint8_t *data;
		size_t len;

		st = e4_inline_data(fs, in, path, &data, &len);
		if (st == E4_OK && len < in->size) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "symlink size %llu is larger than its inline data (%zu)",
				  (unsigned long long)in->size, len);
			st = E4_CORRUPT;
		}
		if (st == E4_OK)
			memcpy(f.buf, data, in->size);
		free(data);
		if (st != E4_OK) {
			free(f.buf);
			return st;
		}
		goto done;
	}
	/* ext4_inode_is_fast_symlink(): a symlink owning no block but an
	 * xattr block keeps its bytes in i_block. */
	if (in->file_acl)
		meta = bs / 512;
	if (in->blocks <= meta) {
		/* ext4_iget: nd_terminate_link(i_data, i_size, 59); a target
		 * of 60 bytes (no NUL) is cut there too, not shown whole */
		if (in->size == sizeof(in->i_block) && !in->encrypted) {
			e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, in->ino, path,
				  "fast symlink of 60 bytes: shown as Linux shows it, cut to 59");
			memcpy(f.buf, in->i_block, sizeof(in->i_block) - 1);
			*blob = f.buf;
			*size = sizeof(in->i_block) - 1;
			return E4_OK;
		}
		if (in->size > sizeof(in->i_block)) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "fast symlink size %llu is larger than i_block (60)",
				  (unsigned long long)in->size);
			free(f.buf);
			return E4_CORRUPT;
		}
		memcpy(f.buf, in->i_block, in->size);
		goto done;
	}
	st = e4_inode_map(fs, in, path, 1, first_block, &f);
	if (st == E4_STOPPED)
		st = f.st;
	if (st == E4_OK && !f.got) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "symlink has no data block");
		st = E4_CORRUPT;
	} else if (st == E4_IO || st == E4_CORRUPT) {
		if (f.st != E4_OK)
			e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
				  "symlink block cannot be read");
	}
	if (st != E4_OK) {
		free(f.buf);
		return st;
	}
done:
	*blob = f.buf;
	*size = (size_t)in->size;
	return E4_OK;
}

/* A cipher for inode in's names, or the reported reason there is none. */
static enum e4_status names_cipher(struct e4_fs *fs, const struct e4_inode *in,
				   const char *path, struct e4_cipher **c)
{
	struct e4_context ctx;
	const char *why;
	enum e4_status st;

	*c = NULL;
	st = e4_inode_context(fs, in, &ctx, &why);
	if (st == E4_NOT_FOUND) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "encrypted inode without an encryption context");
		return E4_CORRUPT;
	}
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
			  "encryption context: %s", why);
		return st;
	}
	return e4_fs_inode_cipher_reported(fs, in->ino, &ctx, E4_KEY_NAMES,
					   path, c);
}

enum e4_status e4_symlink_target(struct e4_fs *fs, const struct e4_inode *in,
				 const char *path, struct e4_cipher *c, uint8_t *blob,
				 size_t size, char **target, size_t *len)
{
	uint8_t *plain;
	size_t n;
	enum e4_status st;

	*target = NULL;
	*len = 0;
	if (!in->encrypted) {
		n = strnlen((char *)blob, size);
		if (n != size) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "symlink target has a NUL byte at offset %zu of %zu",
				  n, size);
			free(blob);
			return E4_CORRUPT;
		}
		*target = (char *)blob;
		*len = size;
		return E4_OK;
	}
	plain = malloc(size + 1);
	st = plain ? e4_symlink_decrypt(c, blob, size, plain, &n) : E4_NOMEM;
	free(blob);
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st == E4_BAD_KEY ? E4_CORRUPT : st,
			  in->ino, path, "symlink target: %s",
			  st == E4_CORRUPT ? "corrupt header or length" :
			  st == E4_BAD_KEY ? "does not decrypt to a valid path" :
			  e4_status_str(st));
		if (plain)
			e4_wipe(plain, size + 1);
		free(plain);
		return st == E4_BAD_KEY ? E4_CORRUPT : st;
	}
	*target = (char *)plain;
	*len = n;
	return E4_OK;
}

enum e4_status e4_symlink_read(struct e4_fs *fs, const struct e4_inode *in,
			       const char *path, char **target, size_t *len)
{
	struct e4_cipher *c = NULL;
	uint8_t *blob;
	size_t size;
	enum e4_status st;

	*target = NULL;
	*len = 0;
	st = e4_symlink_raw(fs, in, path, &blob, &size);
	if (st != E4_OK)
		return st;
	if (in->encrypted) {
		st = names_cipher(fs, in, path, &c);
		if (st != E4_OK) {
			free(blob);
			return st;
		}
	}
	st = e4_symlink_target(fs, in, path, c, blob, size, target, len);
	e4_cipher_free(c);
	return st;
}

enum e4_status e4_symlink_locked_target(struct e4_fs *fs, const struct e4_inode *in,
					const char *path, char out[E4_NOKEY_NAME_MAX + 1])
{
	uint8_t *blob;
	const uint8_t *ct;
	size_t n, ct_len;
	enum e4_status st;

	out[0] = 0;
	if (!in->encrypted)
		return E4_INVALID;
	st = e4_symlink_raw(fs, in, path, &blob, &n);
	if (st != E4_OK)
		return st;
	st = e4_symlink_parse(blob, n, &ct, &ct_len);
	/* fscrypt_get_symlink's no-key form of the ciphertext:
	 * fscrypt_fname_disk_to_usr with hash 0 (the seed: its own
	 * encoding) */
	if (st == E4_OK)
		st = e4_fs_name_format(fs) == E4_FORMAT_2015 ?
		     e4_nokey_name_2015(ct, ct_len, out) :
		     e4_nokey_name_v61(0, 0, ct, ct_len, out);
	free(blob);
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
			  "symlink target: corrupt header or length");
		return st;
	}
	return E4_OK;
}

enum e4_status e4_symlink_locked_size(struct e4_fs *fs, const struct e4_inode *in,
				      const char *path, uint64_t *size)
{
	char nk[E4_NOKEY_NAME_MAX + 1];
	enum e4_status st;

	*size = in->size;
	if (!in->encrypted)
		return E4_OK;
	/* fscrypt_symlink_getattr(): the length of what readlink returns
	 * without the key */
	st = e4_symlink_locked_target(fs, in, path, nk);
	if (st == E4_OK)
		*size = strlen(nk);
	return st;
}
