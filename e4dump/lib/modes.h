/* Encryption modes: names and key sizes (fs/crypto/keysetup.c fscrypt_modes). */
#ifndef E4_MODES_H
#define E4_MODES_H

#include <stddef.h>
#include <stdint.h>

struct e4_mode_info {
	uint8_t mode;
	const char *name;     /* as in fscrypt.rst, e.g. "AES-256-XTS" */
	size_t keysize;       /* derived key size in bytes */
	int for_contents;     /* valid as a contents mode */
	int for_filenames;    /* valid as a filenames mode */
	int supported;        /* implemented by this library */
};

/* NULL for an unknown mode number. */
const struct e4_mode_info *e4_mode_lookup(uint8_t mode);

/* Name of a mode or "unknown". */
const char *e4_mode_name(uint8_t mode);

#endif
