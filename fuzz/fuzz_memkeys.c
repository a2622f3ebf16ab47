/* Key recognisers of memory captures (lib/memkeys.c, spec §17): every
 * recogniser at every offset of the input, given only what is left of it
 * (the sanitizers stop a read past it).  A match must hold what
 * memkeys.h promises: the key is the structure's bytes where the spec
 * puts them; an AES schedule is the one its key expands to, and a key
 * taken back through the v1 relation derives to itself again. */
#include <stdlib.h>
#include <string.h>
#include "byteorder.h"
#include "kdf.h"
#include "hex.h"
#include "memkeys.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	return 0;
}

/* The key of a crypto_aes_ctx found at p: its schedules re-made from the
 * key are p's, and it survives the v1 relation's round trip. */
static void check_aes(const uint8_t *p, const struct e4_mem_key *k)
{
	static const uint8_t nonce[16] = { 1, 2, 3 };
	uint8_t ctx[E4_AES_CTX_SIZE], m[32], back[32];
	size_t used = 16 * (k->len / 4 + 7);

	if (e4_aes_ctx_of_key(ctx, k->raw, k->len) != E4_OK ||
	    memcmp(ctx, p, used) || memcmp(ctx + 240, p + 240, used) ||
	    memcmp(ctx + 0x1e0, p + 0x1e0, 4))
		abort();
	if (k->len % 16 == 0 &&
	    (e4_v1_master_of_file_key(m, k->raw, k->len, nonce) != E4_OK ||
	     e4_v1_derive_key(back, k->len, m, k->len, nonce) != E4_OK ||
	     memcmp(back, k->raw, k->len)))
		abort();
	e4_wipe(ctx, sizeof(ctx));
	e4_wipe(m, sizeof(m));
	e4_wipe(back, sizeof(back));
}

static void at(const uint8_t *p, size_t n)
{
	struct e4_mem_key k, half;
	struct e4_hmac_states st;
	uint8_t id[16];

	if (e4_logon_payload_match(p, n, &k) &&
	    (k.len < 1 || k.len > 64 || e4_le16(p + 0x10) != 72 ||
	     e4_le32(p + 0x5c) != k.len || memcmp(k.raw, p + 0x1c, k.len)))
		abort();
	if (e4_mk_secret_v1_match(p, n, &k) &&
	    (k.len < 16 || k.len > 64 || e4_le64(p) || memcmp(k.raw, p + 0x0c, k.len) ||
	     n < E4_MK_SECRET_WINDOW || !k.named || e4_le32(p + 0x50) != 1 ||
	     memcmp(k.descriptor, p + 0x58, 8)))
		abort();
	if (e4_key_description_match(p, n, &k)) {
		size_t at = p[0] == 'f' ? 8 : 5;

		if (n < at + 17 || p[at + 16] || k.len || !k.named)
			abort();
		for (int i = 0; i < 8; i++)
			if (k.descriptor[i] != (uint8_t)(e4_hexval(p[at + 2 * i]) << 4 |
							  e4_hexval(p[at + 2 * i + 1])))
				abort();
	}
	if (e4_aes_ctx_match(p, n, &k)) {
		if (k.len != 16 && k.len != 24 && k.len != 32)
			abort();
		check_aes(p, &k);
	}
	if (e4_aesni_xts_match(p, n, &k)) {
		/* the first half from raw_crypt_ctx, the second in memory */
		if (!e4_aes_ctx_match(p + E4_AESNI_XTS_CRYPT_OFFSET,
				      n - E4_AESNI_XTS_CRYPT_OFFSET, &half) ||
		    k.len != 2 * half.len || memcmp(k.raw, half.raw, half.len) ||
		    memcmp(k.raw + half.len, p, half.len))
			abort();
		e4_wipe(&half, sizeof(half));
	}
	if (e4_hmac_states_match(p, n, &st) &&
	    e4_hkdf_expand_states(&st, E4_HKDF_KEY_IDENTIFIER, NULL, 0, id, sizeof(id)) != E4_OK)
		abort();
	e4_wipe(&k, sizeof(k));
	e4_wipe(&st, sizeof(st));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off < size; off++)
		at(data + off, size - off);
	return 0;
}
