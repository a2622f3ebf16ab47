#include <string.h>
#include "kdf.h"
#include "keysetup.h"
#include "memkeys.h"
#include "modes.h"

/* v1 (fs/crypto/keysetup_v1.c): from the raw key only. */
static enum e4_status v1_key(const struct e4_algs *a,
			     const struct e4_master_key *k,
			     const struct e4_context *ctx, uint8_t mode,
			     uint8_t *dk, size_t keysize)
{
	const uint8_t *master = k->raw;
	size_t master_len = k->len;

	if (k->is_states)
		return E4_BAD_KEY;
	if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY) {
		if (mode != E4_MODE_ADIANTUM)
			return E4_UNSUPPORTED; /* Linux refuses the policy */
		if (master_len < keysize)
			return E4_BAD_KEY;
		memcpy(dk, master, keysize);
		return E4_OK;
	}
	if (master_len < keysize)
		return E4_BAD_KEY;
	return e4_v1_derive_key_algs(a, dk, keysize, master, master_len, ctx->nonce);
}

/* HKDF-Expand of a v2 key (fs/crypto/hkdf.c): the one choice between a
 * raw key (OpenSSL's HKDF-SHA512) and its HMAC states (memkeys.c). */
static enum e4_status hkdf(const struct e4_algs *a,
			   const struct e4_master_key *k, uint8_t context,
			   const uint8_t *info, size_t info_len, uint8_t *out,
			   size_t out_len)
{
	if (k->is_states)
		return e4_hkdf_expand_states(&k->states, context, info,
					     info_len, out, out_len);
	return e4_hkdf_sha512_algs(a, out, out_len, k->raw, k->len, context,
				   info, info_len);
}

/* v2 (fs/crypto/keysetup.c fscrypt_setup_v2_file_key). */
static enum e4_status v2_key(const struct e4_algs *a,
			     const struct e4_master_key *k,
			     const struct e4_context *ctx, uint8_t mode,
			     uint32_t ino, const uint8_t fs_uuid[16],
			     uint8_t *dk, size_t keysize,
			     enum e4_iv_scheme *scheme, uint32_t *iv_ino)
{
	uint8_t info[17];
	enum e4_status st;

	info[0] = mode;
	memcpy(info + 1, fs_uuid, 16);
	*scheme = E4_IV_LBLK;
	*iv_ino = 0;
	if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY) {
		if (mode != E4_MODE_ADIANTUM)
			return E4_UNSUPPORTED;
		return hkdf(a, k, E4_HKDF_DIRECT_KEY, &mode, 1, dk, keysize);
	}
	if (ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_64) {
		*scheme = E4_IV_INO_LBLK_64;
		*iv_ino = ino;
		return hkdf(a, k, E4_HKDF_IV_INO_LBLK_64_KEY, info, 17, dk, keysize);
	}
	if (ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_32) {
		uint8_t hk[16];
		uint64_t h = 0;

		st = hkdf(a, k, E4_HKDF_INODE_HASH_KEY, NULL, 0, hk, 16);
		if (st == E4_OK)
			st = e4_siphash_u64(&h, hk, ino);
		e4_wipe(hk, sizeof(hk));
		if (st)
			return st;
		*scheme = E4_IV_INO_LBLK_32;
		*iv_ino = (uint32_t)h;
		return hkdf(a, k, E4_HKDF_IV_INO_LBLK_32_KEY, info, 17, dk, keysize);
	}
	return hkdf(a, k, E4_HKDF_PER_FILE_ENC_KEY, ctx->nonce, E4_NONCE_SIZE, dk, keysize);
}

static const struct e4_mode_info *mode_of(const struct e4_context *ctx,
					  enum e4_key_use use,
					  enum e4_status *st)
{
	uint8_t mode = use == E4_KEY_NAMES ? ctx->filenames_mode :
					     ctx->contents_mode;
	const struct e4_mode_info *m = e4_mode_lookup(mode);

	*st = !m ? E4_UNRECOGNIZED : !m->supported ? E4_UNSUPPORTED : E4_OK;
	return *st == E4_OK ? m : NULL;
}

static enum e4_status derive(const struct e4_algs *a,
			     const struct e4_master_key *k,
			     const struct e4_context *ctx, uint32_t ino,
			     const uint8_t fs_uuid[16], enum e4_key_use use,
			     uint8_t dk[E4_MAX_KEY_SIZE], size_t *dk_len,
			     enum e4_iv_scheme *scheme, uint32_t *iv_ino)
{
	enum e4_status st;
	const struct e4_mode_info *m = mode_of(ctx, use, &st);

	*dk_len = 0;
	*scheme = E4_IV_LBLK;
	*iv_ino = 0;
	if (!m)
		return st;
	if (ctx->version == E4_CONTEXT_V2)
		st = v2_key(a, k, ctx, m->mode, ino, fs_uuid, dk, m->keysize,
			    scheme, iv_ino);
	else if (ctx->version == E4_CONTEXT_V1)
		st = v1_key(a, k, ctx, m->mode, dk, m->keysize);
	else
		st = E4_UNRECOGNIZED;
	if (st != E4_OK) {
		e4_wipe(dk, E4_MAX_KEY_SIZE);
		return st;
	}
	*dk_len = m->keysize;
	return E4_OK;
}

enum e4_status e4_keysetup_derive(const struct e4_master_key *k,
				  const struct e4_context *ctx, uint32_t ino,
				  const uint8_t fs_uuid[16], enum e4_key_use use,
				  uint8_t dk[E4_MAX_KEY_SIZE], size_t *dk_len,
				  enum e4_iv_scheme *scheme, uint32_t *iv_ino)
{
	return derive(NULL, k, ctx, ino, fs_uuid, use, dk, dk_len, scheme,
		      iv_ino);
}

enum e4_status e4_keysetup_inode(const struct e4_master_key *k,
				 const struct e4_context *ctx, uint32_t ino,
				 const uint8_t fs_uuid[16], enum e4_key_use use,
				 struct e4_cipher **out)
{
	return e4_keysetup_inode_algs(NULL, k, ctx, ino, fs_uuid, use, out);
}

enum e4_status e4_keysetup_inode_algs(const struct e4_algs *a,
				      const struct e4_master_key *k,
				      const struct e4_context *ctx, uint32_t ino,
				      const uint8_t fs_uuid[16],
				      enum e4_key_use use, struct e4_cipher **out)
{
	enum e4_status st;
	enum e4_iv_scheme scheme;
	uint32_t iv_ino;
	uint8_t dk[E4_MAX_KEY_SIZE];
	size_t dk_len;

	*out = NULL;
	st = derive(a, k, ctx, ino, fs_uuid, use, dk, &dk_len, &scheme, &iv_ino);
	if (st == E4_OK)
		st = e4_cipher_new_algs(a, out, use == E4_KEY_NAMES ?
					ctx->filenames_mode : ctx->contents_mode,
					dk, dk_len);
	e4_wipe(dk, sizeof(dk));
	if (st != E4_OK)
		return st;
	e4_cipher_set_iv_scheme(*out, scheme, iv_ino);
	if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY)
		e4_cipher_set_direct_key(*out, ctx->nonce);
	return E4_OK;
}

int e4_context_is_dummy_2015(const struct e4_context *ctx)
{
	static const uint8_t desc[E4_KEY_DESCRIPTOR_SIZE] = {
		0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42 };

	return ctx->version == E4_CONTEXT_V1 &&
	       !memcmp(ctx->key_id, desc, sizeof(desc));
}

enum e4_status e4_keysetup_dummy_2015(const struct e4_context *ctx,
				      enum e4_key_use use,
				      struct e4_cipher **out)
{
	enum e4_status st;
	const struct e4_mode_info *m = mode_of(ctx, use, &st);
	uint8_t dk[E4_MAX_KEY_SIZE];

	*out = NULL;
	if (!m)
		return st;
	if (!e4_context_is_dummy_2015(ctx))
		return E4_INVALID;
	memset(dk, 0x42, m->keysize);
	st = e4_cipher_new(out, m->mode, dk, m->keysize);
	e4_wipe(dk, sizeof(dk));
	return st;
}

enum e4_status e4_keysetup_dirhash_key(const struct e4_master_key *k,
				       const struct e4_context *ctx,
				       uint8_t key[16])
{
	if (ctx->version != E4_CONTEXT_V2)
		return E4_UNSUPPORTED;
	return hkdf(NULL, k, E4_HKDF_DIRHASH_KEY, ctx->nonce, E4_NONCE_SIZE,
		    key, 16);
}
