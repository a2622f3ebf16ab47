/* Per-inode keys (the kernel's fs/crypto keysetup.c and keysetup_v1.c):
 * from a master key, an inode's context, its number and the filesystem
 * UUID to the cipher of its contents or of its names.  Pure. */
#ifndef E4_KEYSETUP_H
#define E4_KEYSETUP_H

#include <stddef.h>
#include <stdint.h>
#include "cipher.h"
#include "context.h"
#include "e4status.h"
#include "keystore.h"

/* Which of an inode's two ciphers. */
enum e4_key_use {
	E4_KEY_CONTENTS = 0, /* file contents: contents_mode */
	E4_KEY_NAMES = 1,    /* directory entries, symlink target: filenames_mode */
};

/* Set up the cipher of inode ino with master key k (a raw key, or the
 * HMAC states of a v2 key: every v2 derivation below is an HKDF-Expand,
 * which the states compute as the raw key does):
 *   v1: AES-128-ECB of the master key under the nonce (derive_key_aes);
 *       DIRECT_KEY (Adiantum only): the master key itself, nonce in the IV.
 *   v2: HKDF-SHA512 of the master key: context 2 with the nonce (per file);
 *       DIRECT_KEY: context 3, info = mode; IV_INO_LBLK_64: context 4,
 *       info = mode || fs_uuid, inode number in the IV; IV_INO_LBLK_32:
 *       context 6, info = mode || fs_uuid, IV from SipHash(context 7 key,
 *       ino).
 * The derived key is wiped before return.  E4_UNRECOGNIZED for an unknown
 * mode, E4_UNSUPPORTED for one not implemented or a flag Linux refuses
 * with it, E4_BAD_KEY for a master key too short for the mode or a
 * states key for a v1 policy. */
enum e4_status e4_keysetup_inode(const struct e4_master_key *k,
				 const struct e4_context *ctx, uint32_t ino,
				 const uint8_t fs_uuid[16], enum e4_key_use use,
				 struct e4_cipher **out);
/* The same with algorithms fetched once (algs.h; NULL: fetched now). */
enum e4_status e4_keysetup_inode_algs(const struct e4_algs *a,
				      const struct e4_master_key *k,
				      const struct e4_context *ctx, uint32_t ino,
				      const uint8_t fs_uuid[16],
				      enum e4_key_use use, struct e4_cipher **out);

/* The key and IV scheme e4_keysetup_inode uses, without a cipher: dk gets
 * the mode's key size in *dk_len bytes (the caller wipes dk); *scheme and
 * *iv_ino as for e4_cipher_set_iv_scheme.  For test vectors. */
enum e4_status e4_keysetup_derive(const struct e4_master_key *k,
				  const struct e4_context *ctx, uint32_t ino,
				  const uint8_t fs_uuid[16], enum e4_key_use use,
				  uint8_t dk[E4_MAX_KEY_SIZE], size_t *dk_len,
				  enum e4_iv_scheme *scheme, uint32_t *iv_ino);

/* The 2015 seed's test_dummy_encryption (patch 011,
 * ext4_generate_encryption_key): policies with descriptor 0x42 x 8 use
 * the key 0x42 repeated, with no derivation. */
int e4_context_is_dummy_2015(const struct e4_context *ctx);
enum e4_status e4_keysetup_dummy_2015(const struct e4_context *ctx,
				      enum e4_key_use use,
				      struct e4_cipher **out);

/* The SipHash key of a casefolded encrypted directory with a v2 policy
 * (fscrypt_setup_v2_file_key: HKDF context 5, info = the directory's
 * nonce).  The caller wipes key. */
enum e4_status e4_keysetup_dirhash_key(const struct e4_master_key *k,
				       const struct e4_context *ctx,
				       uint8_t key[16]);

#endif
