/* Recognisers of the kernel's key structures in memory (spec §17), over
 * bytes only: the scanner of a memory capture hands them windows.  v1
 * master keys in a logon key's payload (§17.1) and in a
 * fscrypt_master_key_secret (§17.2); the two SHA-512 states of an
 * HMAC-SHA512 transform keyed with a v2 master key's HKDF pseudorandom
 * key (§17.3), and every HKDF-Expand output computed from them alone
 * (§17.4); AES key schedules, alone or as aesni's XTS pair (§17.5).
 * Each *_match reads at most the len bytes it is given (fewer than the
 * structure's size: no match) and only tests the structure: a match is a
 * candidate, which the policies of an image confirm (§17). */
#ifndef E4_MEMKEYS_H
#define E4_MEMKEYS_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

/* The context of the transform: two exported struct sha512_state. */
#define E4_HMAC_STATES_SIZE 416

/* The two chaining values: after the ipad block, after the opad block. */
struct e4_hmac_states {
	uint64_t ipad[8];
	uint64_t opad[8];
};

/* A chaining value as the kernel holds it (§17.3): eight u64,
 * little-endian, 64 bytes; key files write the states in this form. */
#define E4_HMAC_STATE_BYTES 64
void e4_hmac_state_load(uint64_t h[8], const uint8_t b[E4_HMAC_STATE_BYTES]);
void e4_hmac_state_store(const uint64_t h[8], uint8_t b[E4_HMAC_STATE_BYTES]);

/* The v2 key identifier of the states: HKDF-Expand context 1, no info,
 * 16 bytes (§17.4). */
enum e4_status e4_hmac_states_identifier(const struct e4_hmac_states *st,
					 uint8_t id[16]);

/* Whether the first 416 of the len bytes at p are laid out as §17.3
 * says: both counts (128, 0), both buf fields equal, neither state
 * SHA-512's initial value nor that of the all-zero salt (constants of
 * every key's extract).  A match is a candidate only: its identifier
 * confirms it.  On a match, when st is not NULL, the two states are
 * loaded into it. */
int e4_hmac_states_match(const uint8_t *p, size_t len,
			 struct e4_hmac_states *st);

/* HKDF-Expand of fs/crypto/hkdf.c from the states alone: the first
 * out_len bytes (at most 255 * 64) of T(1) || T(2) || ..., T(n) =
 * HMAC(prk, T(n-1) || "fscrypt\0" || context || info || n).  info_len at
 * most 64.  E4_INVALID otherwise. */
enum e4_status e4_hkdf_expand_states(const struct e4_hmac_states *st,
				     uint8_t context, const uint8_t *info,
				     size_t info_len, uint8_t *out,
				     size_t out_len);

/* The states hmac_setkey (crypto/hmac.c) stores for a key of at most 128
 * bytes (a 64-byte PRK); for tests and for key files that carry the
 * states of a known key. */
enum e4_status e4_hmac_states_of_key(struct e4_hmac_states *st,
				     const uint8_t *key, size_t key_len);

/* A candidate key: its first len bytes.  The caller wipes it (e4_wipe). */
struct e4_mem_key {
	uint8_t raw[64];
	size_t len;
	int named;             /* the structure names its key's descriptor: */
	uint8_t descriptor[8]; /* v1-ioctl's mk_spec; a key description */
};

/* §17.1: struct user_key_payload holding a struct fscrypt_key (whose
 * size is E4_LOGON_PAYLOAD_SIZE, fscrypt_disk.h). */
#define E4_USER_KEY_PAYLOAD_SIZE 96

/* datalen (le16 at 0x10) 72, size (le32 at 0x5c) 1 to 64, raw[0 .. size)
 * not all zero: the candidate is raw[0 .. size). */
int e4_logon_payload_match(const uint8_t *p, size_t len,
			   struct e4_mem_key *key);

/* §17.2: struct fscrypt_master_key_secret, then (in struct
 * fscrypt_master_key) mk_spec, a struct fscrypt_key_specifier. */
#define E4_MK_SECRET_SIZE 80
#define E4_MK_SPEC_SIZE 40
#define E4_MK_SECRET_WINDOW (E4_MK_SECRET_SIZE + E4_MK_SPEC_SIZE)

/* A v1 key's secret: hmac_tfm (0x00) NULL, size (le32 at 0x08) 16 to 64,
 * raw (0x0c) non-zero in its first size bytes and zero after them, and
 * after it mk_spec of type DESCRIPTOR (le32 1 at 0x50, 0 at 0x54), the
 * descriptor at 0x58 and the rest of its union (0x60 .. 0x78) zero: the
 * candidate is raw[0 .. size), named by that descriptor. */
int e4_mk_secret_v1_match(const uint8_t *p, size_t len,
			  struct e4_mem_key *key);

/* §17.1: the description of a v1 logon key, "fscrypt:" or "ext4:" and
 * 16 lowercase hex digits, NUL-terminated, at the start of its own
 * allocation (key_alloc: kmemdup): the descriptor it names goes to
 * key->descriptor (key->len 0). */
#define E4_KEY_DESCRIPTION_MAX 25
int e4_key_description_match(const uint8_t *p, size_t len,
			     struct e4_mem_key *key);

/* §17.5: struct crypto_aes_ctx (key_enc[60], key_dec[60], key_length),
 * and aesni's struct aesni_xts_ctx: raw_tweak_ctx, then raw_crypt_ctx
 * 496 bytes further, each 16-aligned in memory (the scanner tries
 * 16-aligned addresses). */
#define E4_AES_CTX_SIZE 484
#define E4_AESNI_XTS_CRYPT_OFFSET 496
#define E4_AESNI_XTS_CTX_SIZE (E4_AESNI_XTS_CRYPT_OFFSET + E4_AES_CTX_SIZE)

/* key_length (le32 at 0x1e0) 16, 24 or 32; the key_enc words after the
 * key follow from it by the AES key expansion; key_dec is the equivalent
 * inverse cipher's schedule of key_enc: the candidate is the AES key,
 * the first key_length bytes. */
int e4_aes_ctx_match(const uint8_t *p, size_t len, struct e4_mem_key *key);

/* Two crypto_aes_ctx of the same key length at p and p + 496: the
 * candidate is the XTS key, its first half (raw_crypt_ctx's key, second
 * in memory) first. */
int e4_aesni_xts_match(const uint8_t *p, size_t len, struct e4_mem_key *key);

/* The crypto_aes_ctx aes_expandkey (lib/crypto/aes.c) writes into zeroed
 * memory for a 16-, 24- or 32-byte key; for tests and the fuzz harness.
 * E4_INVALID for another length. */
enum e4_status e4_aes_ctx_of_key(uint8_t ctx[E4_AES_CTX_SIZE],
				 const uint8_t *key, size_t key_len);

#endif
