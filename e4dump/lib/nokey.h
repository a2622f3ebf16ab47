/* No-key names: what readdir shows for an encrypted name without its key. */
#ifndef E4_NOKEY_H
#define E4_NOKEY_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

/* Linux 5.10+ (fs/crypto/fname.c struct fscrypt_nokey_name): base64url
 * without padding of le32 hash, le32 minor_hash, then the ciphertext if it
 * is at most 149 bytes, else its first 149 bytes and SHA-256 of the rest.
 * out needs E4_NOKEY_NAME_MAX + 1 bytes. */
#define E4_NOKEY_BYTES 149
#define E4_NOKEY_NAME_MAX 252
enum e4_status e4_nokey_name_v61(uint32_t hash, uint32_t minor_hash,
				 const uint8_t *ct, size_t len, char *out);

/* base64url without padding (RFC 4648 section 5); out needs
 * 4 * ceil(len / 3) + 1 bytes.  Returns the string length. */
size_t e4_base64url_encode(const uint8_t *in, size_t len, char *out);

/* The 2015 seed (ext4_fname_hash, ext4_fname_encode_digest): ciphertext of
 * at most 32 bytes is encoded directly; longer ciphertext as 'I' followed by
 * the encoding of its SHA-256.  The encoding maps 3 bytes to 4 characters of
 * "a-zA-Z0-9_+", low bits first, the last partial group zero-filled.
 * out needs E4_NOKEY_2015_MAX + 1 bytes. */
#define E4_NOKEY_2015_DIRECT_MAX 32
#define E4_NOKEY_2015_MAX 45
enum e4_status e4_nokey_name_2015(const uint8_t *ct, size_t len, char *out);

/* The seed's digest encoding alone; out needs 4 * ceil(len / 3) + 1 bytes.
 * Returns the string length. */
size_t e4_encode_digest_2015(const uint8_t *in, size_t len, char *out);

/* Linux 4.1 to 5.14 (fs/ext4/crypto_fname.c, then fs/crypto/fname.c
 * digest_encode / base64_encode): bytes enter a little-endian bit
 * accumulator and 6-bit groups leave from the low end, a final partial
 * group included, no padding; alphabet "A-Za-z0-9+,".  ceil(8 * len / 6)
 * characters; out needs that + 1.  Returns the string length. */
size_t e4_encode_le6(const uint8_t *in, size_t len, char *out);

/* The no-key name generations between the seed and 5.15. */
enum e4_nokey_generation {
	E4_NOKEY_GEN_41,  /* 4.1 .. 4.11: '_' form with the last 16 bytes */
	E4_NOKEY_GEN_412, /* 4.12 .. 5.5: '_' form with the second-to-last block */
	E4_NOKEY_GEN_56,  /* 5.6 .. 5.14: struct fscrypt_nokey_name, le6 encoding */
};
/* 4.1 and 4.12: ciphertext of at most 32 bytes is encoded whole (up to 43
 * characters); longer: '_' + encoding of le32 hash, le32 minor_hash and 16
 * ciphertext bytes: the last 16 (4.1) or the second-to-last 16-byte block,
 * ct + ((len - 17) & ~15) (4.12, which CTS makes depend on the whole name).
 * 5.6: the struct of e4_nokey_name_v61 with the le6 encoding.
 * out needs E4_NOKEY_NAME_MAX + 1 bytes. */
#define E4_NOKEY_UNDIGESTED_MAX 32
enum e4_status e4_nokey_name_gen(enum e4_nokey_generation gen, uint32_t hash,
				 uint32_t minor_hash, const uint8_t *ct,
				 size_t len, char *out);

#endif
