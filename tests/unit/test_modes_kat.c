/* Known-answer tests of Adiantum (fscrypt mode 9), HCTR2 (mode 10) and
 * their primitives: XChaCha12, NHPoly1305, POLYVAL, XCTR.
 *
 * Suite "modes-kat" (always run): a handful of vectors transcribed from
 * Linux 6.1 crypto/testmgr.h; each names its template.  Suite "testmgr"
 * (when E4_TESTMGR_KAT names a file written by testmgr_vectors.py from the
 * kernel source tarball): every vector of those templates.  Suite
 * "modes-fscrypt": the fscrypt IV layout through the e4_cipher API. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adiantum.h"
#include "chacha.h"
#include "cipher.h"
#include "hctr2.h"

/* Decode hex into a new buffer; *len gets its length. */
static uint8_t *hexbuf(const char *hex, size_t *len)
{
	size_t n = strlen(hex);
	uint8_t *b = malloc(n / 2 + 1);

	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(n % 2, 0);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		b[i] = (uint8_t)v;
	}
	*len = n / 2;
	return b;
}

/* ---- the checks, one per template kind ---- */

static void check_xchacha12(const char *k, const char *iv, const char *p,
			    const char *c)
{
	size_t kl, ivl, pl, cl;
	uint8_t *key = hexbuf(k, &kl), *ivb = hexbuf(iv, &ivl);
	uint8_t *pt = hexbuf(p, &pl), *ct = hexbuf(c, &cl), *out;

	ck_assert_uint_eq(kl, 32);
	ck_assert_uint_eq(ivl, 32);
	ck_assert_uint_eq(pl, cl);
	out = malloc(pl + 1);
	e4_xchacha(key, ivb, 12, pt, out, pl);
	ck_assert_mem_eq(out, ct, cl);
	e4_xchacha(key, ivb, 12, out, out, cl); /* in place, back */
	ck_assert_mem_eq(out, pt, pl);
	free(key), free(ivb), free(pt), free(ct), free(out);
}

static void check_nhpoly1305(const char *k, const char *m, const char *d)
{
	size_t kl, ml, dl;
	uint8_t *key = hexbuf(k, &kl), *msg = hexbuf(m, &ml), *dig = hexbuf(d, &dl);
	uint8_t out[16];

	ck_assert_uint_eq(kl, E4_NHPOLY1305_KEY_SIZE);
	ck_assert_uint_eq(dl, 16);
	ck_assert_int_eq(e4_nhpoly1305(key, msg, ml, out), E4_OK);
	ck_assert_mem_eq(out, dig, 16);
	free(key), free(msg), free(dig);
}

static void check_polyval(const char *k, const char *m, const char *d)
{
	size_t kl, ml, dl;
	uint8_t *key = hexbuf(k, &kl), *msg = hexbuf(m, &ml), *dig = hexbuf(d, &dl);
	uint8_t out[16];

	ck_assert_uint_eq(kl, 16);
	ck_assert_uint_eq(dl, 16);
	e4_polyval(key, msg, ml, out);
	ck_assert_mem_eq(out, dig, 16);
	free(key), free(msg), free(dig);
}

static void check_xctr(const char *k, const char *iv, const char *p,
		       const char *c)
{
	size_t kl, ivl, pl, cl;
	uint8_t *key = hexbuf(k, &kl), *ivb = hexbuf(iv, &ivl);
	uint8_t *pt = hexbuf(p, &pl), *ct = hexbuf(c, &cl), *out;

	ck_assert_uint_eq(ivl, 16);
	ck_assert_uint_eq(pl, cl);
	out = malloc(pl + 1);
	ck_assert_int_eq(e4_xctr(key, kl, ivb, pt, out, pl), E4_OK);
	ck_assert_mem_eq(out, ct, cl);
	ck_assert_int_eq(e4_xctr(key, kl, ivb, ct, out, cl), E4_OK);
	ck_assert_mem_eq(out, pt, pl);
	free(key), free(ivb), free(pt), free(ct), free(out);
}

/* Both wide-block modes: encrypt, decrypt, and both in place. */
static void check_wide(int adiantum, const char *k, const char *iv,
		       const char *p, const char *c)
{
	size_t kl, ivl, pl, cl;
	uint8_t *key = hexbuf(k, &kl), *ivb = hexbuf(iv, &ivl);
	uint8_t *pt = hexbuf(p, &pl), *ct = hexbuf(c, &cl), *out;
	struct e4_adiantum *a = NULL;
	struct e4_hctr2 *h = NULL;

	ck_assert_uint_eq(ivl, 32);
	ck_assert_uint_eq(pl, cl);
	out = malloc(pl + 1);
	if (adiantum) {
		ck_assert_uint_eq(kl, E4_ADIANTUM_KEY_SIZE);
		ck_assert_int_eq(e4_adiantum_new(&a, key), E4_OK);
	} else {
		ck_assert_int_eq(e4_hctr2_new(&h, key, kl), E4_OK);
	}
#define CRYPT(enc, in, o) (adiantum ? e4_adiantum_crypt(a, enc, ivb, in, o, pl) : \
			   e4_hctr2_crypt(h, enc, ivb, in, o, pl))
	ck_assert_int_eq(CRYPT(1, pt, out), E4_OK);
	ck_assert_mem_eq(out, ct, cl);
	ck_assert_int_eq(CRYPT(0, ct, out), E4_OK);
	ck_assert_mem_eq(out, pt, pl);
	memcpy(out, pt, pl);
	ck_assert_int_eq(CRYPT(1, out, out), E4_OK);
	ck_assert_mem_eq(out, ct, cl);
	ck_assert_int_eq(CRYPT(0, out, out), E4_OK);
	ck_assert_mem_eq(out, pt, pl);
	/* A flipped tweak bit changes the whole plaintext block. */
	ivb[31] ^= 0x80;
	ck_assert_int_eq(CRYPT(0, ct, out), E4_OK);
	ck_assert_mem_ne(out, pt, pl < 16 ? pl : 16);
#undef CRYPT
	ck_assert_int_eq(adiantum ? e4_adiantum_crypt(a, 0, ivb, ct, out, 15) :
			 e4_hctr2_crypt(h, 0, ivb, ct, out, 15), E4_CORRUPT);
	e4_adiantum_free(a);
	e4_hctr2_free(h);
	free(key), free(ivb), free(pt), free(ct), free(out);
}

/* ---- transcribed vectors ---- */

/* testmgr.h xchacha12_tv_template: vectors 1 (29 bytes) and 3 (64). */
START_TEST(xchacha12_kat)
{
	check_xchacha12(
		"79c99798ac67300bbb2704c95c341e3245f3dcb21761b98e52ff45b24f304fc4",
		"b33ffd3096479bcfbc9aee49417688a0a2554f8d953894190000000000000000",
		"0000000000000000000000000000000000000000000000000000000000",
		"1b787fd7a14168ab3d3fd17b6956b2d543ceebaf36f0299d3afb18ae1b");
	check_xchacha12(
		"0000000000000000000000000000000000000000000000000000000000000000",
		"00000000000000000000000067c6697351ff4aec29cdbaab0000000000000000",
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000",
		"df2dc6212a9da1bbc277660c5c46efa7791bb9df55e2f9614c7ba45224afa2da"
		"d18f8fa29e534dc4b85598087c08d418678fef50b15fa5774c25e7862642ca44");
}
END_TEST

/* testmgr.h polyval_tv_template (RFC 8452 appendix A): 16, 32, 48 bytes. */
START_TEST(polyval_kat)
{
	check_polyval("d9b360279694941ac5dbc6987ada7377",
		      "00000000000000000000000000000000",
		      "00000000000000000000000000000000");
	check_polyval("d9b360279694941ac5dbc6987ada7377",
		      "01000000000000000000000000000000"
		      "00000000000000004000000000000000",
		      "eb93b7740962c5e49d2a90a7dc5cec74");
	check_polyval("310728d9911f1f3837b24316c3fab9a0",
		      "6578616d706c65000000000000000000"
		      "48656c6c6f20776f726c640000000000"
		      "38000000000000005800000000000000",
		      "ad7fcf0b5169851662672f3c5f95138f");
}
END_TEST

/* testmgr.h aes_xctr_tv_template: AES-256, 16 and 17 bytes. */
START_TEST(xctr_kat)
{
	check_xctr("afd91414d5dbc9ce765c5abf43052924c41368cce837bdb94120f55348d0a2d6",
		   "a7b400087910aef502bf85b2694cc604",
		   "ac6aa80cb084bf4cae9420587e009389",
		   "d5aae2e9864c954edeb615cbdc1f1338");
	check_xctr("ede38be71c17bf4a02e2fc76acf53c005ddcfc83eb45b4cb596260ec699c1645",
		   "e40e2b90d2fa942e10e5642b972815c7",
		   "e653ff600ec451e4934de555c5d9ad4852",
		   "ba2528f5cf319180da2b955f20cbfb9fc6");
}
END_TEST

/* testmgr.h adiantum_xchacha12_aes_tv_template: vectors 1 (16 bytes) and
 * 2 (31 bytes). */
START_TEST(adiantum_kat)
{
	check_wide(1,
		"9eebb2493c1cf5f46a99c2c4dfb1f4dd752057ea2c4fcdb2a53d7b491eabfd0f",
		"df63d4abd249f3d8338137607dfa7308d8496d80e82f6254eb0ea9395b457f8a",
		"67c9f23084418e43fbf3b33e79367fe8",
		"6d32861867860f3f967c9d280d53ec9f");
	check_wide(1,
		"362b5797f85dcd995f1a5a441d920f27cc16d72b856399d3ba96a1dbd26068da",
		"ef5869b12c5e9a4724c1b169e112938f433d6d00db5ed8d9129afed9ff2daac4",
		"5ea8681985981223260accdb0a04b9df4db3487bb0e3c819435a4606942df2",
		"c7c6f1738fc4ff4a39be78be8d28c8894663e70c7d87e84ec9187bbe186050");
}
END_TEST

/* testmgr.h aes_hctr2_tv_template: AES-256, 16, 17 and 31 bytes. */
START_TEST(hctr2_kat)
{
	check_wide(0,
		"9eebb2493c1cf5f46a99c2c4dfb1f4dd752057ea2c4fcdb2a53d7b491eabfd0f",
		"df63d4abd249f3d8338137607dfa7308d8496d80e82f6254eb0ea9395b457f8a",
		"67c9f23084418e43fbf3b33e79367fe8",
		"2738784716d971352e7edd7e433cb840");
	check_wide(0,
		"93fa7ee20e67c439e7ca4795689d5e5a7c2619abc6ca6a4c45a69642ae6cffe7",
		"ea8247953b22a13a6aca244c507e23cd0e50e541b66529d8302300d254a7d656",
		"db1f1fecad836e5d19a5f63bb4935a576f",
		"f1466e9db301f06bc2ac5788486d407268");
	check_wide(0,
		"362b5797f85dcd995f1a5a441d920f27cc16d72b856399d3ba96a1dbd26068da",
		"ef5869b12c5e9a4724c1b169e112938f433d6d00db5ed8d9129afed9ff2daac4",
		"5ea8681985981223260accdb0a04b9df4db3487bb0e3c819435a4606942df2",
		"dbfdc803d0ecc1febd6437b88243624e7e54a3e224a727e8a4d5b36cb226b4");
}
END_TEST

/* ---- through e4_cipher: fscrypt's IVs ---- */

/* Adiantum data units and names as fscrypt uses them: the IV is le64(lblk),
 * then the nonce under DIRECT_KEY, then zeros; names use lblk 0.  The
 * expected values come from the bare mode with IVs built here. */
START_TEST(fscrypt_adiantum_iv)
{
	uint8_t key[32], nonce[16], iv[32] = { 0 }, pt[4096], want[4096],
		out[4096], name[32] = "a-name", nm[32];
	struct e4_adiantum *a;
	struct e4_cipher *c;
	size_t n;

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(0xa0 + i);
	for (int i = 0; i < 16; i++)
		nonce[i] = (uint8_t)(0x10 * i + 1);
	for (size_t i = 0; i < sizeof(pt); i++)
		pt[i] = (uint8_t)(i * 7);
	ck_assert_int_eq(e4_adiantum_new(&a, key), E4_OK);
	ck_assert_int_eq(e4_cipher_new(&c, 9, key, 32), E4_OK);
	/* lblk 0x0102030405 without DIRECT_KEY: le64 then zeros. */
	iv[0] = 5, iv[1] = 4, iv[2] = 3, iv[3] = 2, iv[4] = 1;
	ck_assert_int_eq(e4_adiantum_crypt(a, 1, iv, pt, want, 4096), E4_OK);
	ck_assert_int_eq(e4_decrypt_data_unit(c, 0x0102030405ULL, want, out,
					      4096), E4_OK);
	ck_assert_mem_eq(out, pt, 4096);
	ck_assert_int_eq(e4_encrypt_data_unit(c, 0x0102030405ULL, pt, out,
					      4096), E4_OK);
	ck_assert_mem_eq(out, want, 4096);
	/* DIRECT_KEY: the nonce follows the block number. */
	e4_cipher_set_direct_key(c, nonce);
	memcpy(iv + 8, nonce, 16);
	ck_assert_int_eq(e4_adiantum_crypt(a, 1, iv, pt, want, 1024), E4_OK);
	ck_assert_int_eq(e4_decrypt_data_unit(c, 0x0102030405ULL, want, out,
					      1024), E4_OK);
	ck_assert_mem_eq(out, pt, 1024);
	/* Names: block 0 with the nonce; 32 bytes with NUL padding. */
	memset(iv, 0, 8);
	ck_assert_int_eq(e4_adiantum_crypt(a, 1, iv, name, want, 32), E4_OK);
	ck_assert_int_eq(e4_decrypt_name(c, want, 32, nm, &n), E4_OK);
	ck_assert_uint_eq(n, 6);
	ck_assert_mem_eq(nm, name, 32);
	ck_assert_int_eq(e4_encrypt_name(c, name, 32, out), E4_OK);
	ck_assert_mem_eq(out, want, 32);
	/* Adiantum names may be 16 bytes but no shorter. */
	ck_assert_int_eq(e4_decrypt_name(c, want, 15, nm, &n), E4_CORRUPT);
	ck_assert_int_eq(e4_decrypt_data_unit(c, 0, want, out, 15), E4_CORRUPT);
	e4_cipher_free(c);
	e4_adiantum_free(a);
}
END_TEST

/* HCTR2 names: IV le64(0) || zeros, or the inode number in the high half
 * of the IV number under IV_INO_LBLK_64; not a contents mode. */
START_TEST(fscrypt_hctr2_iv)
{
	uint8_t key[32], iv[32] = { 0 }, name[17] = "seventeen-bytes!", want[32],
		nm[32], blk[32] = { 0 };
	struct e4_hctr2 *h;
	struct e4_cipher *c;
	size_t n;

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(3 * i);
	ck_assert_int_eq(e4_hctr2_new(&h, key, 32), E4_OK);
	ck_assert_int_eq(e4_cipher_new(&c, 10, key, 32), E4_OK);
	ck_assert_int_eq(e4_hctr2_crypt(h, 1, iv, name, want, 17), E4_OK);
	ck_assert_int_eq(e4_decrypt_name(c, want, 17, nm, &n), E4_OK);
	ck_assert_uint_eq(n, 16);
	ck_assert_mem_eq(nm, name, 17);
	e4_cipher_set_iv_scheme(c, E4_IV_INO_LBLK_64, 0x12345678);
	iv[4] = 0x78, iv[5] = 0x56, iv[6] = 0x34, iv[7] = 0x12;
	ck_assert_int_eq(e4_hctr2_crypt(h, 1, iv, name, want, 17), E4_OK);
	ck_assert_int_eq(e4_decrypt_name(c, want, 17, nm, &n), E4_OK);
	ck_assert_mem_eq(nm, name, 17);
	ck_assert_int_eq(e4_decrypt_data_unit(c, 0, blk, blk, 32), E4_UNSUPPORTED);
	e4_cipher_free(c);
	ck_assert_int_eq(e4_cipher_new(&c, 10, key, 16), E4_BAD_KEY);
	e4_hctr2_free(h);
}
END_TEST

/* ---- every vector of the templates, from the kernel's testmgr.h ---- */

/* Field value of "name=" on a line, or NULL. */
static const char *field(char *const *tok, int ntok, const char *name)
{
	size_t l = strlen(name);

	for (int i = 1; i < ntok; i++)
		if (!strncmp(tok[i], name, l) && tok[i][l] == '=')
			return tok[i] + l + 1;
	return NULL;
}

struct tmpl {
	const char *name;
	size_t want; /* vectors in Linux 6.1's testmgr.h */
	size_t got;
};

START_TEST(testmgr_templates)
{
	static const struct tmpl t0[] = {
		{ "xchacha12_tv_template", 7, 0 },
		{ "nhpoly1305_tv_template", 6, 0 },
		{ "polyval_tv_template", 9, 0 },
		{ "aes_xctr_tv_template", 18, 0 },
		{ "adiantum_xchacha12_aes_tv_template", 6, 0 },
		{ "aes_hctr2_tv_template", 14, 0 },
	};
	struct tmpl t[sizeof(t0) / sizeof(t0[0])];
	const char *path = getenv("E4_TESTMGR_KAT");
	FILE *f;
	char *line = NULL, *tok[8];
	size_t cap = 0;

	memcpy(t, t0, sizeof(t));
	ck_assert_msg(path != NULL, "E4_TESTMGR_KAT not set");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (getline(&line, &cap, f) > 0) {
		int ntok = 0;
		size_t k;

		for (char *s = strtok(line, " \n"); s && ntok < 8; s = strtok(NULL, " \n"))
			tok[ntok++] = s;
		if (!ntok || tok[0][0] == '#')
			continue;
		for (k = 0; k < sizeof(t) / sizeof(t[0]); k++)
			if (!strcmp(tok[0], t[k].name))
				break;
		ck_assert_msg(k < sizeof(t) / sizeof(t[0]), "unknown template %s", tok[0]);
		if (k == 1 || k == 2) {
			const char *key = field(tok, ntok, "key");
			const char *m = field(tok, ntok, "plaintext");
			const char *d = field(tok, ntok, "digest");

			ck_assert(key && m && d);
			if (k == 1)
				check_nhpoly1305(key, m, d);
			else
				check_polyval(key, m, d);
		} else {
			const char *key = field(tok, ntok, "key");
			const char *iv = field(tok, ntok, "iv");
			const char *p = field(tok, ntok, "ptext");
			const char *c = field(tok, ntok, "ctext");

			ck_assert(key && iv && p && c);
			if (k == 0)
				check_xchacha12(key, iv, p, c);
			else if (k == 3)
				check_xctr(key, iv, p, c);
			else
				check_wide(k == 4, key, iv, p, c);
		}
		t[k].got++;
	}
	free(line);
	fclose(f);
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		printf("testmgr %s: %zu vectors pass\n", t[k].name, t[k].got);
		ck_assert_msg(t[k].got == t[k].want, "%s: %zu vectors, expected %zu",
			      t[k].name, t[k].got, t[k].want);
	}
}
END_TEST

Suite *modes_kat_suite(void)
{
	Suite *s = suite_create("modes-kat");
	TCase *tc = tcase_create("transcribed");
	TCase *fs = tcase_create("fscrypt");

	tcase_add_test(tc, xchacha12_kat);
	tcase_add_test(tc, polyval_kat);
	tcase_add_test(tc, xctr_kat);
	tcase_add_test(tc, adiantum_kat);
	tcase_add_test(tc, hctr2_kat);
	suite_add_tcase(s, tc);
	tcase_add_test(fs, fscrypt_adiantum_iv);
	tcase_add_test(fs, fscrypt_hctr2_iv);
	suite_add_tcase(s, fs);
	return s;
}

Suite *testmgr_suite(void)
{
	Suite *s = suite_create("testmgr");
	TCase *tc = tcase_create("templates");

	tcase_add_test(tc, testmgr_templates);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
