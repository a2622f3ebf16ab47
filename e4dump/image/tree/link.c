/* Symbolic links: the target, decrypted when needed, or what Linux shows
 * without the key (the stored bytes: fs/symlink_raw.c). */
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"
#include "nokey.h"
#include "kdf.h"
#include "symlink.h"

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
