/* Casefolded encrypted directories (ext4, Linux 5.13+): the SipHash
 * dirhash pair every entry stores after its name, recomputed from the
 * plaintext name with libext2fs' casefolding.  See spec/ext4-encryption.md
 * §10.8. */
#ifndef E4DUMP_CASEFOLD_HASH_H
#define E4DUMP_CASEFOLD_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* The casefolding table of the filesystem (fs->encoding, loaded by
 * ext2fs_open from s_encoding when the casefold feature is set); NULL
 * without the feature or for an unknown encoding. */
const struct ext2fs_nls_table *casefold_table(ext2_filsys fs);

/* utf8_casefold (NFD + full case folding) of name into out (outsz bytes,
 * one of them for a terminating NUL that is written).  Returns the folded
 * length, or -1 when the name is not valid UTF-8 or its fold does not fit
 * in outsz - 1 bytes (the kernel's utf8_casefold fails in both cases), or
 * -2 when libext2fs' casefolding cannot be used (failed self-check). */
int casefold_name(const struct ext2fs_nls_table *enc, const uint8_t *name,
		  size_t len, uint8_t *out, size_t outsz);

/* The 16-byte dirhash key of a directory with a v2 policy: HKDF-SHA512 of
 * the master key, context 5, info = the directory's 16-byte nonce.  0, or
 * -1 on a crypto failure.  The caller wipes key (e4_wipe). */
int casefold_dirhash_key(const uint8_t *master, size_t master_len,
			 const uint8_t nonce[16], uint8_t key[16]);

/* The hash pair Linux 6.1 stores for the plaintext name (1..255 bytes) in
 * a casefolded encrypted directory with the given dirhash key: what
 * ext4_fname_setup_ci_filename() computes.  It folds the name into a
 * 255-byte buffer (a fold of 255 bytes or more does not fit there), then
 * ext4fs_dirhash() folds that result (or the name itself) again into a
 * PATH_MAX buffer and hashes the fold, or the bytes it got when they are
 * not valid UTF-8: SipHash-2-4, hash = high 32 bits & ~1 (0xfffffffe ->
 * 0xfffffffc), minor = low 32 bits.  enc NULL: no folding (raw bytes).
 * Returns 0, -1 for a bad argument or a crypto failure, -2 when libext2fs'
 * casefolding cannot be used. */
int casefold_dirhash(const struct ext2fs_nls_table *enc, const uint8_t key[16],
		     const uint8_t *name, size_t len, uint32_t *hash,
		     uint32_t *minor);

/* Does this directory inode store hashes in its entries (EXT4_CASEFOLD_FL
 * and EXT4_ENCRYPT_FL)? */
int casefold_hash_in_dirent(const struct ext2_inode *inode);

/* The pair stored after the name of entry de (le32 hash, le32 minor at
 * name offset round_up(name_len, 4)), as passed to an
 * ext2fs_dir_iterate2() callback with its blocksize.  0, or -1 when the
 * entry's rec_len has no room for it (corrupt). */
int casefold_stored_hash(const struct ext2_dir_entry *de, int blocksize,
			 uint32_t *hash, uint32_t *minor);

#endif
