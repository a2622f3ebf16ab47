/* e4dump vectors: helpers shared by generation and checking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <ext2fs/ext2fs.h>
#include "cipher.h"
#include "context.h"
#include "fname.h"
#include "fs.h"
#include "hex.h"
#include "kdf.h"
#include "nokey.h"
#include "symlink.h"
#include "vectors.h"

/* ---- deterministic bytes: SHA-256(seed || le64 counter) blocks ---- */

void drbg_bytes(struct drbg *d, uint8_t *out, size_t n)
{
	while (n) {
		uint8_t in[8], h[32];
		unsigned int hl;
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		size_t k = n < 32 ? n : 32;

		for (int i = 0; i < 8; i++)
			in[i] = (uint8_t)(d->counter >> (8 * i));
		d->counter++;
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
		EVP_DigestUpdate(ctx, d->seed, strlen(d->seed));
		EVP_DigestUpdate(ctx, in, sizeof(in));
		EVP_DigestFinal_ex(ctx, h, &hl);
		EVP_MD_CTX_free(ctx);
		memcpy(out, h, k);
		out += k;
		n -= k;
	}
}

/* Printable names: bytes from a set without NUL and '/', some UTF-8. */
void drbg_name(struct drbg *d, uint8_t *out, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789 ._-";

	drbg_bytes(d, out, n);
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)set[out[i] % (sizeof(set) - 1)];
	if (n >= 3) {
		out[0] = 0xc3; /* "é" */
		out[1] = 0xa9;
	}
}

/* ---- JSON helpers ---- */

void add_hex(json_object *o, const char *key, const uint8_t *p,
		    size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);

	for (size_t i = 0; i < n; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	s[2 * n] = '\0';
	json_object_object_add(o, key, json_object_new_string(s));
	free(s);
}

void vec_emit(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

json_object *vec(const char *type)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(type));
	return o;
}

/* ---- format rules ---- */

size_t stored_len(const char *gen, unsigned int padding, size_t len,
			 size_t max)
{
	return e4_fname_encrypted_size(strcmp(gen, "2015") ? E4_FORMAT_61 :
							     E4_FORMAT_2015,
				       padding, len, max);
}

int encrypt_padded(const uint8_t *key, const uint8_t *in, size_t len,
			  size_t stored, uint8_t *out)
{
	uint8_t buf[4096] = { 0 };
	struct e4_cipher *c;
	int r;

	if (e4_cipher_new(&c, E4_MODE_AES_256_CTS, key, 32))
		return -1;
	memcpy(buf, in, len);
	r = e4_encrypt_name(c, buf, stored, out) ? -1 : 0;
	e4_cipher_free(c);
	return r;
}

void dirhash(int version, const uint8_t seed[16], const uint8_t *name,
		    size_t len, uint32_t *hash, uint32_t *minor)
{
	uint32_t s[4];

	for (int i = 0; i < 4; i++)
		s[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 |
		       (uint32_t)seed[4 * i + 2] << 16 |
		       (uint32_t)seed[4 * i + 3] << 24;
	*hash = *minor = 0;
	e4_dirhash(version, name, len, s, hash, minor);
}

/* ---- checking ---- */

int get_hex(json_object *o, const char *key, uint8_t *out, size_t cap,
		   size_t *len)
{
	json_object *v;
	const char *s;
	long n;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	n = e4_hex_decode(s, strlen(s), out, cap);
	if (n < 0)
		return -1;
	*len = (size_t)n;
	return 0;
}

int64_t get_int(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return -1;
	return json_object_get_int64(v);
}

const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return "";
	return json_object_get_string(v);
}

