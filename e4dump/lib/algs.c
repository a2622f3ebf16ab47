#include <stdlib.h>
#include "algs_impl.h"

enum e4_status e4_algs_new(struct e4_algs **out)
{
	struct e4_algs *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return E4_NOMEM;
	a->aes_128_ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
	a->aes_256_ecb = EVP_CIPHER_fetch(NULL, "AES-256-ECB", NULL);
	a->aes_256_xts = EVP_CIPHER_fetch(NULL, "AES-256-XTS", NULL);
	a->aes_128_cbc = EVP_CIPHER_fetch(NULL, "AES-128-CBC", NULL);
	a->aes_128_cts = EVP_CIPHER_fetch(NULL, "AES-128-CBC-CTS", NULL);
	a->aes_256_cts = EVP_CIPHER_fetch(NULL, "AES-256-CBC-CTS", NULL);
	a->hkdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	if (!a->aes_128_ecb || !a->aes_256_ecb || !a->aes_256_xts ||
	    !a->aes_128_cbc || !a->aes_128_cts || !a->aes_256_cts || !a->hkdf) {
		e4_algs_free(a);
		return E4_CRYPTO;
	}
	*out = a;
	return E4_OK;
}

void e4_algs_free(struct e4_algs *a)
{
	if (!a)
		return;
	EVP_CIPHER_free(a->aes_128_ecb);
	EVP_CIPHER_free(a->aes_256_ecb);
	EVP_CIPHER_free(a->aes_256_xts);
	EVP_CIPHER_free(a->aes_128_cbc);
	EVP_CIPHER_free(a->aes_128_cts);
	EVP_CIPHER_free(a->aes_256_cts);
	EVP_KDF_free(a->hkdf);
	free(a);
}
