/* HCTR2 (fscrypt mode 10, AES-256-HCTR2, names only) as Linux 6.1
 * implements "hctr2(aes)" (crypto/hctr2.c, crypto/xctr.c,
 * crypto/polyval-generic.c), with a 32-byte tweak.  Built from OpenSSL's AES
 * with a hand-written POLYVAL (RFC 8452) and XCTR; see the HCTR2 paper,
 * eprint.iacr.org/2021/1441. */
#ifndef E4_HCTR2_H
#define E4_HCTR2_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_HCTR2_TWEAK_SIZE 32

struct e4_hctr2;

/* AES key of 16, 24 or 32 bytes (fscrypt uses 32).  The POLYVAL key is
 * AES(0^128) and L = AES(le128 1). */
enum e4_status e4_hctr2_new(struct e4_hctr2 **out, const uint8_t *key,
			    size_t keylen);
/* Wipes the key material. */
void e4_hctr2_free(struct e4_hctr2 *h);

/* Encrypt (enc = 1) or decrypt len >= 16 bytes of in into out (in == out
 * is fine) with the tweak.  E4_CORRUPT for len < 16. */
enum e4_status e4_hctr2_crypt(struct e4_hctr2 *h, int enc,
			      const uint8_t tweak[E4_HCTR2_TWEAK_SIZE],
			      const uint8_t *in, uint8_t *out, size_t len);

/* POLYVAL (RFC 8452 section 3) of msg, the last block zero-padded. */
void e4_polyval(const uint8_t key[16], const uint8_t *msg, size_t len,
		uint8_t out[16]);

/* XCTR: block i (from 1) is XORed with AES(iv ^ le(i)); for tests. */
enum e4_status e4_xctr(const uint8_t *key, size_t keylen, const uint8_t iv[16],
		       const uint8_t *in, uint8_t *out, size_t len);

#endif
