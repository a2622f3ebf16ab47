/* Master key files: raw binary (16..64 bytes), the same as hex text, or
 * the HMAC-SHA512 states of a v2 key (spec §17.3, §17.4) as text:
 *
 *   # comment lines (first character '#') and blank lines are ignored
 *   e4dump-hkdf-states 1
 *   identifier <32 hex digits>
 *   ipad_state <128 hex digits>
 *   opad_state <128 hex digits>
 *
 * recognised by its first line that is neither blank nor a comment; the
 * version line comes first, the other three follow in any order, each
 * exactly once; each state is its 64 bytes as the kernel holds them
 * (eight u64, little-endian: spec §17.4's hmac-states example), and the
 * identifier must be the one the states compute (HKDF context 1). */
#ifndef E4_KEYFILE_H
#define E4_KEYFILE_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"
#include "fscrypt_disk.h"
#include "memkeys.h"

#define E4_MASTER_KEY_MIN 16

/* The first word of a states key file, and its version. */
#define E4_KEYFILE_STATES_MAGIC "e4dump-hkdf-states"
#define E4_KEYFILE_STATES_VERSION 1

/* Interpret the bytes of a raw or hex key file.  Hex text (optionally with
 * whitespace and a trailing newline) of 32..128 digits wins over raw bytes
 * when every byte is a hex digit or whitespace.  E4_BAD_KEY with a reason
 * otherwise (a states file among them: see e4_keyfile_read). */
enum e4_status e4_keyfile_parse(const uint8_t *data, size_t size,
				uint8_t key[E4_MAX_KEY_SIZE], size_t *key_len,
				const char **why);

/* What a key file holds. */
struct e4_keyfile {
	int is_states;                /* the states of a v2 key, not a raw key */
	uint8_t key[E4_MAX_KEY_SIZE]; /* raw: the key, key_len bytes */
	size_t key_len;
	struct e4_hmac_states states; /* states */
	uint8_t identifier[16];       /* states: their identifier */
};

/* Interpret the bytes of any key file: the states form when it is one,
 * else as e4_keyfile_parse.  The caller wipes *out (e4_wipe), which holds
 * nothing on failure.  E4_BAD_KEY with *why a reason that never quotes
 * the file's bytes. */
enum e4_status e4_keyfile_read(const uint8_t *data, size_t size,
			       struct e4_keyfile *out, const char **why);

/* The text of a states key file for st (what e4_keyfile_read reads
 * back), with a first comment line saying that it is secret:
 * NUL-terminated in buf when it fits in len bytes.  Returns the length
 * of the text without the NUL (as snprintf: when it is len or more,
 * nothing was written and buf[0] is NUL if len), 0 when the identifier
 * could not be computed.  The caller wipes buf. */
#define E4_KEYFILE_STATES_TEXT_MAX 512
size_t e4_keyfile_format_states(const struct e4_hmac_states *st, char *buf,
				size_t len);

#endif
