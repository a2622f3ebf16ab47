/* The directory hash of casefolded encrypted directories (ext4 hash
 * version 6, DX_HASH_SIPHASH). */
#ifndef E4_SIPHASH_DIRHASH_H
#define E4_SIPHASH_DIRHASH_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_DX_HASH_SIPHASH 6

/* SipHash-2-4 of a byte string (64-bit output, as the kernel's siphash()). */
enum e4_status e4_siphash(uint64_t *out, const uint8_t key[16],
			  const uint8_t *data, size_t len);

/* fs/ext4/hash.c (DX_HASH_SIPHASH) over the casefolded name, keyed with the
 * directory's HKDF context 5 key: major = high 32 bits of the SipHash with
 * the low bit cleared (0xfffffffe, the end-of-directory marker, becomes
 * 0xfffffffc), minor = low 32 bits. */
enum e4_status e4_siphash_dirhash(const uint8_t key[16], const uint8_t *name,
				  size_t len, uint32_t *hash, uint32_t *minor);

#endif
