#include <string.h>
#include "hex.h"
#include "kdf.h"
#include "keyfile.h"

static int is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Returns the number of bytes decoded, or -1 if data is not hex text. */
static long parse_hex(const uint8_t *data, size_t size,
		      uint8_t key[E4_MAX_KEY_SIZE])
{
	size_t digits = 0;
	int hi = -1;

	for (size_t i = 0; i < size; i++) {
		int v;

		if (is_space(data[i]))
			continue;
		v = e4_hexval(data[i]);
		if (v < 0)
			return -1;
		if (digits / 2 >= E4_MAX_KEY_SIZE)
			return -2; /* too long for a key */
		if (hi < 0) {
			hi = v;
		} else {
			key[digits / 2] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
		digits++;
	}
	if (digits % 2)
		return -3;
	return (long)(digits / 2);
}

enum e4_status e4_keyfile_parse(const uint8_t *data, size_t size,
				uint8_t key[E4_MAX_KEY_SIZE], size_t *key_len,
				const char **why)
{
	long n = parse_hex(data, size, key);

	*key_len = 0;
	*why = NULL;
	if (n >= 0 || n == -3) {
		/* Hex text.  (A raw key made only of hex digits and spaces
		 * is read as hex: 2^-100 odds for a random 32-byte key.) */
		if (n == -3) {
			*why = "odd number of hex digits";
		} else if (n < E4_MASTER_KEY_MIN) {
			*why = "hex key shorter than 16 bytes";
		} else {
			*key_len = (size_t)n;
			return E4_OK;
		}
		e4_wipe(key, E4_MAX_KEY_SIZE);
		return E4_BAD_KEY;
	}
	e4_wipe(key, E4_MAX_KEY_SIZE);
	if (n == -2 && size > E4_MAX_KEY_SIZE) {
		*why = "key longer than 64 bytes";
		return E4_BAD_KEY;
	}
	if (size < E4_MASTER_KEY_MIN || size > E4_MAX_KEY_SIZE) {
		*why = size < E4_MASTER_KEY_MIN ? "key shorter than 16 bytes" :
						  "key longer than 64 bytes";
		return E4_BAD_KEY;
	}
	memcpy(key, data, size);
	*key_len = size;
	return E4_OK;
}
