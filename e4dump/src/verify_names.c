/* e4dump verify: the names of one directory.  Stored lengths (16..255,
 * the padding rule), decryption with the key ('/', NUL, zero padding),
 * duplicates, the entries' encryption and policies; and the choice of the
 * length rule (--format auto) from the names of the whole image. */
#include <stdlib.h>
#include <string.h>
#include "verify.h"

/* Sort key of a name for duplicates: what it decrypts to, else its bytes. */
static int cmp_name(const void *a, const void *b)
{
	const struct ventry *x = *(const struct ventry *const *)a;
	const struct ventry *y = *(const struct ventry *const *)b;
	const uint8_t *px = x->dec ? x->plain : x->d->raw;
	const uint8_t *py = y->dec ? y->plain : y->d->raw;
	size_t lx = x->dec ? x->plain_len : x->d->raw_len;
	size_t ly = y->dec ? y->plain_len : y->d->raw_len;
	int c;

	if (x->dec != y->dec)
		return x->dec - y->dec;
	c = memcmp(px, py, lx < ly ? lx : ly);
	if (c)
		return c;
	return (lx > ly) - (lx < ly);
}

void verify_duplicates(struct verify *v, struct ventry *e, size_t n,
		       char **paths, int encrypted)
{
	struct ventry **s = malloc(n * sizeof(*s));

	if (!s) {
		v->nomem = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		s[i] = &e[i];
	qsort(s, n, sizeof(*s), cmp_name);
	for (size_t i = 0; i < n; i++) {
		int before = i > 0 && !cmp_name(&s[i - 1], &s[i]);
		int after = i + 1 < n && !cmp_name(&s[i], &s[i + 1]);
		struct ventry *other = before ? s[i - 1] : after ? s[i + 1] : NULL;

		if (!other)
			continue;
		vfind(v, s[i]->d->ino, paths[s[i] - e], "name.duplicate",
		      "%s the same name as the entry for inode %u in this directory",
		      !encrypted ? "has" : s[i]->dec ? "decrypts to" :
		      "has the same ciphertext, so", other->d->ino);
	}
	free(s);
}

/* Names of an encrypted directory: lengths, decryption, inodes' policies. */
void verify_encrypted_entry(struct verify *v, struct ventry *e,
			    const char *path, const struct e4_context *dctx,
			    int dctx_ok, struct e4_cipher *c,
			    const struct ext2_inode_large *child, int child_ok)
{
	struct ext2_super_block *sb = v->im->fs->super;
	unsigned int len = (unsigned int)e->d->raw_len;

	if (!ext2fs_has_feature_filetype(sb) && e->len_field > E4_NAME_MAX) {
		vfind(v, e->d->ino, path, "name.too_long",
		      "stored name length %u is longer than 255", e->len_field);
	} else if (len < E4_FNAME_MIN_LEN) {
		vfind(v, e->d->ino, path, "name.too_short",
		      "stored name length %u is shorter than one cipher block (16)", len);
	} else {
		if (c) {
			enum e4_status st = e4_decrypt_path(c, e->d->raw, len,
							    e->plain, &e->plain_len);

			if (st == E4_OK && memchr(e->plain, '/', e->plain_len)) {
				vfind(v, e->d->ino, path, "name.slash",
				      "name decrypts to a name containing '/'");
			} else if (st == E4_OK) {
				e->dec = 1;
			} else if (st == E4_BAD_KEY) {
				vfind(v, e->d->ino, path, "name.decrypt",
				      e->plain_len == 0 ? "name decrypts to an empty name" :
				      "decrypted name has non-zero bytes after its terminating NUL (an embedded NUL or a corrupt name)");
			} else {
				vfind(v, e->d->ino, path, "name.decrypt",
				      "cannot decrypt: %s", e4_status_str(st));
			}
		}
		if (dctx_ok)
			vlen_candidate(v, e->d->ino, path, len,
				       e4_context_name_padding(dctx),
				       e->dec ? (int)e->plain_len : -1);
	}
	if (!child_ok)
		return;
	if (!img_inode_encrypted(child)) {
		if (LINUX_S_ISREG(child->i_mode) || LINUX_S_ISDIR(child->i_mode) ||
		    LINUX_S_ISLNK(child->i_mode))
			vfind(v, e->d->ino, path, "dir.unencrypted_entry",
			      "unencrypted %s in an encrypted directory",
			      LINUX_S_ISDIR(child->i_mode) ? "directory" :
			      LINUX_S_ISLNK(child->i_mode) ? "symlink" : "file");
		return;
	}
	if (dctx_ok) {
		struct e4_context cctx;
		const char *why;

		if (img_read_context(v->im, e->d->ino, &cctx, &why) == CTX_OK &&
		    !e4_context_same_policy(&cctx, dctx)) {
			char a[33], b[33];

			e4_context_key_id_hex(dctx, a);
			e4_context_key_id_hex(&cctx, b);
			vfind(v, e->d->ino, path, "policy.differs",
			      "policy v%u %u/%u flags 0x%02x key %s differs from its directory's v%u %u/%u flags 0x%02x key %s",
			      cctx.version, cctx.contents_mode, cctx.filenames_mode,
			      cctx.flags, b, dctx->version, dctx->contents_mode,
			      dctx->filenames_mode, dctx->flags, a);
		}
	}
}

static int count_len_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
			int offset, int blocksize, char *buf, void *priv)
{
	unsigned int *pad_count = priv; /* [0] padding in, [1] count out */
	unsigned int len = ext2fs_dirent_name_len(de);

	(void)dir, (void)offset, (void)blocksize, (void)buf;
	if (entry == DIRENT_OTHER_FILE && len >= E4_FNAME_MIN_LEN &&
	    len != E4_NAME_MAX && len % pad_count[0])
		pad_count[1]++;
	return 0;
}

/* --format auto: the 2015 format when at least two stored names of the
 * image's encrypted directories cannot come from 6.1's padding rule (one
 * such name is taken as damage, and reported). */
void verify_decide_format(struct verify *v)
{
	struct inode_index *idx = keyring_index(v->kr);
	unsigned int total = 0;

	if (v->format != FORMAT_AUTO)
		return;
	for (size_t i = 0; i < idx->n && total < 2; i++) {
		const struct enc_inode *e = &idx->v[i];
		unsigned int pc[2];

		if (!e->flagged || e->res != CTX_OK || !LINUX_S_ISDIR(e->mode))
			continue;
		pc[0] = e4_context_name_padding(&e->ctx);
		pc[1] = 0;
		ext2fs_dir_iterate2(v->im->fs, e->ino, 0, NULL, count_len_cb, pc);
		total += pc[1];
	}
	v->format = total >= 2 ? FORMAT_2015 : FORMAT_61;
}
