/* Checks of e4dump/src/casefold_hash.c (casefold + encryption).
 *
 *   casefold_check vectors FILE|-
 *       lines "KEYHEX NAMEHEX HASH MINOR" (hash pair as 8 hex digits each,
 *       '#' comments): casefold_dirhash() with libext2fs' utf8 table must
 *       give each pair (tests/unit/casefold_vectors.py computes them
 *       independently, in Python).
 *   casefold_check image IMAGE KEYFILE...
 *       every entry of every casefolded encrypted directory of IMAGE (found
 *       from the root, names decrypted with the keys): the pair the kernel
 *       stored after the name equals casefold_dirhash() of the decrypted
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
#include "casefold_hash.h"
#include "dirlist.h"
#include "hex.h"
#include "kdf.h"
#include "keyring.h"
#include "report.h"

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
		r = casefold_dirhash(enc, key, name, (size_t)nlen, &h, &m);
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
	struct keyring *kr;
	const struct ext2fs_nls_table *enc;
	int nofold;      /* image-nofold: hash the names without folding */
	unsigned long dirs, indexed, entries, matched, bad, depth, differ;
};

/* dx_root_info.hash_version of an indexed directory, -1 if unreadable */
static int dx_hash_version(struct img *im, ext2_ino_t dir,
			   struct ext2_inode_large *inode)
{
	uint8_t *blk = malloc(im->blocksize);
	blk64_t pblk = 0;
	int v = -1;

	if (blk && !ext2fs_bmap2(im->fs, dir, (struct ext2_inode *)inode, NULL, 0,
				 0, NULL, &pblk) && pblk &&
	    !img_read_blocks(im, pblk, 1, blk))
		v = blk[0x1c];
	free(blk);
	return v;
}

static void check_dir(struct walk *w, const struct dir_listing *l, const char *path,
		      struct ext2_inode_large *inode)
{
	const struct master_key *mk = keyring_lookup(w->kr, &l->ctx);
	uint8_t key[16];
	char esc[4 * 256 + 1];

	w->dirs++;
	if (inode->i_flags & EXT2_INDEX_FL) {
		int v = dx_hash_version(w->kr->im, l->dir, inode);

		w->indexed++;
		if (v != 6) {
			printf("FAIL %s: indexed, dx root hash version %d, not 6\n", path, v);
			w->bad++;
		}
	}
	if (!mk || !l->have_key || l->ctx.version != 2 ||
	    casefold_dirhash_key(mk->raw, mk->len, l->ctx.nonce, key)) {
		printf("FAIL %s: no v2 key for this casefolded directory\n", path);
		w->bad++;
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct dent *d = &l->v[i];
		uint32_t h, m;

		w->entries++;
		escape_name((const unsigned char *)d->name, d->name_len, esc);
		if (d->state != NAME_DECRYPTED || !d->has_hash) {
			printf("FAIL %s/%s: %s\n", path, esc,
			       !d->has_hash ? "no hash pair stored after the name" :
			       "name not decrypted");
			w->bad++;
			continue;
		}
		if (casefold_dirhash(w->nofold ? NULL : w->enc, key,
				     (const uint8_t *)d->name, d->name_len, &h, &m)) {
			printf("FAIL %s/%s: casefold_dirhash failed\n", path, esc);
			w->bad++;
		} else if (w->nofold && (h != d->hash || m != d->minor_hash)) {
			w->differ++;
		} else if (h != d->hash || m != d->minor_hash) {
			printf("FAIL %s/%s: stored %08x %08x, computed %08x %08x\n", path, esc,
			       d->hash, d->minor_hash, h, m);
			w->bad++;
		} else {
			w->matched++;
		}
	}
	e4_wipe(key, sizeof(key));
}

static void walk_dir(struct walk *w, ext2_ino_t dir, const char *path)
{
	struct ext2_inode_large inode;
	struct dir_listing l;

	if (w->depth > 64 || img_read_inode(w->kr->im, dir, &inode) ||
	    dir_list(w->kr, dir, path, &l)) {
		printf("FAIL %s: cannot list\n", path);
		w->bad++;
		return;
	}
	if (casefold_hash_in_dirent((struct ext2_inode *)&inode))
		check_dir(w, &l, path, &inode);
	for (size_t i = 0; i < l.n; i++) {
		const struct dent *d = &l.v[i];
		char *sub;

		if (d->ftype != EXT2_FT_DIR || (d->state != NAME_PLAIN &&
						d->state != NAME_DECRYPTED))
			continue;
		sub = malloc(strlen(path) + d->name_len + 2);
		if (!sub)
			abort();
		sprintf(sub, "%s/%s", strcmp(path, "/") ? path : "", d->name);
		w->depth++;
		walk_dir(w, d->ino, sub);
		w->depth--;
		free(sub);
	}
	dir_listing_free(&l);
}

static int run_image(const char *image, char **keys, int nkeys, int nofold)
{
	struct img im;
	struct keyring kr;
	struct walk w;
	int ret;

	memset(&im, 0, sizeof(im));
	keyring_init(&kr, &im);
	if (img_open(&im, image))
		return 1;
	for (int i = 0; i < nkeys; i++) {
		if (keyring_add_file(&kr, keys[i])) {
			keyring_free(&kr);
			img_close(&im);
			return 1;
		}
	}
	memset(&w, 0, sizeof(w));
	w.kr = &kr;
	w.nofold = nofold;
	w.enc = casefold_table(im.fs);
	if (!w.enc) {
		printf("FAIL %s: no casefold feature or unknown encoding %u\n", image,
		       im.fs->super->s_encoding);
		w.bad++;
	} else {
		walk_dir(&w, EXT2_ROOT_INO, "/");
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
	keyring_free(&kr);
	img_close(&im);
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
