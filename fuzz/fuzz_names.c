/* Stored names and data units: e4_decrypt_name, e4_decrypt_path,
 * e4_name_evidence_bits, e4_escape (how e4dump shows any name bytes) and
 * e4_decrypt_data_unit, each mode, with and without DIRECT_KEY.  Input:
 * byte 0 picks mode / IV scheme / direct key, byte 1 the inode, then the
 * stored bytes. */
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "fscrypt_disk.h"
#include "fuzz_common.h"
#include "modes.h"
#include "escape.h"
#include "utf8.h"

static const uint8_t name_modes[] = {
	E4_MODE_AES_256_CTS, E4_MODE_AES_128_CTS, E4_MODE_ADIANTUM,
	E4_MODE_AES_256_HCTR2, E4_MODE_ADIANTUM,
};
static const uint8_t data_modes[] = {
	E4_MODE_AES_256_XTS, E4_MODE_AES_128_CBC, E4_MODE_ADIANTUM,
	E4_MODE_AES_256_XTS, E4_MODE_ADIANTUM,
};
#define NSLOTS 5 /* the last: Adiantum with DIRECT_KEY */
static struct e4_cipher *names[NSLOTS], *contents[NSLOTS];

static struct e4_cipher *setup(uint8_t mode)
{
	const struct e4_mode_info *m = e4_mode_lookup(mode);
	struct e4_cipher *c;

	if (!m || e4_cipher_new(&c, mode, fuzz_test_key, m->keysize) != E4_OK)
		abort();
	return c;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t nonce[E4_NONCE_SIZE] = "fuzz nonce 1234";

	(void)argc, (void)argv;
	fuzz_quiet();
	for (int i = 0; i < NSLOTS; i++) {
		names[i] = setup(name_modes[i]);
		contents[i] = setup(data_modes[i]);
	}
	e4_cipher_set_direct_key(names[NSLOTS - 1], nonce);
	e4_cipher_set_direct_key(contents[NSLOTS - 1], nonce);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sel, *out;
	const uint8_t *in;
	size_t len, nlen;
	struct e4_cipher *c;
	enum e4_status st;
	char *esc;

	if (size < 2 || size > 8192)
		return 0;
	sel = data[0];
	in = data + 2;
	len = size - 2;
	out = malloc(len + 1);
	esc = malloc(4 * len + 1);
	if (!out || !esc)
		goto done;

	/* The stored bytes shown as a name. */
	e4_escape(in, len, esc, E4_ESCAPE_SLASH);
	if (strlen(esc) > 4 * len)
		__builtin_trap();
	for (size_t i = 0; i < len;) {
		size_t n = e4_utf8_seq_len(in + i, len - i);

		if (n > 4 || n > len - i)
			__builtin_trap();
		i += n ? n : 1;
	}

	c = names[sel % NSLOTS];
	e4_cipher_set_iv_scheme(c, (enum e4_iv_scheme)(sel / NSLOTS % 3),
				data[1]);
	if (len <= E4_NAME_MAX) {
		st = e4_decrypt_name(c, in, len, out, &nlen);
		if (st == E4_OK || st == E4_BAD_KEY) {
			if (nlen > len)
				__builtin_trap();
			(void)e4_name_evidence_bits(out, len, nlen);
		}
		st = e4_decrypt_path(c, in, len, out, &nlen);
		if (st == E4_OK && nlen > len)
			__builtin_trap();
	}

	c = contents[sel % NSLOTS];
	e4_cipher_set_iv_scheme(c, (enum e4_iv_scheme)(sel / NSLOTS % 3),
				data[1]);
	(void)e4_decrypt_data_unit(c, (uint64_t)data[1] << 20 | sel, in, out,
				   len);
done:
	free(out);
	free(esc);
	return 0;
}
