/* Shared parts of e4dump vectors: a deterministic byte source, JSON
 * helpers and the format rules both generation and checking use. */
#ifndef E4DUMP_VECTORS_H
#define E4DUMP_VECTORS_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* Deterministic bytes: SHA-256(seed || le64 counter) blocks. */
struct drbg {
	const char *seed;
	uint64_t counter;
};
void drbg_bytes(struct drbg *d, uint8_t *out, size_t n);
/* Printable names: no NUL or '/', starting with a 2-byte UTF-8 character. */
void drbg_name(struct drbg *d, uint8_t *out, size_t n);

json_object *vec(const char *type);
void add_hex(json_object *o, const char *key, const uint8_t *p, size_t n);
void vec_emit(json_object *o); /* print one line and free */
/* Field readers: -1 when missing or malformed. */
int get_hex(json_object *o, const char *key, uint8_t *out, size_t cap,
	    size_t *len);
int64_t get_int(json_object *o, const char *key);
const char *get_str(json_object *o, const char *key);

/* Stored length of a name or symlink target of len bytes (section 8 of
 * the spec) for generation "2015" or "6.1", capped at max. */
size_t stored_len(const char *gen, unsigned int padding, size_t len,
		  size_t max);
/* Zero-pad to stored bytes and encrypt with AES-256-CTS, zero IV. */
int encrypt_padded(const uint8_t *key, const uint8_t *in, size_t len,
		   size_t stored, uint8_t *out);
/* ext4's directory hash (libext2fs) with a 16-byte seed. */
void dirhash(int version, const uint8_t seed[16], const uint8_t *name,
	     size_t len, uint32_t *hash, uint32_t *minor);

void vectors_generate(struct drbg *d);
/* Appended to vectors_generate: IV flags, AES-128 modes, passphrases,
 * the casefold dirhash, no-key names, then Adiantum and HCTR2. */
void vectors_generate_modes(struct drbg *d);
/* Appended after them: inode_key, the per-inode key schedule. */
void vectors_generate_keys(struct drbg *d);
int vectors_check_inode_key(json_object *o);
/* 0 = recomputed equal, 1 = differs, -1 = malformed or unknown type. */
int vectors_check_one(json_object *o);

#endif
