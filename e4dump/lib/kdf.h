/* Key derivation for v1 policies and the e4crypt descriptor convention. */
#ifndef E4_KDF_H
#define E4_KDF_H

#include <stddef.h>
#include <stdint.h>
#include "algs.h"
#include "e4status.h"
#include "fscrypt_disk.h"

/* v1 per-file key (fs/crypto/keysetup_v1.c derive_key_aes): AES-128-ECB
 * encryption of the first keysize bytes of the master key, the 16-byte nonce
 * being the AES key.  keysize must be a multiple of 16 and <= master_len. */
enum e4_status e4_v1_derive_key(uint8_t *out, size_t keysize,
				const uint8_t *master, size_t master_len,
				const uint8_t nonce[E4_NONCE_SIZE]);
/* The same with algorithms fetched once (algs.h; NULL: fetched now). */
enum e4_status e4_v1_derive_key_algs(const struct e4_algs *a, uint8_t *out,
				     size_t keysize, const uint8_t *master,
				     size_t master_len,
				     const uint8_t nonce[E4_NONCE_SIZE]);
/* Its inverse (spec §17.5): the first keysize bytes of the master key
 * from a v1 per-file key found in memory and its file's nonce,
 * AES-128-ECB decryption under the nonce.  keysize as above. */
enum e4_status e4_v1_master_of_file_key(uint8_t *master,
					const uint8_t *file_key, size_t keysize,
					const uint8_t nonce[E4_NONCE_SIZE]);

/* e4crypt's descriptor: first 8 bytes of SHA-512(SHA-512(key)). */
enum e4_status e4_e4crypt_descriptor(uint8_t out[E4_KEY_DESCRIPTOR_SIZE],
				     const uint8_t *key, size_t key_len);

/* v2 policies (fs/crypto/hkdf.c): HKDF-SHA512 with an empty salt over the
 * master key, info = "fscrypt\0" || context || info. */
#define E4_HKDF_KEY_IDENTIFIER 1
#define E4_HKDF_PER_FILE_ENC_KEY 2
#define E4_HKDF_DIRECT_KEY 3
#define E4_HKDF_IV_INO_LBLK_64_KEY 4
#define E4_HKDF_DIRHASH_KEY 5
#define E4_HKDF_IV_INO_LBLK_32_KEY 6
#define E4_HKDF_INODE_HASH_KEY 7
enum e4_status e4_hkdf_sha512(uint8_t *out, size_t out_len,
			      const uint8_t *master, size_t master_len,
			      uint8_t context, const uint8_t *info,
			      size_t info_len);
enum e4_status e4_hkdf_sha512_algs(const struct e4_algs *a, uint8_t *out,
				   size_t out_len, const uint8_t *master,
				   size_t master_len, uint8_t context,
				   const uint8_t *info, size_t info_len);

/* v2 key identifier: HKDF context 1, no info, 16 bytes. */
enum e4_status e4_v2_key_identifier(uint8_t out[E4_KEY_IDENTIFIER_SIZE],
				    const uint8_t *master, size_t master_len);

/* SipHash-2-4 of a little-endian u64 (the kernel's siphash_1u64). */
enum e4_status e4_siphash_u64(uint64_t *out, const uint8_t key[16],
			      uint64_t value);

/* e4crypt's passphrase key (e2fsprogs misc/e4crypt.c pbkdf2_sha512, which
 * is not RFC 8018 PBKDF2): H1 = SHA-512(salt zero-padded to 256 bytes ||
 * passphrase), Hi = SHA-512(Hi-1 || passphrase), key = the first 64 bytes of
 * H1 ^ ... ^ H65535.  Salt at most 256 bytes, passphrase at most 1024. */
#define E4_E4CRYPT_ITERATIONS 65535
enum e4_status e4_e4crypt_passphrase_key(uint8_t out[64], const uint8_t *pass,
					 size_t pass_len, const uint8_t *salt,
					 size_t salt_len);

/* Overwrite secret bytes in a way the compiler keeps. */
void e4_wipe(void *p, size_t n);

#endif
