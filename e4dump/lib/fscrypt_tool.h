/* The metadata of google's fscrypt tool (the userspace program, not the
 * kernel's fscrypt): protectors and policies as the protobuf files of
 * /.fscrypt/protectors/ and /.fscrypt/policies/ hold them, the .link files
 * that name another filesystem's protector, and the wrapping that keeps
 * a policy key under a protector key under a passphrase or raw key
 * (spec/ext4-encryption.md, "The fscrypt tool's metadata").  Pure: bytes
 * in, facts and keys out.  Every secret this code makes is wiped before
 * its memory is let go; the caller wipes what it is given back. */
#ifndef E4_FSCRYPT_TOOL_H
#define E4_FSCRYPT_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_FSC_MAX_FILE 16384      /* fscrypt's maxMetadataFileSize */
#define E4_FSC_PROTECTOR_DESC 16   /* hex digits */
#define E4_FSC_POLICY_DESC_V1 16
#define E4_FSC_POLICY_DESC_V2 32
#define E4_FSC_KEY 32              /* protector keys, wrapping keys */
#define E4_FSC_POLICY_KEY 64
#define E4_FSC_IV 16
#define E4_FSC_HMAC 32
#define E4_FSC_SALT 16
#define E4_FSC_RAW_KEY_FILE 32     /* a raw-key protector's key file */

/* Caps on the Argon2id costs a protector may ask for. */
#define E4_FSC_DEFAULT_MAX_MEMORY_KIB (1024u * 1024u) /* 1 GiB */
#define E4_FSC_DEFAULT_MAX_TIME 64u

enum e4_fsc_source {
	E4_FSC_SOURCE_UNSET = 0,
	E4_FSC_PAM_PASSPHRASE = 1,    /* login protector (pam_fscrypt) */
	E4_FSC_CUSTOM_PASSPHRASE = 2,
	E4_FSC_RAW_KEY = 3,
};

struct e4_fsc_wrapped {
	uint8_t iv[E4_FSC_IV];
	uint8_t key[E4_FSC_POLICY_KEY]; /* AES-256-CTR ciphertext */
	size_t key_len;                 /* 32 (protector) or 64 (policy) */
	uint8_t hmac[E4_FSC_HMAC];
};

struct e4_fsc_costs {
	int64_t time, memory, parallelism; /* passes, KiB, lanes */
	int truncation_fixed;
};

struct e4_fsc_protector {
	char descriptor[E4_FSC_PROTECTOR_DESC + 1]; /* lowercase hex */
	enum e4_fsc_source source;
	uint8_t *name;          /* as stored (not NUL-terminated), or NULL */
	size_t name_len;
	struct e4_fsc_costs costs;      /* passphrase protectors */
	uint8_t salt[E4_FSC_SALT];      /* passphrase protectors */
	int64_t uid;                    /* login protectors */
	struct e4_fsc_wrapped wrapped;  /* the protector key */
};

struct e4_fsc_slot {
	char protector[E4_FSC_PROTECTOR_DESC + 1];
	struct e4_fsc_wrapped wrapped;  /* the policy key */
};

struct e4_fsc_policy {
	char descriptor[E4_FSC_POLICY_DESC_V2 + 1]; /* v1: 16, v2: 32 hex */
	unsigned int version;           /* 1 or 2 */
	int64_t padding;
	int32_t contents, filenames;    /* FSCRYPT_MODE_* */
	struct e4_fsc_slot *slots;
	size_t n_slots;
};

/* Parse a protector file (at most E4_FSC_MAX_FILE bytes) and check it as
 * fscrypt's CheckValidity does.  E4_CORRUPT (why says what is wrong),
 * E4_LIMIT (too large), E4_NOMEM.  Free with e4_fsc_protector_free. */
enum e4_status e4_fsc_protector_parse(const uint8_t *data, size_t len,
				      struct e4_fsc_protector *p,
				      const char **why);
void e4_fsc_protector_free(struct e4_fsc_protector *p);

enum e4_status e4_fsc_policy_parse(const uint8_t *data, size_t len,
				   struct e4_fsc_policy *p, const char **why);
void e4_fsc_policy_free(struct e4_fsc_policy *p);

/* A .link file: lines of TOKEN=VALUE; UUID and PATH are known.  The path
 * points into data.  E4_CORRUPT when it names neither. */
struct e4_fsc_link {
	int has_uuid;
	uint8_t uuid[16];
	const uint8_t *path;
	size_t path_len;
};
enum e4_status e4_fsc_link_parse(const uint8_t *data, size_t len,
				 struct e4_fsc_link *l, const char **why);

/* "pam_passphrase", "custom_passphrase", "raw_key" (fscrypt's names). */
const char *e4_fsc_source_name(enum e4_fsc_source s);

/* The lanes fscrypt hashes with: its costs.parallelism cast to 8 bits. */
unsigned int e4_fsc_lanes(const struct e4_fsc_costs *c);

/* Are the costs within max_memory_kib and max_time, and can fscrypt hash
 * with them at all?  E4_OK, E4_LIMIT (above a cap) or E4_CORRUPT; why
 * gets the reason. */
enum e4_status e4_fsc_check_costs(const struct e4_fsc_costs *c,
				  uint64_t max_memory_kib, uint64_t max_time,
				  char *why, size_t why_len);

/* fscrypt's passphrase hash: Argon2id (version 0x13) of the passphrase
 * with the 16-byte salt and the costs (time, memory in KiB, lanes as
 * e4_fsc_lanes), 32 bytes.  Refuses costs e4_fsc_check_costs refuses
 * (E4_LIMIT, E4_CORRUPT); E4_NOMEM when the memory cannot be had. */
enum e4_status e4_fsc_passphrase_hash(uint8_t out[E4_FSC_KEY],
				      const uint8_t *pass, size_t pass_len,
				      const uint8_t salt[E4_FSC_SALT],
				      const struct e4_fsc_costs *c,
				      uint64_t max_memory_kib,
				      uint64_t max_time);

/* Unwrap w with a 32-byte wrapping key: HKDF-SHA256 (no salt, no info)
 * stretches it into 32 bytes of AES-256-CTR key and 32 of HMAC-SHA256
 * key; the HMAC of iv || ciphertext must match (E4_BAD_KEY otherwise,
 * and out is left zero); then out (w->key_len bytes) is the CTR
 * decryption. */
enum e4_status e4_fsc_unwrap(uint8_t *out, const uint8_t key[E4_FSC_KEY],
			     const struct e4_fsc_wrapped *w);

/* The descriptor fscrypt names a key by, as lowercase hex: v1 (protector
 * keys and v1 policy keys) the first 8 bytes of SHA-512(SHA-512(key)), v2
 * the kernel's key identifier. */
enum e4_status e4_fsc_descriptor(char out[E4_FSC_POLICY_DESC_V2 + 1],
				 const uint8_t *key, size_t len,
				 unsigned int version);

#endif
