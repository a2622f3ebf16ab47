/* Known-answer tests from testvectors/kernel/: bytes a Linux 6.1 kernel wrote
 * into images (nonces from context xattrs, raw names, symlink blobs and data
 * blocks read with debugfs) paired with the plaintext the guest wrote, plus
 * derived keys computed by pycryptodome.  See testvectors/README.md. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "kdf.h"
#include "symlink.h"

#ifndef KAT_FILE
#error "KAT_FILE must name the harvested vector file"
#endif

#define MAXF 8
#define MAXB 8192

struct vec {
	char kind[16];
	size_t len[MAXF];
	uint8_t *f[MAXF];
	size_t nf;
	int line;
};

static int hexdec(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	*len = n / 2;
	return 0;
}

static size_t counts[4]; /* kdf, name, block, symlink */

static void check_vec(struct vec *v)
{
	uint8_t dk[64], out[MAXB], back[MAXB];
	struct e4_cipher *c;
	size_t n;

	if (!strcmp(v->kind, "kdf")) {
		/* kdf MASTER NONCE DERIVED */
		ck_assert_int_eq(e4_v1_derive_key(dk, v->len[2], v->f[0], v->len[0],
						  v->f[1]), E4_OK);
		ck_assert_msg(!memcmp(dk, v->f[2], v->len[2]), "kdf line %d", v->line);
		counts[0]++;
		return;
	}
	/* KIND MASTER NONCE ... : derive as the kernel does, then check. */
	if (!strcmp(v->kind, "name") || !strcmp(v->kind, "symlink")) {
		ck_assert_int_eq(e4_v1_derive_key(dk, 32, v->f[0], v->len[0], v->f[1]), E4_OK);
		ck_assert_int_eq(e4_cipher_new(&c, 4, dk, 32), E4_OK);
		if (!strcmp(v->kind, "name")) {
			/* name MASTER NONCE CIPHERTEXT PLAINTEXT */
			ck_assert_int_eq(e4_decrypt_name(c, v->f[2], v->len[2], out, &n), E4_OK);
			ck_assert_msg(n == v->len[3] && !memcmp(out, v->f[3], n),
				      "name line %d", v->line);
			/* and back: NUL-padded to the stored length */
			memset(out, 0, sizeof(out));
			memcpy(out, v->f[3], v->len[3]);
			ck_assert_int_eq(e4_encrypt_name(c, out, v->len[2], back), E4_OK);
			ck_assert_msg(!memcmp(back, v->f[2], v->len[2]), "name line %d", v->line);
			counts[1]++;
		} else {
			/* symlink MASTER NONCE BLOB TARGET */
			ck_assert_int_eq(e4_symlink_decrypt(c, v->f[2], v->len[2], out, &n), E4_OK);
			ck_assert_msg(n == v->len[3] && !memcmp(out, v->f[3], n),
				      "symlink line %d", v->line);
			counts[3]++;
		}
		e4_cipher_free(c);
		return;
	}
	if (!strcmp(v->kind, "block")) {
		/* block MASTER NONCE LBLK(8 bytes le) CIPHERTEXT PLAINTEXT */
		uint64_t lblk = 0;

		for (int i = 7; i >= 0; i--)
			lblk = lblk << 8 | v->f[2][i];
		ck_assert_int_eq(e4_v1_derive_key(dk, 64, v->f[0], v->len[0], v->f[1]), E4_OK);
		ck_assert_int_eq(e4_cipher_new(&c, 1, dk, 64), E4_OK);
		ck_assert_int_eq(e4_decrypt_data_unit(c, lblk, v->f[3], out, v->len[3]), E4_OK);
		ck_assert_msg(v->len[4] == v->len[3] && !memcmp(out, v->f[4], v->len[3]),
			      "block line %d", v->line);
		e4_cipher_free(c);
		counts[2]++;
		return;
	}
	ck_abort_msg("unknown vector kind %s at line %d", v->kind, v->line);
}

START_TEST(kernel_vectors)
{
	FILE *f = fopen(KAT_FILE, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;

	ck_assert_msg(f != NULL, "cannot open %s", KAT_FILE);
	while (getline(&line, &cap, f) > 0) {
		struct vec v;
		char *save = NULL, *tok;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		memset(&v, 0, sizeof(v));
		v.line = lineno;
		tok = strtok_r(line, " \n", &save);
		snprintf(v.kind, sizeof(v.kind), "%s", tok);
		while ((tok = strtok_r(NULL, " \n", &save)) && v.nf < MAXF) {
			v.f[v.nf] = malloc(MAXB);
			ck_assert_int_eq(hexdec(tok, v.f[v.nf], MAXB, &v.len[v.nf]), 0);
			v.nf++;
		}
		check_vec(&v);
		for (size_t i = 0; i < v.nf; i++)
			free(v.f[i]);
	}
	free(line);
	fclose(f);
	printf("kernel vectors: kdf %zu, names %zu, blocks %zu, symlinks %zu\n",
	       counts[0], counts[1], counts[2], counts[3]);
	ck_assert_uint_gt(counts[0], 0);
	ck_assert_uint_gt(counts[1], 0);
	ck_assert_uint_gt(counts[2], 0);
	ck_assert_uint_gt(counts[3], 0);
}
END_TEST

Suite *kat_suite(void)
{
	Suite *s = suite_create("kernel-kat");
	TCase *tc = tcase_create("kat");

	tcase_add_test(tc, kernel_vectors);
	suite_add_tcase(s, tc);
	return s;
}
