#include <string.h>
#include <openssl/crypto.h>
#include "chacha.h"
#include "byteorder.h"

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t rotl(uint32_t v, int n)
{
	return v << n | v >> (32 - n);
}

static void quarter(uint32_t *x, int a, int b, int c, int d)
{
	x[a] += x[b];
	x[d] = rotl(x[d] ^ x[a], 16);
	x[c] += x[d];
	x[b] = rotl(x[b] ^ x[c], 12);
	x[a] += x[b];
	x[d] = rotl(x[d] ^ x[a], 8);
	x[c] += x[d];
	x[b] = rotl(x[b] ^ x[c], 7);
}

/* nrounds rounds: alternately a column and a diagonal round. */
static void permute(uint32_t x[16], int nrounds)
{
	for (int i = 0; i < nrounds; i += 2) {
		quarter(x, 0, 4, 8, 12);
		quarter(x, 1, 5, 9, 13);
		quarter(x, 2, 6, 10, 14);
		quarter(x, 3, 7, 11, 15);
		quarter(x, 0, 5, 10, 15);
		quarter(x, 1, 6, 11, 12);
		quarter(x, 2, 7, 8, 13);
		quarter(x, 3, 4, 9, 14);
	}
}

/* "expand 32-byte k", the key, then four words of input. */
static void init_state(uint32_t s[16], const uint8_t key[32],
		       const uint8_t in[16])
{
	s[0] = 0x61707865;
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (int i = 0; i < 8; i++)
		s[4 + i] = e4_le32(key + 4 * i);
	for (int i = 0; i < 4; i++)
		s[12 + i] = e4_le32(in + 4 * i);
}

void e4_hchacha(const uint8_t key[E4_CHACHA_KEY_SIZE], const uint8_t in[16],
		int nrounds, uint8_t out[E4_CHACHA_KEY_SIZE])
{
	uint32_t x[16];

	init_state(x, key, in);
	permute(x, nrounds);
	for (int i = 0; i < 4; i++) {
		put_le32(out + 4 * i, x[i]);
		put_le32(out + 16 + 4 * i, x[12 + i]);
	}
	OPENSSL_cleanse(x, sizeof(x));
}

void e4_xchacha(const uint8_t key[E4_CHACHA_KEY_SIZE],
		const uint8_t iv[E4_XCHACHA_IV_SIZE], int nrounds,
		const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t subkey[32], words[16], ks[64];
	uint32_t s[16], x[16];

	e4_hchacha(key, iv, nrounds, subkey);
	memcpy(words, iv + 24, 8);     /* stream position */
	memcpy(words + 8, iv + 16, 8); /* the rest of the nonce */
	init_state(s, subkey, words);
	while (len) {
		size_t n = len < 64 ? len : 64;

		memcpy(x, s, sizeof(x));
		permute(x, nrounds);
		for (int i = 0; i < 16; i++)
			put_le32(ks + 4 * i, x[i] + s[i]);
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ ks[i];
		s[12]++;
		in += n;
		out += n;
		len -= n;
	}
	OPENSSL_cleanse(subkey, sizeof(subkey));
	OPENSSL_cleanse(s, sizeof(s));
	OPENSSL_cleanse(x, sizeof(x));
	OPENSSL_cleanse(ks, sizeof(ks));
}
