/* Key files and passphrase files into the key store, read without stdio
 * buffers (which would keep copies) and wiped after use. */
#ifndef E4DUMP_KEYLOAD_H
#define E4DUMP_KEYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include "keystore.h"
#include "report.h"

/* A key file ("-": standard input): raw bytes or hex text.  0, or -1
 * after an error naming the file (never its bytes). */
int keyload_file(struct e4_keystore *ks, const char *path, struct report *r);

/* A passphrase file: its first line without the newline (LF or CR LF),
 * at most 1023 bytes, as e4crypt reads a passphrase, derived with salt as
 * e4crypt does; a warning when more is in the file. */
int keyload_passphrase(struct e4_keystore *ks, const char *path,
		       const uint8_t *salt, size_t salt_len, struct report *r);

/* --salt in e4crypt's -S forms: s:TEXT, 0xHEX, a UUID, or (e4dump's
 * own) HEX.  Returns the length (0..256) or -1 after an error. */
long keyload_salt(const char *arg, uint8_t salt[256], struct report *r);

#endif
