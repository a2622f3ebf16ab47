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

/* The buffers a check works in (hex fields decoded, results). */
struct vbuf {
	uint8_t a[BUF], b[BUF], c[BUF], r[BUF];
};

/* Each check: 0 = recomputed equal, 1 = differs, -1 = malformed. */
typedef int (*check_fn)(json_object *o, const char *type, struct vbuf *v);

static int check_inode_key(json_object *o, const char *type, struct vbuf *v)
{
	(void)type, (void)v;
	return vectors_check_inode_key(o);
}

static int check_kdf_v1(json_object *o, const char *type, struct vbuf *v)
{
	size_t la, lb, lc;

	(void)type;
	if (get_hex(o, "master", v->a, BUF, &la) || get_hex(o, "nonce", v->b, 16, &lb) ||
	    lb != 16 || get_hex(o, "derived", v->c, 64, &lc))
		return -1;
	return e4_v1_derive_key(v->r, lc, v->a, la, v->b) || memcmp(v->r, v->c, lc);
}

static int check_hkdf_v2(json_object *o, const char *type, struct vbuf *v)
{
	size_t la, lb, lc;

	(void)type;
	if (get_hex(o, "master", v->a, 64, &la) || get_hex(o, "info", v->b, 64, &lb) ||
	    get_hex(o, "derived", v->c, 64, &lc))
		return -1;
	return e4_hkdf_sha512(v->r, lc, v->a, la, (uint8_t)get_int(o, "context"), v->b, lb) ||
	       memcmp(v->r, v->c, lc);
}

static int check_key_identifier(json_object *o, const char *type, struct vbuf *v)
{
	size_t la, lc;

	(void)type;
	if (get_hex(o, "key", v->a, 64, &la) || get_hex(o, "identifier", v->c, 16, &lc) ||
	    lc != 16)
		return -1;
	return e4_v2_key_identifier(v->r, v->a, la) || memcmp(v->r, v->c, 16);
}

static int check_inode_hash(json_object *o, const char *type, struct vbuf *v)
{
	uint64_t h;
	size_t la;

	(void)type;
	if (get_hex(o, "key", v->a, 16, &la) || la != 16)
		return -1;
	return e4_siphash_u64(&h, v->a, (uint64_t)get_int(o, "ino")) ||
	       (uint32_t)h != (uint32_t)get_int(o, "hash");
}

static int check_descriptor(json_object *o, const char *type, struct vbuf *v)
{
	size_t la, lc;

	(void)type;
	if (get_hex(o, "key", v->a, 64, &la) || get_hex(o, "descriptor", v->c, 8, &lc) ||
	    lc != 8)
		return -1;
	return e4_e4crypt_descriptor(v->r, v->a, la) || memcmp(v->r, v->c, 8);
}

/* "xts" and "essiv": a data unit decrypted. */
static int check_data_unit(json_object *o, const char *type, struct vbuf *v)
{
	int xts = type[0] == 'x', bad;
	size_t kl = xts ? 64 : 16, la, lb, lc;
	struct e4_cipher *ci;

	if (get_hex(o, "key", v->a, 64, &la) || la != kl ||
	    get_hex(o, "plaintext", v->b, BUF, &lb) ||
	    get_hex(o, "ciphertext", v->c, BUF, &lc) || lb != lc)
		return -1;
	if (e4_cipher_new(&ci, xts ? E4_MODE_AES_256_XTS : E4_MODE_AES_128_CBC, v->a, kl))
		return 1;
	bad = set_iv_flags(ci, o);
	if (!bad)
		bad = e4_decrypt_data_unit(ci, (uint64_t)get_int(o, "lblk"), v->c, v->r, lc) ||
		      memcmp(v->r, v->b, lb);
	e4_cipher_free(ci);
	return bad;
}

static int check_adiantum_unit(json_object *o, const char *type, struct vbuf *v)
{
	(void)type;
	return check_adiantum(o, v->a, v->b, v->c, v->r);
}

/* "name" and "symlink": the stored length rule, then decryption. */
static int check_name(json_object *o, const char *type, struct vbuf *v)
{
	int is_name = !strcmp(type, "name"), bad;
	int mode = json_object_object_get_ex(o, "mode", NULL) ?
		   (int)get_int(o, "mode") : E4_MODE_AES_256_CTS;
	size_t la, lb, lc, n, st;
	struct e4_cipher *ci;

	if (get_hex(o, "key", v->a, 32, &la) ||
	    la != (mode == E4_MODE_AES_128_CTS ? 16u : 32u) ||
	    (mode != E4_MODE_AES_128_CTS && mode != E4_MODE_AES_256_CTS &&
	     mode != E4_MODE_ADIANTUM && mode != E4_MODE_AES_256_HCTR2) ||
	    (mode == E4_MODE_ADIANTUM && json_object_object_get_ex(o, "iv_flags", NULL)) ||
	    get_hex(o, is_name ? "name" : "target", v->b, BUF, &lb) ||
	    get_hex(o, is_name ? "stored" : "blob", v->c, BUF, &lc))
		return -1;
	st = stored_len(get_str(o, "generation"), (unsigned int)get_int(o, "padding"), lb,
			is_name ? 255 : 4093);
	if (st != lc - (is_name ? 0 : 2))
		return 1; /* the length rule */
	if (e4_cipher_new(&ci, (uint8_t)mode, v->a, la))
		return 1;
	if (set_iv_flags(ci, o) || set_direct_key(ci, o, mode)) {
		e4_cipher_free(ci);
		return -1;
	}
	bad = is_name ? (int)e4_decrypt_name(ci, v->c, lc, v->r, &n) :
			(int)e4_symlink_decrypt(ci, v->c, lc, v->r, &n);
	e4_cipher_free(ci);
	return bad || n != lb || memcmp(v->r, v->b, lb);
}

/* "nokey_2015" and "nokey_61". */
static int check_nokey_format(json_object *o, const char *type, struct vbuf *v)
{
	char s[E4_NOKEY_NAME_MAX + 1];
	size_t la;
	int bad;

	if (get_hex(o, "ciphertext", v->a, 255, &la))
		return -1;
	if (type[6] == '2')
		bad = e4_nokey_name_2015(v->a, la, s) != E4_OK;
	else
		bad = e4_nokey_name_v61((uint32_t)get_int(o, "hash"),
					(uint32_t)get_int(o, "minor_hash"), v->a, la, s) != E4_OK;
	return bad || strcmp(s, get_str(o, "nokey"));
}

/* "nokey": the no-key name of one kernel generation. */
static int check_nokey_generation(json_object *o, const char *type, struct vbuf *v)
{
	static const struct { const char *name; int g; } gens[] = {
		{ "2015", -1 }, { "4.1", E4_NOKEY_GEN_41 }, { "4.12", E4_NOKEY_GEN_412 },
		{ "5.6", E4_NOKEY_GEN_56 }, { "5.15", -2 },
	};
	const char *gen = get_str(o, "generation");
	uint32_t h = (uint32_t)get_int(o, "hash"), m = (uint32_t)get_int(o, "minor_hash");
	char s[E4_NOKEY_NAME_MAX + 1];
	size_t g, la;
	int bad;

	(void)type;
	if (get_hex(o, "ciphertext", v->a, 255, &la))
		return -1;
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]) && strcmp(gens[g].name, gen); g++)
		;
	if (g == sizeof(gens) / sizeof(gens[0]))
		return -1;
	bad = gens[g].g == -1 ? e4_nokey_name_2015(v->a, la, s) != E4_OK :
	      gens[g].g == -2 ? e4_nokey_name_v61(h, m, v->a, la, s) != E4_OK :
	      e4_nokey_name_gen((enum e4_nokey_generation)gens[g].g, h, m, v->a, la, s) != E4_OK;
	return bad || strcmp(s, get_str(o, "nokey"));
}

static int check_name_hash(json_object *o, const char *type, struct vbuf *v)
{
	const char *gen = get_str(o, "generation");
	char s[E4_NOKEY_2015_MAX + 1];
	uint32_t h, m;
	size_t la, lb;

	(void)type;
	if (get_hex(o, "seed", v->a, 16, &la) || la != 16 ||
	    get_hex(o, "ciphertext", v->b, 255, &lb) || lb < 16)
		return -1;
	if (!strcmp(gen, "2015")) {
		if (e4_nokey_name_2015(v->b, lb, s))
			return 1;
		dirhash((int)get_int(o, "version"), v->a, (const uint8_t *)s, strlen(s), &h, &m);
	} else if (!strcmp(gen, "4.1")) {
		dirhash((int)get_int(o, "version"), v->a, v->b, lb, &h, &m);
	} else {
		return -1;
	}
	return h != (uint32_t)get_int(o, "hash") || m != (uint32_t)get_int(o, "minor_hash");
}

static int check_encode_le6(json_object *o, const char *type, struct vbuf *v)
{
	char s[4 * 255 / 3 + 4];
	size_t la;

	(void)type;
	if (get_hex(o, "bytes", v->a, 255, &la))
		return -1;
	e4_encode_le6(v->a, la, s);
	return strcmp(s, get_str(o, "text")) != 0;
}

static int check_context(json_object *o, const char *type, struct vbuf *v)
{
	static const char *res[] = { "ok", "corrupt", "unrecognized" };
	struct e4_context ctx;
	enum e4_status st;
	const char *want = get_str(o, "result");
	size_t la, lb, lc;

	(void)type;
	if (get_hex(o, "bytes", v->a, 64, &la))
		return -1;
	st = e4_context_parse(&ctx, v->a, la);
	if (st > E4_UNRECOGNIZED || strcmp(res[st], want))
		return 1;
	if (st != E4_OK)
		return 0;
	if (get_hex(o, "key_id", v->b, 16, &lb) || get_hex(o, "nonce", v->c, 16, &lc))
		return -1;
	return ctx.version != get_int(o, "version") ||
	       ctx.contents_mode != get_int(o, "contents_mode") ||
	       ctx.filenames_mode != get_int(o, "filenames_mode") ||
	       ctx.flags != get_int(o, "flags") || lb != ctx.key_id_size ||
	       memcmp(v->b, ctx.key_id, lb) || lc != 16 || memcmp(v->c, ctx.nonce, 16);
}

static int check_dirhash(json_object *o, const char *type, struct vbuf *v)
{
	int version = (int)get_int(o, "version");
	uint32_t h, m;
	size_t la, lb;

	(void)type;
	if (get_hex(o, version == E4_DX_HASH_SIPHASH ? "key" : "seed", v->a, 16, &la) ||
	    la != 16 || get_hex(o, "name", v->b, 255, &lb))
		return -1;
	if (version == E4_DX_HASH_SIPHASH) {
		if (e4_siphash_dirhash(v->a, v->b, lb, &h, &m))
			return 1;
	} else {
		dirhash(version, v->a, v->b, lb, &h, &m);
	}
	return h != (uint32_t)get_int(o, "hash") || m != (uint32_t)get_int(o, "minor_hash");
}

static int check_passphrase(json_object *o, const char *type, struct vbuf *v)
{
	size_t la, lb, lc, n;

	(void)type;
	if (get_hex(o, "passphrase", v->a, 1024, &la) || get_hex(o, "salt", v->b, 256, &lb) ||
	    get_hex(o, "key", v->c, 64, &lc) || lc != 64 ||
	    get_hex(o, "descriptor", v->r + 64, 8, &n) || n != 8)
		return -1;
	return e4_e4crypt_passphrase_key(v->r, v->a, la, v->b, lb) ||
	       memcmp(v->r, v->c, 64) || e4_e4crypt_descriptor(v->r + 128, v->r, 64) ||
	       memcmp(v->r + 128, v->r + 64, 8);
}

/* Every vector type and its check (testvectors/README.md lists them). */
static const struct {
	const char *type;
	check_fn check;
} checks[] = {
	{ "inode_key", check_inode_key },
	{ "kdf_v1", check_kdf_v1 },
	{ "hkdf_v2", check_hkdf_v2 },
	{ "key_identifier_v2", check_key_identifier },
	{ "inode_hash", check_inode_hash },
	{ "descriptor_e4crypt", check_descriptor },
	{ "xts", check_data_unit },
	{ "essiv", check_data_unit },
	{ "adiantum", check_adiantum_unit },
	{ "name", check_name },
	{ "symlink", check_name },
	{ "nokey_2015", check_nokey_format },
	{ "nokey_61", check_nokey_format },
	{ "nokey", check_nokey_generation },
	{ "name_hash", check_name_hash },
	{ "encode_le6", check_encode_le6 },
	{ "context", check_context },
	{ "dirhash", check_dirhash },
	{ "passphrase_e4crypt", check_passphrase },
};

/* 0 = recomputed equal, 1 = differs, -1 = malformed or unknown type */
int vectors_check_one(json_object *o)
{
	const char *type = get_str(o, "type");
	struct vbuf *v;
	int rc = -1;

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		if (strcmp(type, checks[i].type))
			continue;
		v = malloc(sizeof(*v));
		if (!v)
			return 1;
		rc = checks[i].check(o, type, v);
		free(v);
		break;
	}
	return rc;
}
