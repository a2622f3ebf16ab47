/* The v2 recogniser of lib/memkeys.c against spec §17.4's worked example
 * (its states and identifier computed by tests/spec/hmac_states.py, pure
 * Python, and its identifier by the library's and the Python verifier's
 * HKDF from the master key), against the library's OpenSSL HKDF for other
 * contexts, and its structural test (§17.3) on a context laid out by
 * hand: counts, buf fields, the constant states it must not take. */
#include <check.h>
#include <stdio.h>
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
	ck_assert(e4_hmac_states_match(ctx, &st));
	ck_assert_int_eq(e4_hkdf_expand_states(&st, E4_HKDF_KEY_IDENTIFIER, NULL, 0, id,
					       sizeof(id)), E4_OK);
	unhex(want, IDENT, 16);
	ck_assert(!memcmp(id, want, 16));
	/* old stack bytes in buf, the same in both */
	context_of(ctx, 0xa5);
	ck_assert(e4_hmac_states_match(ctx, NULL));
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
	ctx[64] = 127;                        /* ipad count */
	ck_assert(!e4_hmac_states_match(ctx, NULL));
	context_of(ctx, 0);
	ctx[208 + 72] = 1;                    /* opad count[1] */
	ck_assert(!e4_hmac_states_match(ctx, NULL));
	context_of(ctx, 0);
	ctx[208 + 80 + 5] = 1;                /* the buf fields differ */
	ck_assert(!e4_hmac_states_match(ctx, NULL));
	/* the zero salt's states: the same for every key */
	context_of(ctx, 0);
	ck_assert_int_eq(e4_hmac_states_of_key(&z, zero, sizeof(zero)), E4_OK);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			ctx[8 * i + j] = (uint8_t)(z.ipad[i] >> (8 * j));
			ctx[208 + 8 * i + j] = (uint8_t)(z.opad[i] >> (8 * j));
		}
	ck_assert(!e4_hmac_states_match(ctx, NULL));
	/* info longer than fscrypt ever uses */
	ck_assert_int_eq(e4_hkdf_expand_states(&z, 2, zero, 65, zero, 16), E4_INVALID);
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
	suite_add_tcase(s, tc);
	return s;
}
