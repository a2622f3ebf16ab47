#include <string.h>
#include <openssl/evp.h>
#include "nokey.h"

size_t e4_base64url_encode(const uint8_t *in, size_t len, char *out)
{
	int n = EVP_EncodeBlock((unsigned char *)out, in, (int)len);

	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	for (int i = 0; i < n; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return (size_t)n;
}

enum e4_status e4_nokey_name_v61(uint32_t hash, uint32_t minor_hash,
				 const uint8_t *ct, size_t len, char *out)
{
	uint8_t buf[8 + E4_NOKEY_BYTES + 32];
	size_t size;

	for (int i = 0; i < 4; i++) {
		buf[i] = (uint8_t)(hash >> (8 * i));
		buf[4 + i] = (uint8_t)(minor_hash >> (8 * i));
	}
	if (len <= E4_NOKEY_BYTES) {
		memcpy(buf + 8, ct, len);
		size = 8 + len;
	} else {
		unsigned int hl;

		memcpy(buf + 8, ct, E4_NOKEY_BYTES);
		if (!EVP_Digest(ct + E4_NOKEY_BYTES, len - E4_NOKEY_BYTES,
				buf + 8 + E4_NOKEY_BYTES, &hl, EVP_sha256(),
				NULL))
			return E4_CRYPTO;
		size = sizeof(buf);
	}
	e4_base64url_encode(buf, size, out);
	return E4_OK;
}
