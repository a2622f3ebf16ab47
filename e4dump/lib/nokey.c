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

static void put_hash_pair(uint8_t *buf, uint32_t hash, uint32_t minor_hash)
{
	for (int i = 0; i < 4; i++) {
		buf[i] = (uint8_t)(hash >> (8 * i));
		buf[4 + i] = (uint8_t)(minor_hash >> (8 * i));
	}
}

/* struct fscrypt_nokey_name (5.6+): hash pair, then the ciphertext or its
 * first 149 bytes and SHA-256 of the rest.  Returns the size or 0. */
static size_t nokey_struct(uint8_t buf[8 + E4_NOKEY_BYTES + 32], uint32_t hash,
			   uint32_t minor_hash, const uint8_t *ct, size_t len)
{
	unsigned int hl;

	put_hash_pair(buf, hash, minor_hash);
	if (len <= E4_NOKEY_BYTES) {
		memcpy(buf + 8, ct, len);
		return 8 + len;
	}
	memcpy(buf + 8, ct, E4_NOKEY_BYTES);
	if (!EVP_Digest(ct + E4_NOKEY_BYTES, len - E4_NOKEY_BYTES,
			buf + 8 + E4_NOKEY_BYTES, &hl, EVP_sha256(), NULL))
		return 0;
	return 8 + E4_NOKEY_BYTES + 32;
}

enum e4_status e4_nokey_name_v61(uint32_t hash, uint32_t minor_hash,
				 const uint8_t *ct, size_t len, char *out)
{
	uint8_t buf[8 + E4_NOKEY_BYTES + 32];
	size_t size = nokey_struct(buf, hash, minor_hash, ct, len);

	if (!size)
		return E4_CRYPTO;
	e4_base64url_encode(buf, size, out);
	return E4_OK;
}

size_t e4_encode_le6(const uint8_t *in, size_t len, char *out)
{
	static const char table[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";
	uint32_t acc = 0;
	unsigned int bits = 0;
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		acc |= (uint32_t)in[i] << bits;
		bits += 8;
		while (bits >= 6) {
			out[n++] = table[acc & 0x3f];
			acc >>= 6;
			bits -= 6;
		}
	}
	if (bits)
		out[n++] = table[acc & 0x3f];
	out[n] = '\0';
	return n;
}

enum e4_status e4_nokey_name_gen(enum e4_nokey_generation gen, uint32_t hash,
				 uint32_t minor_hash, const uint8_t *ct,
				 size_t len, char *out)
{
	uint8_t buf[8 + E4_NOKEY_BYTES + 32];
	size_t size;

	if (len < 16 || len > 255)
		return E4_CORRUPT;
	if (gen == E4_NOKEY_GEN_56) {
		size = nokey_struct(buf, hash, minor_hash, ct, len);
		if (!size)
			return E4_CRYPTO;
		e4_encode_le6(buf, size, out);
		return E4_OK;
	}
	if (len <= E4_NOKEY_UNDIGESTED_MAX) {
		e4_encode_le6(ct, len, out);
		return E4_OK;
	}
	put_hash_pair(buf, hash, minor_hash);
	memcpy(buf + 8, ct + (gen == E4_NOKEY_GEN_41 ? len - 16 : (len - 17) & ~(size_t)15), 16);
	out[0] = '_';
	e4_encode_le6(buf, 24, out + 1);
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
