/* Contents and file name decryption.  One OpenSSL context per key, set up
 * once and reused for every block or name. */
#ifndef E4_CIPHER_H
#define E4_CIPHER_H

#include <stddef.h>
#include <stdint.h>
#include "algs.h"
#include "e4status.h"
#include "fscrypt_disk.h"

struct e4_cipher;

/* Set up a cipher for a contents or filenames mode with a derived key of the
 * mode's size.  E4_UNSUPPORTED for modes this library does not implement.
 * Adiantum (mode 9: contents and names) and AES-256-HCTR2 (mode 10: names)
 * are length-preserving wide-block modes with a 32-byte IV. */
enum e4_status e4_cipher_new(struct e4_cipher **out, uint8_t mode,
			     const uint8_t *key, size_t keylen);
/* The same with algorithms fetched once (algs.h; NULL: fetched now). */
enum e4_status e4_cipher_new_algs(const struct e4_algs *a,
				  struct e4_cipher **out, uint8_t mode,
				  const uint8_t *key, size_t keylen);
void e4_cipher_free(struct e4_cipher *c);

/* How the 64-bit IV number of a data unit is formed (fscrypt_generate_iv):
 * the logical block number; with IV_INO_LBLK_64 the block number in the low
 * and the inode number in the high 32 bits; with IV_INO_LBLK_32 the low 32
 * bits of hashed inode number + block number.  Names use block number 0. */
enum e4_iv_scheme {
	E4_IV_LBLK = 0,
	E4_IV_INO_LBLK_64,
	E4_IV_INO_LBLK_32,
};
void e4_cipher_set_iv_scheme(struct e4_cipher *c, enum e4_iv_scheme s,
			     uint32_t ino_or_hash);

/* DIRECT_KEY policies (Adiantum only): every file shares one key and the
 * file's 16-byte nonce follows le64(lblk) in the 32-byte IV. */
#define E4_MAX_IV_SIZE 32 /* FSCRYPT_MAX_IV_SIZE */
void e4_cipher_set_direct_key(struct e4_cipher *c,
			      const uint8_t nonce[E4_NONCE_SIZE]);

/* Decrypt one contents data unit (a filesystem block) of logical block
 * number lblk: AES-256-XTS with tweak le64(lblk) followed by 8 zero bytes,
 * AES-128-CBC with IV = AES-256(SHA-256(key), that block) (ESSIV), or
 * Adiantum with the 32-byte IV le64(lblk) || nonce or zeros. */
enum e4_status e4_decrypt_data_unit(struct e4_cipher *c, uint64_t lblk,
				    const uint8_t *in, uint8_t *out, size_t len);

/* Encrypt, the inverse of e4_decrypt_data_unit (for test vectors). */
enum e4_status e4_encrypt_data_unit(struct e4_cipher *c, uint64_t lblk,
				    const uint8_t *in, uint8_t *out, size_t len);

/* Decrypt a stored name of len >= 16 bytes with CBC-CTS (CS3; the IV is
 * zero, or from the inode number under the IV_INO_LBLK flags), or with
 * Adiantum or HCTR2 (the IV of block 0, so with the nonce under DIRECT_KEY).
 * out gets len bytes; *name_len is the length up to the first NUL.
 * E4_BAD_KEY when the result is not a plausible name: non-zero bytes after
 * the first NUL, an empty name, or a '/'.  E4_CORRUPT for len < 16. */
enum e4_status e4_decrypt_name(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out, size_t *name_len);

/* The same for a symlink target, where '/' is allowed. */
enum e4_status e4_decrypt_path(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out, size_t *path_len);

/* Encrypt a name already padded to its stored length (>= 16). */
enum e4_status e4_encrypt_name(struct e4_cipher *c, const uint8_t *in,
			       size_t len, uint8_t *out);

/* Bits of evidence that a decrypted name came from the right key: 8 per
 * verified zero padding byte, plus 1 per byte when the name is printable
 * UTF-8.  Used to pick among candidate keys by trial decryption. */
unsigned int e4_name_evidence_bits(const uint8_t *plain, size_t stored_len,
				   size_t name_len);

/* Evidence over many names (a directory's, or a policy's) that a key is
 * the right one.  A name "verifies" with 8 or more bits of its own: with a
 * wrong key about one name in 256 does (a zero last byte), with the right
 * one nearly all do.  So a key is trusted when most names verify; many
 * names without evidence (which a wrong key also decrypts "validly") or
 * failures do not add up to trust. */
struct e4_evidence {
	unsigned int bits;
	size_t names;       /* names tried */
	size_t verified;    /* with 8 or more bits of their own */
	size_t failed;      /* did not decrypt to a valid name */
};
/* Count one name: ok when it decrypted to a valid name of n bytes out of
 * stored (plain: the decrypted bytes). */
void e4_evidence_add(struct e4_evidence *ev, int ok, const uint8_t *plain,
		     size_t stored, size_t n);
/* Most names verify. */
int e4_evidence_trusted(const struct e4_evidence *ev);

/* A key's trial on a v1 policy adds the bits of the units (a directory's
 * names, a symlink target) that are trusted.  It ends after
 * E4_TRIAL_NAMES names or on enough evidence, and accepts the key on
 * E4_TRIAL_EVIDENCE_BITS, or on E4_TRIAL_EVIDENCE_MIN once every name of
 * the policy was tried (complete). */
#define E4_TRIAL_EVIDENCE_BITS 32
#define E4_TRIAL_EVIDENCE_MIN 16
#define E4_TRIAL_NAMES 256
int e4_trial_ended(unsigned int bits, size_t names);
int e4_trial_accepts(unsigned int bits, int complete);

#endif
