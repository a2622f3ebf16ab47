#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include "casefold_hash.h"
#include "dirlist.h"
#include "nokey.h"
#include "report.h"

/* Evidence (see e4_name_evidence_bits) that outweighs failed names. */
#define DIR_EVIDENCE_BITS 32

struct collect {
	struct dir_listing *l;
	size_t cap;
	int nomem;
	int hashes;     /* casefold + encrypt: entries store their hash pair */
};

static int collect_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct collect *c = priv;
	unsigned int len = ext2fs_dirent_name_len(de);
	struct dent *d;

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (c->l->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct dent *v = realloc(c->l->v, cap * sizeof(*v));

		if (!v) {
			c->nomem = 1;
			return DIRENT_ABORT;
		}
		c->l->v = v;
		c->cap = cap;
	}
	d = &c->l->v[c->l->n++];
	memset(d, 0, sizeof(*d));
	d->ino = de->inode;
	d->ftype = (uint8_t)ext2fs_dirent_file_type(de);
	d->raw_len = len;
	memcpy(d->raw, de->name, len);
	if (c->hashes)
		d->has_hash = !casefold_stored_hash(de, blocksize, &d->hash,
						    &d->minor_hash);
	return 0;
}

/* The hash pair Linux 6.1 puts in no-key names: what ext4_htree_fill_tree()
 * computes over the stored name for directories read through the htree
 * code, zero for those read linearly (ext4_readdir()); in casefolded
 * encrypted directories, both ways, the pair stored in the entry. */
struct nokey_hash {
	enum name_format format;
	int use;
	int version;
	const uint32_t *seed;
	int stored;
};

static void nokey_hash_setup(struct img *im, struct ext2_inode_large *inode,
			     ext2_ino_t dir, struct nokey_hash *h)
{
	struct ext2_super_block *sb = im->fs->super;
	uint64_t blocks = img_inode_size(inode) / im->blocksize;

	memset(h, 0, sizeof(*h));
	if (casefold_hash_in_dirent((struct ext2_inode *)inode)) {
		h->stored = 1;
		return;
	}
	if (!ext2fs_has_feature_dir_index(sb))
		return;
	h->version = sb->s_def_hash_version;
	if (inode->i_flags & EXT2_INDEX_FL) {
		uint8_t *blk = malloc(im->blocksize);
		blk64_t pblk = 0;

		if (blk && !ext2fs_bmap2(im->fs, dir, (struct ext2_inode *)inode,
					 NULL, 0, 0, NULL, &pblk) && pblk &&
		    !img_read_blocks(im, pblk, 1, blk))
			h->version = blk[0x1c]; /* dx_root_info.hash_version */
		free(blk);
	} else if (blocks != 1) {
		return;
	}
	if (h->version <= EXT2_HASH_TEA &&
	    (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		h->version += 3;
	h->seed = sb->s_hash_seed;
	h->use = 1;
}

static void set_nokey(struct dent *d, const struct nokey_hash *h)
{
	ext2_dirhash_t hash = 0, minor = 0;

	if (h->format == FORMAT_2015) {
		if (d->raw_len < 1 || e4_nokey_name_2015(d->raw, d->raw_len, d->name))
			strcpy(d->name, "?");
		d->name_len = strlen(d->name);
		return;
	}
	if (h->stored) {
		if (d->has_hash) {
			hash = d->hash;
			minor = d->minor_hash;
		}
	} else if (h->use && ext2fs_dirhash2(h->version, (const char *)d->raw,
				      (int)d->raw_len, NULL, 0, h->seed,
				      &hash, &minor))
		hash = minor = 0;
	if (d->raw_len < 1 ||
	    e4_nokey_name_v61(hash, minor, d->raw, d->raw_len, d->name)) {
		strcpy(d->name, "?");
	}
	d->name_len = strlen(d->name);
}

void dir_nokey_names(struct img *im, ext2_ino_t dir,
		     struct ext2_inode_large *inode, enum name_format format,
		     struct dent *v, size_t n)
{
	struct nokey_hash h;

	nokey_hash_setup(im, inode, dir, &h);
	h.format = format;
	for (size_t i = 0; i < n; i++)
		set_nokey(&v[i], &h);
}

static int cmp_dent(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* A stored name length the policy's padding cannot produce (Linux pads to
 * a multiple of 4, 8, 16 or 32, or to 255) was written by the 2015 code,
 * which stores max(len, 16) bytes. */
static int lengths_say_2015(const uint8_t *lens, size_t n, unsigned int pad)
{
	for (size_t i = 0; i < n; i++)
		if (lens[i] >= E4_FNAME_MIN_LEN && lens[i] != E4_NAME_MAX &&
		    lens[i] % pad)
			return 1;
	return 0;
}

struct len_scan {
	uint8_t lens[512];
	size_t n;
};

static int len_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		  int offset, int blocksize, char *buf, void *priv)
{
	struct len_scan *ls = priv;

	(void)dir, (void)offset, (void)blocksize, (void)buf;
	if (entry != DIRENT_OTHER_FILE)
		return 0;
	ls->lens[ls->n++] = (uint8_t)ext2fs_dirent_name_len(de);
	return ls->n == sizeof(ls->lens) ? DIRENT_ABORT : 0;
}

/* The filesystem's generation, from the first encrypted directories whose
 * name lengths decide it (the format is chosen per filesystem). */
static enum name_format detect_fs_format(struct keyring *kr)
{
	struct inode_index *idx = keyring_index(kr);
	size_t dirs = 0;

	for (size_t i = 0; i < idx->n && dirs < 1000; i++) {
		const struct enc_inode *e = &idx->v[i];
		struct len_scan ls = { { 0 }, 0 };

		if (e->res != CTX_OK || !LINUX_S_ISDIR(e->mode))
			continue;
		dirs++;
		ext2fs_dir_iterate2(kr->im->fs, e->ino, 0, NULL, len_cb, &ls);
		if (lengths_say_2015(ls.lens, ls.n,
				     e4_context_name_padding(&e->ctx)))
			return FORMAT_2015;
	}
	return FORMAT_61;
}

static enum name_format dir_format(struct keyring *kr, struct dir_listing *l)
{
	struct img *im = kr->im;
	uint8_t lens[256];
	size_t n = 0;

	if (im->format != FORMAT_AUTO)
		return im->format;
	for (size_t i = 0; i < l->n; i++) {
		lens[n++] = (uint8_t)l->v[i].raw_len;
		if (n == sizeof(lens) || i + 1 == l->n) {
			if (lengths_say_2015(lens, n,
					     e4_context_name_padding(&l->ctx)))
				return FORMAT_2015;
			n = 0;
		}
	}
	if (im->detected == FORMAT_AUTO)
		im->detected = detect_fs_format(kr);
	return im->detected;
}

int dir_keep_unsafe_names;

/* A name that decrypted with '/' or NUL in it (only a hostile or damaged
 * image has one) is kept, up to its last non-NUL byte, when its own zero
 * padding is evidence enough that the key is right; extract escapes it. */
static int hostile_name(const uint8_t *plain, size_t stored, size_t *n)
{
	size_t m = stored;

	while (m && !plain[m - 1])
		m--;
	if (!m || e4_name_evidence_bits(plain, stored, m) < DIR_EVIDENCE_BITS)
		return 0;
	*n = m;
	return 1;
}

/* Decrypt every name.  A right key never yields an invalid name, so when
 * some names fail and the others carry little evidence of being real (the
 * key or the directory's nonce is wrong), none of them is trusted. */
static void decrypt_names(struct dir_listing *l, struct e4_cipher *c,
			  const char *path)
{
	unsigned int evidence = 0;
	size_t failed = 0;

	(void)path;
	for (size_t i = 0; i < l->n; i++) {
		struct dent *d = &l->v[i];
		uint8_t plain[256];
		size_t n;
		enum e4_status st;

		st = e4_decrypt_name(c, d->raw, d->raw_len, plain, &n);
		if (st == E4_BAD_KEY && dir_keep_unsafe_names &&
		    hostile_name(plain, d->raw_len, &n))
			st = E4_OK;
		if (st == E4_OK) {
			d->state = NAME_DECRYPTED;
			memcpy(d->name, plain, n);
			d->name[n] = '\0';
			d->name_len = n;
			evidence += e4_name_evidence_bits(plain, d->raw_len, n);
		} else {
			d->state = NAME_BAD;
			d->problem = st == E4_CORRUPT ?
				"ciphertext shorter than 16 bytes" :
				"invalid plaintext (corrupt name, nonce or key)";
			failed++;
		}
	}
	if (!failed || evidence >= DIR_EVIDENCE_BITS)
		return;
	for (size_t i = 0; i < l->n; i++) {
		struct dent *d = &l->v[i];

		if (d->state == NAME_DECRYPTED) {
			d->state = NAME_BAD;
			d->problem = "not trusted: other names of this directory do not decrypt";
		}
	}
}

int dir_list(struct keyring *kr, ext2_ino_t dir, const char *path,
	     struct dir_listing *out)
{
	struct img *im = kr->im;
	struct ext2_inode_large inode;
	struct collect c = { out, 0, 0, 0 };
	struct e4_cipher *cipher = NULL;
	struct nokey_hash nh;
	const char *why;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	out->dir = dir;
	if (img_read_inode(im, dir, &inode))
		return -1;
	if (!LINUX_S_ISDIR(inode.i_mode)) {
		report_error("%s (inode %u): not a directory", path, dir);
		return -1;
	}
	if (inode.i_flags & EXT4_INLINE_DATA_FL && img_inode_encrypted(&inode)) {
		report_error("%s (inode %u): encrypted directory with inline data", path, dir);
		return -1;
	}
	c.hashes = casefold_hash_in_dirent((struct ext2_inode *)&inode);
	err = ext2fs_dir_iterate2(im->fs, dir, 0, NULL, collect_cb, &c);
	if (c.nomem) {
		report_error("%s (inode %u): out of memory", path, dir);
		dir_listing_free(out);
		return -1;
	}
	if (err) {
		report_error("%s (inode %u): cannot read directory: %s", path,
			     dir, error_message(err));
		if (!out->n) {
			dir_listing_free(out);
			return -1;
		}
	}
	out->encrypted = img_inode_encrypted(&inode);
	out->casefolded = (inode.i_flags & EXT4_CASEFOLD_FL) != 0;
	if (!out->encrypted) {
		for (size_t i = 0; i < out->n; i++) {
			struct dent *d = &out->v[i];

			memcpy(d->name, d->raw, d->raw_len);
			d->name[d->raw_len] = '\0';
			d->name_len = d->raw_len;
		}
		goto sort;
	}
	switch (img_read_context(im, dir, &out->ctx, &why)) {
	case CTX_OK: {
		enum e4_status st = keyring_inode_cipher(kr, dir, &out->ctx, 1, &cipher);

		if (st == E4_UNSUPPORTED)
			report_error("%s (inode %u): unsupported encryption mode %u",
				     path, dir, out->ctx.filenames_mode);
		else if (st != E4_OK && st != E4_BAD_KEY)
			report_error("%s (inode %u): cannot set up name decryption: %s",
				     path, dir, e4_status_str(st));
		out->broken = st != E4_OK && st != E4_BAD_KEY;
		break;
	}
	case CTX_NONE:
		report_error("%s (inode %u): encrypted directory without an encryption context",
			     path, dir);
		out->broken = 1;
		break;
	default:
		report_error("%s (inode %u): encryption context: %s", path,
			     dir, why);
		out->broken = 1;
		break;
	}
	out->have_key = cipher != NULL;
	nokey_hash_setup(im, &inode, dir, &nh);
	if (cipher)
		decrypt_names(out, cipher, path);
	for (size_t i = 0; i < out->n; i++) {
		if (out->v[i].state != NAME_DECRYPTED) {
			nh.format = dir_format(kr, out);
			break;
		}
	}
	for (size_t i = 0; i < out->n; i++) {
		struct dent *d = &out->v[i];

		if (d->state == NAME_DECRYPTED)
			continue;
		if (!cipher)
			d->state = NAME_NOKEY;
		set_nokey(d, &nh);
		if (d->state == NAME_BAD)
			report_error("%s/%s (inode %u): name does not decrypt: %s",
				     path, d->name, d->ino, d->problem);
	}
	e4_cipher_free(cipher);
sort:
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_dent);
	return 0;
}

void dir_listing_free(struct dir_listing *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* With the key, a component may also be the no-key name the directory
 * shows without it (copied from such a listing, or from the kernel's).
 * Returns the entry's index, or l->n. */
static size_t match_nokey(struct keyring *kr, ext2_ino_t dir,
			  struct dir_listing *l, const char *comp)
{
	struct ext2_inode_large inode;
	struct dent *copy;
	size_t i;

	if (!l->encrypted || !l->have_key || !l->n ||
	    img_read_inode(kr->im, dir, &inode))
		return l->n;
	copy = malloc(l->n * sizeof(*copy));
	if (!copy)
		return l->n;
	memcpy(copy, l->v, l->n * sizeof(*copy));
	dir_nokey_names(kr->im, dir, &inode, dir_format(kr, l), copy, l->n);
	for (i = 0; i < l->n; i++)
		if (!strcmp(copy[i].name, comp))
			break;
	memset(copy, 0, l->n * sizeof(*copy)); /* decrypted names */
	free(copy);
	return i;
}

int path_lookup(struct keyring *kr, const char *path, ext2_ino_t *ino)
{
	char *copy = strdup(path), *save = NULL, *comp;
	ext2_ino_t cur = EXT2_ROOT_INO;
	int ret = 0;

	if (!copy) {
		report_error("out of memory");
		return -1;
	}
	for (comp = strtok_r(copy, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		struct dir_listing l;
		size_t i;

		if (!strcmp(comp, "."))
			continue;
		if (dir_list(kr, cur, path, &l)) {
			ret = -1;
			break;
		}
		for (i = 0; i < l.n; i++)
			if (!strcmp(l.v[i].name, comp) &&
			    strlen(comp) == l.v[i].name_len)
				break;
		if (i == l.n && l.casefolded && casefold_table(kr->im->fs)) {
			for (i = 0; i < l.n; i++) {
				const struct dent *d = &l.v[i];

				if ((d->state == NAME_PLAIN || d->state == NAME_DECRYPTED) &&
				    !ext2fs_casefold_cmp(casefold_table(kr->im->fs),
							 (const unsigned char *)d->name,
							 d->name_len,
							 (const unsigned char *)comp,
							 strlen(comp)))
					break;
			}
		}
		if (i == l.n)
			i = match_nokey(kr, cur, &l, comp);
		if (i == l.n) {
			report_error("%s: no such entry \"%s\"", path, comp);
			dir_listing_free(&l);
			ret = -1;
			break;
		}
		cur = l.v[i].ino;
		dir_listing_free(&l);
	}
	free(copy);
	*ino = cur;
	return ret;
}
