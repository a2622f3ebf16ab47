/* e4dump vectors: deterministic vectors for every primitive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <ext2fs/ext2fs.h>
#include "cipher.h"
#include "context.h"
#include "kdf.h"
#include "nokey.h"
#include "symlink.h"
#include "vectors.h"

static void gen_kdf_v1(struct drbg *d)
{
	uint8_t master[64], nonce[16], out[64];
	json_object *o;

	for (int i = 0; i < 4; i++) {
		size_t ks = i % 2 ? 32 : 64;

		drbg_bytes(d, master, 64);
		drbg_bytes(d, nonce, 16);
		e4_v1_derive_key(out, ks, master, 64, nonce);
		o = vec("kdf_v1");
		add_hex(o, "master", master, 64);
		add_hex(o, "nonce", nonce, 16);
		add_hex(o, "derived", out, ks);
		vec_emit(o);
	}
}

static void gen_hkdf_v2(struct drbg *d)
{
	uint8_t master[64], in[17], out[64];
	json_object *o;

	for (int ctxb = 1; ctxb <= 7; ctxb++) {
		/* v2: info per context as fs/crypto uses it */
		size_t il = ctxb == 2 || ctxb == 5 ? 16 :
			    ctxb == 3 ? 1 : ctxb == 4 || ctxb == 6 ? 17 : 0;
		size_t ol = ctxb == 1 || ctxb == 5 || ctxb == 7 ? 16 : 64;

		drbg_bytes(d, master, 64);
		drbg_bytes(d, in, il);
		if (il == 1 || il == 17)
			in[0] = E4_MODE_AES_256_XTS;
		e4_hkdf_sha512(out, ol, master, 64, (uint8_t)ctxb, in, il);
		o = vec("hkdf_v2");
		add_hex(o, "master", master, 64);
		json_object_object_add(o, "context", json_object_new_int(ctxb));
		add_hex(o, "info", in, il);
		add_hex(o, "derived", out, ol);
		vec_emit(o);
	}
}

static void gen_key_identifier_v2(struct drbg *d)
{
	uint8_t master[64], out[16];
	json_object *o;

	for (size_t n = 16; n <= 64; n *= 2) {
		drbg_bytes(d, master, n);
		e4_v2_key_identifier(out, master, n);
		o = vec("key_identifier_v2");
		add_hex(o, "key", master, n);
		add_hex(o, "identifier", out, 16);
		vec_emit(o);
	}
}

static void gen_inode_hash(struct drbg *d)
{
	uint8_t key[16];
	json_object *o;

	for (int i = 0; i < 3; i++) {
		uint64_t h, ino = i == 0 ? 12 : i == 1 ? 65537 : 0xfffffffeULL;

		drbg_bytes(d, key, 16);
		e4_siphash_u64(&h, key, ino);
		o = vec("inode_hash");
		add_hex(o, "key", key, 16);
		json_object_object_add(o, "ino", json_object_new_int64((int64_t)ino));
		json_object_object_add(o, "hash", json_object_new_int64((int64_t)(uint32_t)h));
		vec_emit(o);
	}
}

static void gen_descriptor_e4crypt(struct drbg *d)
{
	uint8_t master[64], out[8];
	json_object *o;

	for (size_t n = 16; n <= 64; n *= 2) {
		drbg_bytes(d, master, n);
		e4_e4crypt_descriptor(out, master, n);
		o = vec("descriptor_e4crypt");
		add_hex(o, "key", master, n);
		add_hex(o, "descriptor", out, 8);
		vec_emit(o);
	}
}

static void gen_xts(struct drbg *d)
{
	static const struct { size_t du; uint64_t lblk; } xv[] = {
		{ 4096, 0 }, { 4096, 1 }, { 4096, 0x100000005ULL },
		{ 1024, 7 }, { 2048, 12345 },
	};
	uint8_t key[64], in[4096], out[4096];
	json_object *o;

	for (size_t i = 0; i < sizeof(xv) / sizeof(xv[0]); i++) {
		struct e4_cipher *c;

		drbg_bytes(d, key, 64);
		drbg_bytes(d, in, xv[i].du);
		if (e4_cipher_new(&c, E4_MODE_AES_256_XTS, key, 64) ||
		    e4_encrypt_data_unit(c, xv[i].lblk, in, out, xv[i].du))
			abort();
		e4_cipher_free(c);
		o = vec("xts");
		add_hex(o, "key", key, 64);
		json_object_object_add(o, "lblk", json_object_new_int64((int64_t)xv[i].lblk));
		add_hex(o, "plaintext", in, xv[i].du);
		add_hex(o, "ciphertext", out, xv[i].du);
		vec_emit(o);
	}
}

static void gen_names(struct drbg *d)
{
	static const size_t name_lens[] = { 1, 3, 15, 16, 17, 31, 32, 33, 100, 254, 255 };
	static const unsigned int pads[] = { 4, 8, 16, 32 };
	uint8_t key[32], in[256], out[256];
	json_object *o;

	for (int g = 0; g < 5; g++) {
		const char *gen = g < 4 ? "6.1" : "2015";
		unsigned int pad = g < 4 ? pads[g] : 4;

		for (size_t i = 0; i < sizeof(name_lens) / sizeof(name_lens[0]); i++) {
			size_t len = name_lens[i], st = stored_len(gen, pad, len, 255);

			drbg_bytes(d, key, 32);
			drbg_name(d, in, len);
			if (encrypt_padded(key, in, len, st, out))
				abort();
			o = vec("name");
			json_object_object_add(o, "generation", json_object_new_string(gen));
			json_object_object_add(o, "padding", json_object_new_int((int)pad));
			add_hex(o, "key", key, 32);
			add_hex(o, "name", in, len);
			add_hex(o, "stored", out, st);
			vec_emit(o);
		}
	}
}

static void gen_symlinks(struct drbg *d)
{
	static const size_t tl[] = { 1, 17, 60, 300 };
	uint8_t key[32], in[4096], out[4096];
	json_object *o;

	for (int g = 0; g < 3; g++) {
		const char *gen = g < 2 ? "6.1" : "2015";
		unsigned int pad = g == 1 ? 32 : 4;

		for (size_t i = 0; i < 4; i++) {
			size_t len = tl[i], st = stored_len(gen, pad, len, 4093);

			drbg_bytes(d, key, 32);
			drbg_name(d, in, len);
			if (len > 4)
				in[len / 2] = '/';
			if (encrypt_padded(key, in, len, st, out + 2))
				abort();
			out[0] = (uint8_t)st;
			out[1] = (uint8_t)(st >> 8);
			o = vec("symlink");
			json_object_object_add(o, "generation", json_object_new_string(gen));
			json_object_object_add(o, "padding", json_object_new_int((int)pad));
			add_hex(o, "key", key, 32);
			add_hex(o, "target", in, len);
			add_hex(o, "blob", out, st + 2);
			vec_emit(o);
		}
	}
}

static void gen_nokey_names(struct drbg *d)
{
	static const size_t cl[] = { 16, 17, 31, 32, 33, 100, 149, 150, 255 };
	char s[E4_NOKEY_NAME_MAX + 1];
	uint8_t in[255];
	json_object *o;

	for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
		uint32_t h[2];

		drbg_bytes(d, in, cl[i]);
		e4_nokey_name_2015(in, cl[i], s);
		o = vec("nokey_2015");
		add_hex(o, "ciphertext", in, cl[i]);
		json_object_object_add(o, "nokey", json_object_new_string(s));
		vec_emit(o);
		drbg_bytes(d, (uint8_t *)h, sizeof(h));
		h[0] &= ~1u;
		e4_nokey_name_v61(h[0], h[1], in, cl[i], s);
		o = vec("nokey_61");
		json_object_object_add(o, "hash", json_object_new_int64(h[0]));
		json_object_object_add(o, "minor_hash", json_object_new_int64(h[1]));
		add_hex(o, "ciphertext", in, cl[i]);
		json_object_object_add(o, "nokey", json_object_new_string(s));
		vec_emit(o);
	}
}

static void gen_dirhash(struct drbg *d)
{
	static const size_t nl[] = { 1, 16, 33, 255 };
	uint8_t seed[16], in[255];
	json_object *o;

	for (int version = 0; version <= 5; version++) {
		for (int z = 0; z < 2; z++) {
			if (z)
				memset(seed, 0, 16);
			else
				drbg_bytes(d, seed, 16);
			for (size_t i = 0; i < 4; i++) {
				uint32_t h, m;

				drbg_bytes(d, in, nl[i]); /* ciphertext-like: any byte */
				dirhash(version, seed, in, nl[i], &h, &m);
				o = vec("dirhash");
				json_object_object_add(o, "version", json_object_new_int(version));
				add_hex(o, "seed", seed, 16);
				add_hex(o, "name", in, nl[i]);
				json_object_object_add(o, "hash", json_object_new_int64(h));
				json_object_object_add(o, "minor_hash", json_object_new_int64(m));
				vec_emit(o);
			}
		}
	}
}

/* The generators, in the order their draws from the DRBG are made (the
 * order fixes every vector: change it and every file changes). */
static void (*const generators[])(struct drbg *d) = {
	gen_kdf_v1, gen_hkdf_v2, gen_key_identifier_v2, gen_inode_hash,
	gen_descriptor_e4crypt, gen_xts, gen_names, gen_symlinks,
	gen_nokey_names, gen_dirhash,
};

void vectors_generate(struct drbg *d)
{
	for (size_t i = 0; i < sizeof(generators) / sizeof(generators[0]); i++)
		generators[i](d);
}
