/* The no-key name functions of every generation.  Input: le32 hash,
 * le32 minor_hash, then the ciphertext (any length; the callers pass
 * stored names of 1..255 bytes, more is tried too). */
#include <string.h>
#include "fuzz_common.h"
#include "nokey.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[4 * 1024 + 16];
	uint32_t hash, minor;
	const uint8_t *ct;
	size_t len, n;

	if (size < 8 || size > 3 * 1024)
		return 0;
	hash = le32(data);
	minor = le32(data + 4);
	ct = data + 8;
	len = size - 8;

	n = e4_base64url_encode(ct, len, out);
	if (n != strlen(out) || n > 4 * ((len + 2) / 3))
		__builtin_trap();
	n = e4_encode_digest_2015(ct, len, out);
	if (n != strlen(out) || n > 4 * ((len + 2) / 3))
		__builtin_trap();
	n = e4_encode_le6(ct, len, out);
	if (n != strlen(out) || n != (8 * len + 5) / 6)
		__builtin_trap();

	/* The name functions: out of E4_NOKEY_NAME_MAX + 1 bytes, as the
	 * header asks; a canary after it catches an overrun even without
	 * ASan. */
	if (len >= 1 && len <= 255) {
		char name[E4_NOKEY_NAME_MAX + 1 + 8];

		memset(name + E4_NOKEY_NAME_MAX + 1, 0x5a, 8);
		if (e4_nokey_name_v61(hash, minor, ct, len, name) == E4_OK &&
		    strlen(name) > E4_NOKEY_NAME_MAX)
			__builtin_trap();
		if (e4_nokey_name_2015(ct, len, name) == E4_OK &&
		    strlen(name) > E4_NOKEY_2015_MAX)
			__builtin_trap();
		for (int g = E4_NOKEY_GEN_41; g <= E4_NOKEY_GEN_56; g++)
			if (e4_nokey_name_gen((enum e4_nokey_generation)g, hash,
					      minor, ct, len, name) == E4_OK &&
			    strlen(name) > E4_NOKEY_NAME_MAX)
				__builtin_trap();
		for (int i = 0; i < 8; i++)
			if (name[E4_NOKEY_NAME_MAX + 1 + i] != 0x5a)
				__builtin_trap();
	}
	return 0;
}
