#include <stdlib.h>
#include <string.h>
#include "kdf.h"
#include "keyfile.h"
#include "keystore.h"

/* Keys live in their own allocations, so growing the table of pointers
 * never leaves a stale copy of key bytes behind. */
struct e4_keystore {
	struct e4_master_key **keys;
	size_t n, cap;
};

struct e4_keystore *e4_keystore_new(void)
{
	return calloc(1, sizeof(struct e4_keystore));
}

static void free_key(struct e4_master_key *k)
{
	if (!k)
		return;
	free(k->label);
	e4_wipe(k, sizeof(*k));
	free(k);
}

void e4_keystore_free(struct e4_keystore *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free_key(ks->keys[i]);
	free(ks->keys);
	free(ks);
}

/* The names of k, whose key is filled in. */
static enum e4_status names_of(struct e4_master_key *k)
{
	if (k->is_states)
		return e4_hmac_states_identifier(&k->states, k->v2_id);
	if (e4_e4crypt_descriptor(k->e4crypt_desc, k->raw, k->len) != E4_OK ||
	    e4_v2_key_identifier(k->v2_id, k->raw, k->len) != E4_OK)
		return E4_CRYPTO;
	return E4_OK;
}

enum e4_status e4_master_key_init_raw(struct e4_master_key *k,
				      const uint8_t *key, size_t len)
{
	memset(k, 0, sizeof(*k));
	if (len < E4_MASTER_KEY_MIN || len > E4_MAX_KEY_SIZE)
		return E4_BAD_KEY;
	memcpy(k->raw, key, len);
	k->len = len;
	return names_of(k);
}

enum e4_status e4_master_key_init_states(struct e4_master_key *k,
					 const struct e4_hmac_states *st)
{
	memset(k, 0, sizeof(*k));
	k->is_states = 1;
	k->states = *st;
	return names_of(k);
}

/* Take ownership of k (filled in but for its label); free it on
 * failure. */
static enum e4_status insert(struct e4_keystore *ks, struct e4_master_key *k,
			     enum e4_status made, const char *label)
{
	if (made != E4_OK) {
		free_key(k);
		return made;
	}
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 4;
		struct e4_master_key **v = realloc(ks->keys, cap * sizeof(*v));

		if (!v) {
			free_key(k);
			return E4_NOMEM;
		}
		ks->keys = v;
		ks->cap = cap;
	}
	k->label = strdup(label ? label : "(key)");
	if (!k->label) {
		free_key(k);
		return E4_NOMEM;
	}
	ks->keys[ks->n++] = k;
	return E4_OK;
}

enum e4_status e4_keystore_add(struct e4_keystore *ks, const uint8_t *key,
			       size_t len, const char *label)
{
	struct e4_master_key *k = calloc(1, sizeof(*k));

	if (!k)
		return E4_NOMEM;
	return insert(ks, k, e4_master_key_init_raw(k, key, len), label);
}

enum e4_status e4_keystore_add_states(struct e4_keystore *ks,
				      const struct e4_hmac_states *st,
				      const char *label)
{
	struct e4_master_key *k = calloc(1, sizeof(*k));

	if (!k)
		return E4_NOMEM;
	return insert(ks, k, e4_master_key_init_states(k, st), label);
}

enum e4_status e4_keystore_add_passphrase(struct e4_keystore *ks,
					  const uint8_t *pass, size_t pass_len,
					  const uint8_t *salt, size_t salt_len,
					  const char *label)
{
	struct e4_master_key *k;
	uint8_t key[64];
	enum e4_status st;

	if (!pass || pass_len > 1024 || salt_len > 256)
		return E4_INVALID;
	k = calloc(1, sizeof(*k));
	if (!k)
		return E4_NOMEM;
	st = e4_e4crypt_passphrase_key(key, pass, pass_len, salt, salt_len);
	if (st == E4_OK)
		st = e4_master_key_init_raw(k, key, sizeof(key));
	e4_wipe(key, sizeof(key));
	return insert(ks, k, st, label);
}

size_t e4_keystore_count(const struct e4_keystore *ks)
{
	return ks ? ks->n : 0;
}

const struct e4_master_key *e4_keystore_key(const struct e4_keystore *ks,
					    size_t i)
{
	return ks && i < ks->n ? ks->keys[i] : NULL;
}

int e4_key_fits(const struct e4_master_key *k, const struct e4_context *ctx)
{
	return k && (ctx->version == E4_CONTEXT_V2 ||
		     (ctx->version == E4_CONTEXT_V1 && !k->is_states));
}

int e4_key_names(const struct e4_master_key *k, const struct e4_context *ctx)
{
	if (!e4_key_fits(k, ctx))
		return 0;
	if (ctx->version == E4_CONTEXT_V1)
		return !memcmp(k->e4crypt_desc, ctx->key_id, E4_KEY_DESCRIPTOR_SIZE);
	if (ctx->version == E4_CONTEXT_V2)
		return !memcmp(k->v2_id, ctx->key_id, E4_KEY_IDENTIFIER_SIZE);
	return 0;
}

long e4_keystore_match(const struct e4_keystore *ks,
		       const struct e4_context *ctx)
{
	for (size_t i = 0; ks && i < ks->n; i++)
		if (e4_key_names(ks->keys[i], ctx))
			return (long)i;
	return -1;
}
