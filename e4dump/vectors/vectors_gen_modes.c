/* e4dump vectors: the IV flags, the AES-128 modes, e4crypt passphrases,
 * the casefold SipHash dirhash, the no-key names of every generation, then
 * Adiantum and AES-256-HCTR2 (appended after the base set so that the
 * earlier vectors of a seed never change). */
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "kdf.h"
#include "nokey.h"
#include "siphash_dirhash.h"
#include "vectors.h"

static const char *const iv_flag_names[] = { "lblk", "ino_lblk_64", "ino_lblk_32" };

static void add_iv_fields(json_object *o, enum e4_iv_scheme s, uint32_t v)
{
	if (s == E4_IV_LBLK)
		return;
	json_object_object_add(o, "iv_flags", json_object_new_string(iv_flag_names[s]));
	json_object_object_add(o, s == E4_IV_INO_LBLK_64 ? "ino" : "hashed_ino",
			       json_object_new_int64(v));
}

static void gen_contents(struct drbg *d)
{
	static const struct {
		uint8_t mode;
		enum e4_iv_scheme s;
		uint32_t v;
		size_t du;
		uint64_t lblk;
	} cv[] = {
		{ E4_MODE_AES_256_XTS, E4_IV_INO_LBLK_64, 12, 4096, 0 },
		{ E4_MODE_AES_256_XTS, E4_IV_INO_LBLK_64, 0xfffffff0u, 1024, 77 },
		{ E4_MODE_AES_256_XTS, E4_IV_INO_LBLK_32, 0x9c2a1f07u, 4096, 3 },
		{ E4_MODE_AES_256_XTS, E4_IV_INO_LBLK_32, 0xfffffffeu, 2048, 5 },
		{ E4_MODE_AES_128_CBC, E4_IV_LBLK, 0, 4096, 0 },
		{ E4_MODE_AES_128_CBC, E4_IV_LBLK, 0, 1024, 9 },
		{ E4_MODE_AES_128_CBC, E4_IV_LBLK, 0, 2048, 2 },
	};
	uint8_t key[64], in[4096], out[4096];

	for (size_t i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		int xts = cv[i].mode == E4_MODE_AES_256_XTS;
		size_t kl = xts ? 64 : 16;
		struct e4_cipher *c;
		json_object *o;

		drbg_bytes(d, key, kl);
		drbg_bytes(d, in, cv[i].du);
		if (e4_cipher_new(&c, cv[i].mode, key, kl))
			abort();
		e4_cipher_set_iv_scheme(c, cv[i].s, cv[i].v);
		if (e4_encrypt_data_unit(c, cv[i].lblk, in, out, cv[i].du))
			abort();
		e4_cipher_free(c);
		o = vec(xts ? "xts" : "essiv");
		add_hex(o, "key", key, kl);
		json_object_object_add(o, "lblk", json_object_new_int64((int64_t)cv[i].lblk));
		add_iv_fields(o, cv[i].s, cv[i].v);
		add_hex(o, "plaintext", in, cv[i].du);
		add_hex(o, "ciphertext", out, cv[i].du);
		vec_emit(o);
	}
}

/* Names with a 16-byte AES-128-CTS key (mode 6) at every length, and
 * AES-256-CTS names under the IV flags (the IV is not zero there). */
static void gen_names(struct drbg *d)
{
	static const size_t lens[] = { 1, 3, 15, 16, 17, 31, 32, 33, 100, 254, 255 };
	static const struct { enum e4_iv_scheme s; uint32_t v; size_t len; } fv[] = {
		{ E4_IV_INO_LBLK_64, 12, 5 }, { E4_IV_INO_LBLK_64, 70001, 40 },
		{ E4_IV_INO_LBLK_32, 0x12345678u, 17 }, { E4_IV_INO_LBLK_32, 0xfffffffeu, 255 },
	};
	uint8_t key[32], in[256], out[256];

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]) + 4; i++) {
		int flagged = i >= sizeof(lens) / sizeof(lens[0]);
		size_t f = flagged ? i - sizeof(lens) / sizeof(lens[0]) : 0;
		size_t len = flagged ? fv[f].len : lens[i], kl = flagged ? 32 : 16;
		size_t st = stored_len("6.1", 16, len, 255);
		struct e4_cipher *c;
		json_object *o;

		drbg_bytes(d, key, kl);
		drbg_name(d, in, len);
		memset(in + len, 0, st - len);
		if (e4_cipher_new(&c, flagged ? E4_MODE_AES_256_CTS : E4_MODE_AES_128_CTS,
				  key, kl))
			abort();
		if (flagged)
			e4_cipher_set_iv_scheme(c, fv[f].s, fv[f].v);
		if (e4_encrypt_name(c, in, st, out))
			abort();
		e4_cipher_free(c);
		o = vec("name");
		json_object_object_add(o, "generation", json_object_new_string("6.1"));
		json_object_object_add(o, "padding", json_object_new_int(16));
		if (!flagged)
			json_object_object_add(o, "mode", json_object_new_int(E4_MODE_AES_128_CTS));
		else
			add_iv_fields(o, fv[f].s, fv[f].v);
		add_hex(o, "key", key, kl);
		add_hex(o, "name", in, len);
		add_hex(o, "stored", out, st);
		vec_emit(o);
	}
}

static void gen_passphrases(struct drbg *d)
{
	static const char *const pass[] = { "password", "correct horse battery staple", "x" };
	uint8_t salt[16], key[64], desc[8];

	for (size_t i = 0; i < 3; i++) {
		size_t pl = strlen(pass[i]);
		json_object *o;

		drbg_bytes(d, salt, 16);
		if (e4_e4crypt_passphrase_key(key, (const uint8_t *)pass[i], pl, salt, 16) ||
		    e4_e4crypt_descriptor(desc, key, 64))
			abort();
		o = vec("passphrase_e4crypt");
		add_hex(o, "passphrase", (const uint8_t *)pass[i], pl);
		add_hex(o, "salt", salt, 16);
		add_hex(o, "key", key, 64);
		add_hex(o, "descriptor", desc, 8);
		vec_emit(o);
	}
}

/* Hash version 6: SipHash under the directory's dirhash key, over the
 * casefolded plaintext name. */
static void gen_siphash_dirhash(struct drbg *d)
{
	static const char *const names[] = { "readme.txt", "a", "a\xcc\x88.txt" /* NFD of "ä.txt" */, "0123456789abcdef0123456789abcdef" };
	uint8_t key[16];

	for (size_t i = 0; i < 4; i++) {
		uint32_t h, m;
		json_object *o;

		drbg_bytes(d, key, 16);
		if (e4_siphash_dirhash(key, (const uint8_t *)names[i], strlen(names[i]), &h, &m))
			abort();
		o = vec("dirhash");
		json_object_object_add(o, "version", json_object_new_int(E4_DX_HASH_SIPHASH));
		add_hex(o, "key", key, 16);
		add_hex(o, "name", (const uint8_t *)names[i], strlen(names[i]));
		json_object_object_add(o, "hash", json_object_new_int64(h));
		json_object_object_add(o, "minor_hash", json_object_new_int64(m));
		vec_emit(o);
	}
}

/* No-key names of 4.1, 4.12 and 5.6 (2015 and 5.15 have their own types)
 * for ciphertext lengths around each threshold. */
static void gen_nokey_generations(struct drbg *d)
{
	static const size_t cl[] = { 16, 17, 31, 32, 33, 48, 100, 149, 150, 255 };
	static const struct { enum e4_nokey_generation g; const char *name; } gens[] = {
		{ E4_NOKEY_GEN_41, "4.1" }, { E4_NOKEY_GEN_412, "4.12" }, { E4_NOKEY_GEN_56, "5.6" },
	};
	uint8_t ct[255];
	char s[E4_NOKEY_NAME_MAX + 1];

	for (size_t g = 0; g < 3; g++) {
		for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
			uint32_t h[2];
			json_object *o;

			drbg_bytes(d, ct, cl[i]);
			drbg_bytes(d, (uint8_t *)h, sizeof(h));
			h[0] &= ~1u;
			if (e4_nokey_name_gen(gens[g].g, h[0], h[1], ct, cl[i], s))
				abort();
			o = vec("nokey");
			json_object_object_add(o, "generation", json_object_new_string(gens[g].name));
			json_object_object_add(o, "hash", json_object_new_int64(h[0]));
			json_object_object_add(o, "minor_hash", json_object_new_int64(h[1]));
			add_hex(o, "ciphertext", ct, cl[i]);
			json_object_object_add(o, "nokey", json_object_new_string(s));
			vec_emit(o);
		}
	}
}

/* The htree hash of a stored name per generation: the seed hashed its
 * no-key string, 4.1 and later the ciphertext. */
static void gen_name_hashes(struct drbg *d)
{
	static const size_t cl[] = { 16, 33, 100 };
	uint8_t ct[255], seed[16];
	char s[E4_NOKEY_2015_MAX + 1];

	for (int g = 0; g < 2; g++) {
		for (size_t i = 0; i < 3; i++) {
			uint32_t h, m;
			json_object *o;

			drbg_bytes(d, ct, cl[i]);
			drbg_bytes(d, seed, 16);
			if (g == 0) {
				if (e4_nokey_name_2015(ct, cl[i], s))
					abort();
				dirhash(1, seed, (const uint8_t *)s, strlen(s), &h, &m);
			} else {
				dirhash(1, seed, ct, cl[i], &h, &m);
			}
			o = vec("name_hash");
			json_object_object_add(o, "generation", json_object_new_string(g ? "4.1" : "2015"));
			json_object_object_add(o, "version", json_object_new_int(1));
			add_hex(o, "seed", seed, 16);
			add_hex(o, "ciphertext", ct, cl[i]);
			json_object_object_add(o, "hash", json_object_new_int64(h));
			json_object_object_add(o, "minor_hash", json_object_new_int64(m));
			vec_emit(o);
		}
	}
}

/* Adiantum data units (spec section 7.1): the 32-byte IV is le64(lblk),
 * the file's nonce under DIRECT_KEY (else zeros), then zeros. */
static void gen_adiantum_contents(struct drbg *d)
{
	static const struct { size_t du; uint64_t lblk; int direct; } cv[] = {
		{ 4096, 0, 0 }, { 2048, 9, 0 }, { 1024, 0xfffffffeu, 0 },
		{ 4096, 1, 1 }, { 2048, 0, 1 }, { 1024, 77, 1 },
	};
	uint8_t key[32], nonce[16], in[4096], out[4096];

	for (size_t i = 0; i < sizeof(cv) / sizeof(cv[0]); i++) {
		struct e4_cipher *c;
		json_object *o;

		drbg_bytes(d, key, 32);
		if (cv[i].direct)
			drbg_bytes(d, nonce, 16);
		drbg_bytes(d, in, cv[i].du);
		if (e4_cipher_new(&c, E4_MODE_ADIANTUM, key, 32))
			abort();
		if (cv[i].direct)
			e4_cipher_set_direct_key(c, nonce);
		if (e4_encrypt_data_unit(c, cv[i].lblk, in, out, cv[i].du))
			abort();
		e4_cipher_free(c);
		o = vec("adiantum");
		add_hex(o, "key", key, 32);
		json_object_object_add(o, "lblk", json_object_new_int64((int64_t)cv[i].lblk));
		if (cv[i].direct)
			add_hex(o, "nonce", nonce, 16);
		add_hex(o, "plaintext", in, cv[i].du);
		add_hex(o, "ciphertext", out, cv[i].du);
		vec_emit(o);
	}
}

/* One name or symlink target encrypted with Adiantum (mode 9) or
 * AES-256-HCTR2 (mode 10) as one wide-block message: with a DIRECT_KEY
 * nonce (Adiantum) or under an IV flag (HCTR2; the value from drbg). */
static void gen_wide_one(struct drbg *d, int symlink, uint8_t mode, int direct,
			 enum e4_iv_scheme s, unsigned int pad, size_t len)
{
	uint8_t key[32], nonce[16], in[4096] = { 0 }, out[4096 + 2], v[4] = { 0 };
	size_t st = stored_len("6.1", pad, len, symlink ? 4093 : 255);
	uint32_t iv_value;
	struct e4_cipher *c;
	json_object *o;

	drbg_bytes(d, key, 32);
	if (direct)
		drbg_bytes(d, nonce, 16);
	if (s != E4_IV_LBLK)
		drbg_bytes(d, v, 4);
	iv_value = (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 |
		   (uint32_t)v[3] << 24;
	drbg_name(d, in, len);
	if (symlink && len > 4)
		in[len / 2] = '/';
	if (e4_cipher_new(&c, mode, key, 32))
		abort();
	if (direct)
		e4_cipher_set_direct_key(c, nonce);
	if (s != E4_IV_LBLK)
		e4_cipher_set_iv_scheme(c, s, iv_value);
	if (e4_encrypt_name(c, in, st, out + 2))
		abort();
	e4_cipher_free(c);
	out[0] = (uint8_t)st;
	out[1] = (uint8_t)(st >> 8);
	o = vec(symlink ? "symlink" : "name");
	json_object_object_add(o, "generation", json_object_new_string("6.1"));
	json_object_object_add(o, "padding", json_object_new_int((int)pad));
	json_object_object_add(o, "mode", json_object_new_int(mode));
	if (direct)
		add_hex(o, "nonce", nonce, 16);
	if (s != E4_IV_LBLK)
		add_iv_fields(o, s, iv_value);
	add_hex(o, "key", key, 32);
	add_hex(o, symlink ? "target" : "name", in, len);
	if (symlink)
		add_hex(o, "blob", out, st + 2);
	else
		add_hex(o, "stored", out + 2, st);
	vec_emit(o);
}

/* Adiantum names without and with a nonce, HCTR2 names plain and under
 * both IV flags, at lengths around the block and padding boundaries with
 * padding 16 and 32; then four symlinks. */
static void gen_wide_names(struct drbg *d)
{
	static const size_t lens[] = { 1, 16, 17, 32, 33, 100, 255 };
	static const struct { uint8_t mode; int direct; enum e4_iv_scheme s; } kinds[] = {
		{ E4_MODE_ADIANTUM, 0, E4_IV_LBLK },
		{ E4_MODE_ADIANTUM, 1, E4_IV_LBLK },
		{ E4_MODE_AES_256_HCTR2, 0, E4_IV_LBLK },
		{ E4_MODE_AES_256_HCTR2, 0, E4_IV_INO_LBLK_64 },
		{ E4_MODE_AES_256_HCTR2, 0, E4_IV_INO_LBLK_32 },
	};
	static const struct { size_t kind, len; unsigned int pad; } links[] = {
		{ 0, 17, 16 }, { 1, 300, 32 }, { 2, 300, 16 }, { 4, 60, 32 },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			for (unsigned int pad = 16; pad <= 32; pad += 16)
				gen_wide_one(d, 0, kinds[k].mode, kinds[k].direct,
					     kinds[k].s, pad, lens[i]);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		gen_wide_one(d, 1, kinds[links[i].kind].mode, kinds[links[i].kind].direct,
			     kinds[links[i].kind].s, links[i].pad, links[i].len);
}

void vectors_generate_modes(struct drbg *d)
{
	gen_contents(d);
	gen_names(d);
	gen_passphrases(d);
	gen_siphash_dirhash(d);
	gen_nokey_generations(d);
	gen_name_hashes(d);
	/* appended last: the vectors above keep their bytes */
	gen_adiantum_contents(d);
	gen_wide_names(d);
	vectors_generate_keys(d);
}
