/* Master key files: raw binary (16..64 bytes) or the same as hex text. */
#ifndef E4_KEYFILE_H
#define E4_KEYFILE_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"
#include "fscrypt_disk.h"

#define E4_MASTER_KEY_MIN 16

/* Interpret the bytes of a key file.  Hex text (optionally with whitespace
 * and a trailing newline) of 32..128 digits wins over raw bytes when every
 * byte is a hex digit or whitespace.  E4_BAD_KEY with a reason otherwise. */
enum e4_status e4_keyfile_parse(const uint8_t *data, size_t size,
				uint8_t key[E4_MAX_KEY_SIZE], size_t *key_len,
				const char **why);

#endif
