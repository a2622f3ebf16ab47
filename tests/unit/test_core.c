/* Tests of the pure library parts the image layer rests on: display
 * escaping, the key store, per-inode key setup, stored name lengths,
 * extent nodes and walks, directory blocks, xattrs.  Expected keys were
 * computed by the independent Python implementation
 * (tests/vectors/verify_vectors.py: kdf_v1, hkdf_v2, siphash24) with
 * master = bytes(range(64)), nonce = bytes(range(0x10, 0x20)),
 * uuid = bytes(range(0xa0, 0xb0)), ino = 1234; each v2 one is derived
 * from that master key and again from its HMAC-SHA512 states alone (spec
 * §17.4's worked example, computed by tests/spec/hmac_states.py's pure
 * Python SHA-512; the same master key); layouts come from the
 * kernel's structures (fs/ext4/ext4.h, ext4_extents.h, xattr.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algs.h"
#include "bigmem.h"
#include "blockset.h"
#include "dirblock.h"
#include "escape.h"
#include "extent.h"
#include "fname.h"
#include "hex.h"
#include "kdf.h"
#include "keysetup.h"
#include "keystore.h"
#include "memkeys.h"
#include "xattr.h"

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;
	unsigned int v;

	for (; hex[0] && hex[1] && sscanf(hex, "%2x", &v) == 1; hex += 2)
		out[n++] = (uint8_t)v;
	return n;
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- escaping ---- */

START_TEST(escape_terminal)
{
	char out[E4_ESCAPE_SIZE(64)];
	/* C0, DEL, backslash, C1 (U+0085), bidi (U+202E, U+2066), LRM,
	 * overlong '/', a surrogate, and fine UTF-8 */
	static const uint8_t in[] = "a\x1b[\x7f\\\xc2\x85\xe2\x80\xae\xe2\x81\xa6"
				    "\xe2\x80\x8e\xc0\xaf\xed\xa0\x80\xc3\xa9/";

	e4_escape(in, sizeof(in) - 1, out, 0);
	ck_assert_str_eq(out, "a\\x1b[\\x7f\\x5c\\xc2\\x85\\xe2\\x80\\xae\\xe2\\x81\\xa6"
			      "\\xe2\\x80\\x8e\\xc0\\xaf\\xed\\xa0\\x80\xc3\xa9/");
	e4_escape((const uint8_t *)"a/b", 3, out, E4_ESCAPE_SLASH);
	ck_assert_str_eq(out, "a\\x2fb");
	/* the worst case fits E4_ESCAPE_SIZE */
	memset(out, 'z', sizeof(out));
	ck_assert_uint_eq(e4_escape((const uint8_t *)"\x01\x01", 2, out, 0), 8);
	ck_assert_str_eq(out, "\\x01\\x01");
}
END_TEST

/* ---- key store ---- */

static void master_of(struct e4_master_key *k, int states);

START_TEST(keystore_match)
{
	struct e4_keystore *ks = e4_keystore_new();
	uint8_t key[64];
	struct e4_context c;

	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	ck_assert_ptr_nonnull(ks);
	ck_assert_int_eq(e4_keystore_add(ks, key, 15, "short"), E4_BAD_KEY);
	ck_assert_int_eq(e4_keystore_add(ks, key, 65, "long"), E4_BAD_KEY);
	for (int i = 0; i < 9; i++) /* grows the table: keys stay put */
		ck_assert_int_eq(e4_keystore_add(ks, key, 16 + i, "k"), E4_OK);
	ck_assert_int_eq(e4_keystore_add(ks, key, 64, "full"), E4_OK);
	ck_assert_uint_eq(e4_keystore_count(ks), 10);
	ck_assert_str_eq(e4_keystore_key(ks, 9)->label, "full");
	ck_assert_ptr_null(e4_keystore_key(ks, 10));
	memset(&c, 0, sizeof(c));
	c.version = E4_CONTEXT_V1;
	c.key_id_size = 8;
	memcpy(c.key_id, e4_keystore_key(ks, 9)->e4crypt_desc, 8);
	ck_assert_int_eq(e4_keystore_match(ks, &c), 9);
	c.version = E4_CONTEXT_V2;
	c.key_id_size = 16;
	memcpy(c.key_id, e4_keystore_key(ks, 3)->v2_id, 16);
	ck_assert_int_eq(e4_keystore_match(ks, &c), 3);
	c.key_id[0] ^= 1;
	ck_assert_int_eq(e4_keystore_match(ks, &c), -1);
	e4_keystore_free(ks);
}
END_TEST

/* A states key in the store: named by its identifier (spec §17.4's) for
 * v2 policies, never by its (absent, all-zero) descriptor. */
START_TEST(keystore_states)
{
	struct e4_keystore *ks = e4_keystore_new();
	struct e4_master_key k;
	struct e4_context c;

	master_of(&k, 1);
	ck_assert_int_eq(e4_keystore_add_states(ks, &k.states, "states"), E4_OK);
	memset(&c, 0, sizeof(c));
	c.version = E4_CONTEXT_V2;
	c.key_id_size = 16;
	memcpy(c.key_id, k.v2_id, 16);
	ck_assert_int_eq(e4_keystore_match(ks, &c), 0);
	ck_assert(e4_keystore_key(ks, 0)->is_states);
	ck_assert_str_eq(e4_keystore_key(ks, 0)->label, "states");
	c.version = E4_CONTEXT_V1;
	c.key_id_size = 8;
	memset(c.key_id, 0, sizeof(c.key_id));
	ck_assert_int_eq(e4_keystore_match(ks, &c), -1);
	ck_assert(!e4_key_fits(e4_keystore_key(ks, 0), &c));
	e4_wipe(&k, sizeof(k));
	e4_keystore_free(ks);
}
END_TEST

/* ---- key setup ---- */

static void ctx_of(struct e4_context *c, int version, int cmode, int fmode,
		   int flags)
{
	memset(c, 0, sizeof(*c));
	c->version = (uint8_t)version;
	c->contents_mode = (uint8_t)cmode;
	c->filenames_mode = (uint8_t)fmode;
	c->flags = (uint8_t)flags;
	c->key_id_size = version == 1 ? 8 : 16;
	for (int i = 0; i < 16; i++)
		c->nonce[i] = (uint8_t)(0x10 + i);
}

/* The master key bytes(range(64)) as a key object: raw, or (states)
 * only the two HMAC-SHA512 states of its PRK as spec §17.4's example
 * gives them (eight u64 each, little-endian). */
static void master_of(struct e4_master_key *k, int states)
{
	static const char ipad[] =
		"755b6427b909b0816ba220ffd28b9ad29f8cf8060c197bf352fff6df56513267"
		"a0f27204e1fe85b1293c2c52ac617abd5b6c5072e24893ed9f257a2e39494a4c";
	static const char opad[] =
		"aa743007b14995fd00f3966f17fef44fcb467768e3412f478eb83b1446e37278"
		"4f9421a966fe78d270d91fb47bbc155f535f0658f4b9f868bc34f55d8542617f";
	uint8_t master[64], b[64];
	struct e4_hmac_states st;

	for (int i = 0; i < 64; i++)
		master[i] = (uint8_t)i;
	if (!states) {
		ck_assert_int_eq(e4_master_key_init_raw(k, master, 64), E4_OK);
		return;
	}
	ck_assert_int_eq(e4_hex_decode(ipad, 128, b, 64), 64);
	e4_hmac_state_load(st.ipad, b);
	ck_assert_int_eq(e4_hex_decode(opad, 128, b, 64), 64);
	e4_hmac_state_load(st.opad, b);
	ck_assert_int_eq(e4_master_key_init_states(k, &st), E4_OK);
	/* the identifier the spec gives for that key */
	ck_assert_int_eq(e4_hex_decode("8699c2c53707405da5aba5ae4d8583c0", 32, b, 16), 16);
	ck_assert_mem_eq(k->v2_id, b, 16);
	ck_assert(k->is_states && k->len == 0);
}

static void derive_is(int version, int cmode, int fmode, int flags,
		      enum e4_key_use use, const char *want, int scheme,
		      uint32_t iv_ino)
{
	uint8_t uuid[16], dk[64], w[64];
	struct e4_master_key k;
	struct e4_context c;
	enum e4_iv_scheme s;
	uint32_t iv;
	size_t n, wn = unhex(want, w);

	for (int i = 0; i < 16; i++)
		uuid[i] = (uint8_t)(0xa0 + i);
	ctx_of(&c, version, cmode, fmode, flags);
	for (int states = 0; states <= (version == 2); states++) {
		master_of(&k, states);
		ck_assert_int_eq(e4_keysetup_derive(&k, &c, 1234, uuid, use, dk,
						    &n, &s, &iv), E4_OK);
		ck_assert_uint_eq(n, wn);
		ck_assert_msg(!memcmp(dk, w, n), "%s key", states ? "states" : "raw");
		ck_assert_int_eq(s, scheme);
		ck_assert_uint_eq(iv, iv_ino);
	}
	if (version == 1) { /* a states key opens no v1 policy */
		master_of(&k, 1);
		ck_assert_int_eq(e4_keysetup_derive(&k, &c, 1234, uuid, use, dk,
						    &n, &s, &iv), E4_BAD_KEY);
		ck_assert(!e4_key_fits(&k, &c));
	}
}

START_TEST(keysetup_kat)
{
	/* v1: AES-128-ECB of the master key under the nonce */
	derive_is(1, 1, 4, 0, E4_KEY_CONTENTS,
		  "9c54d571702cfa0f03f36215676bab78b7ad78216c5569d6da1aab87f6dbc561"
		  "d31dd57e62812cddabd1ccaa3c47979be82546cf4538181b3f0a24390107fd00",
		  E4_IV_LBLK, 0);
	derive_is(1, 1, 4, 0, E4_KEY_NAMES,
		  "9c54d571702cfa0f03f36215676bab78b7ad78216c5569d6da1aab87f6dbc561",
		  E4_IV_LBLK, 0);
	/* v1 DIRECT_KEY (Adiantum): the master key itself */
	derive_is(1, 9, 9, 4, E4_KEY_CONTENTS,
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
		  E4_IV_LBLK, 0);
	/* v2 per file: HKDF context 2, info = nonce */
	derive_is(2, 1, 4, 0, E4_KEY_CONTENTS,
		  "661abec4a365fe5730e9781264d00a9816f0b5f50e41e49f3200b78ed390ed41"
		  "0be87de1011e6342781b08ab011f12107a4c08eb07a5d9e0b6cce65d31463010",
		  E4_IV_LBLK, 0);
	/* v2 DIRECT_KEY: context 3, info = mode */
	derive_is(2, 9, 9, 4, E4_KEY_NAMES,
		  "9efb31534e244dd4c251dd5d540c714ab1cfcfaf0008a870cc298b52b32b7d39",
		  E4_IV_LBLK, 0);
	/* v2 IV_INO_LBLK_64: context 4, info = mode || uuid; ino in the IV */
	derive_is(2, 1, 4, 8, E4_KEY_CONTENTS,
		  "febf67c17eddba95948445d62051030864658d63dab59ebebf339ea3f40edeba"
		  "60dfeee2d7c650629008cd7b24a93f79f3b8e926173e7b65f93ea593a9f14034",
		  E4_IV_INO_LBLK_64, 1234);
	/* v2 IV_INO_LBLK_32: context 6; SipHash(context 7 key, ino) */
	derive_is(2, 1, 4, 0x10, E4_KEY_CONTENTS,
		  "6004d128d91fb1475a8015ec4a47fec2c7fe5a5150375516f1ed44f69149c3cf"
		  "ea43a26aa7c1a3c4fbdbfa2d2de7f3ca8d5d09dc7e44b821e68d69efd0a0335a",
		  E4_IV_INO_LBLK_32, 0x09ff2b69);
}
END_TEST

/* Fetched-once algorithms (algs.h) give the ciphers fetching by name
 * gives: same bytes out of every mode and policy version and flag. */
START_TEST(keysetup_algs_same)
{
	static const int cases[][4] = {
		/* version, contents mode, names mode, flags */
		{ 1, 1, 4, 0 }, { 1, 5, 6, 0 }, { 1, 9, 9, 4 }, { 2, 1, 4, 0 },
		{ 2, 1, 6, 8 }, { 2, 1, 4, 16 }, { 2, 9, 9, 4 }, { 2, 1, 10, 0 },
	};
	uint8_t master[64], uuid[16], in[4096], a[4096], b[4096];
	struct e4_master_key k;
	struct e4_algs *al;

	for (int i = 0; i < 64; i++)
		master[i] = (uint8_t)(3 * i + 1);
	ck_assert_int_eq(e4_master_key_init_raw(&k, master, 64), E4_OK);
	memset(uuid, 0x5a, sizeof(uuid));
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7);
	ck_assert_int_eq(e4_algs_new(&al), E4_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct e4_context c;

		ctx_of(&c, cases[i][0], cases[i][1], cases[i][2], cases[i][3]);
		for (int use = 0; use < 2; use++) {
			struct e4_cipher *x, *y;
			size_t n = use == E4_KEY_NAMES ? 32 : sizeof(in);

			ck_assert_int_eq(e4_keysetup_inode(&k, &c, 12, uuid,
							   (enum e4_key_use)use, &x), E4_OK);
			ck_assert_int_eq(e4_keysetup_inode_algs(al, &k, &c, 12, uuid,
								(enum e4_key_use)use, &y), E4_OK);
			if (use == E4_KEY_NAMES) {
				ck_assert_int_eq(e4_encrypt_name(x, in, n, a), E4_OK);
				ck_assert_int_eq(e4_encrypt_name(y, in, n, b), E4_OK);
			} else {
				ck_assert_int_eq(e4_encrypt_data_unit(x, 5, in, a, n), E4_OK);
				ck_assert_int_eq(e4_decrypt_data_unit(y, 5, a, b, n), E4_OK);
				ck_assert(!memcmp(b, in, n));
				ck_assert_int_eq(e4_encrypt_data_unit(y, 5, in, b, n), E4_OK);
			}
			ck_assert_msg(!memcmp(a, b, n), "case %zu use %d", i, use);
			e4_cipher_free(x);
			e4_cipher_free(y);
		}
	}
	e4_algs_free(al);
}
END_TEST

START_TEST(keysetup_refusals)
{
	uint8_t master[64] = { 0 }, uuid[16] = { 0 }, dk[64], key[16];
	struct e4_master_key k, shrt;
	struct e4_context c;
	struct e4_cipher *ci;
	enum e4_iv_scheme s;
	uint32_t iv;
	size_t n;

	ck_assert_int_eq(e4_master_key_init_raw(&k, master, 64), E4_OK);
	ck_assert_int_eq(e4_master_key_init_raw(&shrt, master, 32), E4_OK);
	ck_assert_int_eq(e4_master_key_init_raw(&shrt, master, 15), E4_BAD_KEY);
	ck_assert_int_eq(e4_master_key_init_raw(&shrt, master, 32), E4_OK);
	ctx_of(&c, 1, 1, 4, 4); /* DIRECT_KEY with AES: Linux refuses it */
	ck_assert_int_eq(e4_keysetup_derive(&k, &c, 1, uuid, E4_KEY_CONTENTS,
					    dk, &n, &s, &iv), E4_UNSUPPORTED);
	ctx_of(&c, 1, 1, 4, 0); /* a master key too short for AES-256-XTS */
	ck_assert_int_eq(e4_keysetup_inode(&shrt, &c, 1, uuid, E4_KEY_CONTENTS,
					   &ci), E4_BAD_KEY);
	ctx_of(&c, 1, 77, 4, 0);
	ck_assert_int_eq(e4_keysetup_inode(&k, &c, 1, uuid, E4_KEY_CONTENTS,
					   &ci), E4_UNRECOGNIZED);
	ctx_of(&c, 1, 1, 4, 0);
	ck_assert_int_eq(e4_keysetup_dirhash_key(&k, &c, key), E4_UNSUPPORTED);
	memset(c.key_id, 0x42, 8);
	ck_assert(e4_context_is_dummy_2015(&c));
	ck_assert_int_eq(e4_keysetup_dummy_2015(&c, E4_KEY_NAMES, &ci), E4_OK);
	e4_cipher_free(ci);
}
END_TEST

/* The SipHash key of a casefolded encrypted directory (v2): HKDF context
 * 5, info = the directory's nonce.  A wrong context or info only showed
 * in whole kernel images before. */
START_TEST(keysetup_dirhash_key)
{
	uint8_t key[16], want[16];
	struct e4_master_key k;
	struct e4_context c;

	unhex("f53dfdc5dab5cd30ca0d9c15dea69697", want);
	for (int states = 0; states < 2; states++) {
		master_of(&k, states);
		ctx_of(&c, 2, 1, 4, 0);
		ck_assert_int_eq(e4_keysetup_dirhash_key(&k, &c, key), E4_OK);
		ck_assert_mem_eq(key, want, 16);
		c.nonce[15] ^= 1;
		ck_assert_int_eq(e4_keysetup_dirhash_key(&k, &c, key), E4_OK);
		ck_assert(memcmp(key, want, 16) != 0);
	}
}
END_TEST

/* ---- stored name lengths (fscrypt_fname_encrypted_size) ---- */

START_TEST(fname_sizes)
{
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 32, 1, 255), 32);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 4, 17, 255), 20);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 32, 250, 255), 255);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 16, 4090, 4093), 4093);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_2015, 32, 5, 255), 16);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_2015, 32, 17, 255), 17);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 32, 0, 255), 0);
	ck_assert_uint_eq(e4_fname_encrypted_size(E4_FORMAT_61, 32, 256, 255), 0);
	ck_assert(e4_fname_stored_len_possible(E4_FORMAT_61, 8, 24, 255));
	ck_assert(e4_fname_stored_len_possible(E4_FORMAT_61, 8, 255, 255));
	ck_assert(!e4_fname_stored_len_possible(E4_FORMAT_61, 8, 20, 255));
	ck_assert(!e4_fname_stored_len_possible(E4_FORMAT_61, 4, 12, 255));
	ck_assert(e4_fname_stored_len_possible(E4_FORMAT_2015, 8, 17, 255));
	ck_assert(!e4_fname_stored_len_possible(E4_FORMAT_2015, 8, 15, 255));
}
END_TEST

/* ---- extent nodes and walks ---- */

static void hdr(uint8_t *p, unsigned int entries, unsigned int max,
		unsigned int depth)
{
	put16(p, 0xf30a);
	put16(p + 2, entries);
	put16(p + 4, max);
	put16(p + 6, depth);
	put32(p + 8, 0);
}

static void leaf(uint8_t *p, uint32_t lblk, unsigned int len, uint64_t pblk)
{
	put32(p, lblk);
	put16(p + 4, len);
	put16(p + 6, (unsigned int)(pblk >> 32));
	put32(p + 8, (uint32_t)pblk);
}

static void idx(uint8_t *p, uint32_t lblk, uint64_t pblk)
{
	put32(p, lblk);
	put32(p + 4, (uint32_t)pblk);
	put16(p + 8, (unsigned int)(pblk >> 32));
	put16(p + 10, 0);
}

#define TBS 1024
static uint8_t tree[8][TBS]; /* tree block b at tree[b] */

static enum e4_status read_tree(void *arg, uint64_t pblk, uint8_t *buf)
{
	(void)arg;
	if (pblk >= 8)
		return E4_IO;
	memcpy(buf, tree[pblk], TBS);
	return E4_OK;
}

struct runs {
	size_t n;
	struct e4_extent v[16];
};

static int take(void *arg, const struct e4_extent *e)
{
	struct runs *r = arg;

	if (r->n < 16)
		r->v[r->n++] = *e;
	return 0;
}

static enum e4_status walk(const uint8_t *root, uint64_t end, struct runs *r,
			   const char **why)
{
	struct e4_block_range range = { 0, 100 };
	uint64_t bad;

	memset(r, 0, sizeof(*r));
	return e4_extent_walk(root, TBS, &range, end, read_tree, take, r, why, &bad);
}

START_TEST(extent_checks)
{
	uint8_t root[60] = { 0 };
	struct runs r;
	const char *why;

	/* a leaf root: an initialized and an unwritten extent */
	hdr(root, 2, 4, 0);
	leaf(root + 12, 0, 3, 50);
	leaf(root + 24, 10, 32768 + 2, 60);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_OK);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_uint_eq(r.v[1].len, 2);
	ck_assert(r.v[1].unwritten);
	/* overlapping extents */
	leaf(root + 24, 2, 1, 60);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	/* depth 6 */
	hdr(root, 1, 4, 6);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	/* eh_max larger than the root holds */
	hdr(root, 1, 5, 0);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	/* a block outside the filesystem */
	hdr(root, 1, 4, 0);
	leaf(root + 12, 0, 3, 99);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	/* a zero-length extent */
	leaf(root + 12, 0, 0, 50);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
}
END_TEST

START_TEST(extent_shared_subtree)
{
	uint8_t root[60] = { 0 };
	struct runs r;
	const char *why;

	/* two index entries naming the same child: read once, then refused
	 * (a tree that points at itself everywhere would be exponential) */
	memset(tree, 0, sizeof(tree));
	hdr(root, 2, 4, 1);
	idx(root + 12, 0, 1);
	idx(root + 24, 100, 1);
	hdr(tree[1], 1, 84, 0);
	leaf(tree[1] + 12, 0, 4, 40);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	ck_assert_uint_eq(r.n, 1); /* what came before the damage */
	/* the child's first entry must start where its index says */
	idx(root + 24, 100, 2);
	hdr(tree[2], 1, 84, 0);
	leaf(tree[2] + 12, 101, 4, 44);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
	leaf(tree[2] + 12, 100, 4, 44);
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_OK);
	ck_assert_uint_eq(r.n, 2);
	/* below i_size only: the second subtree is not read */
	hdr(tree[2], 1, 84, 3);
	ck_assert_int_eq(walk(root, 100, &r, &why), E4_OK);
	ck_assert_uint_eq(r.n, 1);
	/* a child at the wrong depth */
	ck_assert_int_eq(walk(root, 1u << 20, &r, &why), E4_CORRUPT);
}
END_TEST

START_TEST(indirect_map)
{
	uint8_t root[60] = { 0 };
	struct runs r;
	struct e4_block_range range = { 0, 100 };
	const char *why;
	uint64_t bad;

	memset(tree, 0, sizeof(tree));
	put32(root, 50);            /* block 0 */
	put32(root + 4 * 12, 3);    /* single indirect */
	put32(tree[3], 70);         /* block 12 */
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(e4_indirect_walk(root, TBS, &range, 1u << 20, read_tree,
					  take, &r, &why, &bad), E4_OK);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_uint_eq(r.v[1].lblk, 12);
	ck_assert_uint_eq(r.v[1].pblk, 70);
	/* the double indirect block is the single one again */
	put32(root + 4 * 13, 3);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(e4_indirect_walk(root, TBS, &range, 1u << 20, read_tree,
					  take, &r, &why, &bad), E4_CORRUPT);
	ck_assert_uint_eq(bad, 3);
}
END_TEST

/* ---- directory blocks ---- */

static size_t dirent(uint8_t *p, uint32_t ino, unsigned int rec, const char *name)
{
	size_t n = strlen(name);

	put32(p, ino);
	put16(p + 4, rec);
	p[6] = (uint8_t)n;
	p[7] = 1;
	memcpy(p + 8, name, n);
	return rec;
}

START_TEST(dirblock_rules)
{
	uint8_t b[1024] = { 0 };
	struct e4_dirblock_rules rules = { 1024, 100, 0 };
	struct e4_dirent de;
	const char *why;
	size_t off = 0, o = 0;

	o += dirent(b + o, 2, 12, ".");
	o += dirent(b + o, 2, 12, "..");
	o += dirent(b + o, 12, 16, "hello");
	dirent(b + o, 13, (unsigned int)(1024 - o), "x");
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_OK);
	ck_assert(e4_dirent_is_dot(&de));
	e4_dirblock_next(b, &rules, &off, &de, &why);
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_OK);
	ck_assert_uint_eq(de.name_len, 5);
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_OK);
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_NOT_FOUND);
	/* each invalid form ends the block */
	put16(b + 24 + 4, 10);     /* rec_len below 12 */
	off = 24;
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put16(b + 24 + 4, 14);     /* not a multiple of 4 */
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put16(b + 24 + 4, 12);     /* too small for the 5-byte name */
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put16(b + 24 + 4, 2000);   /* past the block */
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put16(b + 24 + 4, 16);
	put32(b + 24, 101);        /* inode above s_inodes_count */
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	/* a hashed directory needs room for the pair */
	put32(b + 24, 12);
	rules.hashed = 1;
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put16(b + 24 + 4, 24);
	put32(b + 24 + 16, 0xdeadbeef);
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_OK);
	ck_assert(de.has_hash);
	ck_assert_uint_eq(de.hash, 0xdeadbeef);
	/* an empty name: refused in use (readdir's EIO), ignored when free */
	rules.hashed = 0;
	put16(b + 24 + 4, 1024 - 24);
	b[24 + 6] = 0;
	off = 24;
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_CORRUPT);
	put32(b + 24, 0);
	ck_assert_int_eq(e4_dirblock_next(b, &rules, &off, &de, &why), E4_OK);
	ck_assert_uint_eq(de.inode, 0);
}
END_TEST

START_TEST(dx_root_rules)
{
	uint8_t b[1024] = { 0 };
	struct e4_dx_node dx;
	const char *why;
	uint32_t h, l;

	dirent(b, 2, 12, ".");
	dirent(b + 12, 2, 1012, "..");
	b[0x1c] = 1;               /* hash version */
	b[0x1d] = 8;               /* info_length */
	put16(b + 0x20, (1024 - 32) / 8);
	put16(b + 0x22, 2);
	put32(b + 0x24, 1);
	put32(b + 0x28, 0x80000000);
	put32(b + 0x2c, 2);
	ck_assert_int_eq(e4_dx_root_parse(b, 1024, 0, 2, &dx, &why), E4_OK);
	e4_dx_entry(&dx, 1, &h, &l);
	ck_assert_uint_eq(h, 0x80000000);
	ck_assert_uint_eq(l, 2);
	/* with metadata_csum the limit is 8 bytes smaller */
	ck_assert_int_eq(e4_dx_root_parse(b, 1024, 1, 2, &dx, &why), E4_CORRUPT);
	b[0x1e] = 2;               /* indirect_levels beyond 2 levels */
	ck_assert_int_eq(e4_dx_root_parse(b, 1024, 0, 2, &dx, &why), E4_CORRUPT);
	ck_assert_int_eq(e4_dx_root_parse(b, 1024, 0, 3, &dx, &why), E4_OK);
	put16(b + 0x22, 0);        /* count 0 */
	ck_assert_int_eq(e4_dx_root_parse(b, 1024, 0, 3, &dx, &why), E4_CORRUPT);
}
END_TEST

/* ---- xattrs ---- */

START_TEST(xattr_rules)
{
	uint8_t a[96] = { 0 }, blk[1024] = { 0 };
	struct e4_xattr x;
	const char *why;

	/* in-inode: magic, entry "c" of index 9 (20 bytes), terminator, value
	 * at offset 28 from the first entry */
	put32(a, 0xea020000);
	a[4] = 1;
	a[5] = 9;
	put16(a + 6, 28);
	put32(a + 12, 28);
	a[20] = 'c';
	memset(a + 4 + 28, 0xab, 28);
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 9, "c", &x, &why), E4_OK);
	ck_assert_uint_eq(x.value_len, 28);
	ck_assert_uint_eq(x.value[27], 0xab);
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 7, "c", &x, &why),
			 E4_NOT_FOUND);
	put32(a + 12, 80);         /* value past the area */
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 9, "c", &x, &why), E4_CORRUPT);
	put32(a + 12, 28);
	put16(a + 6, 0);           /* value over the entries */
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 9, "c", &x, &why), E4_CORRUPT);
	put16(a + 6, 28);
	a[20] = 0;                 /* a NUL in the name */
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 9, "c", &x, &why), E4_CORRUPT);
	a[4] = 200;                /* name runs past the end */
	ck_assert_int_eq(e4_xattr_find_ibody(a, sizeof(a), 9, "c", &x, &why), E4_CORRUPT);
	/* a block needs h_blocks 1 */
	put32(blk, 0xea020000);
	put32(blk + 8, 2);
	ck_assert_int_eq(e4_xattr_find_block(blk, 1024, 9, "c", &x, &why), E4_CORRUPT);
	put32(blk + 8, 1);
	ck_assert_int_eq(e4_xattr_find_block(blk, 1024, 9, "c", &x, &why), E4_NOT_FOUND);
}
END_TEST

/* POSIX ACLs: ext4's stored form (fs/ext4/acl.h) to the VFS form
 * (include/uapi/linux/posix_acl_xattr.h), by hand from those headers */
START_TEST(acl_convert)
{
	/* user::rw-, user:1000:r--, group::r--, mask::r--, other::r-- */
	static const uint8_t disk[] = {
		1, 0, 0, 0,  1, 0, 6, 0,  2, 0, 4, 0, 0xe8, 3, 0, 0,
		4, 0, 4, 0,  0x10, 0, 4, 0,  0x20, 0, 4, 0 };
	static const uint8_t vfs[] = {
		2, 0, 0, 0,
		1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,  2, 0, 4, 0, 0xe8, 3, 0, 0,
		4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,  0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff };
	uint8_t in[sizeof(disk) + 8], out[E4_ACL_VFS_MAX(sizeof(in))];
	char text[E4_ACL_TEXT_MAX(sizeof(out))];
	const char *why;
	size_t n;

	ck_assert_int_eq(e4_acl_to_vfs(disk, sizeof(disk), out, &n, &why), E4_OK);
	ck_assert_uint_eq(n, sizeof(vfs));
	ck_assert(!memcmp(out, vfs, n));
	ck_assert_int_eq(e4_acl_text(out, n, text), E4_OK);
	ck_assert_str_eq(text, "user::rw-,user:1000:r--,group::r--,mask::r--,other::r--");
	/* the header alone: no entries, which ext4_acl_from_disk reads as no
	 * ACL (NULL; getxattr gives ENODATA) */
	ck_assert_int_eq(e4_acl_to_vfs(disk, 4, out, &n, &why), E4_NOT_FOUND);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(why, "no ACL"));
	/* every shorter size, and every size with bytes after: refused or
	 * converted within bounds, never read past n (ASan) */
	for (size_t len = 0; len <= sizeof(in); len++) {
		uint8_t *cut = malloc(len ? len : 1);

		memcpy(cut, disk, len < sizeof(disk) ? len : sizeof(disk));
		if (len > sizeof(disk))
			memset(cut + sizeof(disk), 0x20, len - sizeof(disk));
		if (e4_acl_to_vfs(cut, len, out, &n, &why) == E4_OK)
			ck_assert_uint_le(n, E4_ACL_VFS_MAX(len));
		free(cut);
	}
	/* a size no count fits; bytes after the last entry (the long entry
	 * counted as two short ones); a bad version; an unknown tag */
	ck_assert_int_eq(e4_acl_to_vfs(disk, 6, out, &n, &why), E4_CORRUPT);
	ck_assert_int_eq(e4_acl_to_vfs(disk, 20, out, &n, &why), E4_CORRUPT);
	memcpy(in, disk, sizeof(disk));
	in[0] = 2;
	ck_assert_int_eq(e4_acl_to_vfs(in, sizeof(disk), out, &n, &why), E4_CORRUPT);
	in[0] = 1;
	in[4] = 0x40;
	ck_assert_int_eq(e4_acl_to_vfs(in, sizeof(disk), out, &n, &why), E4_CORRUPT);
	ck_assert_str_eq(why, "ACL entry of an unknown tag");
	/* the text refuses what is not a VFS-form ACL */
	ck_assert_int_eq(e4_acl_text(disk, sizeof(disk), text), E4_CORRUPT);
}
END_TEST

/* every entry of an area, only once all are valid; names by the kernel's
 * indexes (fs/ext4/xattr.h, as e2fsprogs prints them) */
static int count_entries(void *arg, const struct e4_xattr *x)
{
	(void)x;
	return ++*(int *)arg == 99;
}

START_TEST(xattr_each)
{
	uint8_t a[128] = { 0 };
	const char *why;
	int n = 0, listed;

	/* two entries: user "a" (value "xy" at 48) and trusted "bb" (empty) */
	put32(a, 0xea020000);
	a[4] = 1;
	a[5] = 1;
	put16(a + 6, 48);
	put32(a + 12, 2);
	a[20] = 'a';
	a[24] = 2;
	a[25] = 4;
	a[40] = 'b';
	a[41] = 'b';
	a[4 + 48] = 'x';
	a[4 + 49] = 'y';
	ck_assert_int_eq(e4_xattr_each_ibody(a, sizeof(a), count_entries, &n, &why), E4_OK);
	ck_assert_int_eq(n, 2);
	n = 98;                    /* the callback stops at the first */
	ck_assert_int_eq(e4_xattr_each_ibody(a, sizeof(a), count_entries, &n, &why),
			 E4_STOPPED);
	/* the second entry's value outside the area: none is passed */
	n = 0;
	put32(a + 24 + 8, 4);
	put16(a + 24 + 2, 126);
	ck_assert_int_eq(e4_xattr_each_ibody(a, sizeof(a), count_entries, &n, &why),
			 E4_CORRUPT);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_nonnull(why);
	a[3] = 0;                  /* no magic: no attributes */
	ck_assert_int_eq(e4_xattr_each_ibody(a, sizeof(a), count_entries, &n, &why),
			 E4_NOT_FOUND);
	ck_assert_str_eq(e4_xattr_prefix(1, &listed), "user.");
	ck_assert_int_eq(listed, 1);
	ck_assert_str_eq(e4_xattr_prefix(2, &listed), "system.posix_acl_access");
	ck_assert_str_eq(e4_xattr_prefix(4, &listed), "trusted.");
	ck_assert_str_eq(e4_xattr_prefix(6, &listed), "security.");
	ck_assert_int_eq(listed, 1);
	ck_assert_str_eq(e4_xattr_prefix(7, &listed), "system.");
	ck_assert_int_eq(listed, 0);
	ck_assert_str_eq(e4_xattr_prefix(9, &listed), "");
	ck_assert_int_eq(listed, 0);
	ck_assert_str_eq(e4_xattr_prefix(200, &listed), "");
	ck_assert_int_eq(listed, 0);
}
END_TEST

START_TEST(blockset_grows)
{
	struct e4_blockset s = { NULL, NULL, 0, 0 };

	for (uint64_t b = 1; b <= 5000; b++)
		ck_assert_int_eq(e4_blockset_add(&s, b * 7919), 1);
	for (uint64_t b = 1; b <= 5000; b++)
		ck_assert_int_eq(e4_blockset_add(&s, b * 7919), 0);
	ck_assert_uint_eq(s.n, 5000);
	e4_blockset_free(&s);
}
END_TEST

START_TEST(blockset_owners)
{
	struct e4_blockset s = { NULL, NULL, 0, 0 };
	uint32_t other = 0;

	for (uint64_t b = 1; b <= 3000; b++)
		ck_assert_int_eq(e4_blockset_claim(&s, b * 31, (uint32_t)b, &other), 1);
	for (uint64_t b = 1; b <= 3000; b++)
		ck_assert_int_eq(e4_blockset_claim(&s, b * 31, (uint32_t)b, &other), 0);
	ck_assert_int_eq(e4_blockset_claim(&s, 31 * 77, 12, &other), 2);
	ck_assert_uint_eq(other, 77);
	e4_blockset_free(&s);
}
END_TEST

START_TEST(bigmem_keeps_contents)
{
	/* grows from the heap into mappings and back, keeping the bytes */
	const size_t sizes[] = { 100, E4_BIGMEM_HUGE - 1, E4_BIGMEM_HUGE,
				 3 * E4_BIGMEM_HUGE + 5, 3 * E4_BIGMEM_HUGE + 9,
				 E4_BIGMEM_HUGE + 1, 4096, 0, 7 };
	size_t have = 0, kept, bad = 0;
	uint8_t *p = NULL;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint8_t *q = e4_big_realloc(p, have, sizes[k]);

		ck_assert_ptr_nonnull(q);
		kept = have < sizes[k] ? have : sizes[k];
		for (size_t i = 0; i < kept; i++)
			bad += q[i] != (uint8_t)(i * 131 + (i >> 16));
		ck_assert_uint_eq(bad, 0);
		if (sizes[k] >= E4_BIGMEM_HUGE)
			ck_assert_uint_eq((uintptr_t)q % E4_BIGMEM_HUGE, 0);
		for (size_t i = 0; i < sizes[k]; i++)
			q[i] = (uint8_t)(i * 131 + (i >> 16));
		p = q;
		have = sizes[k];
	}
	e4_big_free(p, have);
	e4_big_free(NULL, E4_BIGMEM_HUGE);
}
END_TEST

/* The names of linux/fscrypt.h (FSCRYPT_POLICY_FLAGS_PAD_4 = 0x00 ...
 * PAD_32 = 0x03, DIRECT_KEY = 0x04, IV_INO_LBLK_64 = 0x08,
 * IV_INO_LBLK_32 = 0x10). */
START_TEST(policy_flag_names)
{
	static const struct {
		uint8_t flags;
		const char *name;
	} cases[] = {
		{ 0x00, "PAD_4" }, { 0x01, "PAD_8" }, { 0x02, "PAD_16" },
		{ 0x03, "PAD_32" }, { 0x07, "PAD_32|DIRECT_KEY" },
		{ 0x0a, "PAD_16|IV_INO_LBLK_64" }, { 0x10, "PAD_4|IV_INO_LBLK_32" },
		{ 0xff, "PAD_32|DIRECT_KEY|IV_INO_LBLK_64|IV_INO_LBLK_32|0x20|0x40|0x80" },
	};
	char buf[E4_FLAGS_NAME_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e4_policy_flags_name(cases[i].flags, buf);
		ck_assert_str_eq(buf, cases[i].name);
	}
}
END_TEST

/* A context's stored bytes come back from its parsed form (what
 * unlock-kept relies on): hand-written v1 and v2 contexts, byte for byte;
 * a version or key id size that does not fit gives 0. */
START_TEST(context_encode_roundtrip)
{
	uint8_t v1[28], v2[40], out[E4_CONTEXT_MAX_SIZE];
	struct e4_context c;

	for (size_t i = 0; i < sizeof(v1); i++)
		v1[i] = (uint8_t)(0xa0 + i);
	v1[0] = 1, v1[1] = 1, v1[2] = 4, v1[3] = 0x02;
	for (size_t i = 0; i < sizeof(v2); i++)
		v2[i] = (uint8_t)(0x30 + i);
	v2[0] = 2, v2[1] = 1, v2[2] = 4, v2[3] = 0x10;
	memset(v2 + 4, 0, 4);
	ck_assert_int_eq(e4_context_parse(&c, v1, sizeof(v1)), E4_OK);
	ck_assert_uint_eq(e4_context_encode(&c, out), sizeof(v1));
	ck_assert_mem_eq(out, v1, sizeof(v1));
	ck_assert_int_eq(e4_context_parse(&c, v2, sizeof(v2)), E4_OK);
	ck_assert_uint_eq(e4_context_encode(&c, out), sizeof(v2));
	ck_assert_mem_eq(out, v2, sizeof(v2));
	c.key_id_size = 8;
	ck_assert_uint_eq(e4_context_encode(&c, out), 0);
	c.version = 3;
	ck_assert_uint_eq(e4_context_encode(&c, out), 0);
}
END_TEST

Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, escape_terminal);
	tcase_add_test(tc, keystore_match);
	tcase_add_test(tc, keystore_states);
	tcase_add_test(tc, keysetup_kat);
	tcase_add_test(tc, keysetup_algs_same);
	tcase_add_test(tc, keysetup_refusals);
	tcase_add_test(tc, keysetup_dirhash_key);
	tcase_add_test(tc, fname_sizes);
	tcase_add_test(tc, extent_checks);
	tcase_add_test(tc, extent_shared_subtree);
	tcase_add_test(tc, indirect_map);
	tcase_add_test(tc, dirblock_rules);
	tcase_add_test(tc, dx_root_rules);
	tcase_add_test(tc, xattr_rules);
	tcase_add_test(tc, acl_convert);
	tcase_add_test(tc, xattr_each);
	tcase_add_test(tc, blockset_grows);
	tcase_add_test(tc, blockset_owners);
	tcase_add_test(tc, bigmem_keeps_contents);
	tcase_add_test(tc, policy_flag_names);
	tcase_add_test(tc, context_encode_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}
