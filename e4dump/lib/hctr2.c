#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "hctr2.h"

#define BLOCK 16

/* An element of POLYVAL's field GF(2^128) = GF(2)[x] / (x^128 + x^127 +
 * x^126 + x^121 + 1): bit i of the little-endian 16-byte string is the
 * coefficient of x^i. */
struct gf {
	uint64_t lo, hi;
};

static struct gf gf_load(const uint8_t b[16])
{
	struct gf v = { 0, 0 };

	for (int i = 7; i >= 0; i--) {
		v.lo = v.lo << 8 | b[i];
		v.hi = v.hi << 8 | b[8 + i];
	}
	return v;
}

static void gf_store(uint8_t b[16], struct gf v)
{
	for (int i = 0; i < 8; i++) {
		b[i] = (uint8_t)(v.lo >> (8 * i));
		b[8 + i] = (uint8_t)(v.hi >> (8 * i));
	}
}

/* POLYVAL's dot(a, b) = a * b * x^-128.  Adding b for each set bit i of a
 * and multiplying by x^-1 after each of the 128 steps multiplies the term
 * of bit i by x^(i - 128).  Multiplying by x^-1: if the x^0 coefficient is
 * set, add the modulus first (then divide exactly): the shifted modulus is
 * x^127 + x^126 + x^125 + x^120.  No data-dependent branches. */
static struct gf gf_dot(struct gf a, struct gf b)
{
	struct gf r = { 0, 0 };

	for (int i = 0; i < 128; i++) {
		uint64_t bit = (i < 64 ? a.lo >> i : a.hi >> (i - 64)) & 1;
		uint64_t m = (uint64_t)0 - bit;
		uint64_t c;

		r.lo ^= b.lo & m;
		r.hi ^= b.hi & m;
		c = (uint64_t)0 - (r.lo & 1);
		r.lo = r.lo >> 1 | r.hi << 63;
		r.hi = r.hi >> 1 ^ (c & 0xe100000000000000ULL);
	}
	return r;
}

struct polyval {
	struct gf h, acc;
};

static void polyval_init(struct polyval *p, const uint8_t key[16])
{
	p->h = gf_load(key);
	p->acc.lo = p->acc.hi = 0;
}

/* Whole blocks only, or a zero-padded last block. */
static void polyval_update(struct polyval *p, const uint8_t *m, size_t len)
{
	while (len) {
		uint8_t b[BLOCK] = { 0 };
		size_t n = len < BLOCK ? len : BLOCK;
		struct gf x;

		memcpy(b, m, n);
		x = gf_load(b);
		p->acc.lo ^= x.lo;
		p->acc.hi ^= x.hi;
		p->acc = gf_dot(p->acc, p->h);
		m += n;
		len -= n;
	}
}

void e4_polyval(const uint8_t key[16], const uint8_t *msg, size_t len,
		uint8_t out[16])
{
	struct polyval p;

	polyval_init(&p, key);
	polyval_update(&p, msg, len);
	gf_store(out, p.acc);
	OPENSSL_cleanse(&p, sizeof(p));
}

struct e4_hctr2 {
	EVP_CIPHER_CTX *enc, *dec; /* AES-ECB with the key */
	uint8_t hkey[BLOCK];       /* POLYVAL key: AES(0) */
	uint8_t L[BLOCK];          /* AES(le128 1) */
};

static int aes_block(EVP_CIPHER_CTX *ctx, const uint8_t in[16],
		     uint8_t out[16])
{
	int n = 0;

	return EVP_CipherUpdate(ctx, out, &n, in, BLOCK) && n == BLOCK;
}

static const EVP_CIPHER *aes_ecb(size_t keylen)
{
	return keylen == 16 ? EVP_aes_128_ecb() :
	       keylen == 24 ? EVP_aes_192_ecb() :
	       keylen == 32 ? EVP_aes_256_ecb() : NULL;
}

/* XCTR with an AES-ECB encryption context: the 32-bit little-endian block
 * counter (from 1) is XORed into the first four bytes of the IV, as the
 * kernel's crypto/xctr.c does. */
static int xctr(EVP_CIPHER_CTX *enc, const uint8_t iv[16], const uint8_t *in,
		uint8_t *out, size_t len)
{
	uint8_t ctr[BLOCK], ks[BLOCK];
	uint32_t i = 1;
	int ok = 1;

	if (len / BLOCK >= UINT32_MAX)
		return 0;
	for (; ok && len; i++) {
		size_t n = len < BLOCK ? len : BLOCK;

		memcpy(ctr, iv, BLOCK);
		for (int j = 0; j < 4; j++)
			ctr[j] ^= (uint8_t)(i >> (8 * j));
		ok = aes_block(enc, ctr, ks);
		for (size_t j = 0; j < n; j++)
			out[j] = in[j] ^ ks[j];
		in += n;
		out += n;
		len -= n;
	}
	OPENSSL_cleanse(ks, sizeof(ks));
	return ok;
}

static EVP_CIPHER_CTX *new_ecb(const uint8_t *key, size_t keylen, int enc)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	if (ctx && (!EVP_CipherInit_ex(ctx, aes_ecb(keylen), NULL, key, NULL, enc) ||
		    !EVP_CIPHER_CTX_set_padding(ctx, 0))) {
		EVP_CIPHER_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

enum e4_status e4_xctr(const uint8_t *key, size_t keylen, const uint8_t iv[16],
		       const uint8_t *in, uint8_t *out, size_t len)
{
	EVP_CIPHER_CTX *enc;
	int ok;

	if (!aes_ecb(keylen))
		return E4_BAD_KEY;
	enc = new_ecb(key, keylen, 1);
	if (!enc)
		return E4_CRYPTO;
	ok = xctr(enc, iv, in, out, len);
	EVP_CIPHER_CTX_free(enc);
	return ok ? E4_OK : E4_CRYPTO;
}

void e4_hctr2_free(struct e4_hctr2 *h)
{
	if (!h)
		return;
	EVP_CIPHER_CTX_free(h->enc);
	EVP_CIPHER_CTX_free(h->dec);
	OPENSSL_clear_free(h, sizeof(*h));
}

enum e4_status e4_hctr2_new(struct e4_hctr2 **out, const uint8_t *key,
			    size_t keylen)
{
	static const uint8_t zero[BLOCK], one[BLOCK] = { 1 };
	struct e4_hctr2 *h;

	*out = NULL;
	if (!aes_ecb(keylen))
		return E4_BAD_KEY;
	h = calloc(1, sizeof(*h));
	if (!h)
		return E4_NOMEM;
	h->enc = new_ecb(key, keylen, 1);
	h->dec = new_ecb(key, keylen, 0);
	if (!h->enc || !h->dec || !aes_block(h->enc, zero, h->hkey) ||
	    !aes_block(h->enc, one, h->L)) {
		e4_hctr2_free(h);
		return E4_CRYPTO;
	}
	*out = h;
	return E4_OK;
}

/* POLYVAL_h(le64(2 * 8 * |T| + 2 + (|X| % 16 != 0)) || 0^64 || T || X'),
 * where X' is X padded with 0x01 then zeros to whole blocks when needed. */
static void hash_tweak_msg(const struct e4_hctr2 *h, const uint8_t *tweak,
			   const uint8_t *x, size_t len, uint8_t out[16])
{
	uint8_t first[BLOCK] = { 0 }, pad[BLOCK] = { 0 };
	size_t whole = len - len % BLOCK;
	uint64_t v = E4_HCTR2_TWEAK_SIZE * 8 * 2 + 2 + (len % BLOCK != 0);
	struct polyval p;

	for (int i = 0; i < 8; i++)
		first[i] = (uint8_t)(v >> (8 * i));
	polyval_init(&p, h->hkey);
	polyval_update(&p, first, BLOCK);
	polyval_update(&p, tweak, E4_HCTR2_TWEAK_SIZE);
	polyval_update(&p, x, whole);
	if (len > whole) {
		memcpy(pad, x + whole, len - whole);
		pad[len - whole] = 0x01;
		polyval_update(&p, pad, BLOCK);
	}
	gf_store(out, p.acc);
	OPENSSL_cleanse(&p, sizeof(p));
	OPENSSL_cleanse(pad, sizeof(pad));
}

enum e4_status e4_hctr2_crypt(struct e4_hctr2 *h, int enc,
			      const uint8_t tweak[E4_HCTR2_TWEAK_SIZE],
			      const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t x[BLOCK], y[BLOCK], s[BLOCK], d[BLOCK];
	size_t bulk;
	int ok;

	if (len < BLOCK)
		return E4_CORRUPT;
	bulk = len - BLOCK;
	/* First block F, the rest B (N for plaintext, V for ciphertext):
	 * x = F ^ H(T, B_in); y = AES(x) to encrypt, AES^-1(x) to decrypt;
	 * B_out = XCTR(x ^ y ^ L, B_in); F_out = y ^ H(T, B_out). */
	hash_tweak_msg(h, tweak, in + BLOCK, bulk, d);
	for (int i = 0; i < BLOCK; i++)
		x[i] = in[i] ^ d[i];
	ok = aes_block(enc ? h->enc : h->dec, x, y);
	if (ok) {
		for (int i = 0; i < BLOCK; i++)
			s[i] = x[i] ^ y[i] ^ h->L[i];
		ok = xctr(h->enc, s, in + BLOCK, out + BLOCK, bulk);
	}
	if (ok) {
		hash_tweak_msg(h, tweak, out + BLOCK, bulk, d);
		for (int i = 0; i < BLOCK; i++)
			out[i] = y[i] ^ d[i];
	}
	OPENSSL_cleanse(x, sizeof(x));
	OPENSSL_cleanse(y, sizeof(y));
	OPENSSL_cleanse(s, sizeof(s));
	return ok ? E4_OK : E4_CRYPTO;
}
