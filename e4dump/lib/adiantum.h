/* Adiantum (fscrypt mode 9) as Linux 6.1 implements "adiantum(xchacha12,aes)"
 * (crypto/adiantum.c, crypto/nhpoly1305.c): XChaCha12, NH + Poly1305 hashing
 * and one AES-256 block, with a 32-byte tweak.  Built from OpenSSL's AES and
 * Poly1305 and chacha.c; see the Adiantum paper, eprint.iacr.org/2018/720. */
#ifndef E4_ADIANTUM_H
#define E4_ADIANTUM_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_ADIANTUM_KEY_SIZE 32
#define E4_ADIANTUM_TWEAK_SIZE 32
#define E4_NH_KEY_SIZE 1072         /* 268 le32 words */
#define E4_NHPOLY1305_KEY_SIZE 1088 /* Poly1305 r (16 bytes) || NH key */

struct e4_adiantum;

/* Key setup: K_E (AES-256) || K_T (Poly1305 r of the header hash) || K_L
 * (Poly1305 r of NHPoly1305) || K_N (NH) are the first 1136 bytes of the
 * XChaCha12 keystream for the given key with nonce 1 || 0... */
enum e4_status e4_adiantum_new(struct e4_adiantum **out,
			       const uint8_t key[E4_ADIANTUM_KEY_SIZE]);
/* Wipes the key material. */
void e4_adiantum_free(struct e4_adiantum *a);

/* Encrypt (enc = 1) or decrypt len >= 16 bytes of in into out (in == out
 * is fine) with the tweak.  E4_CORRUPT for len < 16. */
enum e4_status e4_adiantum_crypt(struct e4_adiantum *a, int enc,
				 const uint8_t tweak[E4_ADIANTUM_TWEAK_SIZE],
				 const uint8_t *in, uint8_t *out, size_t len);

/* NHPoly1305 of a message (zero-padded to 16 bytes; NH over each 1024-byte
 * chunk, Poly1305 over the NH values, no final addition): for tests. */
enum e4_status e4_nhpoly1305(const uint8_t key[E4_NHPOLY1305_KEY_SIZE],
			     const uint8_t *msg, size_t len, uint8_t out[16]);

#endif
