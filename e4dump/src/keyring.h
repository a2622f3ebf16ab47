/* Master keys given on the command line and which policy each one opens. */
#ifndef E4DUMP_KEYRING_H
#define E4DUMP_KEYRING_H

#include <stddef.h>
#include "cipher.h"
#include "image.h"
#include "inode_index.h"

struct master_key {
	uint8_t raw[E4_MAX_KEY_SIZE];
	size_t len;
	char *source;                               /* file name, for messages */
	uint8_t e4crypt_desc[E4_KEY_DESCRIPTOR_SIZE]; /* SHA-512 convention */
	uint8_t v2_id[E4_KEY_IDENTIFIER_SIZE];        /* HKDF identifier */
	int used;
};

struct key_slot {                 /* one per descriptor met */
	struct e4_context policy; /* first context seen with it */
	int key;                  /* index into keys, or -1 */
	const char *how;          /* "descriptor", "trial decryption" */
	int reported;
};

struct keyring {
	struct master_key *keys;
	size_t nkeys;
	struct key_slot *slots;
	size_t nslots;
	struct img *im;
	struct inode_index idx;
	int idx_built;
	int dummy_key;  /* --dummy-key: the seed's test_dummy_encryption key */
	int listing;    /* ls: a missing key only means no-key names */
};

void keyring_init(struct keyring *kr, struct img *im);
/* Load a key file ("-" = stdin).  -1 after printing an error. */
int keyring_add_file(struct keyring *kr, const char *path);
/* Derive a key from a passphrase file (one trailing newline dropped) the
 * way e4crypt does, with the given salt.  -1 after printing an error. */
int keyring_add_passphrase(struct keyring *kr, const char *path,
			   const uint8_t *salt, size_t salt_len);
/* Wipes every key. */
void keyring_free(struct keyring *kr);

/* The master key for a policy, found by descriptor or trial decryption;
 * NULL when none of the keys opens it (reported once per descriptor). */
const struct master_key *keyring_lookup(struct keyring *kr,
					const struct e4_context *ctx);

/* Derive the key of inode ino and set up the cipher for its contents
 * (names = 0) or names and symlink target (names = 1).  Returns E4_OK,
 * E4_BAD_KEY when no key is known, or another status on failure. */
enum e4_status keyring_inode_cipher(struct keyring *kr, ext2_ino_t ino,
				    const struct e4_context *ctx, int names,
				    struct e4_cipher **out);

/* The encrypted-inode index, built on first use. */
struct inode_index *keyring_index(struct keyring *kr);

/* Say which key opened which descriptor, for info and -v. */
void keyring_describe(struct keyring *kr, const struct e4_context *ctx,
		      char *buf, size_t len);

#endif
