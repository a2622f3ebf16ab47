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

#endif
