/* Encryption context xattr: parsing and validation (pure, over bytes). */
#ifndef E4_CONTEXT_H
#define E4_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"
#include "fscrypt_disk.h"

struct e4_context {
	uint8_t version; /* E4_CONTEXT_V1 or E4_CONTEXT_V2 */
	uint8_t contents_mode;
	uint8_t filenames_mode;
	uint8_t flags;
	uint8_t key_id_size; /* 8 (v1 descriptor) or 16 (v2 identifier) */
	uint8_t key_id[E4_KEY_IDENTIFIER_SIZE];
	uint8_t nonce[E4_NONCE_SIZE];
};

/* Parse a context xattr value.  E4_CORRUPT: truncated, oversized, or reserved
 * bytes set; E4_UNRECOGNIZED: unknown version, mode pair or flag bits.  On
 * E4_UNRECOGNIZED the fields that could be read are filled in. */
enum e4_status e4_context_parse(struct e4_context *ctx, const uint8_t *data,
				size_t size);

/* Explain the last parse result in words (static string). */
const char *e4_context_problem(const uint8_t *data, size_t size);

/* Same policy (everything but the nonce)? */
int e4_context_same_policy(const struct e4_context *a,
			   const struct e4_context *b);

/* Name padding in bytes: 4, 8, 16 or 32. */
unsigned int e4_context_name_padding(const struct e4_context *ctx);

/* The policy flags by their uapi names (linux/fscrypt.h, without the
 * FSCRYPT_POLICY_FLAG(S)_ prefix), '|'-separated: "PAD_32|DIRECT_KEY";
 * bits no kernel defines as "0x20".  buf of E4_FLAGS_NAME_MAX bytes. */
#define E4_FLAGS_NAME_MAX 64
void e4_policy_flags_name(uint8_t flags, char *buf);

/* Format the key descriptor/identifier as lowercase hex into buf (>= 33). */
void e4_context_key_id_hex(const struct e4_context *ctx, char *buf);

/* The stored bytes of a context (the inverse of e4_context_parse, which
 * requires the reserved bytes to be zero, so a context that parsed comes
 * back byte for byte): 28 (v1) or 40 (v2); 0 for another version or a
 * key id size that does not match it.  For exports that are decrypted
 * later without the image (e4dump unlock-kept). */
#define E4_CONTEXT_MAX_SIZE 40
size_t e4_context_encode(const struct e4_context *ctx,
			 uint8_t out[E4_CONTEXT_MAX_SIZE]);

#endif
