/* The v2 recogniser of lib/memkeys.c against spec §17.4's worked example
 * (its states and identifier computed by tests/spec/hmac_states.py, pure
 * Python, and its identifier by the library's and the Python verifier's
 * HKDF from the master key), against the library's OpenSSL HKDF for other
 * contexts, and its structural test (§17.3) on a context laid out by
 * hand: counts, buf fields, the constant states it must not take.
 * The v1 and AES recognisers (§17.1, §17.2, §17.5): structures laid out
 * by hand from the spec's tables, AES schedules from FIPS-197 Appendix A
 * and from tests/spec/aes_schedule.py (its own AES), the v1 relation
 * against the library's derivation and python3-cryptography; windows of
 * zeros, 0xff and noise refused, and no read past a window. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "kdf.h"
#include "memkeys.h"

static void unhex(uint8_t *out, const char *hex, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* spec §17.4, the hmac-states example (master key 00 01 ... 3f) */
static const char IPAD[] = "755b6427b909b0816ba220ffd28b9ad29f8cf8060c197bf352fff6df56513267"
			   "a0f27204e1fe85b1293c2c52ac617abd5b6c5072e24893ed9f257a2e39494a4c";
static const char OPAD[] = "aa743007b14995fd00f3966f17fef44fcb467768e3412f478eb83b1446e37278"
			   "4f9421a966fe78d270d91fb47bbc155f535f0658f4b9f868bc34f55d8542617f";
static const char IDENT[] = "8699c2c53707405da5aba5ae4d8583c0";

/* The transform's context as §17.3 lays it out: each state, counts
 * (128, 0) little-endian, 128 bytes of buf. */
static void context_of(uint8_t ctx[E4_HMAC_STATES_SIZE], uint8_t fill)
{
	memset(ctx, 0, E4_HMAC_STATES_SIZE);
	unhex(ctx, IPAD, 64);
	unhex(ctx + 208, OPAD, 64);
	ctx[64] = ctx[208 + 64] = 128;
	memset(ctx + 80, fill, 128);
	memset(ctx + 208 + 80, fill, 128);
}

START_TEST(memkeys_identifier_from_states)
{
	uint8_t ctx[E4_HMAC_STATES_SIZE], id[16], want[16];
	struct e4_hmac_states st;

	context_of(ctx, 0);
	ck_assert(e4_hmac_states_match(ctx, sizeof(ctx), &st));
	ck_assert_int_eq(e4_hkdf_expand_states(&st, E4_HKDF_KEY_IDENTIFIER, NULL, 0, id,
					       sizeof(id)), E4_OK);
	unhex(want, IDENT, 16);
	ck_assert(!memcmp(id, want, 16));
	/* old stack bytes in buf, the same in both */
	context_of(ctx, 0xa5);
	ck_assert(e4_hmac_states_match(ctx, sizeof(ctx), NULL));
}
END_TEST

START_TEST(memkeys_every_context_matches_hkdf)
{
	uint8_t master[64], prk[64], info[17], a[100], b[100];
	static const uint8_t zero_salt[64];
	struct e4_hmac_states st;
	unsigned int prk_len = 0;

	for (int i = 0; i < 64; i++)
		master[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 17; i++)
		info[i] = (uint8_t)(0xc0 + i);
	/* hkdf.c's extract (OpenSSL's HMAC), then the states of the PRK */
	ck_assert_ptr_nonnull(HMAC(EVP_sha512(), zero_salt, sizeof(zero_salt), master,
				   sizeof(master), prk, &prk_len));
	ck_assert_uint_eq(prk_len, 64);
	ck_assert_int_eq(e4_hmac_states_of_key(&st, prk, sizeof(prk)), E4_OK);
	for (uint8_t c = 1; c <= 7; c++) {
		size_t ilen = c == 2 || c == 5 ? 16 : c == 4 || c == 6 ? 17 : c == 3 ? 1 : 0;
		size_t len = c == 1 || c == 5 || c == 7 ? 16 : 100; /* 100: T(2) too */

		ck_assert_int_eq(e4_hkdf_sha512(a, len, master, sizeof(master), c, info, ilen), E4_OK);
		ck_assert_int_eq(e4_hkdf_expand_states(&st, c, info, ilen, b, len), E4_OK);
		ck_assert_msg(!memcmp(a, b, len), "context %u", c);
	}
}
END_TEST

START_TEST(memkeys_structure_refused)
{
	uint8_t ctx[E4_HMAC_STATES_SIZE], zero[64] = { 0 };
	struct e4_hmac_states z;

	context_of(ctx, 0);
	ck_assert(!e4_hmac_states_match(ctx, sizeof(ctx) - 1, NULL));
	ctx[64] = 127;                        /* ipad count */
	ck_assert(!e4_hmac_states_match(ctx, sizeof(ctx), NULL));
	context_of(ctx, 0);
	ctx[208 + 72] = 1;                    /* opad count[1] */
	ck_assert(!e4_hmac_states_match(ctx, sizeof(ctx), NULL));
	context_of(ctx, 0);
	ctx[208 + 80 + 5] = 1;                /* the buf fields differ */
	ck_assert(!e4_hmac_states_match(ctx, sizeof(ctx), NULL));
	/* the zero salt's states: the same for every key */
	context_of(ctx, 0);
	ck_assert_int_eq(e4_hmac_states_of_key(&z, zero, sizeof(zero)), E4_OK);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			ctx[8 * i + j] = (uint8_t)(z.ipad[i] >> (8 * j));
			ctx[208 + 8 * i + j] = (uint8_t)(z.opad[i] >> (8 * j));
		}
	ck_assert(!e4_hmac_states_match(ctx, sizeof(ctx), NULL));
	/* info longer than fscrypt ever uses */
	ck_assert_int_eq(e4_hkdf_expand_states(&z, 2, zero, 65, zero, 16), E4_INVALID);
}
END_TEST

/* BEGIN aes_schedule.py --emit: the used words of key_enc and key_dec
 * (its own FIPS-197 key expansion and InvMixColumns), and a v1
 * per-file key from python3-cryptography's AES-128-ECB.  spec.aes_schedule
 * fails when this block is not its output. */
static const struct schedule {
	const char *key, *enc, *dec;
} SCHEDULES[] = {
	{ "000102030405060708090a0b0c0d0e0f",
	  "000102030405060708090a0b0c0d0e0fd6aa74fdd2af72fadaa678f1d6ab76fe"
	  "b692cf0b643dbdf1be9bc5006830b3feb6ff744ed2c2c9bf6c590cbf0469bf41"
	  "47f7f7bc95353e03f96c32bcfd058dfd3caaa3e8a99f9deb50f3af57adf622aa"
	  "5e390f7df7a69296a7553dc10aa31f6b14f9701ae35fe28c440adf4d4ea9c026"
	  "47438735a41c65b9e016baf4aebf7ad2549932d1f08557681093ed9cbe2c974e"
	  "13111d7fe3944a17f307a78b4d2b30c5",
	  "13111d7fe3944a17f307a78b4d2b30c513aa29be9c8faff6f770f58000f7bf03"
	  "1362a4638f2586486bff5a76f7874a838d82fc749c47222be4dadc3e9c7810f5"
	  "72e3098d11c5de5f789dfe1578a2cccb2ec410276326d7d26958204a003f32de"
	  "a8a2f5044de2c7f50a7ef79869671294c7c6e391e54032f1479c306d6319e50c"
	  "a0db02992286d160a2dc029c2485d5618c56dff0825dd3f9805ad3fc8659d7fd"
	  "000102030405060708090a0b0c0d0e0f" },
	{ "000102030405060708090a0b0c0d0e0f1011121314151617",
	  "000102030405060708090a0b0c0d0e0f10111213141516175846f2f95c43f4fe"
	  "544afef55847f0fa4856e2e95c43f4fe40f949b31cbabd4d48f043b810b7b342"
	  "58e151ab04a2a5557effb5416245080c2ab54bb43a02f8f662e3a95d66410c08"
	  "f501857297448d7ebdf1c6ca87f33e3ce510976183519b6934157c9ea351f1e0"
	  "1ea0372a995309167c439e77ff12051edd7e0e887e2fff68608fc842f9dcc154"
	  "859f5f237a8d5a3dc0c02952beefd63ade601e7827bcdf2ca223800fd8aeda32"
	  "a4970a331a78dc09c418c271e3a41d5d",
	  "a4970a331a78dc09c418c271e3a41d5dd6bebd0dc209ea494db073803e021bb9"
	  "8fb999c973b26839c7f9d89d85c68c72f77d6ec1423f54ef5378317f14b75744"
	  "1147659047cf663b9b0ece8dfc0bf1f0dcc1a8b667053f7dcc5c194ab5423a2e"
	  "c6deb0ab791e2364a4055fbe568803abdd1b7cdaf28d5c158a49ab1dbbc497cb"
	  "78c4f708318d3cd69655b701bfc093cf60dcef10299524ce62dbef152f9620cf"
	  "4b4ecbdb4d4dcfda5752d7c74949cbde1a1f181d1e1b1c194742c7d74949cbde"
	  "000102030405060708090a0b0c0d0e0f" },
	{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	  "a573c29fa176c498a97fce93a572c09c1651a8cd0244beda1a5da4c10640bade"
	  "ae87dff00ff11b68a68ed5fb03fc15676de1f1486fa54f9275f8eb5373b8518d"
	  "c656827fc9a799176f294cec6cd5598b3de23a75524775e727bf9eb45407cf39"
	  "0bdc905fc27b0948ad5245a4c1871c2f45f5a66017b2d387300d4d33640a820a"
	  "7ccff71cbeb4fe5413e6bbf0d261a7dff01afafee7a82979d7a5644ab3afe640"
	  "2541fe719bf500258813bbd55a721c0a4e5a6699a9f24fe07e572baacdf8cdea"
	  "24fc79ccbf0979e9371ac23c6d68de36",
	  "24fc79ccbf0979e9371ac23c6d68de3634f1d1ffbfceaa2ffce9e25f2558016e"
	  "5e1648eb384c350a7571b746dc80e684c8a305808b3f7bd043274870d9b1e331"
	  "b5708e13665a7de14d3d824ca9f151c274da7ba3439c7e50c81833a09a96ab41"
	  "3ca69715d32af3f22b67ffade4ccd38ef85fc4f3374605f38b844df0528e98e1"
	  "de69409aef8c64e7f84d0c5fcfab2c23aed55816cf19c100bcc24803d90ad511"
	  "15c668bd31e5247d17c168b837e6207c7fd7850f61cc991673db890365c89d12"
	  "2a2840c924234cc026244cc5202748c41a1f181d1e1b1c191217101516131411"
	  "000102030405060708090a0b0c0d0e0f" },
	{ "5a4ff99b6272a29b5a465010466e7e07eda42389fc6135da8dbe5ea29c0412e4",
	  "5a4ff99b6272a29b5a465010466e7e07eda42389fc6135da8dbe5ea29c0412e4"
	  "a9869045cbf432de91b262ced7dc1cc9e322bf541f438a8e92fdd42c0ef9c6c8"
	  "323278eef9c64a30687428febfa83437ebe0a7cef4a32d40665ef96c68a73fa4"
	  "6a4731ab93817b9bfbf55365445d6752f0ac22ce040f0f8e6251f6e20af6c946"
	  "209a6bccb31b105748ee43320cb324600ec1141e0ace1b90689fed7262692434"
	  "c9ac73667ab76331325920033eea0463bc46e6e5b688fd75de171007bc7e3433"
	  "1ab4b0036003d332525af3316cb0f752eca18ee55a297390843e6397384057a4"
	  "53eff90433ec2a3661b6d9070d062e55",
	  "53eff90433ec2a3661b6d9070d062e55e8f9c6f1643376b1521e292bd06cb285"
	  "36a3a62ea2820eac30641e800907601750d7e39d8ccab040362d5f9a82729bae"
	  "00d15afb9421a88292e6102c39637e975496dfd8dc1d53ddbae7efdab45fc434"
	  "8dd5fcb994f0f27906c7b8aeab856ebb6a7fc366888b8c0566fabc070eb82bee"
	  "3f4e11d719250ec092374ad7ad42d61589890163e2f44f63ee713002684297e9"
	  "4bb1365a266b1f178b1244173f759cc270a178836b7d4e000c857f618633a7eb"
	  "78e0aecc6dda294dad795b00b467d8d5d0bfc34f1bdc368367f831618ab6d88a"
	  "5a4ff99b6272a29b5a465010466e7e07" },
};
static const char V1_MASTER[] =
	"26796b357ae3ffab8ef0ab4c9c2ed08c67cbd0fd39cf15affc2a11fcfa7073a2"
	"a1a38e6dbc116407666634d7f390f09794c5b44e4d74bbc220adb16a7ca59dcc";
static const char V1_NONCE[] = "980ce9c7c891ac54f59577d30ed1bf5f";
static const char V1_FILE_KEY[] =
	"ea954d7984e0a69327c870a08c0189e062dfc64a2fad982446fe2eca5085f8c8"
	"2cbea83caa65fc7827dc41f7f7c049ad5ba0e1b240a0d67909b86ad9ed5ec50c";
/* END aes_schedule.py --emit */

/* FIPS-197 Appendix A.1, A.2, A.3: the cipher key and the last four words
 * of its expansion (w43, w51, w59), as the standard prints them. */
static const struct {
	const char *key, *last;
} APPENDIX_A[] = {
	{ "2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6" },
	{ "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
	  "e98ba06f448c773c8ecc720401002202" },
	{ "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	  "fe4890d1e6188d0b046df344706c631e" },
};

START_TEST(memkeys_fips197_expansion)
{
	for (size_t t = 0; t < sizeof(APPENDIX_A) / sizeof(APPENDIX_A[0]); t++) {
		size_t klen = strlen(APPENDIX_A[t].key) / 2, words = 4 * (klen / 4 + 7);
		uint8_t key[32], last[16], ctx[E4_AES_CTX_SIZE];
		struct e4_mem_key found;

		unhex(key, APPENDIX_A[t].key, klen);
		unhex(last, APPENDIX_A[t].last, 16);
		ck_assert_int_eq(e4_aes_ctx_of_key(ctx, key, klen), E4_OK);
		/* the words are stored little-endian: their bytes in order */
		ck_assert_msg(!memcmp(ctx + 4 * (words - 4), last, 16), "A.%zu", t + 1);
		/* the equivalent inverse schedule starts with the last round key */
		ck_assert(!memcmp(ctx + 240, last, 16));
		ck_assert(e4_aes_ctx_match(ctx, sizeof(ctx), &found));
		ck_assert_uint_eq(found.len, klen);
		ck_assert(!memcmp(found.raw, key, klen));
		e4_wipe(&found, sizeof(found));
	}
	ck_assert_int_eq(e4_aes_ctx_of_key(NULL, NULL, 20), E4_INVALID);
}
END_TEST

/* A crypto_aes_ctx image from aes_schedule.py's words (§17.5's table). */
static size_t python_ctx(uint8_t *ctx, const struct schedule *s)
{
	size_t klen = strlen(s->key) / 2, n = strlen(s->enc) / 2;

	memset(ctx, 0, E4_AES_CTX_SIZE);
	unhex(ctx, s->enc, n);
	unhex(ctx + 240, s->dec, n);
	ctx[0x1e0] = (uint8_t)klen;
	return klen;
}

START_TEST(memkeys_aes_ctx_python)
{
	for (size_t t = 0; t < sizeof(SCHEDULES) / sizeof(SCHEDULES[0]); t++) {
		uint8_t ctx[E4_AES_CTX_SIZE], mine[E4_AES_CTX_SIZE], key[32];
		size_t klen = python_ctx(ctx, &SCHEDULES[t]), used = 4 * 4 * (klen / 4 + 7);
		struct e4_mem_key found;

		unhex(key, SCHEDULES[t].key, klen);
		ck_assert(e4_aes_ctx_match(ctx, sizeof(ctx), &found));
		ck_assert_uint_eq(found.len, klen);
		ck_assert(!memcmp(found.raw, key, klen));
		ck_assert_int_eq(e4_aes_ctx_of_key(mine, key, klen), E4_OK);
		ck_assert_msg(!memcmp(mine, ctx, sizeof(ctx)), "schedule %zu", t);
		/* any used word of either schedule changed: refused */
		for (size_t i = klen; i < 240 + used; i += 13) {
			if (i >= used && i < 240)
				continue;
			ctx[i] ^= 0x10;
			ck_assert_msg(!e4_aes_ctx_match(ctx, sizeof(ctx), NULL), "byte %zu", i);
			ctx[i] ^= 0x10;
		}
		/* a key_length the schedule does not have */
		ctx[0x1e0] = klen == 32 ? 16 : 32;
		ck_assert(!e4_aes_ctx_match(ctx, sizeof(ctx), NULL));
		ctx[0x1e0] = (uint8_t)klen;
		ck_assert(!e4_aes_ctx_match(ctx, sizeof(ctx) - 1, NULL));
		e4_wipe(&found, sizeof(found));
	}
}
END_TEST

START_TEST(memkeys_aesni_xts_pair)
{
	uint8_t pair[E4_AESNI_XTS_CTX_SIZE] = { 0 }, first[32], second[32];
	struct e4_mem_key found;

	/* raw_tweak_ctx: the key's second half; raw_crypt_ctx: its first */
	python_ctx(pair, &SCHEDULES[3]);
	python_ctx(pair + E4_AESNI_XTS_CRYPT_OFFSET, &SCHEDULES[2]);
	unhex(first, SCHEDULES[2].key, 32);
	unhex(second, SCHEDULES[3].key, 32);
	ck_assert(e4_aesni_xts_match(pair, sizeof(pair), &found));
	ck_assert_uint_eq(found.len, 64);
	ck_assert(!memcmp(found.raw, first, 32) && !memcmp(found.raw + 32, second, 32));
	e4_wipe(&found, sizeof(found));
	ck_assert(!e4_aesni_xts_match(pair, sizeof(pair) - 1, NULL));
	/* halves of different lengths are no XTS key */
	python_ctx(pair, &SCHEDULES[0]);
	ck_assert(!e4_aesni_xts_match(pair, sizeof(pair), NULL));
	/* one schedule alone is no pair */
	memset(pair, 0, E4_AESNI_XTS_CRYPT_OFFSET);
	ck_assert(!e4_aesni_xts_match(pair, sizeof(pair), NULL));
}
END_TEST

START_TEST(memkeys_v1_master_of_file_key)
{
	uint8_t master[64], nonce[16], fk[64], out[64];

	unhex(master, V1_MASTER, 64);
	unhex(nonce, V1_NONCE, 16);
	unhex(fk, V1_FILE_KEY, 64);
	/* python3-cryptography's per-file key gives the master key back */
	ck_assert_int_eq(e4_v1_master_of_file_key(out, fk, 64, nonce), E4_OK);
	ck_assert(!memcmp(out, master, 64));
	/* the library's derivation (keysetup's v1 path) and back: the
	 * 64-byte XTS key, and a 32-byte names key the first half */
	ck_assert_int_eq(e4_v1_derive_key(out, 64, master, 64, nonce), E4_OK);
	ck_assert(!memcmp(out, fk, 64));
	ck_assert_int_eq(e4_v1_derive_key(fk, 32, master, 64, nonce), E4_OK);
	ck_assert_int_eq(e4_v1_master_of_file_key(out, fk, 32, nonce), E4_OK);
	ck_assert(!memcmp(out, master, 32));
	ck_assert_int_eq(e4_v1_master_of_file_key(out, fk, 24, nonce), E4_BAD_KEY);
	ck_assert_int_eq(e4_v1_master_of_file_key(out, fk, 0, nonce), E4_BAD_KEY);
	e4_wipe(out, sizeof(out));
	e4_wipe(fk, sizeof(fk));
}
END_TEST

static void le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

typedef int (*match_fn)(const uint8_t *, size_t, struct e4_mem_key *);
/* Lays a structure out: its key of size bytes key_byte, key_byte + 1, ...
 * (zeros for key_byte 0). */
typedef void (*build_fn)(uint8_t *, uint32_t size, uint8_t key_byte);

/* A structure built so, then its byte at off (if >= 0) set to v. */
struct variant {
	uint32_t size;
	uint8_t key_byte;
	int off;
	uint8_t v;
};

/* The structure of n bytes, its key at key_off, taken for every size from
 * lo to 64 by step (and refused one byte short), and every variant in bad
 * refused. */
static void v1_structure(match_fn match, build_fn build, size_t n, size_t key_off,
			 uint32_t lo, uint32_t step, const struct variant *bad, size_t n_bad)
{
	uint8_t p[128];
	struct e4_mem_key found;

	for (uint32_t size = lo; size <= 64; size += step) {
		build(p, size, 0x40);
		ck_assert(match(p, n, &found));
		ck_assert_uint_eq(found.len, size);
		ck_assert(!memcmp(found.raw, p + key_off, size));
		ck_assert(!match(p, n - 1, NULL));
	}
	e4_wipe(&found, sizeof(found));
	for (size_t i = 0; i < n_bad; i++) {
		build(p, bad[i].size, bad[i].key_byte);
		if (bad[i].off >= 0)
			p[bad[i].off] = bad[i].v;
		ck_assert_msg(!match(p, n, NULL), "variant %zu", i);
	}
}

/* §17.1's table: datalen at 0x10, raw at 0x1c, size at 0x5c */
static void logon_payload(uint8_t *p, uint32_t size, uint8_t key_byte)
{
	memset(p, 0xcc, E4_USER_KEY_PAYLOAD_SIZE); /* rcu, padding, mode: anything */
	p[0x10] = 72;
	p[0x11] = 0;
	for (int i = 0; i < 64; i++)
		p[0x1c + i] = key_byte ? (uint8_t)(key_byte + i) : 0;
	le32_put(p + 0x5c, size);
}

START_TEST(memkeys_logon_payload)
{
	static const struct variant bad[] = {
		{ 0, 0x40, -1, 0 }, { 65, 0x40, -1, 0 },
		{ 64, 0x40, 0x10, 71 },   /* datalen */
		{ 64, 0x40, 0x11, 1 },    /* datalen 328 */
		{ 16, 0, -1, 0 },         /* a zero key: cleared memory */
	};

	v1_structure(e4_logon_payload_match, logon_payload, E4_USER_KEY_PAYLOAD_SIZE, 0x1c,
		     1, 21, bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

/* §17.2's table: hmac_tfm at 0, size at 0x08, raw at 0x0c, padding;
 * then mk_spec (struct fscrypt_key_specifier, include/uapi/linux/
 * fscrypt.h: type, __reserved, u[32]) of type DESCRIPTOR (1) */
static void mk_secret(uint8_t *p, uint32_t size, uint8_t key_byte)
{
	memset(p, 0, E4_MK_SECRET_WINDOW);
	le32_put(p + 0x08, size);
	for (uint32_t i = 0; key_byte && i < size && i < 64; i++)
		p[0x0c + i] = (uint8_t)(key_byte + i);
	le32_put(p + 0x50, 1);
	memcpy(p + 0x58, "\x42\x42\xb1\xb1\xc3\xc3\xd4\xd4", 8);
}

START_TEST(memkeys_mk_secret_v1)
{
	static const struct variant bad[] = {
		{ 15, 0x80, -1, 0 }, { 65, 0x80, -1, 0 },
		{ 32, 0x80, 0x07, 0xff },     /* a v2 key's transform pointer */
		{ 32, 0x80, 0x0c + 40, 1 },   /* raw past size */
		{ 64, 0x80, 0x4f, 1 },        /* the padding */
		{ 32, 0, -1, 0 },             /* v2: raw wiped, or cleared memory */
		{ 32, 0x80, 0x50, 2 },        /* mk_spec of type IDENTIFIER */
		{ 32, 0x80, 0x54, 1 },        /* its __reserved */
		{ 32, 0x80, 0x60, 1 },        /* its union past the descriptor */
		{ 32, 0x80, 0x77, 1 },
	};
	uint8_t p[E4_MK_SECRET_WINDOW];
	struct e4_mem_key k;

	v1_structure(e4_mk_secret_v1_match, mk_secret, E4_MK_SECRET_WINDOW, 0x0c, 16, 16,
		     bad, sizeof(bad) / sizeof(bad[0]));
	/* the descriptor it was added under comes with it */
	mk_secret(p, 64, 0x80);
	ck_assert(e4_mk_secret_v1_match(p, sizeof(p), &k));
	ck_assert(k.named && !memcmp(k.descriptor, "\x42\x42\xb1\xb1\xc3\xc3\xd4\xd4", 8));
	e4_wipe(&k, sizeof(k));
	e4_wipe(p, sizeof(p));
}
END_TEST

/* §17.1: a logon key's description, "fscrypt:" or "ext4:" and 16
 * lowercase hex digits, NUL-terminated */
START_TEST(memkeys_key_description)
{
	static const char *const bad[] = {
		"fscrypt:0c72daca50c0b2b", "fscrypt:0C72DACA50C0B2BB", "fscrypt:0c72daca50c0b2bbX",
		"fscrypt:0c72daca50c0b2bg", "ext4:0c72daca50c0b2b", "fscrypt0c72daca50c0b2bb",
	};
	struct e4_mem_key k;
	const char *f = "fscrypt:0c72daca50c0b2bb", *e = "ext4:dd7eccce8895b15a";

	ck_assert(e4_key_description_match((const uint8_t *)f, strlen(f) + 1, &k));
	ck_assert(k.named && !k.len && !memcmp(k.descriptor, "\x0c\x72\xda\xca\x50\xc0\xb2\xbb", 8));
	ck_assert(!e4_key_description_match((const uint8_t *)f, strlen(f), NULL));
	ck_assert(e4_key_description_match((const uint8_t *)e, strlen(e) + 1, &k));
	ck_assert(!memcmp(k.descriptor, "\xdd\x7e\xcc\xce\x88\x95\xb1\x5a", 8));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!e4_key_description_match((const uint8_t *)bad[i], strlen(bad[i]) + 1, NULL),
			      "%s", bad[i]);
}
END_TEST

/* Every recogniser at every offset of a window, given only what is left
 * of it: the number of matches. */
static int matches_in(const uint8_t *w, size_t n)
{
	int m = 0;

	for (size_t off = 0; off < n; off++) {
		m += e4_logon_payload_match(w + off, n - off, NULL);
		m += e4_mk_secret_v1_match(w + off, n - off, NULL);
		m += e4_aes_ctx_match(w + off, n - off, NULL);
		m += e4_aesni_xts_match(w + off, n - off, NULL);
		m += e4_hmac_states_match(w + off, n - off, NULL);
	}
	return m;
}

START_TEST(memkeys_hostile_windows)
{
	const size_t n = 8192;
	uint8_t *w = malloc(n), ctx[E4_AES_CTX_SIZE], pair[E4_AESNI_XTS_CTX_SIZE] = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	ck_assert_ptr_nonnull(w);
	memset(w, 0, n);
	ck_assert_int_eq(matches_in(w, n), 0);
	memset(w, 0xff, n);
	ck_assert_int_eq(matches_in(w, n), 0);
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < n; i++) { /* xorshift64: noise */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			w[i] = (uint8_t)x;
		}
		ck_assert_int_eq(matches_in(w, n), 0);
	}
	/* noise with one schedule in it: found once, at its place */
	python_ctx(ctx, &SCHEDULES[1]);
	memcpy(w + 1000, ctx, sizeof(ctx));
	ck_assert_int_eq(matches_in(w, n), 1);
	ck_assert(e4_aes_ctx_match(w + 1000, n - 1000, NULL));
	free(w);
	/* an XTS pair cut at the window's end: the tweak's schedule alone once
	 * it is whole (ASan: nothing read past the window) */
	python_ctx(pair, &SCHEDULES[3]);
	python_ctx(pair + E4_AESNI_XTS_CRYPT_OFFSET, &SCHEDULES[2]);
	for (size_t cut = 1; cut < E4_AESNI_XTS_CTX_SIZE; cut += 37) {
		uint8_t *t = malloc(cut);

		ck_assert_ptr_nonnull(t);
		memcpy(t, pair, cut);
		ck_assert_int_eq(matches_in(t, cut), cut >= E4_AES_CTX_SIZE);
		free(t);
	}
}
END_TEST

Suite *memkeys_suite(void);
Suite *memkeys_suite(void)
{
	Suite *s = suite_create("memkeys");
	TCase *tc = tcase_create("memkeys");

	tcase_add_test(tc, memkeys_identifier_from_states);
	tcase_add_test(tc, memkeys_every_context_matches_hkdf);
	tcase_add_test(tc, memkeys_structure_refused);
	tcase_add_test(tc, memkeys_fips197_expansion);
	tcase_add_test(tc, memkeys_aes_ctx_python);
	tcase_add_test(tc, memkeys_aesni_xts_pair);
	tcase_add_test(tc, memkeys_v1_master_of_file_key);
	tcase_add_test(tc, memkeys_logon_payload);
	tcase_add_test(tc, memkeys_mk_secret_v1);
	tcase_add_test(tc, memkeys_key_description);
	tcase_add_test(tc, memkeys_hostile_windows);
	suite_add_tcase(s, tc);
	return s;
}
