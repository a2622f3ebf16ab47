/* SipHash directory hashes (casefold + encryption). */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "siphash_dirhash.h"

enum e4_status e4_siphash(uint64_t *out, const uint8_t key[16],
			  const uint8_t *data, size_t len)
{
	uint8_t mac[8];
	size_t n = 0, size = 8;
	EVP_MAC *m = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
	EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
	OSSL_PARAM p[2];
	int ok;

	EVP_MAC_free(m);
	if (!ctx)
		return E4_CRYPTO;
	p[0] = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size);
	p[1] = OSSL_PARAM_construct_end();
	/* EVP_MAC_update with a NULL pointer is fine only for len 0. */
	ok = EVP_MAC_init(ctx, key, 16, p) &&
	     (len == 0 || EVP_MAC_update(ctx, data, len)) &&
	     EVP_MAC_final(ctx, mac, &n, sizeof(mac)) && n == 8;
	EVP_MAC_CTX_free(ctx);
	if (!ok)
		return E4_CRYPTO;
	*out = 0;
	for (int i = 7; i >= 0; i--)
		*out = *out << 8 | mac[i];
	return E4_OK;
}

enum e4_status e4_siphash_dirhash(const uint8_t key[16], const uint8_t *name,
				  size_t len, uint32_t *hash, uint32_t *minor)
{
	uint64_t h;
	enum e4_status st = e4_siphash(&h, key, name, len);

	if (st != E4_OK)
		return st;
	*hash = (uint32_t)(h >> 32) & ~1u;
	if (*hash == 0xfffffffeu) /* EXT4_HTREE_EOF_32BIT << 1 is reserved */
		*hash = 0xfffffffcu;
	*minor = (uint32_t)h;
	return E4_OK;
}
