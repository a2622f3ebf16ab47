#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "adiantum.h"
#include "chacha.h"
#include "byteorder.h"

#define BLOCK 16
#define NH_UNIT 16            /* message bytes per NH step */
#define NH_CHUNK 1024         /* message bytes per NH value */
#define NH_KEY_WORDS (E4_NH_KEY_SIZE / 4)
#define DERIVED_SIZE (32 + 16 + E4_NHPOLY1305_KEY_SIZE)

struct nhpoly {
	uint8_t poly_key[32];          /* Poly1305 r || 16 zero bytes (s = 0) */
	uint32_t nh_key[NH_KEY_WORDS];
};

struct e4_adiantum {
	uint8_t stream_key[E4_ADIANTUM_KEY_SIZE]; /* K_S */
	uint8_t header_key[32];                   /* K_T as r || 0 */
	struct nhpoly nhp;                        /* K_L, K_N */
	EVP_CIPHER_CTX *enc, *dec;                /* AES-256 keyed with K_E */
	EVP_MAC_CTX *mac;                         /* Poly1305 */
};

static EVP_MAC_CTX *new_poly1305(void)
{
	EVP_MAC *m = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;

	EVP_MAC_free(m);
	return ctx;
}

static void nhpoly_setkey(struct nhpoly *k, const uint8_t *key)
{
	/* Poly1305 without its final addition of s: the kernel's
	 * poly1305_core_emit without a nonce is (h mod p) mod 2^128, which is
	 * the Poly1305 tag for s = 0.  OpenSSL clamps r as the kernel does. */
	memcpy(k->poly_key, key, 16);
	memset(k->poly_key + 16, 0, 16);
	for (int i = 0; i < NH_KEY_WORDS; i++)
		k->nh_key[i] = e4_le32(key + 16 + 4 * i);
}

/* NH: add the hash of len bytes (a multiple of 16) to sums, with the key
 * starting at word key_pos. */
static void nh(const uint32_t *key, const uint8_t *m, size_t len,
	       uint64_t sums[4])
{
	for (; len; len -= NH_UNIT, m += NH_UNIT, key += 4) {
		uint32_t m0 = e4_le32(m), m1 = e4_le32(m + 4);
		uint32_t m2 = e4_le32(m + 8), m3 = e4_le32(m + 12);

		for (int p = 0; p < 4; p++) {
			const uint32_t *k = key + 4 * p;

			sums[p] += (uint64_t)(uint32_t)(m0 + k[0]) *
				   (uint32_t)(m2 + k[2]);
			sums[p] += (uint64_t)(uint32_t)(m1 + k[1]) *
				   (uint32_t)(m3 + k[3]);
		}
	}
}

static int nhpoly_hash(const struct nhpoly *k, EVP_MAC_CTX *mac,
		       const uint8_t *m, size_t len, uint8_t out[16])
{
	size_t outl = 0;

	if (!EVP_MAC_init(mac, k->poly_key, 32, NULL))
		return 0;
	while (len) {
		size_t n = len < NH_CHUNK ? len : NH_CHUNK;
		size_t whole = n - n % NH_UNIT;
		uint64_t sums[4] = { 0, 0, 0, 0 };
		uint8_t h[32];

		nh(k->nh_key, m, whole, sums);
		if (n > whole) { /* the last unit, zero-padded */
			uint8_t unit[NH_UNIT] = { 0 };

			memcpy(unit, m + whole, n - whole);
			nh(k->nh_key + whole / 4, unit, NH_UNIT, sums);
		}
		for (int p = 0; p < 4; p++)
			for (int i = 0; i < 8; i++)
				h[8 * p + i] = (uint8_t)(sums[p] >> (8 * i));
		if (!EVP_MAC_update(mac, h, sizeof(h)))
			return 0;
		m += n;
		len -= n;
	}
	return EVP_MAC_final(mac, out, &outl, 16) && outl == 16;
}

enum e4_status e4_nhpoly1305(const uint8_t key[E4_NHPOLY1305_KEY_SIZE],
			     const uint8_t *msg, size_t len, uint8_t out[16])
{
	struct nhpoly *k = malloc(sizeof(*k));
	EVP_MAC_CTX *mac = new_poly1305();
	int ok;

	if (!k || !mac) {
		free(k);
		EVP_MAC_CTX_free(mac);
		return E4_CRYPTO;
	}
	nhpoly_setkey(k, key);
	ok = nhpoly_hash(k, mac, msg, len, out);
	OPENSSL_clear_free(k, sizeof(*k));
	EVP_MAC_CTX_free(mac);
	return ok ? E4_OK : E4_CRYPTO;
}

void e4_adiantum_free(struct e4_adiantum *a)
{
	if (!a)
		return;
	EVP_CIPHER_CTX_free(a->enc);
	EVP_CIPHER_CTX_free(a->dec);
	EVP_MAC_CTX_free(a->mac);
	OPENSSL_clear_free(a, sizeof(*a));
}

enum e4_status e4_adiantum_new(struct e4_adiantum **out,
			       const uint8_t key[E4_ADIANTUM_KEY_SIZE])
{
	uint8_t iv[E4_XCHACHA_IV_SIZE] = { 1 };
	uint8_t *d = calloc(1, DERIVED_SIZE);
	struct e4_adiantum *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a || !d) {
		free(a);
		free(d);
		return E4_NOMEM;
	}
	memcpy(a->stream_key, key, E4_ADIANTUM_KEY_SIZE);
	e4_xchacha(key, iv, 12, d, d, DERIVED_SIZE);
	a->enc = EVP_CIPHER_CTX_new();
	a->dec = EVP_CIPHER_CTX_new();
	a->mac = new_poly1305();
	if (!a->enc || !a->dec || !a->mac ||
	    !EVP_EncryptInit_ex(a->enc, EVP_aes_256_ecb(), NULL, d, NULL) ||
	    !EVP_DecryptInit_ex(a->dec, EVP_aes_256_ecb(), NULL, d, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(a->enc, 0) ||
	    !EVP_CIPHER_CTX_set_padding(a->dec, 0)) {
		OPENSSL_clear_free(d, DERIVED_SIZE);
		e4_adiantum_free(a);
		return E4_CRYPTO;
	}
	memcpy(a->header_key, d + 32, 16);
	nhpoly_setkey(&a->nhp, d + 48);
	OPENSSL_clear_free(d, DERIVED_SIZE);
	*out = a;
	return E4_OK;
}

/* Arithmetic on little-endian 128-bit numbers modulo 2^128. */
static void add128(uint8_t r[16], const uint8_t x[16], const uint8_t y[16])
{
	unsigned int c = 0;

	for (int i = 0; i < 16; i++) {
		c += (unsigned int)x[i] + y[i];
		r[i] = (uint8_t)c;
		c >>= 8;
	}
}

static void sub128(uint8_t r[16], const uint8_t x[16], const uint8_t y[16])
{
	int b = 0;

	for (int i = 0; i < 16; i++) {
		int v = (int)x[i] - y[i] - b;

		b = v < 0;
		r[i] = (uint8_t)(v + 256 * b);
	}
}

/* H_T = Poly1305_{K_T}(e4_le64(8 * bulk length) || 0^64 || T). */
static int header_hash(struct e4_adiantum *a, size_t bulk,
		       const uint8_t tweak[E4_ADIANTUM_TWEAK_SIZE],
		       uint8_t out[16])
{
	uint8_t hdr[16] = { 0 };
	uint64_t bits = (uint64_t)bulk * 8;
	size_t outl = 0;

	for (int i = 0; i < 8; i++)
		hdr[i] = (uint8_t)(bits >> (8 * i));
	return EVP_MAC_init(a->mac, a->header_key, 32, NULL) &&
	       EVP_MAC_update(a->mac, hdr, sizeof(hdr)) &&
	       EVP_MAC_update(a->mac, tweak, E4_ADIANTUM_TWEAK_SIZE) &&
	       EVP_MAC_final(a->mac, out, &outl, 16) && outl == 16;
}

static int aes_block(EVP_CIPHER_CTX *ctx, uint8_t b[16])
{
	int n = 0;

	return EVP_CipherUpdate(ctx, b, &n, b, 16) && n == 16;
}

enum e4_status e4_adiantum_crypt(struct e4_adiantum *a, int enc,
				 const uint8_t tweak[E4_ADIANTUM_TWEAK_SIZE],
				 const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t hh[16], d[16], r[16], iv[E4_XCHACHA_IV_SIZE] = { 0 };
	size_t bulk;
	int ok;

	if (len < BLOCK)
		return E4_CORRUPT;
	bulk = len - BLOCK;
	/* Left part L (bulk), right part R (the last 16 bytes):
	 * enc: P_M = P_R + H(T, P_L), C_M = AES(P_M),
	 *      C_L = P_L ^ XChaCha12(nonce C_M || 1), C_R = C_M - H(T, C_L);
	 * dec: C_M = C_R + H(T, C_L), P_L = C_L ^ XChaCha12(...),
	 *      P_M = AES^-1(C_M), P_R = P_M - H(T, P_L);
	 * with H(T, X) = H_T + NHPoly1305_{K_L,K_N}(X) modulo 2^128. */
	ok = header_hash(a, bulk, tweak, hh) &&
	     nhpoly_hash(&a->nhp, a->mac, in, bulk, d);
	if (ok) {
		add128(d, d, hh);
		memcpy(r, in + bulk, BLOCK);
		add128(r, r, d);
		ok = !enc || aes_block(a->enc, r);
	}
	if (ok) {
		memcpy(iv, r, BLOCK);
		iv[16] = 1; /* the nonce continues with le32 1; position 0 */
		e4_xchacha(a->stream_key, iv, 12, in, out, bulk);
		ok = (enc || aes_block(a->dec, r)) &&
		     nhpoly_hash(&a->nhp, a->mac, out, bulk, d);
	}
	if (ok) {
		add128(d, d, hh);
		sub128(r, r, d);
		memcpy(out + bulk, r, BLOCK);
	}
	OPENSSL_cleanse(r, sizeof(r));
	OPENSSL_cleanse(iv, sizeof(iv));
	return ok ? E4_OK : E4_CRYPTO;
}
