/* XChaCha stream cipher as Linux 6.1 defines it (crypto/chacha_generic.c,
 * lib/crypto/chacha.c): Adiantum uses XChaCha12.  Not in OpenSSL, which only
 * has 20-round ChaCha with a 96-bit nonce. */
#ifndef E4_CHACHA_H
#define E4_CHACHA_H

#include <stddef.h>
#include <stdint.h>

#define E4_CHACHA_KEY_SIZE 32
#define E4_XCHACHA_IV_SIZE 32 /* 24-byte nonce || 8-byte stream position */
#define E4_CHACHA_BLOCK_SIZE 64

/* XOR len bytes of the XChaCha keystream into in, giving out (in == out is
 * fine).  iv = nonce (24 bytes) || le64 starting block number; nrounds 12 or
 * 20.  The subkey is HChaCha(key, nonce[0..15]); the ChaCha state then has
 * the block number in words 12-13 and nonce[16..23] in words 14-15, and only
 * word 12 is incremented per 64-byte block, as in the kernel. */
void e4_xchacha(const uint8_t key[E4_CHACHA_KEY_SIZE],
		const uint8_t iv[E4_XCHACHA_IV_SIZE], int nrounds,
		const uint8_t *in, uint8_t *out, size_t len);

/* HChaCha: the first and last rows of the permuted state (no feed-forward),
 * for key and a 16-byte input. */
void e4_hchacha(const uint8_t key[E4_CHACHA_KEY_SIZE], const uint8_t in[16],
		int nrounds, uint8_t out[E4_CHACHA_KEY_SIZE]);

#endif
