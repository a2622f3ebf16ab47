/* Recognisers of the kernel's key structures in memory (memkeys.h).
 * SHA-512 is computed here from FIPS 180-4 because the states must be
 * continued from given chaining values, and the AES key expansion from
 * FIPS-197 because the schedules are compared word by word: OpenSSL's EVP
 * interface allows neither. */
#include <string.h>
#include <openssl/crypto.h>
#include "memkeys.h"
#include "byteorder.h"
#include "hex.h"
#include "kdf.h"

static const uint64_t K[80] = {
	0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
	0x3956c25bf348b538ull, 0x59f111f1b605d019ull, 0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull,
	0xd807aa98a3030242ull, 0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
	0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull, 0xc19bf174cf692694ull,
	0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, 0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull,
	0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
	0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full, 0xbf597fc7beef0ee4ull,
	0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull, 0x06ca6351e003826full, 0x142929670a0e6e70ull,
	0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
	0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull, 0x92722c851482353bull,
	0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull, 0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
	0xd192e819d6ef5218ull, 0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
	0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull, 0x34b0bcb5e19b48a8ull,
	0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull, 0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull,
	0x748f82ee5defb2fcull, 0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
	0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull, 0xc67178f2e372532bull,
	0xca273eceea26619cull, 0xd186b8c721c0c207ull, 0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull,
	0x06f067aa72176fbaull, 0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
	0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull, 0x431d67c49c100d4cull,
	0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull, 0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};

static const uint64_t IV[8] = {
	0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
	0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

static uint64_t rotr(uint64_t x, unsigned int n)
{
	return x >> n | x << (64 - n);
}

/* One compression (FIPS 180-4 6.4.2) of a 128-byte block into h. */
static void compress(uint64_t h[8], const uint8_t block[128])
{
	uint64_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
		 g = h[6], hh = h[7];

	for (int t = 0; t < 16; t++)
		w[t] = e4_be64(block + 8 * t);
	for (int t = 16; t < 80; t++) {
		uint64_t s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ w[t - 15] >> 7;
		uint64_t s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ w[t - 2] >> 6;

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	for (int t = 0; t < 80; t++) {
		uint64_t t1 = hh + (rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)) +
			      ((e & f) ^ (~e & g)) + K[t] + w[t];
		uint64_t t2 = (rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)) +
			      ((a & b) ^ (a & c) ^ (b & c));

		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
	OPENSSL_cleanse(w, sizeof(w));
}

/* The digest of a message whose first 128 bytes gave state, continued
 * over tail (at most 256 bytes). */
static void finish(const uint64_t state[8], const uint8_t *tail, size_t len,
		   uint8_t out[64])
{
	uint8_t buf[384] = { 0 };
	uint64_t h[8], bits = (uint64_t)(128 + len) * 8;
	size_t n = (len + 17 + 127) / 128 * 128;

	memcpy(h, state, sizeof(h));
	memcpy(buf, tail, len);
	buf[len] = 0x80;
	for (int i = 0; i < 8; i++) /* the low 64 bits of the 128-bit length */
		buf[n - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t i = 0; i < n; i += 128)
		compress(h, buf + i);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			out[8 * i + j] = (uint8_t)(h[i] >> (56 - 8 * j));
	OPENSSL_cleanse(buf, sizeof(buf));
	OPENSSL_cleanse(h, sizeof(h));
}

enum e4_status e4_hmac_states_of_key(struct e4_hmac_states *st,
				     const uint8_t *key, size_t key_len)
{
	uint8_t ib[128] = { 0 }, ob[128];

	if (key_len > sizeof(ib))
		return E4_INVALID;
	memcpy(ib, key, key_len);
	for (int i = 0; i < 128; i++) {
		ob[i] = ib[i] ^ 0x5c;
		ib[i] ^= 0x36;
	}
	memcpy(st->ipad, IV, sizeof(IV));
	memcpy(st->opad, IV, sizeof(IV));
	compress(st->ipad, ib);
	compress(st->opad, ob);
	OPENSSL_cleanse(ib, sizeof(ib));
	OPENSSL_cleanse(ob, sizeof(ob));
	return E4_OK;
}

void e4_hmac_state_load(uint64_t h[8], const uint8_t b[E4_HMAC_STATE_BYTES])
{
	for (int i = 0; i < 8; i++)
		h[i] = e4_le64(b + 8 * i);
}

void e4_hmac_state_store(const uint64_t h[8], uint8_t b[E4_HMAC_STATE_BYTES])
{
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			b[8 * i + j] = (uint8_t)(h[i] >> (8 * j));
}

int e4_hmac_states_match(const uint8_t *p, size_t len,
			 struct e4_hmac_states *st)
{
	static const uint8_t zero[64];
	struct e4_hmac_states s, z;

	if (len < E4_HMAC_STATES_SIZE)
		return 0;
	for (int k = 0; k < 2; k++) {
		const uint8_t *q = p + 208 * k;

		if (e4_le64(q + 64) != 128 || e4_le64(q + 72) != 0)
			return 0;
	}
	if (memcmp(p + 80, p + 208 + 80, 128))
		return 0;
	e4_hmac_state_load(s.ipad, p);
	e4_hmac_state_load(s.opad, p + 208);
	e4_hmac_states_of_key(&z, zero, sizeof(zero));
	if (!memcmp(s.ipad, IV, sizeof(IV)) || !memcmp(s.opad, IV, sizeof(IV)) ||
	    !memcmp(s.ipad, z.ipad, sizeof(z.ipad)) || !memcmp(s.opad, z.opad, sizeof(z.opad)) ||
	    !memcmp(s.ipad, s.opad, sizeof(s.ipad))) {
		OPENSSL_cleanse(&s, sizeof(s));
		return 0;
	}
	if (st)
		*st = s;
	OPENSSL_cleanse(&s, sizeof(s));
	return 1;
}

enum e4_status e4_hkdf_expand_states(const struct e4_hmac_states *st,
				     uint8_t context, const uint8_t *info,
				     size_t info_len, uint8_t *out,
				     size_t out_len)
{
	uint8_t msg[64 + 9 + 64 + 1], t[64], inner[64];
	size_t have = 0;

	if (info_len > 64 || out_len > 255 * 64)
		return E4_INVALID;
	for (unsigned int n = 1; have < out_len; n++) {
		size_t len = 0, take;

		if (n > 1) {
			memcpy(msg, t, 64);
			len = 64;
		}
		memcpy(msg + len, "fscrypt\0", 8);
		msg[len + 8] = context;
		len += 9;
		if (info_len)
			memcpy(msg + len, info, info_len);
		len += info_len;
		msg[len++] = (uint8_t)n;
		finish(st->ipad, msg, len, inner);
		finish(st->opad, inner, sizeof(inner), t);
		take = out_len - have < 64 ? out_len - have : 64;
		memcpy(out + have, t, take);
		have += take;
	}
	OPENSSL_cleanse(msg, sizeof(msg));
	OPENSSL_cleanse(t, sizeof(t));
	OPENSSL_cleanse(inner, sizeof(inner));
	return E4_OK;
}

enum e4_status e4_hmac_states_identifier(const struct e4_hmac_states *st,
					 uint8_t id[16])
{
	return e4_hkdf_expand_states(st, E4_HKDF_KEY_IDENTIFIER, NULL, 0, id, 16);
}

/* Whether n bytes at p are all zero. */
static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	while (n--)
		acc |= *p++;
	return !acc;
}

/* A candidate raw[0 .. size) of a structure's key field into key; an
 * all-zero one is what cleared memory holds and leaves only the two small
 * integers as evidence, so it is refused. */
static int take_key(const uint8_t *raw, size_t size, struct e4_mem_key *key)
{
	if (all_zero(raw, size))
		return 0;
	if (key) {
		memcpy(key->raw, raw, size);
		key->len = size;
		key->named = 0;
	}
	return 1;
}

int e4_logon_payload_match(const uint8_t *p, size_t len,
			   struct e4_mem_key *key)
{
	uint32_t size;

	if (len < E4_USER_KEY_PAYLOAD_SIZE || e4_le16(p + 0x10) != E4_LOGON_PAYLOAD_SIZE)
		return 0;
	size = e4_le32(p + 0x5c);
	if (size < 1 || size > 64)
		return 0;
	return take_key(p + 0x1c, size, key);
}

int e4_mk_secret_v1_match(const uint8_t *p, size_t len,
			  struct e4_mem_key *key)
{
	uint32_t size;

	if (len < E4_MK_SECRET_WINDOW || e4_le64(p) != 0)
		return 0;
	size = e4_le32(p + 0x08);
	/* raw's tail and the padding were cleared by the ioctl's memset */
	if (size < 16 || size > 64 || !all_zero(p + 0x0c + size, 64 - size + 4))
		return 0;
	/* mk_spec: FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR, the union's tail zero
	 * (fscrypt_ioctl_add_key copies the whole specifier, checked by
	 * valid_key_spec: the reserved bytes must be zero) */
	if (e4_le32(p + 0x50) != 1 || e4_le32(p + 0x54) != 0 || !all_zero(p + 0x60, 24))
		return 0;
	if (!take_key(p + 0x0c, size, key))
		return 0;
	if (key) {
		key->named = 1;
		memcpy(key->descriptor, p + 0x58, 8);
	}
	return 1;
}

int e4_key_description_match(const uint8_t *p, size_t len,
			     struct e4_mem_key *key)
{
	size_t at = len >= 8 && !memcmp(p, "fscrypt:", 8) ? 8 :
		    len >= 5 && !memcmp(p, "ext4:", 5) ? 5 : 0;
	uint8_t d[8];

	if (!at || len < at + 17 || p[at + 16] != 0)
		return 0;
	for (int i = 0; i < 16; i++)
		if (!((p[at + i] >= '0' && p[at + i] <= '9') || (p[at + i] >= 'a' && p[at + i] <= 'f')))
			return 0;
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(e4_hexval(p[at + 2 * i]) << 4 | e4_hexval(p[at + 2 * i + 1]));
	if (key) {
		memset(key, 0, sizeof(*key));
		key->named = 1;
		memcpy(key->descriptor, d, 8);
	}
	return 1;
}

/* FIPS-197 Figure 7 */
static const uint8_t SBOX[256] = {
	0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
	0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
	0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
	0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
	0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
	0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
	0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
	0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
	0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
	0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
	0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
	0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
	0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
	0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
	0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
	0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

/* Words are as the kernel holds them, little-endian: a word's first
 * byte in FIPS-197's order is its low byte. */
static uint32_t sub_word(uint32_t w)
{
	return (uint32_t)SBOX[w & 0xff] | (uint32_t)SBOX[w >> 8 & 0xff] << 8 |
	       (uint32_t)SBOX[w >> 16 & 0xff] << 16 | (uint32_t)SBOX[w >> 24] << 24;
}

static uint8_t xtime(uint8_t b)
{
	return (uint8_t)(b << 1 ^ (b & 0x80 ? 0x1b : 0));
}

/* b * m in GF(2^8), m < 16 */
static uint8_t gmul(uint8_t b, unsigned int m)
{
	uint8_t r = 0;

	for (; m; m >>= 1, b = xtime(b))
		if (m & 1)
			r ^= b;
	return r;
}

/* FIPS-197 5.3.3 InvMixColumns of one column (one word). */
static uint32_t inv_mix_column(uint32_t w)
{
	uint8_t b[4];
	uint32_t r = 0;

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(w >> 8 * i);
	for (int i = 0; i < 4; i++)
		r |= (uint32_t)(gmul(b[i], 14) ^ gmul(b[(i + 1) % 4], 11) ^
				gmul(b[(i + 2) % 4], 13) ^ gmul(b[(i + 3) % 4], 9)) << 8 * i;
	return r;
}

/* The schedules of a key of nk words, w[0 .. nk) given: key_enc by the
 * key expansion (FIPS-197 5.2), 4 * (nk + 7) words, then key_dec as
 * aes_expandkey orders it (the equivalent inverse cipher, 5.3.5): the
 * last round key first, InvMixColumns of the middle ones, the first
 * last.  With ctx, each word is compared with ctx's as it is made and the
 * first difference stops it (0): a scan refuses most windows within a
 * word or two.  1 when all were made (and all agree). */
static int schedule(uint32_t enc[60], uint32_t dec[60], size_t nk,
		    const uint8_t *ctx)
{
	size_t words = 4 * (nk + 7), nr = nk + 6;
	uint8_t rc = 1;

	for (size_t i = nk; i < words; i++) {
		uint32_t t = enc[i - 1];

		if (i % nk == 0) {
			t = sub_word(t); /* then RotWord: the same bytes */
			t = (t >> 8 | t << 24) ^ rc;
			rc = xtime(rc);
		} else if (nk > 6 && i % nk == 4) {
			t = sub_word(t);
		}
		enc[i] = enc[i - nk] ^ t;
		if (ctx && e4_le32(ctx + 4 * i) != enc[i])
			return 0;
	}
	for (size_t r = 0; r <= nr; r++)
		for (size_t c = 0; c < 4; c++) {
			uint32_t w = enc[4 * (nr - r) + c];

			dec[4 * r + c] = r && r < nr ? inv_mix_column(w) : w;
			if (ctx && e4_le32(ctx + 240 + 4 * (4 * r + c)) != dec[4 * r + c])
				return 0;
		}
	return 1;
}

int e4_aes_ctx_match(const uint8_t *p, size_t len, struct e4_mem_key *key)
{
	uint32_t enc[60], dec[60], klen;
	int ok;

	if (len < E4_AES_CTX_SIZE)
		return 0;
	klen = e4_le32(p + 0x1e0);
	if (klen != 16 && klen != 24 && klen != 32)
		return 0;
	for (size_t i = 0; i < klen / 4; i++)
		enc[i] = e4_le32(p + 4 * i);
	ok = schedule(enc, dec, klen / 4, p);
	e4_wipe(enc, sizeof(enc));
	e4_wipe(dec, sizeof(dec));
	if (ok && key) {
		memcpy(key->raw, p, klen);
		key->len = klen;
	}
	return ok;
}

int e4_aesni_xts_match(const uint8_t *p, size_t len, struct e4_mem_key *key)
{
	struct e4_mem_key tweak, crypt;
	int ok;

	if (len < E4_AESNI_XTS_CTX_SIZE)
		return 0;
	ok = e4_aes_ctx_match(p, len, &tweak) &&
	     e4_aes_ctx_match(p + E4_AESNI_XTS_CRYPT_OFFSET, len - E4_AESNI_XTS_CRYPT_OFFSET, &crypt) &&
	     tweak.len == crypt.len;
	if (ok && key) {
		memcpy(key->raw, crypt.raw, crypt.len);
		memcpy(key->raw + crypt.len, tweak.raw, tweak.len);
		key->len = 2 * crypt.len;
	}
	e4_wipe(&tweak, sizeof(tweak));
	e4_wipe(&crypt, sizeof(crypt));
	return ok;
}

enum e4_status e4_aes_ctx_of_key(uint8_t ctx[E4_AES_CTX_SIZE],
				 const uint8_t *key, size_t key_len)
{
	uint32_t enc[60], dec[60];
	size_t nk = key_len / 4;

	if (key_len != 16 && key_len != 24 && key_len != 32)
		return E4_INVALID;
	for (size_t i = 0; i < nk; i++)
		enc[i] = e4_le32(key + 4 * i);
	schedule(enc, dec, nk, NULL);
	memset(ctx, 0, E4_AES_CTX_SIZE);
	for (size_t i = 0; i < 4 * (nk + 7); i++)
		for (int b = 0; b < 4; b++) {
			ctx[4 * i + b] = (uint8_t)(enc[i] >> 8 * b);
			ctx[240 + 4 * i + b] = (uint8_t)(dec[i] >> 8 * b);
		}
	for (int b = 0; b < 4; b++)
		ctx[0x1e0 + b] = (uint8_t)(key_len >> 8 * b);
	e4_wipe(enc, sizeof(enc));
	e4_wipe(dec, sizeof(dec));
	return E4_OK;
}
