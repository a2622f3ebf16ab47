/* e4dump vectors: deterministic test vectors for every primitive, as JSON
 * Lines (format in testvectors/README.md), and --check to recompute a
 * vector file with this library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <ext2fs/ext2fs.h>
#include "cipher.h"
#include "context.h"
#include "commands.h"
#include "kdf.h"
#include "nokey.h"
#include "report.h"
#include "symlink.h"

/* ---- deterministic bytes: SHA-256(seed || le64 counter) blocks ---- */

struct drbg {
	const char *seed;
	uint64_t counter;
};

static void drbg_bytes(struct drbg *d, uint8_t *out, size_t n)
{
	while (n) {
		uint8_t in[8], h[32];
		unsigned int hl;
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		size_t k = n < 32 ? n : 32;

		for (int i = 0; i < 8; i++)
			in[i] = (uint8_t)(d->counter >> (8 * i));
		d->counter++;
		EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
		EVP_DigestUpdate(ctx, d->seed, strlen(d->seed));
		EVP_DigestUpdate(ctx, in, sizeof(in));
		EVP_DigestFinal_ex(ctx, h, &hl);
		EVP_MD_CTX_free(ctx);
		memcpy(out, h, k);
		out += k;
		n -= k;
	}
}

/* Printable names: bytes from a set without NUL and '/', some UTF-8. */
static void drbg_name(struct drbg *d, uint8_t *out, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789 ._-";

	drbg_bytes(d, out, n);
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)set[out[i] % (sizeof(set) - 1)];
	if (n >= 3) {
		out[0] = 0xc3; /* "é" */
		out[1] = 0xa9;
	}
}

/* ---- JSON helpers ---- */

static void add_hex(json_object *o, const char *key, const uint8_t *p,
		    size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);

	for (size_t i = 0; i < n; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	s[2 * n] = '\0';
	json_object_object_add(o, key, json_object_new_string(s));
	free(s);
}

static void emit(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static json_object *vec(const char *type)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(type));
	return o;
}

/* ---- format rules ---- */

static size_t stored_len(const char *gen, unsigned int padding, size_t len,
			 size_t max)
{
	size_t n = len < 16 ? 16 : len;

	if (strcmp(gen, "2015")) {
		n = (n + padding - 1) / padding * padding;
		if (n > max)
			n = max;
	}
	return n;
}

static int encrypt_padded(const uint8_t *key, const uint8_t *in, size_t len,
			  size_t stored, uint8_t *out)
{
	uint8_t buf[4096] = { 0 };
	struct e4_cipher *c;
	int r;

	if (e4_cipher_new(&c, E4_MODE_AES_256_CTS, key, 32))
		return -1;
	memcpy(buf, in, len);
	r = e4_encrypt_name(c, buf, stored, out) ? -1 : 0;
	e4_cipher_free(c);
	return r;
}

static void dirhash(int version, const uint8_t seed[16], const uint8_t *name,
		    size_t len, uint32_t *hash, uint32_t *minor)
{
	uint32_t s[4];

	for (int i = 0; i < 4; i++)
		s[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 |
		       (uint32_t)seed[4 * i + 2] << 16 |
		       (uint32_t)seed[4 * i + 3] << 24;
	*hash = *minor = 0;
	ext2fs_dirhash2(version, (const char *)name, (int)len, NULL, 0, s,
			hash, minor);
}

/* ---- generation ---- */

static void generate(struct drbg *d)
{
	static const size_t name_lens[] = { 1, 3, 15, 16, 17, 31, 32, 33, 100, 254, 255 };
	static const unsigned int pads[] = { 4, 8, 16, 32 };
	uint8_t master[64], nonce[16], out[4096], in[4096], key[64], seed[16];
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
		emit(o);
	}
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
		emit(o);
	}
	for (size_t n = 16; n <= 64; n *= 2) {
		drbg_bytes(d, master, n);
		e4_v2_key_identifier(out, master, n);
		o = vec("key_identifier_v2");
		add_hex(o, "key", master, n);
		add_hex(o, "identifier", out, 16);
		emit(o);
	}
	for (int i = 0; i < 3; i++) {
		uint64_t h, ino = i == 0 ? 12 : i == 1 ? 65537 : 0xfffffffeULL;

		drbg_bytes(d, key, 16);
		e4_siphash_u64(&h, key, ino);
		o = vec("inode_hash");
		add_hex(o, "key", key, 16);
		json_object_object_add(o, "ino", json_object_new_int64((int64_t)ino));
		json_object_object_add(o, "hash", json_object_new_int64((int64_t)(uint32_t)h));
		emit(o);
	}
	for (size_t n = 16; n <= 64; n *= 2) {
		drbg_bytes(d, master, n);
		e4_e4crypt_descriptor(out, master, n);
		o = vec("descriptor_e4crypt");
		add_hex(o, "key", master, n);
		add_hex(o, "descriptor", out, 8);
		emit(o);
	}
	{
		static const struct { size_t du; uint64_t lblk; } xv[] = {
			{ 4096, 0 }, { 4096, 1 }, { 4096, 0x100000005ULL },
			{ 1024, 7 }, { 2048, 12345 },
		};

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
			emit(o);
		}
	}
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
			emit(o);
		}
	}
	for (int g = 0; g < 3; g++) {
		static const size_t tl[] = { 1, 17, 60, 300 };
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
			emit(o);
		}
	}
	{
		static const size_t cl[] = { 16, 17, 31, 32, 33, 100, 149, 150, 255 };
		char s[E4_NOKEY_NAME_MAX + 1];

		for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
			uint32_t h[2];

			drbg_bytes(d, in, cl[i]);
			e4_nokey_name_2015(in, cl[i], s);
			o = vec("nokey_2015");
			add_hex(o, "ciphertext", in, cl[i]);
			json_object_object_add(o, "nokey", json_object_new_string(s));
			emit(o);
			drbg_bytes(d, (uint8_t *)h, sizeof(h));
			h[0] &= ~1u;
			e4_nokey_name_v61(h[0], h[1], in, cl[i], s);
			o = vec("nokey_61");
			json_object_object_add(o, "hash", json_object_new_int64(h[0]));
			json_object_object_add(o, "minor_hash", json_object_new_int64(h[1]));
			add_hex(o, "ciphertext", in, cl[i]);
			json_object_object_add(o, "nokey", json_object_new_string(s));
			emit(o);
		}
	}
	for (int version = 0; version <= 5; version++) {
		static const size_t nl[] = { 1, 16, 33, 255 };

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
				emit(o);
			}
		}
	}
}

/* ---- checking ---- */

static int get_hex(json_object *o, const char *key, uint8_t *out, size_t cap,
		   size_t *len)
{
	json_object *v;
	const char *s;
	size_t n;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	n = strlen(s);
	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (uint8_t)b;
	}
	*len = n / 2;
	return 0;
}

static int64_t get_int(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return -1;
	return json_object_get_int64(v);
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return "";
	return json_object_get_string(v);
}

#define BUF 8192

/* 0 = recomputed equal, 1 = differs, -1 = malformed */
static int check_one(json_object *o)
{
	static uint8_t a[BUF], b[BUF], c[BUF], r[BUF];
	size_t la, lb, lc, n;
	const char *type = get_str(o, "type");
	struct e4_cipher *ci;
	int bad;

	if (!strcmp(type, "kdf_v1")) {
		if (get_hex(o, "master", a, BUF, &la) || get_hex(o, "nonce", b, 16, &lb) ||
		    lb != 16 || get_hex(o, "derived", c, 64, &lc))
			return -1;
		return e4_v1_derive_key(r, lc, a, la, b) || memcmp(r, c, lc);
	}
	if (!strcmp(type, "hkdf_v2")) {
		if (get_hex(o, "master", a, 64, &la) || get_hex(o, "info", b, 64, &lb) ||
		    get_hex(o, "derived", c, 64, &lc))
			return -1;
		return e4_hkdf_sha512(r, lc, a, la, (uint8_t)get_int(o, "context"), b, lb) ||
		       memcmp(r, c, lc);
	}
	if (!strcmp(type, "key_identifier_v2")) {
		if (get_hex(o, "key", a, 64, &la) || get_hex(o, "identifier", c, 16, &lc) || lc != 16)
			return -1;
		return e4_v2_key_identifier(r, a, la) || memcmp(r, c, 16);
	}
	if (!strcmp(type, "inode_hash")) {
		uint64_t h;

		if (get_hex(o, "key", a, 16, &la) || la != 16)
			return -1;
		return e4_siphash_u64(&h, a, (uint64_t)get_int(o, "ino")) ||
		       (uint32_t)h != (uint32_t)get_int(o, "hash");
	}
	if (!strcmp(type, "descriptor_e4crypt")) {
		if (get_hex(o, "key", a, 64, &la) || get_hex(o, "descriptor", c, 8, &lc) || lc != 8)
			return -1;
		return e4_e4crypt_descriptor(r, a, la) || memcmp(r, c, 8);
	}
	if (!strcmp(type, "xts")) {
		if (get_hex(o, "key", a, 64, &la) || la != 64 ||
		    get_hex(o, "plaintext", b, BUF, &lb) ||
		    get_hex(o, "ciphertext", c, BUF, &lc) || lb != lc)
			return -1;
		if (e4_cipher_new(&ci, E4_MODE_AES_256_XTS, a, 64))
			return 1;
		bad = e4_decrypt_data_unit(ci, (uint64_t)get_int(o, "lblk"), c, r, lc) ||
		      memcmp(r, b, lb);
		e4_cipher_free(ci);
		return bad;
	}
	if (!strcmp(type, "name") || !strcmp(type, "symlink")) {
		int is_name = !strcmp(type, "name");
		size_t st;

		if (get_hex(o, "key", a, 32, &la) || la != 32 ||
		    get_hex(o, is_name ? "name" : "target", b, BUF, &lb) ||
		    get_hex(o, is_name ? "stored" : "blob", c, BUF, &lc))
			return -1;
		st = stored_len(get_str(o, "generation"),
				(unsigned int)get_int(o, "padding"), lb,
				is_name ? 255 : 4093);
		if (st != lc - (is_name ? 0 : 2))
			return 1; /* the length rule */
		if (e4_cipher_new(&ci, E4_MODE_AES_256_CTS, a, 32))
			return 1;
		bad = is_name ? (int)e4_decrypt_name(ci, c, lc, r, &n) :
				(int)e4_symlink_decrypt(ci, c, lc, r, &n);
		e4_cipher_free(ci);
		return bad || n != lb || memcmp(r, b, lb);
	}
	if (!strcmp(type, "nokey_2015") || !strcmp(type, "nokey_61")) {
		char s[E4_NOKEY_NAME_MAX + 1];

		if (get_hex(o, "ciphertext", a, 255, &la))
			return -1;
		if (type[6] == '2')
			bad = e4_nokey_name_2015(a, la, s) != E4_OK;
		else
			bad = e4_nokey_name_v61((uint32_t)get_int(o, "hash"),
						(uint32_t)get_int(o, "minor_hash"),
						a, la, s) != E4_OK;
		return bad || strcmp(s, get_str(o, "nokey"));
	}
	if (!strcmp(type, "context")) {
		static const char *res[] = { "ok", "corrupt", "unrecognized" };
		struct e4_context ctx;
		enum e4_status st;
		const char *want = get_str(o, "result");

		if (get_hex(o, "bytes", a, 64, &la))
			return -1;
		st = e4_context_parse(&ctx, a, la);
		if (st > E4_UNRECOGNIZED || strcmp(res[st], want))
			return 1;
		if (st != E4_OK)
			return 0;
		if (get_hex(o, "key_id", b, 16, &lb) || get_hex(o, "nonce", c, 16, &lc))
			return -1;
		return ctx.version != get_int(o, "version") ||
		       ctx.contents_mode != get_int(o, "contents_mode") ||
		       ctx.filenames_mode != get_int(o, "filenames_mode") ||
		       ctx.flags != get_int(o, "flags") ||
		       lb != ctx.key_id_size || memcmp(b, ctx.key_id, lb) ||
		       lc != 16 || memcmp(c, ctx.nonce, 16);
	}
	if (!strcmp(type, "dirhash")) {
		uint32_t h, m;

		if (get_hex(o, "seed", a, 16, &la) || la != 16 ||
		    get_hex(o, "name", b, 255, &lb))
			return -1;
		dirhash((int)get_int(o, "version"), a, b, lb, &h, &m);
		return h != (uint32_t)get_int(o, "hash") ||
		       m != (uint32_t)get_int(o, "minor_hash");
	}
	return -1;
}

static int check_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, passed = 0, failed = 0;
	int lineno = 0;

	if (!f) {
		report_error("%s: cannot open", path);
		return EXIT_FATAL;
	}
	while (getline(&line, &cap, f) > 0) {
		json_object *o;
		int r;

		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		o = json_tokener_parse(line);
		r = o ? check_one(o) : -1;
		if (r) {
			failed++;
			printf("FAIL %s:%d %s: %s\n", path, lineno,
			       o ? get_str(o, "type") : "?",
			       r < 0 ? "malformed or unknown type" : "differs");
		} else {
			passed++;
		}
		json_object_put(o);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? EXIT_SKIPPED : EXIT_DONE;
}

int cmd_vectors(const struct options *o)
{
	struct drbg d = { o->seed ? o->seed : "e4dump", 0 };

	if (o->check)
		return check_file(o->n_args ? o->args[0] : "-");
	if (o->n_args) {
		report_error("vectors: takes no argument without --check");
		return EXIT_FATAL;
	}
	generate(&d);
	return fflush(stdout) ? EXIT_FATAL : EXIT_DONE;
}
