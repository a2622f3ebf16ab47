#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include "algs_impl.h"
#include "kdf.h"
#include "siphash_dirhash.h"

void e4_wipe(void *p, size_t n)
{
	OPENSSL_cleanse(p, n);
}

enum e4_status e4_v1_derive_key(uint8_t *out, size_t keysize,
				const uint8_t *master, size_t master_len,
				const uint8_t nonce[E4_NONCE_SIZE])
{
	return e4_v1_derive_key_algs(NULL, out, keysize, master, master_len,
				     nonce);
}

/* AES-128-ECB under the nonce, encrypting (derive) or decrypting. */
static enum e4_status v1_ecb(const struct e4_algs *a, int enc, uint8_t *out,
			     const uint8_t *in, size_t keysize,
			     const uint8_t nonce[E4_NONCE_SIZE])
{
	EVP_CIPHER_CTX *ctx;
	int n = 0, ok;

	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return E4_NOMEM;
	ok = EVP_CipherInit_ex2(ctx, a ? a->aes_128_ecb : EVP_aes_128_ecb(),
				nonce, NULL, enc, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
	     EVP_CipherUpdate(ctx, out, &n, in, (int)keysize) &&
	     (size_t)n == keysize;
	EVP_CIPHER_CTX_free(ctx); /* cleanses the key schedule */
	if (!ok) {
		e4_wipe(out, keysize);
		return E4_CRYPTO;
	}
	return E4_OK;
}

enum e4_status e4_v1_derive_key_algs(const struct e4_algs *a, uint8_t *out,
				     size_t keysize, const uint8_t *master,
				     size_t master_len,
				     const uint8_t nonce[E4_NONCE_SIZE])
{
	if (keysize == 0 || keysize % 16 || keysize > E4_MAX_KEY_SIZE ||
	    master_len < keysize)
		return E4_BAD_KEY;
	return v1_ecb(a, 1, out, master, keysize, nonce);
}

enum e4_status e4_v1_master_of_file_key(uint8_t *master,
					const uint8_t *file_key, size_t keysize,
					const uint8_t nonce[E4_NONCE_SIZE])
{
	if (keysize == 0 || keysize % 16 || keysize > E4_MAX_KEY_SIZE)
		return E4_BAD_KEY;
	return v1_ecb(NULL, 0, master, file_key, keysize, nonce);
}

enum e4_status e4_e4crypt_descriptor(uint8_t out[E4_KEY_DESCRIPTOR_SIZE],
				     const uint8_t *key, size_t key_len)
{
	uint8_t h[64];
	unsigned int hl;

	if (!EVP_Digest(key, key_len, h, &hl, EVP_sha512(), NULL) ||
	    !EVP_Digest(h, sizeof(h), h, &hl, EVP_sha512(), NULL))
		return E4_CRYPTO;
	memcpy(out, h, E4_KEY_DESCRIPTOR_SIZE);
	e4_wipe(h, sizeof(h));
	return E4_OK;
}

enum e4_status e4_hkdf_sha512(uint8_t *out, size_t out_len,
			      const uint8_t *master, size_t master_len,
			      uint8_t context, const uint8_t *info,
			      size_t info_len)
{
	return e4_hkdf_sha512_algs(NULL, out, out_len, master, master_len,
				   context, info, info_len);
}

enum e4_status e4_hkdf_sha512_algs(const struct e4_algs *a, uint8_t *out,
				   size_t out_len, const uint8_t *master,
				   size_t master_len, uint8_t context,
				   const uint8_t *info, size_t info_len)
{
	uint8_t full[8 + 1 + 64];
	EVP_KDF *kdf;
	EVP_KDF_CTX *ctx;
	OSSL_PARAM p[5], *q = p;
	int ok;

	if (info_len > 64)
		return E4_CORRUPT;
	memcpy(full, "fscrypt\0", 8);
	full[8] = context;
	if (info_len)
		memcpy(full + 9, info, info_len);
	kdf = a ? a->hkdf : EVP_KDF_fetch(NULL, "HKDF", NULL);
	ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL; /* holds its own reference */
	if (!a)
		EVP_KDF_free(kdf);
	if (!ctx)
		return E4_CRYPTO;
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
						(char *)"SHA512", 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						 (void *)master, master_len);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, full,
						 9 + info_len);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
						 (void *)"", 0);
	*q = OSSL_PARAM_construct_end();
	ok = EVP_KDF_derive(ctx, out, out_len, p) > 0;
	EVP_KDF_CTX_free(ctx);
	return ok ? E4_OK : E4_CRYPTO;
}

enum e4_status e4_v2_key_identifier(uint8_t out[E4_KEY_IDENTIFIER_SIZE],
				    const uint8_t *master, size_t master_len)
{
	return e4_hkdf_sha512(out, E4_KEY_IDENTIFIER_SIZE, master, master_len,
			      E4_HKDF_KEY_IDENTIFIER, NULL, 0);
}

enum e4_status e4_siphash_u64(uint64_t *out, const uint8_t key[16],
			      uint64_t value)
{
	uint8_t in[8];

	for (int i = 0; i < 8; i++)
		in[i] = (uint8_t)(value >> (8 * i));
	return e4_siphash(out, key, in, sizeof(in));
}

enum e4_status e4_e4crypt_passphrase_key(uint8_t out[64], const uint8_t *pass,
					 size_t pass_len, const uint8_t *salt,
					 size_t salt_len)
{
	uint8_t *buf, h[64], acc[64] = { 0 };
	unsigned int hl;
	int ok = 1;

	if (salt_len > 256 || pass_len > 1024)
		return E4_BAD_KEY;
	buf = calloc(1, 256 + 1024);
	if (!buf)
		return E4_NOMEM;
	if (salt_len)
		memcpy(buf, salt, salt_len);
	memcpy(buf + 256, pass, pass_len);
	ok = EVP_Digest(buf, 256 + pass_len, h, &hl, EVP_sha512(), NULL);
	memcpy(buf + 64, pass, pass_len);
	for (unsigned int i = 0; ok && i < E4_E4CRYPT_ITERATIONS; i++) {
		if (i) {
			memcpy(buf, h, 64);
			ok = EVP_Digest(buf, 64 + pass_len, h, &hl, EVP_sha512(), NULL);
		}
		for (int j = 0; j < 64; j++)
			acc[j] ^= h[j];
	}
	if (ok)
		memcpy(out, acc, 64);
	e4_wipe(buf, 256 + 1024);
	e4_wipe(h, sizeof(h));
	e4_wipe(acc, sizeof(acc));
	free(buf);
	return ok ? E4_OK : E4_CRYPTO;
}
