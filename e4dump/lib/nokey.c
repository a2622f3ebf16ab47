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

size_t e4_encode_digest_2015(const uint8_t *in, size_t len, char *out)
{
	static const char table[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+";
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint8_t b[3] = { 0, 0, 0 };

		memcpy(b, in + i, len - i < 3 ? len - i : 3);
		out[n++] = table[b[0] & 0x3f];
		out[n++] = table[(b[0] >> 6) | ((b[1] & 0x0f) << 2)];
		out[n++] = table[(b[1] >> 4) | ((b[2] & 0x03) << 4)];
		out[n++] = table[b[2] >> 2];
	}
	out[n] = '\0';
	return n;
}

enum e4_status e4_nokey_name_2015(const uint8_t *ct, size_t len, char *out)
{
	uint8_t digest[32];
	unsigned int dl;

	if (len <= E4_NOKEY_2015_DIRECT_MAX) {
		e4_encode_digest_2015(ct, len, out);
		return E4_OK;
	}
	if (!EVP_Digest(ct, len, digest, &dl, EVP_sha256(), NULL))
		return E4_CRYPTO;
	out[0] = 'I';
	e4_encode_digest_2015(digest, sizeof(digest), out + 1);
	return E4_OK;
}
