/* e4dump vectors: inode_key, the whole per-inode key schedule
 * (lib/keysetup.c) from master key, context, inode number and UUID to
 * the derived key and the IV it is used with. */
#include <string.h>
#include "context.h"
#include "kdf.h"
#include "keysetup.h"
#include "vectors.h"

static const char *iv_name(enum e4_iv_scheme s)
{
	return s == E4_IV_INO_LBLK_64 ? "ino_lblk_64" :
	       s == E4_IV_INO_LBLK_32 ? "ino_lblk_32" : "lblk";
}

/* The context bytes of a v1 or v2 policy (spec §4). */
static size_t context_bytes(uint8_t *out, int version, int cmode, int fmode,
			    int flags, const uint8_t *key_id, const uint8_t *nonce)
{
	out[0] = (uint8_t)version;
	out[1] = (uint8_t)cmode;
	out[2] = (uint8_t)fmode;
	out[3] = (uint8_t)flags;
	if (version == 1) {
		memcpy(out + 4, key_id, 8);
		memcpy(out + 12, nonce, 16);
		return 28;
	}
	memset(out + 4, 0, 4);
	memcpy(out + 8, key_id, 16);
	memcpy(out + 24, nonce, 16);
	return 40;
}

void vectors_generate_keys(struct drbg *d)
{
	static const struct { int version, cmode, fmode, flags; } pol[] = {
		{ 1, 1, 4, 0 }, { 1, 1, 4, 3 }, { 1, 5, 6, 0 }, { 1, 9, 9, 4 },
		{ 2, 1, 4, 2 }, { 2, 9, 9, 4 }, { 2, 1, 4, 8 }, { 2, 1, 4, 0x10 },
		{ 2, 1, 10, 0 }, { 2, 5, 6, 0 },
	};
	static const uint32_t inos[] = { 12, 65537, 0xfffffffe };

	for (size_t i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		for (int use = 0; use < 2; use++) {
			uint8_t master[64], key_id[16], nonce[16], uuid[16], ctxb[40];
			uint8_t dk[E4_MAX_KEY_SIZE];
			size_t n, dkl;
			struct e4_master_key mk;
			struct e4_context c;
			enum e4_iv_scheme s;
			uint32_t iv, ino = inos[(i + (size_t)use) % 3];
			json_object *o;

			drbg_bytes(d, master, 64);
			drbg_bytes(d, key_id, 16);
			drbg_bytes(d, nonce, 16);
			drbg_bytes(d, uuid, 16);
			n = context_bytes(ctxb, pol[i].version, pol[i].cmode,
					  pol[i].fmode, pol[i].flags, key_id, nonce);
			if (e4_context_parse(&c, ctxb, n) != E4_OK ||
			    e4_master_key_init_raw(&mk, master, 64) != E4_OK ||
			    e4_keysetup_derive(&mk, &c, ino, uuid,
					       use ? E4_KEY_NAMES : E4_KEY_CONTENTS,
					       dk, &dkl, &s, &iv) != E4_OK) {
				e4_wipe(&mk, sizeof(mk));
				continue;
			}
			e4_wipe(&mk, sizeof(mk));
			o = vec("inode_key");
			add_hex(o, "master", master, 64);
			add_hex(o, "context", ctxb, n);
			json_object_object_add(o, "ino", json_object_new_int64(ino));
			add_hex(o, "uuid", uuid, 16);
			json_object_object_add(o, "use", json_object_new_string(
				use ? "names" : "contents"));
			add_hex(o, "key", dk, dkl);
			json_object_object_add(o, "iv", json_object_new_string(iv_name(s)));
			if (s != E4_IV_LBLK)
				json_object_object_add(o, "iv_value",
						       json_object_new_int64(iv));
			vec_emit(o);
			e4_wipe(dk, sizeof(dk));
		}
	}
}

int vectors_check_inode_key(json_object *o)
{
	uint8_t master[64], ctxb[64], uuid[16], want[64], dk[E4_MAX_KEY_SIZE];
	size_t ml, cl, ul, wl, dkl;
	struct e4_master_key mk;
	struct e4_context c;
	enum e4_iv_scheme s;
	uint32_t iv;
	const char *use = get_str(o, "use"), *ivn = get_str(o, "iv");
	int64_t ino = get_int(o, "ino");
	int bad;

	if (get_hex(o, "master", master, 64, &ml) || get_hex(o, "context", ctxb, 64, &cl) ||
	    get_hex(o, "uuid", uuid, 16, &ul) || ul != 16 ||
	    get_hex(o, "key", want, 64, &wl) || !use || !ivn || ino < 0 ||
	    ino > UINT32_MAX || e4_context_parse(&c, ctxb, cl) != E4_OK)
		return -1;
	bad = e4_master_key_init_raw(&mk, master, ml) != E4_OK ||
	      e4_keysetup_derive(&mk, &c, (uint32_t)ino, uuid,
				 strcmp(use, "names") ? E4_KEY_CONTENTS : E4_KEY_NAMES,
				 dk, &dkl, &s, &iv) != E4_OK;
	e4_wipe(&mk, sizeof(mk));
	if (bad)
		return 1;
	bad = dkl != wl || memcmp(dk, want, wl) || strcmp(iv_name(s), ivn) ||
	      (s != E4_IV_LBLK && get_int(o, "iv_value") != (int64_t)iv);
	e4_wipe(dk, sizeof(dk));
	return bad;
}
