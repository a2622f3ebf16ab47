/* Key files and passphrase files into the key store, read without stdio
 * buffers (which would keep copies) and wiped after use. */
#ifndef E4DUMP_KEYLOAD_H
#define E4DUMP_KEYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include "fscrypt_tool.h"
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

/* A passphrase file's bytes, read once (standard input can be read
 * only once) for each of the rules that read a passphrase from it. */
#define SECRET_MAX 4096
struct secret {
	uint8_t buf[SECRET_MAX + 2];
	size_t len;
	int more;               /* the file holds more than buf */
	const char *path;
};
/* 0, or -1 after an error naming the file (missing, empty). */
int keyload_read_passphrase(const char *path, struct secret *sec,
			    struct report *r);
void keyload_secret_wipe(struct secret *sec);
/* e4crypt's key from it (keyload_passphrase's rule) into ks. */
int keyload_e4crypt(struct e4_keystore *ks, const struct secret *sec,
		    const uint8_t *salt, size_t salt_len, struct report *r);
/* The passphrase fscrypt reads from the same bytes (its first line, with
 * backspaces applied) into out (SECRET_MAX + 2 bytes). */
int keyload_fscrypt_passphrase(const struct secret *sec, uint8_t *out,
			       size_t *out_len, struct report *r);
/* A raw-key protector's key file: exactly 32 bytes. */
int keyload_protector_key(const char *path, uint8_t key[E4_FSC_KEY],
			  struct report *r);

/* Write len bytes of a key as DIR/NAME.key, a new file (O_EXCL, never
 * through a symbolic link) of mode 0600; DIR is made (0700) when missing.
 * option names the option in errors.  0, or -1 after an error. */
int keyload_write_key(const char *dir, const char *name, const void *bytes,
		      size_t len, const char *option, struct report *r);

/* --salt in e4crypt's -S forms: s:TEXT, 0xHEX, a UUID, or (e4dump's
 * own) HEX.  Returns the length (0..256) or -1 after an error. */
long keyload_salt(const char *arg, uint8_t salt[256], struct report *r);

#endif
