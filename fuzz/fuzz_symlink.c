/* Encrypted symlink blobs: e4_symlink_parse and e4_symlink_decrypt with
 * each filenames mode.  Input: byte 0 picks the mode and IV scheme, byte 1
 * the inode number, then the stored blob (le16 length, ciphertext). */
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "fscrypt_disk.h"
#include "fuzz_common.h"
#include "modes.h"
#include "symlink.h"

static const uint8_t name_modes[] = {
	E4_MODE_AES_256_CTS, E4_MODE_AES_128_CTS, E4_MODE_ADIANTUM,
	E4_MODE_AES_256_HCTR2,
};
static struct e4_cipher *ciphers[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	for (int i = 0; i < 4; i++) {
		const struct e4_mode_info *m = e4_mode_lookup(name_modes[i]);

		if (!m || e4_cipher_new(&ciphers[i], name_modes[i],
					fuzz_test_key, m->keysize) != E4_OK)
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_cipher *c;
	const uint8_t *blob, *ct;
	size_t blen, ct_len, tlen;
	uint8_t *out;
	enum e4_status st;

	if (size < 2 || size > 8192)
		return 0;
	c = ciphers[data[0] & 3];
	e4_cipher_set_iv_scheme(c, (enum e4_iv_scheme)((data[0] >> 2) % 3),
				data[1]);
	blob = data + 2;
	blen = size - 2;

	st = e4_symlink_parse(blob, blen, &ct, &ct_len);
	if (st == E4_OK && (ct < blob || ct + ct_len > blob + blen))
		__builtin_trap();
	/* out must hold blen bytes (symlink.h); exactly that, so that ASan
	 * sees any write past it.  malloc(0) is avoided. */
	out = malloc(blen ? blen : 1);
	if (!out)
		return 0;
	st = e4_symlink_decrypt(c, blob, blen, out, &tlen);
	if (st == E4_OK && (tlen > blen || strlen((char *)out) != tlen))
		__builtin_trap();
	free(out);
	return 0;
}
