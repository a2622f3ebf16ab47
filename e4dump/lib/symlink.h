/* Encrypted symlink targets: le16 ciphertext length, then the ciphertext. */
#ifndef E4_SYMLINK_H
#define E4_SYMLINK_H

#include <stddef.h>
#include <stdint.h>
#include "cipher.h"

/* Locate the ciphertext in a stored symlink blob of size bytes (i_size, or
 * more).  E4_CORRUPT when the length field is below 16 or runs past size. */
enum e4_status e4_symlink_parse(const uint8_t *blob, size_t size,
				const uint8_t **ct, size_t *ct_len);

/* Decrypt a symlink blob; out must hold size bytes.  *target_len excludes
 * the terminating NUL (which is written). */
enum e4_status e4_symlink_decrypt(struct e4_cipher *c, const uint8_t *blob,
				  size_t size, uint8_t *out,
				  size_t *target_len);

#endif
