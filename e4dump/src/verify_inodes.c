/* e4dump verify: per inode.  Contexts (from the encrypted-inode index),
 * nonce reuse, the superblock's encryption fields, sizes, blocks past EOF
 * and symlink headers (from one more pass over the inode table). */
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include "report.h"
#include "symlink.h"
#include "verify.h"

/* The largest i_size ext4 allows with 32-bit logical block numbers. */
static uint64_t max_size(struct verify *v)
{
	return ((uint64_t)1 << 32) * v->im->blocksize - v->im->blocksize;
}

static void check_context(struct verify *v, const struct enc_inode *e)
{
	struct ext2_super_block *sb = v->im->fs->super;
	const struct e4_context *c = &e->ctx;

	/* fscrypt_prepare_new_inode: only regular files, directories and
	 * symlinks are encrypted. */
	if (!LINUX_S_ISREG(e->mode) && !LINUX_S_ISDIR(e->mode) &&
	    !LINUX_S_ISLNK(e->mode))
		vfind(v, e->ino, NULL, "inode.special_encrypted",
		      "a device node, FIFO or socket (mode 0%o) with the encrypt flag or a context",
		      e->mode);

	if (e->flagged && e->res == CTX_NONE) {
		vfind(v, e->ino, NULL, "context.missing",
		      "encrypt flag set but no encryption context xattr");
		return;
	}
	if (!e->flagged) {
		vfind(v, e->ino, NULL, "context.unflagged",
		      "encryption context xattr on an inode without the encrypt flag");
		if (e->res == CTX_NONE)
			return;
	}
	switch (e->res) {
	case CTX_CORRUPT:
		vfind(v, e->ino, NULL, "context.corrupt", "%s", e->why);
		return;
	case CTX_IO_ERROR:
		vfind(v, e->ino, NULL, "context.corrupt",
		      "extended attributes cannot be read: %s", e->why);
		return;
	case CTX_UNRECOGNIZED:
		vfind(v, e->ino, NULL, "context.unrecognized",
		      "%s (version %u, modes %u/%u, flags 0x%02x)", e->why,
		      c->version, c->contents_mode, c->filenames_mode, c->flags);
		return;
	default:
		break;
	}
	if ((c->flags & E4_POLICY_FLAG_DIRECT_KEY) &&
	    c->contents_mode != c->filenames_mode)
		vfind(v, e->ino, NULL, "context.flags",
		      "DIRECT_KEY with different contents and filenames modes (%u/%u)",
		      c->contents_mode, c->filenames_mode);
	if ((c->flags & (E4_POLICY_FLAG_IV_INO_LBLK_64 | E4_POLICY_FLAG_IV_INO_LBLK_32)) &&
	    !ext2fs_has_feature_stable_inodes(sb))
		vfind(v, e->ino, NULL, "context.flags",
		      "IV_INO_LBLK flag 0x%02x without the stable_inodes feature",
		      c->flags);
}

static int cmp_nonce(const void *a, const void *b)
{
	const struct enc_inode *x = *(const struct enc_inode *const *)a;
	const struct enc_inode *y = *(const struct enc_inode *const *)b;
	int c = memcmp(x->ctx.nonce, y->ctx.nonce, E4_NONCE_SIZE);

	return c ? c : (x->ino > y->ino) - (x->ino < y->ino);
}

/* Each inode has its own random nonce; hard links share the inode. */
static void check_nonces(struct verify *v, struct inode_index *idx)
{
	const struct enc_inode **s = malloc((idx->n ? idx->n : 1) * sizeof(*s));
	size_t n = 0;

	if (!s) {
		v->nomem = 1;
		return;
	}
	for (size_t i = 0; i < idx->n; i++)
		if (idx->v[i].res == CTX_OK)
			s[n++] = &idx->v[i];
	qsort(s, n, sizeof(*s), cmp_nonce);
	for (size_t i = 0; i < n; i++) {
		const struct enc_inode *o = NULL;

		if (i > 0 && !memcmp(s[i - 1]->ctx.nonce, s[i]->ctx.nonce, E4_NONCE_SIZE))
			o = s[i - 1];
		else if (i + 1 < n && !memcmp(s[i + 1]->ctx.nonce, s[i]->ctx.nonce, E4_NONCE_SIZE))
			o = s[i + 1];
		if (o)
			vfind(v, s[i]->ino, NULL, "context.nonce_reuse",
			      "same nonce as inode %u", o->ino);
	}
	free(s);
}

static void check_special_dirs(struct verify *v)
{
	struct ext2_inode_large inode;
	ext2_ino_t lf = 0;

	if (!img_read_inode(v->im, EXT2_ROOT_INO, &inode) &&
	    img_inode_encrypted(&inode))
		vfind(v, EXT2_ROOT_INO, NULL, "root.encrypted",
		      "the root directory is encrypted");
	if (!ext2fs_lookup(v->im->fs, EXT2_ROOT_INO, "lost+found", 10, NULL, &lf) &&
	    lf && !img_read_inode(v->im, lf, &inode) &&
	    img_inode_encrypted(&inode))
		vfind(v, lf, NULL, "lost_found.encrypted",
		      "lost+found is encrypted (e2fsck could not link files into it)");
}

struct past_eof {
	struct verify *v;
	ext2_ino_t ino;
	uint64_t end;  /* first block wholly past i_size */
};

static int past_eof_cb(void *arg, uint64_t lblk, uint64_t pblk, uint64_t count)
{
	struct past_eof *p = arg;

	(void)pblk;
	if (lblk + count <= p->end)
		return 0;
	vfind(p->v, p->ino, NULL, "file.blocks_past_eof",
	      "initialized block %llu is past i_size (blocks 0..%llu hold the data)",
	      (unsigned long long)(lblk > p->end ? lblk : p->end),
	      (unsigned long long)(p->end ? p->end - 1 : 0));
	return 1;
}

/* The ciphertext length L of a symlink target follows the names rule
 * capped at blocksize - 3 (hooks.c: fscrypt_prepare_symlink): 6.1 stores
 * min(round_up(max(len, 16), padding), blocksize - 3), the 2015 format
 * max(len, 16).  Without the key (target_len < 0) L must be a multiple of
 * the padding or the cap. */
static void check_symlink_padding(struct verify *v, ext2_ino_t ino,
				  const struct e4_context *ctx, size_t ct_len,
				  long target_len)
{
	size_t cap = v->im->blocksize - 3, pad = e4_context_name_padding(ctx);
	size_t want;

	if (v->format == FORMAT_2015) {
		if (target_len < 0 || ct_len == (size_t)(target_len < 16 ? 16 : target_len))
			return;
		want = (size_t)(target_len < 16 ? 16 : target_len);
	} else if (target_len < 0) {
		if (ct_len % pad == 0 || ct_len == cap)
			return;
		vfind(v, ino, NULL, "symlink.padding",
		      "ciphertext length %zu is neither a multiple of the padding %zu nor %zu",
		      ct_len, pad, cap);
		return;
	} else {
		want = target_len < 16 ? 16 : (size_t)target_len;
		want = (want + pad - 1) / pad * pad;
		if (want > cap)
			want = cap;
		if (ct_len == want)
			return;
	}
	vfind(v, ino, NULL, "symlink.padding",
	      "ciphertext length %zu, but a %ld-byte target is stored as %zu bytes (%s rule, padding %zu)",
	      ct_len, target_len, want, v->format == FORMAT_2015 ? "2015" : "6.1", pad);
}

static void check_symlink(struct verify *v, ext2_ino_t ino,
			  struct ext2_inode_large *inode)
{
	uint64_t size = img_inode_size(inode);
	uint8_t *blob = NULL, *plain = NULL;
	size_t bsize, len, n;
	const uint8_t *ct;
	struct e4_context ctx;
	struct e4_cipher *c = NULL;
	const char *why;
	enum e4_status st;

	if (size < E4_SYMLINK_HEADER_SIZE + E4_FNAME_MIN_LEN || size >= v->im->blocksize) {
		vfind(v, ino, NULL, "symlink.header",
		      "i_size %llu is out of bounds for an encrypted symlink (18..%u)",
		      (unsigned long long)size, v->im->blocksize - 1);
		return;
	}
	if (!(inode->i_flags & EXT4_INLINE_DATA_FL) &&
	    ext2fs_inode_data_blocks2(v->im->fs, (struct ext2_inode *)inode) == 0 &&
	    size > sizeof(inode->i_block)) {
		vfind(v, ino, NULL, "symlink.header",
		      "i_size %llu does not fit in i_block of a fast symlink",
		      (unsigned long long)size);
		return;
	}
	if (img_read_symlink(v->im, ino, inode, &blob, &bsize))
		return;
	len = (size_t)blob[0] | (size_t)blob[1] << 8;
	if (len + E4_SYMLINK_HEADER_SIZE != size ||
	    e4_symlink_parse(blob, bsize, &ct, &len)) {
		vfind(v, ino, NULL, "symlink.header",
		      "header length %u + 2 does not match i_size %llu (or is below 16)",
		      (unsigned int)(blob[0] | blob[1] << 8), (unsigned long long)size);
		free(blob);
		return;
	}
	if (img_read_context(v->im, ino, &ctx, &why) != CTX_OK) {
		free(blob);
		return;
	}
	check_symlink_padding(v, ino, &ctx, len, -1);
	if ((v->kr->nkeys || v->kr->dummy_key) &&
	    keyring_inode_cipher(v->kr, ino, &ctx, 1, &c) == E4_OK) {
		plain = malloc(bsize + 1);
		st = plain ? e4_symlink_decrypt(c, blob, bsize, plain, &n) : E4_NOMEM;
		if (st == E4_NOMEM)
			v->nomem = 1;
		else if (st != E4_OK)
			vfind(v, ino, NULL, "symlink.decrypt",
			      "target does not decrypt to a non-empty path: %s",
			      st == E4_BAD_KEY ?
			      "empty, or non-zero bytes after its terminating NUL" :
			      e4_status_str(st));
		else
			check_symlink_padding(v, ino, &ctx, len, (long)n);
		if (plain)
			memset(plain, 0, bsize + 1);
		free(plain);
		e4_cipher_free(c);
	}
	free(blob);
}

static void check_inode(struct verify *v, ext2_ino_t ino,
			struct ext2_inode_large *inode)
{
	uint64_t size = img_inode_size(inode);
	unsigned int bs = v->im->blocksize;

	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return;
	if (LINUX_S_ISREG(inode->i_mode)) {
		struct past_eof p = { v, ino, (size + bs - 1) / bs };

		if (size > max_size(v)) {
			vfind(v, ino, NULL, "inode.size",
			      "i_size %llu is larger than ext4 allows (%llu)",
			      (unsigned long long)size,
			      (unsigned long long)max_size(v));
			return;
		}
		img_map_blocks(v->im, ino, inode, past_eof_cb, &p);
	} else if (LINUX_S_ISDIR(inode->i_mode)) {
		if (size == 0 || size % bs || size > max_size(v))
			vfind(v, ino, NULL, "inode.size",
			      "directory i_size %llu is not a non-zero multiple of the block size %u",
			      (unsigned long long)size, bs);
	} else if (LINUX_S_ISLNK(inode->i_mode) && img_inode_encrypted(inode)) {
		check_symlink(v, ino, inode);
	}
}

static int scan_inode(void *arg, ext2_ino_t ino, struct ext2_inode_large *inode)
{
	struct verify *v = arg;

	v->inodes++;
	check_inode(v, ino, inode);
	return v->nomem ? 1 : 0;
}

int verify_inodes(struct verify *v)
{
	struct ext2_super_block *sb = v->im->fs->super;
	struct inode_index *idx = keyring_index(v->kr);
	size_t flagged = 0;

	for (size_t i = 0; i < idx->n; i++) {
		check_context(v, &idx->v[i]);
		flagged += idx->v[i].flagged;
	}
	check_nonces(v, idx);
	if (flagged && !ext2fs_has_feature_encrypt(sb))
		vfind(v, 0, NULL, "sb.encrypt_feature",
		      "%zu inodes are encrypted but the encrypt feature is not set",
		      flagged);
	if (sb->s_encryption_level)
		vfind(v, 0, NULL, "sb.encryption_level",
		      "s_encryption_level is %u, not 0", sb->s_encryption_level);
	check_special_dirs(v);

	return img_scan_inodes(v->im, scan_inode, v) < 0 ? -1 : 0;
}
