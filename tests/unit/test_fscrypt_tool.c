/* The fscrypt tool's key wrapping and passphrase hash against values
 * computed independently by tests/cli/fscrypt_meta_craft.py kat (Python:
 * argon2-cffi, python3-cryptography); Argon2id p=1 also agrees with the
 * argon2 command-line tool ("echo -n password | argon2 BBBBBBBBBBBBBBBB
 * -id -t 2 -k 64 -p 1 -l 32 -r").  And the parser's refusals. */
#include <check.h>
#include <string.h>
#include "fscrypt_tool.h"
#include "hex.h"

static void unhex(const char *s, uint8_t *out, size_t n)
{
	ck_assert_int_eq(e4_hex_decode(s, strlen(s), out, n), (long)n);
}

START_TEST(argon2id_kat)
{
	static const char *want[2] = {
		"cfa5483e7c2f830a3346c27d145999e244d9c0a1a76144ed76e7a6e5897f250d",
		"efdf8ed48cb1220d5b3b47b23423894fcc8259df93c2c331d5bff5b2ca5b4802",
	};
	uint8_t salt[16], out[32], w[32];

	memset(salt, 0x42, sizeof(salt));
	for (int i = 0; i < 2; i++) {
		struct e4_fsc_costs c = { .time = 2, .memory = 64,
					  .parallelism = i ? 4 : 1 };

		ck_assert_int_eq(e4_fsc_passphrase_hash(out, (const uint8_t *)"password", 8,
							salt, &c, 1024, 8), E4_OK);
		unhex(want[i], w, 32);
		ck_assert_mem_eq(out, w, 32);
	}
	/* fscrypt casts parallelism to 8 bits: 257 hashes as 1 lane */
	{
		struct e4_fsc_costs c = { .time = 2, .memory = 64 * 257,
					  .parallelism = 257 };
		struct e4_fsc_costs c1 = { .time = 2, .memory = 64 * 257,
					   .parallelism = 1 };
		uint8_t a[32], b[32];

		ck_assert_int_eq(e4_fsc_passphrase_hash(a, (const uint8_t *)"x", 1, salt, &c,
							1 << 20, 8), E4_OK);
		ck_assert_int_eq(e4_fsc_passphrase_hash(b, (const uint8_t *)"x", 1, salt, &c1,
							1 << 20, 8), E4_OK);
		ck_assert_mem_eq(a, b, 32);
	}
}
END_TEST

START_TEST(argon2id_caps)
{
	uint8_t salt[16] = { 0 }, out[32];
	struct e4_fsc_costs huge = { .time = 1, .memory = 4LL << 30, .parallelism = 1 };
	struct e4_fsc_costs slow = { .time = 1000, .memory = 64, .parallelism = 1 };
	struct e4_fsc_costs zero = { .time = 1, .memory = 64 * 256, .parallelism = 256 };
	char why[200];

	ck_assert_int_eq(e4_fsc_passphrase_hash(out, (const uint8_t *)"p", 1, salt, &huge,
						E4_FSC_DEFAULT_MAX_MEMORY_KIB,
						E4_FSC_DEFAULT_MAX_TIME), E4_LIMIT);
	ck_assert_int_eq(e4_fsc_check_costs(&huge, E4_FSC_DEFAULT_MAX_MEMORY_KIB,
					    E4_FSC_DEFAULT_MAX_TIME, why, sizeof(why)), E4_LIMIT);
	ck_assert_ptr_nonnull(strstr(why, "4294967296 KiB"));
	ck_assert_int_eq(e4_fsc_check_costs(&slow, 1024, 64, why, sizeof(why)), E4_LIMIT);
	ck_assert_int_eq(e4_fsc_check_costs(&zero, 1 << 20, 64, why, sizeof(why)), E4_CORRUPT);
}
END_TEST

static struct e4_fsc_wrapped wrapped(size_t n, const char *ct, const char *mac)
{
	struct e4_fsc_wrapped w;

	memset(&w, 0, sizeof(w));
	memset(w.iv, 0x11, sizeof(w.iv));
	unhex(ct, w.key, n);
	unhex(mac, w.hmac, 32);
	w.key_len = n;
	return w;
}

START_TEST(unwrap_kat)
{
	uint8_t wk[32], out[64], want[64];
	struct e4_fsc_wrapped w32 = wrapped(32,
		"761e014ab4abf029b8ce6aeed7b4db544b7583c89cccbcb86415b6f739910d41",
		"132eac75f242a25887b09d9934d59eb5b2b00f68ee75ac9410a4aee137203cbd");
	struct e4_fsc_wrapped w64 = wrapped(64,
		"761e014ab4abf029b8ce6aeed7b4db544b7583c89cccbcb86415b6f739910d41"
		"bd939a6c6aa1453972d213debe22d728752ebc309f8bd3d869d190095fad0e9a",
		"def1e64bbb00d260d43391c847a68c15ce1366850bf801d48d94b5fa5c76eae9");

	for (int i = 0; i < 32; i++)
		wk[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		want[i] = (uint8_t)(0xa0 + i);
	ck_assert_int_eq(e4_fsc_unwrap(out, wk, &w32), E4_OK);
	ck_assert_mem_eq(out, want, 32);
	ck_assert_int_eq(e4_fsc_unwrap(out, wk, &w64), E4_OK);
	ck_assert_mem_eq(out, want, 64);
	/* a wrong wrapping key, or one bit of the IV: the HMAC fails, out is zero */
	wk[0] ^= 1;
	ck_assert_int_eq(e4_fsc_unwrap(out, wk, &w64), E4_BAD_KEY);
	memset(want, 0, sizeof(want));
	ck_assert_mem_eq(out, want, 64);
	wk[0] ^= 1;
	w64.iv[15] ^= 1;
	ck_assert_int_eq(e4_fsc_unwrap(out, wk, &w64), E4_BAD_KEY);
}
END_TEST

START_TEST(parse_refusals)
{
	struct e4_fsc_protector p;
	struct e4_fsc_policy pol;
	struct e4_fsc_link l;
	const char *why;
	/* source 3 (raw key), descriptor too short, nothing else */
	static const uint8_t short_desc[] = { 0x0a, 0x02, '0', '1', 0x10, 0x03 };
	/* a length running past the end */
	static const uint8_t cut[] = { 0x0a, 0x10, '0' };
	static const uint8_t big[E4_FSC_MAX_FILE + 1];
	static const char link[] = "UUID=0bbd2b3c-1e5c-4f56-9d5e-4a1b2c3d4e5f\nPATH=/\n";

	ck_assert_int_eq(e4_fsc_protector_parse(short_desc, sizeof(short_desc), &p, &why),
			 E4_CORRUPT);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(e4_fsc_protector_parse(cut, sizeof(cut), &p, &why), E4_CORRUPT);
	ck_assert_int_eq(e4_fsc_policy_parse(cut, sizeof(cut), &pol, &why), E4_CORRUPT);
	ck_assert_int_eq(e4_fsc_policy_parse(big, sizeof(big), &pol, &why), E4_LIMIT);
	ck_assert_int_eq(e4_fsc_link_parse((const uint8_t *)link, strlen(link), &l, &why), E4_OK);
	ck_assert_int_eq(l.has_uuid, 1);
	ck_assert_uint_eq(l.uuid[0], 0x0b);
	ck_assert_uint_eq(l.uuid[15], 0x5f);
	ck_assert_uint_eq(l.path_len, 1);
	ck_assert_int_eq(e4_fsc_link_parse((const uint8_t *)"X=1\n", 4, &l, &why), E4_CORRUPT);
}
END_TEST

Suite *fscrypt_tool_suite(void);
Suite *fscrypt_tool_suite(void)
{
	Suite *s = suite_create("fscrypt-tool");
	TCase *tc = tcase_create("kat");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, argon2id_kat);
	tcase_add_test(tc, argon2id_caps);
	tcase_add_test(tc, unwrap_kat);
	tcase_add_test(tc, parse_refusals);
	suite_add_tcase(s, tc);
	return s;
}
