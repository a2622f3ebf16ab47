#include <string.h>
#include "fscrypt_disk.h"
#include "symlink.h"

enum e4_status e4_symlink_parse(const uint8_t *blob, size_t size,
				const uint8_t **ct, size_t *ct_len)
{
	size_t len;

	if (size < E4_SYMLINK_HEADER_SIZE)
		return E4_CORRUPT;
	len = (size_t)blob[0] | (size_t)blob[1] << 8;
	if (len < E4_FNAME_MIN_LEN || len > size - E4_SYMLINK_HEADER_SIZE)
		return E4_CORRUPT;
	*ct = blob + E4_SYMLINK_HEADER_SIZE;
	*ct_len = len;
	return E4_OK;
}

enum e4_status e4_symlink_decrypt(struct e4_cipher *c, const uint8_t *blob,
				  size_t size, uint8_t *out,
				  size_t *target_len)
{
	const uint8_t *ct;
	size_t len, n;
	enum e4_status st;

	*target_len = 0;
	st = e4_symlink_parse(blob, size, &ct, &len);
	if (st)
		return st;
	st = e4_decrypt_path(c, ct, len, out, &n);
	if (st)
		return st;
	out[len] = '\0';
	*target_len = n;
	return E4_OK;
}
