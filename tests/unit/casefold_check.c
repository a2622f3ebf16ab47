/* Checks of e4dump/image/fs/casefold.c (casefold + encryption).
 *
 *   casefold_check vectors FILE|-
 *       lines "KEYHEX NAMEHEX HASH MINOR" (hash pair as 8 hex digits each,
 *       '#' comments): e4_casefold_dirhash() with libext2fs' utf8 table must
 *       give each pair (tests/unit/casefold_vectors.py computes them
 *       independently, in Python).
 *   casefold_check image IMAGE KEYFILE...
 *       every entry of every casefolded encrypted directory of IMAGE (found
 *       from the root, names decrypted with the keys): the pair the kernel
 *       stored after the name equals e4_casefold_dirhash() of the decrypted
 *       name with the directory's dirhash key; indexed ones have hash
 *       version 6 in their dx root.  Prints the counts.
 *   casefold_check image-nofold IMAGE KEYFILE...
 *       the same hashing the names without folding: prints how many stored
 *       pairs then differ (those of names that folding changes).
 *
 * Exit 0 when everything matched (and something was checked), 1 otherwise,
 * 2 on a usage error.  Keys are never printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "casefold.h"
#include "escape.h"
#include "fs_private.h"
#include "dir.h"
#include "hex.h"
#include "kdf.h"
#include "keyfile.h"
#include "keysetup.h"
#include "walk.h"

static long unhex(const char *s, uint8_t *out, size_t max)
{
	return e4_hex_decode(s, strlen(s), out, max);
}

static int run_vectors(const char *path)
{
	const struct ext2fs_nls_table *enc = ext2fs_load_nls_table(EXT4_ENC_UTF8_12_1);
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char line[1200], khex[64], nhex[600];
	unsigned long n = 0, bad = 0, lineno = 0;

	if (!f) {
		perror(path);
		return 2;
	}
	if (!enc) {
		fprintf(stderr, "casefold_check: libext2fs has no utf8-12.1 table\n");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint8_t key[16], name[256];
		unsigned int want_h, want_m;
		uint32_t h = 0, m = 0;
		long klen, nlen;
		int r;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %599s %8x %8x", khex, nhex, &want_h, &want_m) != 4 ||
		    (klen = unhex(khex, key, sizeof(key))) != 16 ||
		    (nlen = unhex(nhex, name, 255)) < 1) {
			fprintf(stderr, "casefold_check: line %lu: bad vector\n", lineno);
			bad++;
			continue;
		}
		n++;
		r = e4_casefold_self_check(enc) ?
		    e4_casefold_dirhash(enc, key, name, (size_t)nlen, &h, &m) : -2;
		if (r || h != want_h || m != want_m) {
			printf("FAIL vector line %lu name %s: got %08x %08x (ret %d), want %08x %08x\n",
			       lineno, nhex, h, m, r, want_h, want_m);
			bad++;
		}
	}
	if (f != stdin)
		fclose(f);
	printf("casefold_check: %lu vectors, %lu failed\n", n, bad);
	return n && !bad ? 0 : 1;
}

struct walk {
	struct e4_fs *fs;
	const struct e4_keystore *keys;
	const struct ext2fs_nls_table *enc;
	int nofold;      /* image-nofold: hash the names without folding */
	unsigned long dirs, indexed, entries, matched, bad, differ;
};

/* dx_root_info.hash_version of an indexed directory, -1 if unreadable */
static int first_block(void *arg, const struct e4_run *r)
{
	uint64_t *pblk = arg;

	if (r->lblk == 0)
		*pblk = r->pblk;
	return 1;
}

static int dx_hash_version(struct walk *w, const struct e4_inode *in)
{
	uint8_t *blk = malloc(w->fs->info.block_size);
	uint64_t pblk = 0;
	int v = -1;

	if (blk)
		e4_inode_map(w->fs, in, NULL, 1, first_block, &pblk);
	if (blk && pblk && e4_read_blocks(w->fs, pblk, 1, blk) == E4_OK)
		v = blk[0x1c];
	free(blk);
	return v;
}

static void check_dir(struct walk *w, const struct e4_walk_node *n,
		      const struct e4_dir *d)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	struct e4_policy_key pk;
	uint8_t key[16];

	w->dirs++;
	if (n->inode->flags & E4_INODE_INDEX_FL) {
		int v = dx_hash_version(w, n->inode);

		w->indexed++;
		if (v != 6) {
			printf("FAIL %s: indexed, dx root hash version %d, not 6\n", n->path, v);
			w->bad++;
		}
	}
	if (!f->have_key || f->ctx.version != 2 ||
	    e4_fs_policy_key(w->fs, &f->ctx, &pk) != E4_OK || pk.key < 0 ||
	    e4_keysetup_dirhash_key(e4_keystore_key(w->keys, (size_t)pk.key),
				    &f->ctx, key) != E4_OK) {
		printf("FAIL %s: no v2 key for this casefolded directory\n", n->path);
		w->bad++;
		return;
	}
	for (size_t i = 0; i < e4_dir_count(d); i++) {
		struct e4_entry e;
		char esc[E4_ESCAPE_SIZE(255)];
		uint32_t h, m;

		e4_dir_get(d, i, &e);
		w->entries++;
		e4_escape(e.name, e.name_len, esc, E4_ESCAPE_SLASH);
		if (e.state != E4_NAME_DECRYPTED || !e.has_hash) {
			printf("FAIL %s/%s: %s\n", n->path, esc,
			       !e.has_hash ? "no hash pair stored after the name" :
			       "name not decrypted");
			w->bad++;
			continue;
		}
		if (e4_casefold_dirhash(w->nofold ? NULL : w->enc, key, e.name,
					e.name_len, &h, &m)) {
			printf("FAIL %s/%s: casefold_dirhash failed\n", n->path, esc);
			w->bad++;
		} else if (w->nofold && (h != e.hash || m != e.minor_hash)) {
			w->differ++;
		} else if (h != e.hash || m != e.minor_hash) {
			printf("FAIL %s/%s: stored %08x %08x, computed %08x %08x\n",
			       n->path, esc, e.hash, e.minor_hash, h, m);
			w->bad++;
		} else {
			w->matched++;
		}
	}
	e4_wipe(key, sizeof(key));
}

static enum e4_walk_action enter(void *arg, const struct e4_walk_node *n,
				 const struct e4_dir *d, void **data)
{
	struct walk *w = arg;
	const struct e4_dir_facts *f = e4_dir_facts(d);

	(void)data;
	if (f->encrypted && f->casefolded)
		check_dir(w, n, d);
	return E4_WALK_CONTINUE;
}

static void diag(void *arg, const struct e4_diag *d)
{
	struct walk *w = arg;

	if (d->level == E4_DIAG_ERROR) {
		printf("FAIL %s: %s\n", d->path ? d->path : "-", d->message);
		w->bad++;
	}
}

static int add_key(struct e4_keystore *ks, const char *path)
{
	uint8_t buf[512], key[E4_MAX_KEY_SIZE];
	size_t len, klen;
	const char *why;
	FILE *f = fopen(path, "rb");
	int r = -1;

	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (e4_keyfile_parse(buf, len, key, &klen, &why) == E4_OK &&
	    e4_keystore_add(ks, key, klen, path) == E4_OK)
		r = 0;
	e4_wipe(buf, sizeof(buf));
	e4_wipe(key, sizeof(key));
	return r;
}

static int run_image(const char *image, char **keys, int nkeys, int nofold)
{
	struct e4_keystore *ks = e4_keystore_new();
	struct e4_fs_options fo;
	struct walk w;
	struct e4_walk_options wo = { 1, 0, 0, 0 };
	struct e4_walk_visitor v = { .enter = enter };
	int ret;

	memset(&w, 0, sizeof(w));
	for (int i = 0; i < nkeys; i++) {
		if (!ks || add_key(ks, keys[i])) {
			fprintf(stderr, "casefold_check: key file %s unusable\n", keys[i]);
			e4_keystore_free(ks);
			return 1;
		}
	}
	memset(&fo, 0, sizeof(fo));
	fo.keys = ks;
	fo.diag = diag;
	fo.diag_arg = &w;
	if (e4_fs_open(&w.fs, image, &fo) != E4_OK) {
		fprintf(stderr, "casefold_check: %s: cannot open\n", image);
		e4_keystore_free(ks);
		return 1;
	}
	w.keys = ks;
	w.nofold = nofold;
	w.enc = e4_fs_casefold_table(w.fs);
	if (!w.enc) {
		printf("FAIL %s: no casefold feature or unknown encoding %u\n", image,
		       e4_fs_ext2(w.fs)->super->s_encoding);
		w.bad++;
	} else {
		e4_walk(w.fs, E4_ROOT_INO, "/", &wo, &v, &w, NULL);
	}
	if (nofold) {
		printf("casefold_check: without folding %lu of %lu stored hash pairs "
		       "differ, %lu failures\n", w.differ, w.entries, w.bad);
		ret = w.bad || !w.entries;
	} else {
		printf("casefold_check: %lu casefolded encrypted directories (%lu indexed), "
		       "%lu entries, %lu stored hash pairs recomputed, %lu failures\n",
		       w.dirs, w.indexed, w.entries, w.matched, w.bad);
		ret = w.bad || !w.entries || w.matched != w.entries;
	}
	e4_fs_close(w.fs);
	e4_keystore_free(ks);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "vectors"))
		return run_vectors(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "image"))
		return run_image(argv[2], argv + 3, argc - 3, 0);
	if (argc >= 3 && !strcmp(argv[1], "image-nofold"))
		return run_image(argv[2], argv + 3, argc - 3, 1);
	fprintf(stderr, "usage: casefold_check vectors FILE|-\n"
			"       casefold_check image|image-nofold IMAGE KEYFILE...\n");
	return 2;
}
