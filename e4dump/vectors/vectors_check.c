/* e4dump vectors --check: recompute each vector with the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <ext2fs/ext2fs.h>
#include "cipher.h"
#include "context.h"
#include "kdf.h"
#include "nokey.h"
#include "siphash_dirhash.h"
#include "symlink.h"
#include "vectors.h"

#define BUF 8192

/* The optional "iv_flags" field: "ino_lblk_64" with "ino" or "ino_lblk_32"
 * with "hashed_ino".  0, or -1 when malformed. */
static int set_iv_flags(struct e4_cipher *c, json_object *o)
{
	const char *f;

	if (!json_object_object_get_ex(o, "iv_flags", NULL))
		return 0;
	f = get_str(o, "iv_flags");
	if (!strcmp(f, "ino_lblk_64") && get_int(o, "ino") >= 0)
		e4_cipher_set_iv_scheme(c, E4_IV_INO_LBLK_64, (uint32_t)get_int(o, "ino"));
	else if (!strcmp(f, "ino_lblk_32") && get_int(o, "hashed_ino") >= 0)
		e4_cipher_set_iv_scheme(c, E4_IV_INO_LBLK_32,
					(uint32_t)get_int(o, "hashed_ino"));
	else
		return -1;
	return 0;
}

/* The optional "nonce" (DIRECT_KEY): only with Adiantum (mode 9) and not
 * with the IV flags (spec section 6.3).  0, or -1 when malformed. */
static int set_direct_key(struct e4_cipher *c, json_object *o, int mode)
{
	uint8_t nonce[E4_NONCE_SIZE];
	size_t n;

	if (!json_object_object_get_ex(o, "nonce", NULL))
		return 0;
	if (mode != E4_MODE_ADIANTUM || json_object_object_get_ex(o, "iv_flags", NULL) ||
	    get_hex(o, "nonce", nonce, sizeof(nonce), &n) || n != sizeof(nonce))
		return -1;
	e4_cipher_set_direct_key(c, nonce);
	return 0;
}

/* An Adiantum data unit, decrypted and encrypted. */
static int check_adiantum(json_object *o, uint8_t *a, uint8_t *b, uint8_t *c,
			  uint8_t *r)
{
	size_t la, lb, lc;
	struct e4_cipher *ci;
	int bad;

	if (get_hex(o, "key", a, 32, &la) || la != 32 ||
	    json_object_object_get_ex(o, "iv_flags", NULL) || get_int(o, "lblk") < 0 ||
	    get_hex(o, "plaintext", b, BUF, &lb) ||
	    get_hex(o, "ciphertext", c, BUF, &lc) || lb != lc || lb < 16)
		return -1;
	if (e4_cipher_new(&ci, E4_MODE_ADIANTUM, a, 32))
		return 1;
	bad = set_direct_key(ci, o, E4_MODE_ADIANTUM);
	if (!bad)
		bad = e4_decrypt_data_unit(ci, (uint64_t)get_int(o, "lblk"), c, r, lc) ||
		      memcmp(r, b, lb) ||
		      e4_encrypt_data_unit(ci, (uint64_t)get_int(o, "lblk"), b, r, lb) ||
		      memcmp(r, c, lc);
	e4_cipher_free(ci);
	return bad;
}

/* 0 = recomputed equal, 1 = differs, -1 = malformed */
int vectors_check_one(json_object *o)
{
	static uint8_t a[BUF], b[BUF], c[BUF], r[BUF];
	size_t la, lb, lc, n;
	const char *type = get_str(o, "type");
	struct e4_cipher *ci;
	int bad;

	if (!strcmp(type, "inode_key"))
		return vectors_check_inode_key(o);
	if (!strcmp(type, "kdf_v1")) {
		if (get_hex(o, "master", a, BUF, &la) || get_hex(o, "nonce", b, 16, &lb) ||
		    lb != 16 || get_hex(o, "derived", c, 64, &lc))
			return -1;
		return e4_v1_derive_key(r, lc, a, la, b) || memcmp(r, c, lc);
	}
	if (!strcmp(type, "hkdf_v2")) {
		if (get_hex(o, "master", a, 64, &la) || get_hex(o, "info", b, 64, &lb) ||
		    get_hex(o, "derived", c, 64, &lc))
			return -1;
		return e4_hkdf_sha512(r, lc, a, la, (uint8_t)get_int(o, "context"), b, lb) ||
		       memcmp(r, c, lc);
	}
	if (!strcmp(type, "key_identifier_v2")) {
		if (get_hex(o, "key", a, 64, &la) || get_hex(o, "identifier", c, 16, &lc) || lc != 16)
			return -1;
		return e4_v2_key_identifier(r, a, la) || memcmp(r, c, 16);
	}
	if (!strcmp(type, "inode_hash")) {
		uint64_t h;

		if (get_hex(o, "key", a, 16, &la) || la != 16)
			return -1;
		return e4_siphash_u64(&h, a, (uint64_t)get_int(o, "ino")) ||
		       (uint32_t)h != (uint32_t)get_int(o, "hash");
	}
	if (!strcmp(type, "descriptor_e4crypt")) {
		if (get_hex(o, "key", a, 64, &la) || get_hex(o, "descriptor", c, 8, &lc) || lc != 8)
			return -1;
		return e4_e4crypt_descriptor(r, a, la) || memcmp(r, c, 8);
	}
	if (!strcmp(type, "xts") || !strcmp(type, "essiv")) {
		int xts = type[0] == 'x';
		size_t kl = xts ? 64 : 16;

		if (get_hex(o, "key", a, 64, &la) || la != kl ||
		    get_hex(o, "plaintext", b, BUF, &lb) ||
		    get_hex(o, "ciphertext", c, BUF, &lc) || lb != lc)
			return -1;
		if (e4_cipher_new(&ci, xts ? E4_MODE_AES_256_XTS : E4_MODE_AES_128_CBC, a, kl))
			return 1;
		bad = set_iv_flags(ci, o);
		if (!bad)
			bad = e4_decrypt_data_unit(ci, (uint64_t)get_int(o, "lblk"), c, r, lc) ||
			      memcmp(r, b, lb);
		e4_cipher_free(ci);
		return bad;
	}
	if (!strcmp(type, "adiantum"))
		return check_adiantum(o, a, b, c, r);
	if (!strcmp(type, "name") || !strcmp(type, "symlink")) {
		int is_name = !strcmp(type, "name");
		size_t st;

		int mode = json_object_object_get_ex(o, "mode", NULL) ?
			   (int)get_int(o, "mode") : E4_MODE_AES_256_CTS;

		if (get_hex(o, "key", a, 32, &la) ||
		    la != (mode == E4_MODE_AES_128_CTS ? 16u : 32u) ||
		    (mode != E4_MODE_AES_128_CTS && mode != E4_MODE_AES_256_CTS &&
		     mode != E4_MODE_ADIANTUM && mode != E4_MODE_AES_256_HCTR2) ||
		    (mode == E4_MODE_ADIANTUM && json_object_object_get_ex(o, "iv_flags", NULL)) ||
		    get_hex(o, is_name ? "name" : "target", b, BUF, &lb) ||
		    get_hex(o, is_name ? "stored" : "blob", c, BUF, &lc))
			return -1;
		st = stored_len(get_str(o, "generation"),
				(unsigned int)get_int(o, "padding"), lb,
				is_name ? 255 : 4093);
		if (st != lc - (is_name ? 0 : 2))
			return 1; /* the length rule */
		if (e4_cipher_new(&ci, (uint8_t)mode, a, la))
			return 1;
		if (set_iv_flags(ci, o) || set_direct_key(ci, o, mode)) {
			e4_cipher_free(ci);
			return -1;
		}
		bad = is_name ? (int)e4_decrypt_name(ci, c, lc, r, &n) :
				(int)e4_symlink_decrypt(ci, c, lc, r, &n);
		e4_cipher_free(ci);
		return bad || n != lb || memcmp(r, b, lb);
	}
	if (!strcmp(type, "nokey_2015") || !strcmp(type, "nokey_61")) {
		char s[E4_NOKEY_NAME_MAX + 1];

		if (get_hex(o, "ciphertext", a, 255, &la))
			return -1;
		if (type[6] == '2')
			bad = e4_nokey_name_2015(a, la, s) != E4_OK;
		else
			bad = e4_nokey_name_v61((uint32_t)get_int(o, "hash"),
						(uint32_t)get_int(o, "minor_hash"),
						a, la, s) != E4_OK;
		return bad || strcmp(s, get_str(o, "nokey"));
	}
	if (!strcmp(type, "nokey")) {
		static const struct { const char *name; int g; } gens[] = {
			{ "2015", -1 }, { "4.1", E4_NOKEY_GEN_41 }, { "4.12", E4_NOKEY_GEN_412 },
			{ "5.6", E4_NOKEY_GEN_56 }, { "5.15", -2 },
		};
		const char *gen = get_str(o, "generation");
		uint32_t h = (uint32_t)get_int(o, "hash"), m = (uint32_t)get_int(o, "minor_hash");
		char s[E4_NOKEY_NAME_MAX + 1];
		size_t g;

		if (get_hex(o, "ciphertext", a, 255, &la))
			return -1;
		for (g = 0; g < sizeof(gens) / sizeof(gens[0]) && strcmp(gens[g].name, gen); g++)
			;
		if (g == sizeof(gens) / sizeof(gens[0]))
			return -1;
		bad = gens[g].g == -1 ? e4_nokey_name_2015(a, la, s) != E4_OK :
		      gens[g].g == -2 ? e4_nokey_name_v61(h, m, a, la, s) != E4_OK :
		      e4_nokey_name_gen((enum e4_nokey_generation)gens[g].g, h, m, a, la, s) != E4_OK;
		return bad || strcmp(s, get_str(o, "nokey"));
	}
	if (!strcmp(type, "name_hash")) {
		const char *gen = get_str(o, "generation");
		char s[E4_NOKEY_2015_MAX + 1];
		uint32_t h, m;

		if (get_hex(o, "seed", a, 16, &la) || la != 16 ||
		    get_hex(o, "ciphertext", b, 255, &lb) || lb < 16)
			return -1;
		if (!strcmp(gen, "2015")) {
			if (e4_nokey_name_2015(b, lb, s))
				return 1;
			dirhash((int)get_int(o, "version"), a, (const uint8_t *)s, strlen(s), &h, &m);
		} else if (!strcmp(gen, "4.1")) {
			dirhash((int)get_int(o, "version"), a, b, lb, &h, &m);
		} else {
			return -1;
		}
		return h != (uint32_t)get_int(o, "hash") ||
		       m != (uint32_t)get_int(o, "minor_hash");
	}
	if (!strcmp(type, "encode_le6")) {
		char s[4 * 255 / 3 + 4];

		if (get_hex(o, "bytes", a, 255, &la))
			return -1;
		e4_encode_le6(a, la, s);
		return strcmp(s, get_str(o, "text")) != 0;
	}
	if (!strcmp(type, "context")) {
		static const char *res[] = { "ok", "corrupt", "unrecognized" };
		struct e4_context ctx;
		enum e4_status st;
		const char *want = get_str(o, "result");

		if (get_hex(o, "bytes", a, 64, &la))
			return -1;
		st = e4_context_parse(&ctx, a, la);
		if (st > E4_UNRECOGNIZED || strcmp(res[st], want))
			return 1;
		if (st != E4_OK)
			return 0;
		if (get_hex(o, "key_id", b, 16, &lb) || get_hex(o, "nonce", c, 16, &lc))
			return -1;
		return ctx.version != get_int(o, "version") ||
		       ctx.contents_mode != get_int(o, "contents_mode") ||
		       ctx.filenames_mode != get_int(o, "filenames_mode") ||
		       ctx.flags != get_int(o, "flags") ||
		       lb != ctx.key_id_size || memcmp(b, ctx.key_id, lb) ||
		       lc != 16 || memcmp(c, ctx.nonce, 16);
	}
	if (!strcmp(type, "dirhash")) {
		uint32_t h, m;
		int version = (int)get_int(o, "version");

		if (get_hex(o, version == E4_DX_HASH_SIPHASH ? "key" : "seed", a, 16, &la) ||
		    la != 16 || get_hex(o, "name", b, 255, &lb))
			return -1;
		if (version == E4_DX_HASH_SIPHASH) {
			if (e4_siphash_dirhash(a, b, lb, &h, &m))
				return 1;
		} else {
			dirhash(version, a, b, lb, &h, &m);
		}
		return h != (uint32_t)get_int(o, "hash") ||
		       m != (uint32_t)get_int(o, "minor_hash");
	}
	if (!strcmp(type, "passphrase_e4crypt")) {
		if (get_hex(o, "passphrase", a, 1024, &la) || get_hex(o, "salt", b, 256, &lb) ||
		    get_hex(o, "key", c, 64, &lc) || lc != 64 ||
		    get_hex(o, "descriptor", r + 64, 8, &n) || n != 8)
			return -1;
		return e4_e4crypt_passphrase_key(r, a, la, b, lb) || memcmp(r, c, 64) ||
		       e4_e4crypt_descriptor(r + 128, r, 64) || memcmp(r + 128, r + 64, 8);
	}
	return -1;
}
