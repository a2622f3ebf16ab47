#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kdf.h"
#include "keyfile.h"
#include "keyring.h"
#include "modes.h"
#include "report.h"
#include "symlink.h"

/* Trial decryption accepts a key after this many bits of evidence. */
#define TRIAL_EVIDENCE_BITS 32
/* ... or, once every name of the policy was checked, this many. */
#define TRIAL_EVIDENCE_MIN 16

void keyring_init(struct keyring *kr, struct img *im)
{
	memset(kr, 0, sizeof(*kr));
	kr->im = im;
}

static int read_all(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap, f);
	*len = n;
	if (ferror(f)) {
		if (f != stdin)
			fclose(f);
		errno = EIO;
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

static struct master_key *new_key(struct keyring *kr, const char *source)
{
	struct master_key *keys = realloc(kr->keys, (kr->nkeys + 1) * sizeof(*keys));
	struct master_key *k;

	if (!keys)
		return NULL;
	kr->keys = keys;
	k = &kr->keys[kr->nkeys];
	memset(k, 0, sizeof(*k));
	k->source = strdup(source);
	return k->source ? k : NULL;
}

/* Fill in a new key's derived names and count it. */
static int finish_key(struct keyring *kr, struct master_key *k)
{
	if (e4_e4crypt_descriptor(k->e4crypt_desc, k->raw, k->len) != E4_OK ||
	    e4_v2_key_identifier(k->v2_id, k->raw, k->len) != E4_OK) {
		e4_wipe(k->raw, sizeof(k->raw));
		report_error("key %s: cannot hash the key", k->source);
		free(k->source);
		return -1;
	}
	kr->nkeys++;
	return 0;
}

int keyring_add_passphrase(struct keyring *kr, const char *path,
			   const uint8_t *salt, size_t salt_len)
{
	uint8_t buf[1026];
	size_t len;
	char source[300];
	struct master_key *k;
	enum e4_status st;

	if (read_all(path, buf, sizeof(buf), &len)) {
		report_error("passphrase file %s: %s", path, strerror(errno));
		return -1;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	if (len > 1024 || len == 0) {
		e4_wipe(buf, sizeof(buf));
		report_error("passphrase file %s: %s", path,
			     len ? "passphrase longer than 1024 bytes" : "empty passphrase");
		return -1;
	}
	snprintf(source, sizeof(source), "passphrase %s", path);
	k = new_key(kr, source);
	if (!k) {
		e4_wipe(buf, sizeof(buf));
		report_error("passphrase file %s: out of memory", path);
		return -1;
	}
	st = e4_e4crypt_passphrase_key(k->raw, buf, len, salt, salt_len);
	e4_wipe(buf, sizeof(buf));
	if (st != E4_OK) {
		free(k->source);
		report_error("passphrase file %s: key derivation failed", path);
		return -1;
	}
	k->len = 64;
	return finish_key(kr, k);
}

int keyring_add_file(struct keyring *kr, const char *path)
{
	uint8_t buf[512];
	size_t len;
	const char *why;
	struct master_key *k;

	if (read_all(path, buf, sizeof(buf), &len)) {
		report_error("key file %s: %s", path, strerror(errno));
		return -1;
	}
	k = new_key(kr, path);
	if (!k) {
		e4_wipe(buf, sizeof(buf));
		report_error("key file %s: out of memory", path);
		return -1;
	}
	if (len == sizeof(buf) ||
	    e4_keyfile_parse(buf, len, k->raw, &k->len, &why) != E4_OK) {
		e4_wipe(buf, sizeof(buf));
		free(k->source);
		report_error("key file %s: %s", path,
			     len == sizeof(buf) ? "too large for a key" : why);
		return -1;
	}
	e4_wipe(buf, sizeof(buf));
	return finish_key(kr, k);
}

void keyring_free(struct keyring *kr)
{
	for (size_t i = 0; i < kr->nkeys; i++) {
		e4_wipe(kr->keys[i].raw, sizeof(kr->keys[i].raw));
		free(kr->keys[i].source);
	}
	free(kr->keys);
	free(kr->slots);
	if (kr->idx_built)
		inode_index_free(&kr->idx);
	memset(kr, 0, sizeof(*kr));
}

struct inode_index *keyring_index(struct keyring *kr)
{
	if (!kr->idx_built) {
		inode_index_build(kr->im, &kr->idx);
		kr->idx_built = 1;
	}
	return &kr->idx;
}

static int same_id(const struct e4_context *a, const struct e4_context *b)
{
	return a->version == b->version && a->key_id_size == b->key_id_size &&
	       !memcmp(a->key_id, b->key_id, a->key_id_size);
}

/* Evidence that key k opens policy ctx, from the names of every directory
 * and symlink using that policy.  -1 when a name rules the key out. */
struct trial {
	struct e4_cipher *c;
	unsigned int bits;
	int bad;
};

static int trial_dirent(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct trial *t = priv;
	unsigned int len = ext2fs_dirent_name_len(de);
	uint8_t plain[256];
	size_t n;

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (e4_decrypt_name(t->c, (const uint8_t *)de->name, len, plain, &n)) {
		t->bad = 1;
		return DIRENT_ABORT;
	}
	t->bits += e4_name_evidence_bits(plain, len, n);
	return t->bits >= TRIAL_EVIDENCE_BITS ? DIRENT_ABORT : 0;
}

static int trial_symlink(struct keyring *kr, struct trial *t, ext2_ino_t ino)
{
	struct ext2_inode_large inode;
	uint8_t *blob, *plain;
	size_t size, n;
	enum e4_status st;

	if (img_read_inode(kr->im, ino, &inode) ||
	    img_read_symlink(kr->im, ino, &inode, &blob, &size))
		return 0; /* unreadable: no evidence either way */
	plain = malloc(size + 1);
	if (!plain) {
		free(blob);
		return 0;
	}
	st = e4_symlink_decrypt(t->c, blob, size, plain, &n);
	if (st == E4_BAD_KEY)
		t->bad = 1;
	else if (st == E4_OK)
		t->bits += e4_name_evidence_bits(plain, size - 2, n);
	free(plain);
	free(blob);
	return 0;
}

/* v1 keys (fs/crypto/keysetup_v1.c): derived per file from the nonce, or
 * under DIRECT_KEY (Adiantum only) the first keysize bytes of the master key
 * itself, the nonce then going into every IV. */
static enum e4_status v1_key(const struct master_key *k,
			     const struct e4_context *ctx, uint8_t mode,
			     uint8_t *dk, size_t keysize)
{
	if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY) {
		if (mode != E4_MODE_ADIANTUM)
			return E4_UNSUPPORTED; /* Linux refuses the policy */
		if (k->len < keysize)
			return E4_BAD_KEY;
		memcpy(dk, k->raw, keysize);
		return E4_OK;
	}
	return e4_v1_derive_key(dk, keysize, k->raw, k->len, ctx->nonce);
}

static unsigned int trial_key(struct keyring *kr, const struct master_key *k,
			      const struct e4_context *policy, int *bad)
{
	struct inode_index *idx = keyring_index(kr);
	const struct e4_mode_info *m = e4_mode_lookup(policy->filenames_mode);
	unsigned int bits = 0;

	*bad = 0;
	if (!m || !m->supported || k->len < m->keysize) {
		*bad = 1;
		return 0;
	}
	for (size_t i = 0; i < idx->n && bits < TRIAL_EVIDENCE_BITS; i++) {
		const struct enc_inode *e = &idx->v[i];
		struct trial t = { NULL, 0, 0 };
		uint8_t dk[E4_MAX_KEY_SIZE];

		if (e->res != CTX_OK || !same_id(&e->ctx, policy) ||
		    e->ctx.filenames_mode != policy->filenames_mode ||
		    !(LINUX_S_ISDIR(e->mode) || LINUX_S_ISLNK(e->mode)))
			continue;
		if (v1_key(k, &e->ctx, policy->filenames_mode, dk, m->keysize) ||
		    e4_cipher_new(&t.c, policy->filenames_mode, dk, m->keysize)) {
			e4_wipe(dk, sizeof(dk));
			continue;
		}
		e4_wipe(dk, sizeof(dk));
		if (e->ctx.flags & E4_POLICY_FLAG_DIRECT_KEY)
			e4_cipher_set_direct_key(t.c, e->ctx.nonce);
		t.bits = bits;
		if (LINUX_S_ISDIR(e->mode))
			ext2fs_dir_iterate2(kr->im->fs, e->ino, 0, NULL,
					    trial_dirent, &t);
		else
			trial_symlink(kr, &t, e->ino);
		e4_cipher_free(t.c);
		bits = t.bits;
		if (t.bad) {
			*bad = 1;
			return 0;
		}
	}
	return bits;
}

static struct key_slot *slot_for(struct keyring *kr,
				 const struct e4_context *ctx)
{
	struct key_slot *s;

	for (size_t i = 0; i < kr->nslots; i++)
		if (same_id(&kr->slots[i].policy, ctx))
			return &kr->slots[i];
	s = realloc(kr->slots, (kr->nslots + 1) * sizeof(*s));
	if (!s)
		return NULL;
	kr->slots = s;
	s = &kr->slots[kr->nslots++];
	memset(s, 0, sizeof(*s));
	s->policy = *ctx;
	s->key = -1;
	/* 1. e4crypt's convention: the descriptor is a hash of the key. */
	for (size_t i = 0; i < kr->nkeys && ctx->version == E4_CONTEXT_V1; i++) {
		if (!memcmp(kr->keys[i].e4crypt_desc, ctx->key_id,
			    E4_KEY_DESCRIPTOR_SIZE)) {
			s->key = (int)i;
			s->how = "descriptor = SHA-512(SHA-512(key))";
			return s;
		}
	}
	/* v2: the identifier is a hash of the key. */
	for (size_t i = 0; i < kr->nkeys && ctx->version == E4_CONTEXT_V2; i++) {
		if (!memcmp(kr->keys[i].v2_id, ctx->key_id, E4_KEY_IDENTIFIER_SIZE)) {
			s->key = (int)i;
			s->how = "identifier = HKDF-SHA512(key)";
			return s;
		}
	}
	/* 2. Trial decryption of the policy's names, best evidence wins. */
	if (ctx->version == E4_CONTEXT_V1) {
		unsigned int best = 0;

		for (size_t i = 0; i < kr->nkeys; i++) {
			int bad;
			unsigned int bits = trial_key(kr, &kr->keys[i], ctx, &bad);

			if (!bad && bits > best) {
				best = bits;
				s->key = (int)i;
			}
		}
		if (s->key >= 0 && best < TRIAL_EVIDENCE_MIN)
			s->key = -1;
		s->how = "trial decryption of names";
	}
	return s;
}

const struct master_key *keyring_lookup(struct keyring *kr,
					const struct e4_context *ctx)
{
	struct key_slot *s = slot_for(kr, ctx);
	char hex[33];

	if (!s)
		return NULL;
	e4_context_key_id_hex(ctx, hex);
	if (!s->reported) {
		s->reported = 1;
		if (s->key >= 0)
			report_info("key %s opens descriptor %s (%s)",
				    kr->keys[s->key].source, hex, s->how);
		else if (kr->listing)
			report_note("no key for %s %s%s: showing no-key names",
				    ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", hex, kr->nkeys ? " (none of the given keys opens it)" :
						     " (no --key-file given)");
		else
			report_error("no key for %s %s%s",
			     ctx->version == E4_CONTEXT_V1 ? "descriptor" : "identifier", hex,
				     kr->nkeys ? " (none of the given keys opens it)" :
						 " (no --key-file given)");
	}
	if (s->key < 0)
		return NULL;
	kr->keys[s->key].used = 1;
	return &kr->keys[s->key];
}

static int is_dummy_policy(const struct e4_context *ctx)
{
	static const uint8_t desc[E4_KEY_DESCRIPTOR_SIZE] = {
		0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42 };

	return ctx->version == E4_CONTEXT_V1 &&
	       !memcmp(ctx->key_id, desc, sizeof(desc));
}

static void report_dummy(struct keyring *kr, const struct e4_context *ctx)
{
	struct key_slot *s = slot_for(kr, ctx);

	if (s && !s->reported) {
		s->reported = 1;
		s->how = "--dummy-key";
		report_info("the seed's dummy key opens descriptor 4242424242424242");
	}
}

/* v2 keys (fs/crypto/keysetup.c fscrypt_setup_v2_file_key): per file from
 * the nonce, or per mode and filesystem UUID under the IV_INO_LBLK flags,
 * which also put the inode number into the IVs. */
static enum e4_status v2_key(struct keyring *kr, ext2_ino_t ino,
			     const struct e4_context *ctx, uint8_t mode,
			     const struct master_key *k, uint8_t *dk,
			     size_t keysize, enum e4_iv_scheme *scheme,
			     uint32_t *iv_ino)
{
	uint8_t info[17];
	enum e4_status st;

	info[0] = mode;
	memcpy(info + 1, kr->im->fs->super->s_uuid, 16);
	*scheme = E4_IV_LBLK;
	*iv_ino = 0;
	if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY) {
		/* One key per mode (HKDF context 3, info = the mode number);
		 * the nonce goes into every IV.  Only valid with Adiantum. */
		if (mode != E4_MODE_ADIANTUM)
			return E4_UNSUPPORTED;
		return e4_hkdf_sha512(dk, keysize, k->raw, k->len,
				      E4_HKDF_DIRECT_KEY, &mode, 1);
	}
	if (ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_64) {
		*scheme = E4_IV_INO_LBLK_64;
		*iv_ino = ino;
		return e4_hkdf_sha512(dk, keysize, k->raw, k->len,
				      E4_HKDF_IV_INO_LBLK_64_KEY, info, 17);
	}
	if (ctx->flags & E4_POLICY_FLAG_IV_INO_LBLK_32) {
		uint8_t hk[16];
		uint64_t h = 0;

		st = e4_hkdf_sha512(hk, 16, k->raw, k->len,
				    E4_HKDF_INODE_HASH_KEY, NULL, 0);
		if (st == E4_OK)
			st = e4_siphash_u64(&h, hk, ino);
		e4_wipe(hk, sizeof(hk));
		if (st)
			return st;
		*scheme = E4_IV_INO_LBLK_32;
		*iv_ino = (uint32_t)h;
		return e4_hkdf_sha512(dk, keysize, k->raw, k->len,
				      E4_HKDF_IV_INO_LBLK_32_KEY, info, 17);
	}
	return e4_hkdf_sha512(dk, keysize, k->raw, k->len,
			      E4_HKDF_PER_FILE_ENC_KEY, ctx->nonce, E4_NONCE_SIZE);
}

enum e4_status keyring_inode_cipher(struct keyring *kr, ext2_ino_t ino,
				    const struct e4_context *ctx, int names,
				    struct e4_cipher **out)
{
	uint8_t mode = names ? ctx->filenames_mode : ctx->contents_mode;
	const struct e4_mode_info *m = e4_mode_lookup(mode);
	const struct master_key *k;
	uint8_t dk[E4_MAX_KEY_SIZE];
	enum e4_iv_scheme scheme = E4_IV_LBLK;
	uint32_t iv_ino = 0;
	enum e4_status st;

	*out = NULL;
	if (!m)
		return E4_UNRECOGNIZED;
	if (!m->supported)
		return E4_UNSUPPORTED;
	if (kr->dummy_key && is_dummy_policy(ctx)) {
		/* The seed's test_dummy_encryption (011: ext4_generate_
		 * encryption_key): every inode's key is 0x42 repeated, with no
		 * derivation. */
		memset(dk, 0x42, m->keysize);
		st = e4_cipher_new(out, mode, dk, m->keysize);
		e4_wipe(dk, sizeof(dk));
		if (st == E4_OK)
			report_dummy(kr, ctx);
		return st;
	}
	k = keyring_lookup(kr, ctx);
	if (!k)
		return E4_BAD_KEY;
	if (ctx->version == E4_CONTEXT_V2)
		st = v2_key(kr, ino, ctx, mode, k, dk, m->keysize, &scheme, &iv_ino);
	else
		st = v1_key(k, ctx, mode, dk, m->keysize);
	if (st == E4_OK)
		st = e4_cipher_new(out, mode, dk, m->keysize);
	if (st == E4_OK) {
		e4_cipher_set_iv_scheme(*out, scheme, iv_ino);
		if (ctx->flags & E4_POLICY_FLAG_DIRECT_KEY)
			e4_cipher_set_direct_key(*out, ctx->nonce);
	}
	e4_wipe(dk, sizeof(dk));
	return st;
}

void keyring_describe(struct keyring *kr, const struct e4_context *ctx,
		      char *buf, size_t len)
{
	struct key_slot *s;

	if (kr->dummy_key && is_dummy_policy(ctx)) {
		snprintf(buf, len, "opened by --dummy-key (0x42 repeated, no derivation)");
		return;
	}
	if (!kr->nkeys) {
		snprintf(buf, len, "no key given");
		return;
	}
	s = slot_for(kr, ctx);
	if (!s || s->key < 0)
		snprintf(buf, len, "no key opens it");
	else
		snprintf(buf, len, "opened by %s (%s)",
			 kr->keys[s->key].source, s->how);
}
