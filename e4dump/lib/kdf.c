#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include "kdf.h"

void e4_wipe(void *p, size_t n)
{
	OPENSSL_cleanse(p, n);
}

enum e4_status e4_v1_derive_key(uint8_t *out, size_t keysize,
				const uint8_t *master, size_t master_len,
				const uint8_t nonce[E4_NONCE_SIZE])
{
	EVP_CIPHER_CTX *ctx;
	int n = 0, ok;

	if (keysize == 0 || keysize % 16 || keysize > E4_MAX_KEY_SIZE ||
	    master_len < keysize)
		return E4_BAD_KEY;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return E4_NOMEM;
	ok = EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, nonce, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
	     EVP_EncryptUpdate(ctx, out, &n, master, (int)keysize) &&
	     (size_t)n == keysize;
	EVP_CIPHER_CTX_free(ctx); /* cleanses the key schedule */
	if (!ok) {
		e4_wipe(out, keysize);
		return E4_CRYPTO;
	}
	return E4_OK;
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
