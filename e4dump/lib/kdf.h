/* Key derivation for v1 policies and the e4crypt descriptor convention. */
#ifndef E4_KDF_H
#define E4_KDF_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"
#include "fscrypt_disk.h"

/* v1 per-file key (fs/crypto/keysetup_v1.c derive_key_aes): AES-128-ECB
 * encryption of the first keysize bytes of the master key, the 16-byte nonce
 * being the AES key.  keysize must be a multiple of 16 and <= master_len. */
enum e4_status e4_v1_derive_key(uint8_t *out, size_t keysize,
				const uint8_t *master, size_t master_len,
				const uint8_t nonce[E4_NONCE_SIZE]);

/* e4crypt's descriptor: first 8 bytes of SHA-512(SHA-512(key)). */
enum e4_status e4_e4crypt_descriptor(uint8_t out[E4_KEY_DESCRIPTOR_SIZE],
				     const uint8_t *key, size_t key_len);

/* Overwrite secret bytes in a way the compiler keeps. */
void e4_wipe(void *p, size_t n);

#endif
