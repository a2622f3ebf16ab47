/* The master keys an examiner gives, and which policy each one names.
 * Pure: no image access.  Every copy of key material the store makes is
 * wiped before it is freed. */
#ifndef E4_KEYSTORE_H
#define E4_KEYSTORE_H

#include <stddef.h>
#include <stdint.h>
#include "context.h"
#include "e4status.h"
#include "fscrypt_disk.h"
#include "memkeys.h"

/* A master key: its raw bytes, or only the two HMAC-SHA512 states of a v2
 * key (spec §17.3, what Linux keeps of it), which give every HKDF output
 * (§17.4) and so open v2 policies exactly like the key, and nothing
 * else: a states key has no raw bytes and no v1 descriptor. */
struct e4_master_key {
	uint8_t raw[E4_MAX_KEY_SIZE];
	size_t len;                                   /* 0 for a states key */
	int is_states;                                /* states, not raw */
	struct e4_hmac_states states;                 /* when is_states */
	char *label;                                  /* where it came from */
	uint8_t e4crypt_desc[E4_KEY_DESCRIPTOR_SIZE]; /* SHA-512(SHA-512(key)); raw only */
	uint8_t v2_id[E4_KEY_IDENTIFIER_SIZE];        /* HKDF-SHA512 identifier */
};

/* k as a raw key of 16..64 bytes, or as states, with its names (label
 * NULL), outside any store: for derivations from bytes at hand (test
 * vectors).  The caller wipes k (e4_wipe).  E4_BAD_KEY for a wrong
 * length. */
enum e4_status e4_master_key_init_raw(struct e4_master_key *k,
				      const uint8_t *key, size_t len);
enum e4_status e4_master_key_init_states(struct e4_master_key *k,
					 const struct e4_hmac_states *st);

struct e4_keystore;

/* An empty store; NULL when out of memory. */
struct e4_keystore *e4_keystore_new(void);
/* Wipe every key and free the store (NULL is allowed). */
void e4_keystore_free(struct e4_keystore *ks);

/* Add a raw master key of 16..64 bytes (copied; the caller wipes its own
 * copy).  label (a file name; never key bytes) names it in messages.
 * E4_BAD_KEY for a wrong length. */
enum e4_status e4_keystore_add(struct e4_keystore *ks, const uint8_t *key,
			       size_t len, const char *label);

/* Add the HMAC-SHA512 states of a v2 key (copied; the caller wipes its
 * own copy); its identifier is computed from them. */
enum e4_status e4_keystore_add_states(struct e4_keystore *ks,
				      const struct e4_hmac_states *st,
				      const char *label);

/* Add the key e4crypt derives from a passphrase (1..1024 bytes) and a salt
 * (1..256 bytes): e4_e4crypt_passphrase_key(), 64 bytes. */
enum e4_status e4_keystore_add_passphrase(struct e4_keystore *ks,
					  const uint8_t *pass, size_t pass_len,
					  const uint8_t *salt, size_t salt_len,
					  const char *label);

size_t e4_keystore_count(const struct e4_keystore *ks);
/* Key i (0 <= i < count), or NULL. */
const struct e4_master_key *e4_keystore_key(const struct e4_keystore *ks,
					    size_t i);

/* Whether key k can open a policy of ctx's version at all: a raw key v1
 * and v2 policies, a states key v2 policies only.  Trials of keys on a
 * policy try only these. */
int e4_key_fits(const struct e4_master_key *k, const struct e4_context *ctx);

/* Whether ctx's policy names key k by hash: a v1 descriptor equal to its
 * e4crypt descriptor (a raw key's), a v2 identifier equal to its
 * identifier. */
int e4_key_names(const struct e4_master_key *k, const struct e4_context *ctx);

/* The index of the key that a policy names by hash: a v1 descriptor equal
 * to the key's e4crypt descriptor (a convention the kernel does not
 * enforce), or a v2 identifier equal to the key's identifier (which the
 * kernel does enforce).  -1 when none does. */
long e4_keystore_match(const struct e4_keystore *ks,
		       const struct e4_context *ctx);

#endif
