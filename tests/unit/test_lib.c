/* Known-answer and validation tests of the pure library.  Expected values
 * come from published standards (FIPS-197, RFC 3962, RFC 4648) or from
 * Python's hashlib, never from this library. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "context.h"
#include "kdf.h"
#include "keyfile.h"
#include "memkeys.h"
#include "nokey.h"
#include "symlink.h"

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned int v;

		while (*hex == ' ')
			hex++;
		if (sscanf(hex, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* ---- encryption context ---- */

static const char *V1_CTX =
	"01010400" "0011223344556677" "000102030405060708090a0b0c0d0e0f";

START_TEST(context_v1_valid)
{
	uint8_t b[64];
	size_t n = unhex(V1_CTX, b);
	struct e4_context c;
	char hex[33];

	ck_assert_uint_eq(n, 28);
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_OK);
	ck_assert_uint_eq(c.version, 1);
	ck_assert_uint_eq(c.contents_mode, 1);
	ck_assert_uint_eq(c.filenames_mode, 4);
	ck_assert_uint_eq(c.flags, 0);
	ck_assert_uint_eq(c.key_id_size, 8);
	e4_context_key_id_hex(&c, hex);
	ck_assert_str_eq(hex, "0011223344556677");
	ck_assert_uint_eq(c.nonce[0], 0x00);
	ck_assert_uint_eq(c.nonce[15], 0x0f);
	ck_assert_uint_eq(e4_context_name_padding(&c), 4);
	b[3] = 3;
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_OK);
	ck_assert_uint_eq(e4_context_name_padding(&c), 32);
}
END_TEST

START_TEST(context_corrupt)
{
	uint8_t b[64];
	size_t n = unhex(V1_CTX, b);
	struct e4_context c;

	ck_assert_int_eq(e4_context_parse(&c, b, 0), E4_CORRUPT);
	ck_assert_int_eq(e4_context_parse(&c, b, 1), E4_CORRUPT);
	ck_assert_int_eq(e4_context_parse(&c, b, n - 1), E4_CORRUPT);
	ck_assert_int_eq(e4_context_parse(&c, b, n + 1), E4_CORRUPT);
	b[0] = 2; /* v2 must be 40 bytes */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_CORRUPT);
}
END_TEST

START_TEST(context_unrecognized)
{
	uint8_t b[64];
	size_t n = unhex(V1_CTX, b);
	struct e4_context c;

	b[0] = 3;
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_UNRECOGNIZED);
	b[0] = 0; /* the ioctl's v1 number is not a context version */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_UNRECOGNIZED);
	b[0] = 1;
	b[1] = 2; /* reserved mode */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_UNRECOGNIZED);
	b[1] = 1;
	b[2] = 10; /* HCTR2 is v2 only */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_UNRECOGNIZED);
	b[2] = 4;
	b[3] = 0x08; /* IV_INO_LBLK_64 is v2 only */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_UNRECOGNIZED);
	b[3] = 0x04; /* DIRECT_KEY is fine in v1 */
	ck_assert_int_eq(e4_context_parse(&c, b, n), E4_OK);
	ck_assert_str_eq(e4_context_problem(b, n), "valid");
	b[3] = 0x80;
	ck_assert_str_eq(e4_context_problem(b, n), "unknown policy flags");
}
END_TEST

START_TEST(context_v2)
{
	uint8_t b[40] = { 2, 1, 10, 0x02 };
	struct e4_context c;

	for (int i = 8; i < 40; i++)
		b[i] = (uint8_t)i;
	ck_assert_int_eq(e4_context_parse(&c, b, 40), E4_OK);
	ck_assert_uint_eq(c.key_id_size, 16);
	ck_assert_uint_eq(c.key_id[0], 8);
	ck_assert_uint_eq(c.nonce[0], 24);
	b[5] = 1;
	ck_assert_int_eq(e4_context_parse(&c, b, 40), E4_CORRUPT);
	b[5] = 0;
	b[3] = 0x18;
	ck_assert_int_eq(e4_context_parse(&c, b, 40), E4_UNRECOGNIZED);
}
END_TEST

/* ---- key derivation ---- */

START_TEST(kdf_fips197)
{
	/* FIPS-197 C.1: AES-128, key 000102..0f, plaintext 0011..ff. */
	uint8_t nonce[16], master[64], out[64], want[16];

	unhex("000102030405060708090a0b0c0d0e0f", nonce);
	for (int i = 0; i < 4; i++)
		unhex("00112233445566778899aabbccddeeff", master + 16 * i);
	unhex("69c4e0d86a7b0430d8cdb78070b4c55a", want);
	ck_assert_int_eq(e4_v1_derive_key(out, 64, master, 64, nonce), E4_OK);
	for (int i = 0; i < 4; i++)
		ck_assert_mem_eq(out + 16 * i, want, 16);
	/* Only the first keysize bytes of a longer master key are used. */
	ck_assert_int_eq(e4_v1_derive_key(out, 32, master, 64, nonce), E4_OK);
	ck_assert_mem_eq(out + 16, want, 16);
	ck_assert_int_eq(e4_v1_derive_key(out, 64, master, 32, nonce), E4_BAD_KEY);
	ck_assert_int_eq(e4_v1_derive_key(out, 24, master, 64, nonce), E4_BAD_KEY);
}
END_TEST

START_TEST(e4crypt_descriptor)
{
	/* python3: hashlib.sha512(hashlib.sha512(bytes(range(64))).digest())
	 *          .hexdigest()[:16] */
	uint8_t key[64], d[8], want[8];

	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	unhex("04334e23057a6e2d", want);
	ck_assert_int_eq(e4_e4crypt_descriptor(d, key, 64), E4_OK);
	ck_assert_mem_eq(d, want, 8);
}
END_TEST

/* ---- CBC-CTS names: RFC 3962 appendix B (AES-128, zero IV, CS3) ---- */

static const char *RFC3962_KEY = "636869636b656e207465726979616b69";
static const char *RFC3962_IN =
	"4920776f756c64206c696b652074686520"
	"47656e6572616c20476175277320436869636b656e2c20706c656173652c"
	"20616e6420776f6e746f6e20736f75702e";
static const struct {
	size_t len;
	const char *out;
} rfc3962[] = {
	{ 17, "c6353568f2bf8cb4d8a580362da7ff7f97" },
	{ 31, "fc00783e0efdb2c1d445d4c8eff7ed2297687268d6ecccc0c07b25e25ecfe5" },
	{ 32, "39312523a78662d5be7fcbcc98ebf5a897687268d6ecccc0c07b25e25ecfe584" },
	{ 47, "97687268d6ecccc0c07b25e25ecfe584b3fffd940c16a18c1b5549d2f838029e"
	      "39312523a78662d5be7fcbcc98ebf5" },
	{ 48, "97687268d6ecccc0c07b25e25ecfe5849dad8bbb96c4cdc03bc103e1a194bbd8"
	      "39312523a78662d5be7fcbcc98ebf5a8" },
	{ 64, "97687268d6ecccc0c07b25e25ecfe58439312523a78662d5be7fcbcc98ebf5a8"
	      "4807efe836ee89a526730dbc2f7bc8409dad8bbb96c4cdc03bc103e1a194bbd8" },
};

START_TEST(cts_rfc3962)
{
	uint8_t key[16], in[64], want[64], out[64], back[65];
	struct e4_cipher *c;
	size_t n;

	unhex(RFC3962_KEY, key);
	ck_assert_uint_eq(unhex(RFC3962_IN, in), 64);
	ck_assert_int_eq(e4_cipher_new(&c, 6, key, 16), E4_OK);
	for (size_t i = 0; i < sizeof(rfc3962) / sizeof(rfc3962[0]); i++) {
		size_t len = rfc3962[i].len;

		ck_assert_uint_eq(unhex(rfc3962[i].out, want), len);
		ck_assert_int_eq(e4_encrypt_name(c, in, len, out), E4_OK);
		ck_assert_mem_eq(out, want, len);
		ck_assert_int_eq(e4_decrypt_name(c, want, len, back, &n), E4_OK);
		ck_assert_uint_eq(n, len);
		ck_assert_mem_eq(back, in, len);
	}
	e4_cipher_free(c);
}
END_TEST

START_TEST(name_plausibility)
{
	uint8_t key[32] = { 1 }, in[32] = "abc", ct[32], out[32];
	struct e4_cipher *c;
	size_t n;

	ck_assert_int_eq(e4_cipher_new(&c, 4, key, 32), E4_OK);
	ck_assert_int_eq(e4_encrypt_name(c, in, 16, ct), E4_OK);
	ck_assert_int_eq(e4_decrypt_name(c, ct, 16, out, &n), E4_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_ge(e4_name_evidence_bits(out, 16, n), 8 * 13);
	in[5] = 'x'; /* non-zero byte after the NUL */
	e4_encrypt_name(c, in, 16, ct);
	ck_assert_int_eq(e4_decrypt_name(c, ct, 16, out, &n), E4_BAD_KEY);
	memcpy(in, "a/b\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	e4_encrypt_name(c, in, 16, ct);
	ck_assert_int_eq(e4_decrypt_name(c, ct, 16, out, &n), E4_BAD_KEY);
	memset(in, 0, 16); /* empty name */
	e4_encrypt_name(c, in, 16, ct);
	ck_assert_int_eq(e4_decrypt_name(c, ct, 16, out, &n), E4_BAD_KEY);
	ck_assert_int_eq(e4_decrypt_name(c, ct, 15, out, &n), E4_CORRUPT);
	e4_cipher_free(c);
	ck_assert_int_eq(e4_cipher_new(&c, 9, key, 16), E4_BAD_KEY); /* Adiantum: 32 */
	ck_assert_int_eq(e4_cipher_new(&c, 99, key, 16), E4_UNRECOGNIZED);
	ck_assert_int_eq(e4_cipher_new(&c, 4, key, 16), E4_BAD_KEY);
}
END_TEST

/* ---- symlink blobs ---- */

START_TEST(symlink_bounds)
{
	uint8_t blob[40] = { 16, 0 }, out[40];
	const uint8_t *ct;
	size_t len, n;
	uint8_t key[32] = { 7 }, plain[16] = "target";
	struct e4_cipher *c;

	ck_assert_int_eq(e4_symlink_parse(blob, 18, &ct, &len), E4_OK);
	ck_assert_ptr_eq(ct, blob + 2);
	ck_assert_uint_eq(len, 16);
	ck_assert_int_eq(e4_symlink_parse(blob, 17, &ct, &len), E4_CORRUPT);
	ck_assert_int_eq(e4_symlink_parse(blob, 1, &ct, &len), E4_CORRUPT);
	blob[0] = 15;
	ck_assert_int_eq(e4_symlink_parse(blob, 40, &ct, &len), E4_CORRUPT);
	blob[0] = 0;
	blob[1] = 1; /* 256 > size */
	ck_assert_int_eq(e4_symlink_parse(blob, 40, &ct, &len), E4_CORRUPT);
	ck_assert_int_eq(e4_cipher_new(&c, 4, key, 32), E4_OK);
	blob[0] = 16;
	blob[1] = 0;
	e4_encrypt_name(c, plain, 16, blob + 2);
	ck_assert_int_eq(e4_symlink_decrypt(c, blob, 18, out, &n), E4_OK);
	ck_assert_uint_eq(n, 6);
	ck_assert_str_eq((char *)out, "target");
	/* A target may contain '/', a name may not. */
	memcpy(plain, "../dir/file\0\0\0\0", 16);
	e4_encrypt_name(c, plain, 16, blob + 2);
	ck_assert_int_eq(e4_symlink_decrypt(c, blob, 18, out, &n), E4_OK);
	ck_assert_str_eq((char *)out, "../dir/file");
	ck_assert_int_eq(e4_decrypt_name(c, blob + 2, 16, out, &n), E4_BAD_KEY);
	e4_cipher_free(c);
}
END_TEST

/* ---- key files ---- */

START_TEST(keyfile_forms)
{
	uint8_t raw[65], key[64]; /* 65: a key one byte too long */
	size_t n;
	const char *why;
	const char *hex = "000102030405060708090a0b0c0d0e0f"
			  "101112131415161718191A1B1C1D1E1F\n";

	for (int i = 0; i < 65; i++)
		raw[i] = (uint8_t)(0x80 + i);
	ck_assert_int_eq(e4_keyfile_parse(raw, 64, key, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 64);
	ck_assert_mem_eq(key, raw, 64);
	ck_assert_int_eq(e4_keyfile_parse((const uint8_t *)hex, strlen(hex),
					  key, &n, &why), E4_OK);
	ck_assert_uint_eq(n, 32);
	ck_assert_uint_eq(key[31], 0x1f);
	ck_assert_int_eq(e4_keyfile_parse(raw, 15, key, &n, &why), E4_BAD_KEY);
	ck_assert_int_eq(e4_keyfile_parse(raw, 65, key, &n, &why), E4_BAD_KEY);
	ck_assert_int_eq(e4_keyfile_parse((const uint8_t *)"abc", 3, key, &n,
					  &why), E4_BAD_KEY);
	ck_assert_str_eq(why, "odd number of hex digits");
	ck_assert_int_eq(e4_keyfile_parse((const uint8_t *)"00112233", 8, key,
					  &n, &why), E4_BAD_KEY);
}
END_TEST

/* The states form: spec §17.4's worked example (master key 00 01 .. 3f;
 * states and identifier computed by tests/spec/hmac_states.py's pure
 * Python SHA-512), read back as the identifier and as the per-file key
 * OpenSSL's HKDF derives from the master key itself. */
#define SPEC_ID "8699c2c53707405da5aba5ae4d8583c0"
#define SPEC_IPAD "755b6427b909b0816ba220ffd28b9ad29f8cf8060c197bf352fff6df56513267" \
		  "a0f27204e1fe85b1293c2c52ac617abd5b6c5072e24893ed9f257a2e39494a4c"
#define SPEC_OPAD "aa743007b14995fd00f3966f17fef44fcb467768e3412f478eb83b1446e37278" \
		  "4f9421a966fe78d270d91fb47bbc155f535f0658f4b9f868bc34f55d8542617f"

static enum e4_status read_text(const char *text, struct e4_keyfile *kf,
				const char **why)
{
	return e4_keyfile_read((const uint8_t *)text, strlen(text), kf, why);
}

START_TEST(keyfile_states)
{
	static const char *const forms[] = {
		"e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		"\nopad_state " SPEC_OPAD "\n",
		/* comments, blank lines, another order, CRLF, tabs, no final newline */
		"# secret\n\n  e4dump-hkdf-states\t1\r\n# x\nopad_state " SPEC_OPAD
		"\r\n\nipad_state  " SPEC_IPAD "  \nidentifier " SPEC_ID,
	};
	uint8_t master[64], id[16], nonce[16], want[64], got[64];
	struct e4_keyfile kf;
	const char *why;

	for (int i = 0; i < 64; i++)
		master[i] = (uint8_t)i;
	for (int i = 0; i < 16; i++)
		nonce[i] = (uint8_t)(0xe0 + i);
	unhex(SPEC_ID, id);
	/* per-file key (context 2) from the master key, by OpenSSL */
	ck_assert_int_eq(e4_hkdf_sha512(want, 64, master, 64, E4_HKDF_PER_FILE_ENC_KEY,
					nonce, 16), E4_OK);
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		ck_assert_int_eq(read_text(forms[f], &kf, &why), E4_OK);
		ck_assert_ptr_null(why);
		ck_assert(kf.is_states);
		ck_assert_uint_eq(kf.key_len, 0);
		ck_assert_mem_eq(kf.identifier, id, 16);
		ck_assert_int_eq(e4_hkdf_expand_states(&kf.states, E4_HKDF_PER_FILE_ENC_KEY,
						       nonce, 16, got, 64), E4_OK);
		ck_assert_mem_eq(got, want, 64);
		/* the state words are little-endian in the file */
		ck_assert_uint_eq(kf.states.ipad[0], 0x81b009b927645b75ull);
		ck_assert_uint_eq(kf.states.opad[7], 0x7f6142855df534bcull);
	}
	/* e4_keyfile_parse reads raw keys only, and says so */
	ck_assert_int_eq(e4_keyfile_parse((const uint8_t *)forms[1], strlen(forms[1]),
					  kf.key, &kf.key_len, &why), E4_BAD_KEY);
	ck_assert_str_eq(why, "HKDF states, not a raw key (read with e4_keyfile_read)");
	/* a raw or hex key file is still one */
	ck_assert_int_eq(e4_keyfile_read(master, 64, &kf, &why), E4_OK);
	ck_assert(!kf.is_states);
	ck_assert_uint_eq(kf.key_len, 64);
	ck_assert_mem_eq(kf.key, master, 64);
}
END_TEST

START_TEST(keyfile_states_refused)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "e4dump-hkdf-states 1\nidentifier 8699c2c53707405da5aba5ae4d8583c1\nipad_state "
		  SPEC_IPAD "\nopad_state " SPEC_OPAD "\n", "identifier does not match its states" },
		/* the two states swapped */
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_OPAD
		  "\nopad_state " SPEC_IPAD "\n", "identifier does not match its states" },
		{ "e4dump-hkdf-states 2\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		  "\nopad_state " SPEC_OPAD "\n",
		  "unsupported version of the states form (this e4dump reads version 1)" },
		{ "e4dump-hkdf-states\nidentifier " SPEC_ID "\n",
		  "first line is not \"e4dump-hkdf-states VERSION\"" },
		{ "e4dump-hkdf-statesx 1\n", "first line is not \"e4dump-hkdf-states VERSION\"" },
		{ "e4dump-hkdf-states 1 1\n", "first line is not \"e4dump-hkdf-states VERSION\"" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		  "\nipad_state " SPEC_IPAD "\nopad_state " SPEC_OPAD "\n",
		  "ipad_state line given twice" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nidentifier " SPEC_ID "\n",
		  "identifier line given twice" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		  "\nopad_state 00" SPEC_OPAD "\n", "opad_state: not 128 hex digits" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state 755b6427\n",
		  "ipad_state: not 128 hex digits" },
		{ "e4dump-hkdf-states 1\nidentifier 8699c2c53707405da5aba5ae4d8583cg\n",
		  "identifier: not 32 hex digits" },
		{ "e4dump-hkdf-states 1\nidentifier\n", "identifier: not 32 hex digits" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		  "\nopad_state " SPEC_OPAD "\nmaster 00\n",
		  "unknown line (not identifier, ipad_state or opad_state)" },
		{ "e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD "\n",
		  "no opad_state line" },
		{ "e4dump-hkdf-states 1\nipad_state " SPEC_IPAD "\nopad_state " SPEC_OPAD "\n",
		  "no identifier line" },
		{ "# only a comment\ne4dump-hkdf-states 1\n", "no identifier line" },
	};
	struct e4_keyfile kf;
	const char *why;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&kf, 0x55, sizeof(kf));
		ck_assert_int_eq(read_text(bad[i].text, &kf, &why), E4_BAD_KEY);
		ck_assert_msg(why && !strcmp(why, bad[i].why), "case %zu: %s", i, why);
		/* nothing of the file is left in kf */
		for (size_t j = 0; j < sizeof(kf); j++)
			ck_assert_uint_eq(((const uint8_t *)&kf)[j], 0);
	}
}
END_TEST

START_TEST(keyfile_states_format)
{
	static const char want[] =
		"# e4dump: the HKDF states of a v2 master key: SECRET, they open every file the key opens\n"
		"e4dump-hkdf-states 1\nidentifier " SPEC_ID "\nipad_state " SPEC_IPAD
		"\nopad_state " SPEC_OPAD "\n";
	char buf[E4_KEYFILE_STATES_TEXT_MAX], small[100];
	struct e4_keyfile kf;
	const char *why;

	ck_assert_int_eq(read_text(want, &kf, &why), E4_OK);
	ck_assert_uint_eq(e4_keyfile_format_states(&kf.states, buf, sizeof(buf)),
			  strlen(want));
	ck_assert_str_eq(buf, want);
	/* too small: the length it needs, nothing written */
	memset(small, 'x', sizeof(small));
	ck_assert_uint_eq(e4_keyfile_format_states(&kf.states, small, sizeof(small)),
			  strlen(want));
	ck_assert_int_eq(small[0], 0);
	ck_assert_int_eq(small[1], 'x');
	ck_assert_uint_eq(e4_keyfile_format_states(&kf.states, small, 0), strlen(want));
	ck_assert_uint_eq(e4_keyfile_format_states(&kf.states, buf, strlen(want)),
			  strlen(want));
	ck_assert_int_eq(buf[0], 0);
}
END_TEST

/* ---- base64url (RFC 4648 section 10) and no-key names ---- */

START_TEST(base64url)
{
	static const char *vec[][2] = {
		{ "", "" }, { "f", "Zg" }, { "fo", "Zm8" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg" }, { "fooba", "Zm9vYmE" },
		{ "foobar", "Zm9vYmFy" },
	};
	char out[64];
	const uint8_t url[] = { 0xfb, 0xff };

	for (size_t i = 0; i < 7; i++) {
		e4_base64url_encode((const uint8_t *)vec[i][0],
				    strlen(vec[i][0]), out);
		ck_assert_str_eq(out, vec[i][1]);
	}
	e4_base64url_encode(url, 2, out);
	ck_assert_str_eq(out, "-_8");
}
END_TEST

START_TEST(nokey_long_name)
{
	uint8_t ct[255];
	char a[E4_NOKEY_NAME_MAX + 1], b[E4_NOKEY_NAME_MAX + 1];

	memset(ct, 0xab, sizeof(ct));
	ck_assert_int_eq(e4_nokey_name_v61(1, 2, ct, 16, a), E4_OK);
	ck_assert_uint_eq(strlen(a), 32); /* 24 bytes */
	ck_assert_int_eq(e4_nokey_name_v61(1, 2, ct, 255, a), E4_OK);
	ck_assert_uint_eq(strlen(a), E4_NOKEY_NAME_MAX);
	ct[254] ^= 1; /* the tail only reaches the name through SHA-256 */
	ck_assert_int_eq(e4_nokey_name_v61(1, 2, ct, 255, b), E4_OK);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(strncmp(a, b, 4 * (8 + 149) / 3), 0);
}
END_TEST

/* Expected values from an independent Python implementation of the seed's
 * ext4_fname_encode_digest (24-bit little-endian groups, 6 bits per
 * character) and hashlib.sha256. */
START_TEST(nokey_2015)
{
	uint8_t ct[255];
	char out[E4_NOKEY_2015_MAX + 1];

	for (int i = 0; i < 255; i++)
		ct[i] = (uint8_t)i;
	ck_assert_int_eq(e4_nokey_name_2015(ct, 16, out), E4_OK);
	ck_assert_str_eq(out, "aeGadqqbgCacjOWcm0Gdpaaa");
	ck_assert_int_eq(e4_nokey_name_2015(ct, 32, out), E4_OK);
	ck_assert_str_eq(out, "aeGadqqbgCacjOWcm0GdparesmbfvyXfyKHgBWrhE8ba");
	ck_assert_int_eq(e4_nokey_name_2015(ct, 33, out), E4_OK);
	ck_assert_str_eq(out, "ID94ZVNQRRh3h42Uhl1hxkU5RK6MJ2zUIHQi3LhAd2Vka");
	ck_assert_int_eq(e4_nokey_name_2015(ct, 255, out), E4_OK);
	ck_assert_str_eq(out, "I+uyKrWYA_YLL5uwLoLsmiCliok9Rj6dunu4KOzmvQ7la");
	ct[0] = 0xff;
	ck_assert_uint_eq(e4_encode_digest_2015(ct, 1, out), 4);
	ck_assert_str_eq(out, "+daa");
}
END_TEST

/* HKDF-SHA512 as fs/crypto/hkdf.c uses it, and SipHash-2-4: expected values
 * from a Python implementation over hmac/hashlib (its SipHash reproduces the
 * reference vectors 310e0edd47db6f72 and e545be4961ca29a1 of the paper). */
START_TEST(v2_kdf)
{
	uint8_t mk[64], out[64], want[64], info[17];
	uint64_t h;

	for (int i = 0; i < 64; i++)
		mk[i] = (uint8_t)i;
	ck_assert_int_eq(e4_v2_key_identifier(out, mk, 64), E4_OK);
	unhex("8699c2c53707405da5aba5ae4d8583c0", want);
	ck_assert_mem_eq(out, want, 16);
	ck_assert_int_eq(e4_hkdf_sha512(out, 64, mk, 64, E4_HKDF_PER_FILE_ENC_KEY,
					mk, 16), E4_OK);
	unhex("4512b215533c25be04c7f0f1a77644bf4e9953a123ad626d9f78dd538f2cb6d2"
	      "ec4309f2c8cac5780dd3cc5998fe276d84c8fbf3e33e175fe6a3cc47352c5ba3", want);
	ck_assert_mem_eq(out, want, 64);
	info[0] = 1;
	for (int i = 0; i < 16; i++)
		info[1 + i] = (uint8_t)(0x10 + i);
	ck_assert_int_eq(e4_hkdf_sha512(out, 64, mk, 64, E4_HKDF_IV_INO_LBLK_64_KEY,
					info, 17), E4_OK);
	unhex("a0d8d56c0ac19ada08e01114d88107cdd418f5b23a206ba2688f9d392ed2e6a2"
	      "2ddae41f55b587ad60008a953de228efffa7f266c32b6c3dd718000b51385c3b", want);
	ck_assert_mem_eq(out, want, 64);
	ck_assert_int_eq(e4_siphash_u64(&h, mk, 0x0706050403020100ULL), E4_OK);
	ck_assert_uint_eq(h, 0x93f5f5799a932462ULL);
	ck_assert_int_eq(e4_siphash_u64(&h, mk, 12345), E4_OK);
	ck_assert_uint_eq(h, 0x4a82911729d15a3eULL);
}
END_TEST

/* e4crypt's passphrase key: expected values from a Python implementation
 * over hashlib following e2fsprogs misc/e4crypt.c pbkdf2_sha512. */
START_TEST(e4crypt_passphrase)
{
	uint8_t salt[16], out[64], want[64];
	const char *pw = "correct horse battery staple";

	for (int i = 0; i < 16; i++)
		salt[i] = (uint8_t)i;
	ck_assert_int_eq(e4_e4crypt_passphrase_key(out, (const uint8_t *)pw,
						   strlen(pw), salt, 16), E4_OK);
	unhex("72d9d337e1596165563d689c996df7501547f221bbc4feaa1317efe135b5c532"
	      "af1b4c9f66c04378b9cebd8c28f10aa7c037ff5185eb533eb8c6148fde4808ab", want);
	ck_assert_mem_eq(out, want, 64);
	ck_assert_int_eq(e4_e4crypt_passphrase_key(out, (const uint8_t *)"x", 1,
						   NULL, 0), E4_OK);
	unhex("fdeafd231aada7d4adaa8f1040078b331610b19f71e68cc74a7cf6e42b507b1a"
	      "cb86555c951eea1db50211ac06a4ede75ce66642223da93d3ea12e5b1da5b065", want);
	ck_assert_mem_eq(out, want, 64);
}
END_TEST

Suite *lib_suite(void)
{
	Suite *s = suite_create("e4core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, context_v1_valid);
	tcase_add_test(tc, context_corrupt);
	tcase_add_test(tc, context_unrecognized);
	tcase_add_test(tc, context_v2);
	tcase_add_test(tc, kdf_fips197);
	tcase_add_test(tc, e4crypt_descriptor);
	tcase_add_test(tc, cts_rfc3962);
	tcase_add_test(tc, name_plausibility);
	tcase_add_test(tc, symlink_bounds);
	tcase_add_test(tc, keyfile_forms);
	tcase_add_test(tc, keyfile_states);
	tcase_add_test(tc, keyfile_states_refused);
	tcase_add_test(tc, keyfile_states_format);
	tcase_add_test(tc, base64url);
	tcase_add_test(tc, nokey_long_name);
	tcase_add_test(tc, nokey_2015);
	tcase_add_test(tc, v2_kdf);
	tcase_add_test(tc, e4crypt_passphrase);
	suite_add_tcase(s, tc);
	return s;
}
