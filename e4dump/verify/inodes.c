/* e4dump verify: per inode.  Contexts (from the encrypted-inode index),
 * nonce reuse, the superblock's encryption fields, sizes, blocks past EOF
 * and symlink headers (from one more pass over the inode table). */
#include <stdlib.h>
#include <string.h>
#include "bigmem.h"
#include "blockmap.h"
#include "kdf.h"
#include "symlink.h"
#include "verify.h"

static void check_context(struct verify *v, const struct e4_enc_inode *e)
{
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	const struct e4_context *c = &e->ctx;

	/* fscrypt_prepare_new_inode: only regular files, directories and
	 * symlinks are encrypted. */
	if (!E4_ISREG(e->mode) && !E4_ISDIR(e->mode) && !E4_ISLNK(e->mode))
		vfind(v, CHECK_INODE_SPECIAL_ENCRYPTED, e->ino, NULL,
		      "a device node, FIFO or socket (mode 0%o) with the encrypt flag or a context",
		      e->mode);

	if (e->flagged && e->ctx_status == E4_NOT_FOUND) {
		vfind(v, CHECK_CONTEXT_MISSING, e->ino, NULL,
		      "encrypt flag set but no encryption context xattr");
		return;
	}
	if (!e->flagged) {
		vfind(v, CHECK_CONTEXT_UNFLAGGED, e->ino, NULL,
		      "encryption context xattr on an inode without the encrypt flag");
		if (e->ctx_status == E4_NOT_FOUND)
			return;
	}
	switch (e->ctx_status) {
	case E4_CORRUPT:
		vfind(v, CHECK_CONTEXT_CORRUPT, e->ino, NULL, "%s", e->why);
		return;
	case E4_IO:
		vfind(v, CHECK_CONTEXT_CORRUPT, e->ino, NULL,
		      "extended attributes cannot be read: %s", e->why);
		return;
	case E4_UNRECOGNIZED:
		vfind(v, CHECK_CONTEXT_UNRECOGNIZED, e->ino, NULL,
		      "%s (version %u, modes %u/%u, flags 0x%02x)", e->why,
		      c->version, c->contents_mode, c->filenames_mode, c->flags);
		return;
	default:
		break;
	}
	if ((c->flags & E4_POLICY_FLAG_DIRECT_KEY) &&
	    c->contents_mode != c->filenames_mode)
		vfind(v, CHECK_CONTEXT_FLAGS, e->ino, NULL,
		      "DIRECT_KEY with different contents and filenames modes (%u/%u)",
		      c->contents_mode, c->filenames_mode);
	if ((c->flags & (E4_POLICY_FLAG_IV_INO_LBLK_64 | E4_POLICY_FLAG_IV_INO_LBLK_32)) &&
	    !ext2fs_has_feature_stable_inodes(sb))
		vfind(v, CHECK_CONTEXT_FLAGS, e->ino, NULL,
		      "IV_INO_LBLK flag 0x%02x without the stable_inodes feature",
		      c->flags);
}

/* Nonces sorted by their first 8 bytes as one integer, then all 16 (the
 * kernel's nonces are random, so the integer nearly always decides). */
struct nonce_ref {
	uint64_t head;
	const struct e4_enc_inode *in;
};

static int cmp_nonce(const void *a, const void *b)
{
	const struct nonce_ref *x = a, *y = b;
	int c;

	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	c = memcmp(x->in->ctx.nonce, y->in->ctx.nonce, E4_NONCE_SIZE);
	return c ? c : (x->in->ino > y->in->ino) - (x->in->ino < y->in->ino);
}

static int same_nonce(const struct nonce_ref *x, const struct nonce_ref *y)
{
	return x->head == y->head &&
	       !memcmp(x->in->ctx.nonce, y->in->ctx.nonce, E4_NONCE_SIZE);
}

/* Each inode has its own random nonce; hard links share the inode. */
static void check_nonces(struct verify *v, const struct e4_enc_inode *idx,
			 size_t nidx)
{
	struct nonce_ref *s = e4_big_realloc(NULL, 0, (nidx ? nidx : 1) * sizeof(*s));
	size_t n = 0;

	if (!s) {
		v->nomem = 1;
		return;
	}
	for (size_t i = 0; i < nidx; i++)
		if (idx[i].ctx_status == E4_OK) {
			memcpy(&s[n].head, idx[i].ctx.nonce, sizeof(s[n].head));
			s[n++].in = &idx[i];
		}
	qsort(s, n, sizeof(*s), cmp_nonce);
	for (size_t i = 0; i < n; i++) {
		const struct e4_enc_inode *o = NULL;

		if (i > 0 && same_nonce(&s[i - 1], &s[i]))
			o = s[i - 1].in;
		else if (i + 1 < n && same_nonce(&s[i + 1], &s[i]))
			o = s[i + 1].in;
		if (o)
			vfind(v, CHECK_CONTEXT_NONCE_REUSE, s[i].in->ino, NULL,
			      "same nonce as inode %u", o->ino);
	}
	e4_big_free(s, (nidx ? nidx : 1) * sizeof(*s));
}

static void check_special_dirs(struct verify *v)
{
	struct e4_inode root, lf;
	struct e4_dir *d;
	size_t i;

	if (e4_inode_read(v->fs, EXT2_ROOT_INO, NULL, &root) != E4_OK)
		return;
	if (root.encrypted)
		vfind(v, CHECK_ROOT_ENCRYPTED, EXT2_ROOT_INO, NULL,
		      "the root directory is encrypted");
	if (root.encrypted || e4_dir_list(v->fs, &root, "/", 0, &d) != E4_OK)
		return;
	i = e4_dir_find(v->fs, d, (const uint8_t *)"lost+found", 10);
	if (i < e4_dir_count(d)) {
		struct e4_entry e;

		e4_dir_get(d, i, &e);
		if (e4_inode_read(v->fs, e.ino, NULL, &lf) == E4_OK && lf.encrypted)
			vfind(v, CHECK_LOST_FOUND_ENCRYPTED, e.ino, NULL,
			      "lost+found is encrypted (e2fsck could not link files into it)");
	}
	e4_dir_free(d);
}

struct past_eof {
	struct verify *v;
	uint32_t ino;
	uint64_t end;  /* first block wholly past i_size */
	uint64_t meta; /* fs-verity: its metadata's first block, else ~0 */
};

static int past_eof_cb(void *arg, const struct e4_run *r)
{
	struct past_eof *p = arg;
	uint64_t lblk = r->lblk, count = r->len;

	if (r->unwritten || lblk + count <= p->end)
		return 0;
	if (lblk < p->end) {
		count -= p->end - lblk;
		lblk = p->end;
	}
	/* fs-verity's Merkle tree, descriptor and its size live there */
	if (lblk >= p->meta)
		return 0;
	if (lblk + count > p->meta)
		count = p->meta - lblk;
	if (!count)
		return 0;
	vfind(p->v, CHECK_FILE_BLOCKS_PAST_EOF, p->ino, NULL,
	      "initialized block %llu is past i_size (blocks 0..%llu hold the data)",
	      (unsigned long long)lblk,
	      (unsigned long long)(p->end ? p->end - 1 : 0));
	return 1;
}

/* The ciphertext length L of a symlink target follows the names rule
 * capped at blocksize - 3 (hooks.c: fscrypt_prepare_symlink): 6.1 stores
 * min(round_up(max(len, 16), padding), blocksize - 3), the 2015 format
 * max(len, 16).  Without the key (target_len < 0) L must be a multiple of
 * the padding or the cap. */
static void check_symlink_padding(struct verify *v, uint32_t ino,
				  const struct e4_context *ctx, size_t ct_len,
				  long target_len)
{
	size_t cap = v->info.block_size - 3, pad = e4_context_name_padding(ctx);
	size_t want;

	if (target_len < 0) {
		if (v->format == E4_FORMAT_2015 ||
		    e4_fname_stored_len_possible(v->format, (unsigned int)pad,
						 ct_len, cap))
			return;
		vfind(v, CHECK_SYMLINK_PADDING, ino, NULL,
		      "ciphertext length %zu is neither a multiple of the padding %zu nor %zu",
		      ct_len, pad, cap);
		return;
	}
	want = e4_fname_encrypted_size(v->format, (unsigned int)pad,
				       (size_t)target_len, v->format == E4_FORMAT_2015 ?
				       (size_t)-1 : cap);
	if (ct_len == want)
		return;
	vfind(v, CHECK_SYMLINK_PADDING, ino, NULL,
	      "ciphertext length %zu, but a %ld-byte target is stored as %zu bytes (%s rule, padding %zu)",
	      ct_len, target_len, want, v->format == E4_FORMAT_2015 ? "2015" : "6.1", pad);
}

static void check_symlink(struct verify *v, const struct e4_inode *in)
{
	unsigned int bs = v->info.block_size;
	uint64_t size = in->size, meta;
	uint8_t *blob = NULL, *plain = NULL;
	size_t bsize, len, n;
	const uint8_t *ct;
	struct e4_context ctx;
	struct e4_cipher *c = NULL;
	const char *why;
	enum e4_status st;

	if (size < E4_SYMLINK_HEADER_SIZE + E4_FNAME_MIN_LEN || size >= bs) {
		vfind(v, CHECK_SYMLINK_HEADER, in->ino, NULL,
		      "i_size %llu is out of bounds for an encrypted symlink (18..%u)",
		      (unsigned long long)size, bs - 1);
		return;
	}
	meta = in->file_acl ? bs / 512 : 0;
	if (!(in->flags & E4_INODE_INLINE_DATA_FL) && in->blocks <= meta &&
	    size > sizeof(in->i_block)) {
		vfind(v, CHECK_SYMLINK_HEADER, in->ino, NULL,
		      "i_size %llu does not fit in i_block of a fast symlink",
		      (unsigned long long)size);
		return;
	}
	if (e4_symlink_raw(v->fs, in, NULL, &blob, &bsize) != E4_OK)
		return;
	len = (size_t)blob[0] | (size_t)blob[1] << 8;
	if (len + E4_SYMLINK_HEADER_SIZE != size ||
	    e4_symlink_parse(blob, bsize, &ct, &len)) {
		vfind(v, CHECK_SYMLINK_HEADER, in->ino, NULL,
		      "header length %u + 2 does not match i_size %llu (or is below 16)",
		      (unsigned int)(blob[0] | blob[1] << 8), (unsigned long long)size);
		free(blob);
		return;
	}
	if (e4_inode_context(v->fs, in, &ctx, &why) != E4_OK) {
		free(blob);
		return;
	}
	check_symlink_padding(v, in->ino, &ctx, len, -1);
	if (e4_fs_inode_cipher(v->fs, in->ino, &ctx, E4_KEY_NAMES, &c) == E4_OK) {
		plain = malloc(bsize + 1);
		st = plain ? e4_symlink_decrypt(c, blob, bsize, plain, &n) : E4_NOMEM;
		if (st == E4_NOMEM)
			v->nomem = 1;
		else if (st != E4_OK)
			vfind(v, CHECK_SYMLINK_DECRYPT, in->ino, NULL,
			      "target does not decrypt to a non-empty path: %s",
			      st == E4_BAD_KEY ?
			      "empty, or non-zero bytes after its terminating NUL" :
			      e4_status_str(st));
		else
			check_symlink_padding(v, in->ino, &ctx, len, (long)n);
		if (plain)
			e4_wipe(plain, bsize + 1);
		free(plain);
		e4_cipher_free(c);
	}
	free(blob);
}

static void check_inode(struct verify *v, const struct e4_inode *in)
{
	unsigned int bs = v->info.block_size;

	if (in->flags & E4_INODE_INLINE_DATA_FL)
		return;
	if (E4_ISREG(in->mode)) {
		struct past_eof p = { v, in->ino, e4_inode_size_blocks(v->fs, in), UINT64_MAX };

		/* fs/ext4/verity.c: ext4_verity_metadata_pos: the metadata of a
		 * verity file starts at round_up(i_size, 65536), in its own
		 * blocks past EOF */
		if ((in->flags & E4_INODE_VERITY_FL) && in->size <= UINT64_MAX - 65535)
			p.meta = ((in->size + 65535) & ~(uint64_t)65535) / bs;

		e4_inode_map(v->fs, in, NULL, UINT64_MAX, past_eof_cb, &p);
	} else if (E4_ISDIR(in->mode)) {
		if (in->size == 0 || in->size % bs)
			vfind(v, CHECK_INODE_SIZE, in->ino, NULL,
			      "directory i_size %llu is not a non-zero multiple of the block size %u",
			      (unsigned long long)in->size, bs);
	} else if (E4_ISLNK(in->mode) && in->encrypted) {
		check_symlink(v, in);
	}
}

enum { KIND_UNSEEN, KIND_DIR, KIND_FILE };

/* Kind of ino in the scan's map: 2 bits per inode, a map per group made
 * when the scan reaches it, so memory follows the inode tables in use. */
static void note_kind(struct verify *v, const struct e4_inode *in)
{
	uint32_t ipg = e4_fs_ext2(v->fs)->super->s_inodes_per_group;
	size_t g = (in->ino - 1) / ipg, i = (in->ino - 1) % ipg;

	if (!v->kinds) {
		size_t n = e4_fs_ext2(v->fs)->group_desc_count;

		if (!(v->kinds = calloc(n ? n : 1, sizeof(*v->kinds)))) {
			v->nomem = 1;
			return;
		}
		v->nkind_groups = n;
	}
	if (g >= v->nkind_groups)
		return;
	if (!v->kinds[g] && !(v->kinds[g] = calloc(ipg / 4 + 1, 1))) {
		v->nomem = 1;
		return;
	}
	v->kinds[g][i / 4] |= (uint8_t)((E4_ISDIR(in->mode) ? KIND_DIR : KIND_FILE)
					<< (i % 4 * 2));
}

int verify_known_file(struct verify *v, uint32_t ino)
{
	uint32_t ipg = e4_fs_ext2(v->fs)->super->s_inodes_per_group;
	size_t g, i;

	if (!ino)
		return 0;
	g = (ino - 1) / ipg;
	i = (ino - 1) % ipg;
	return g < v->nkind_groups && v->kinds[g] &&
	       (v->kinds[g][i / 4] >> (i % 4 * 2) & 3) == KIND_FILE;
}

const struct e4_enc_inode *verify_enc_inode(struct verify *v, uint32_t ino)
{
	const struct e4_enc_inode *idx;
	size_t lo = 0, hi;

	if (e4_fs_encrypted_inodes(v->fs, &idx, &hi, NULL) != E4_OK)
		return NULL;
	while (lo < hi) { /* the index is in inode order */
		size_t mid = lo + (hi - lo) / 2;

		if (idx[mid].ino == ino)
			return &idx[mid];
		if (idx[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int scan_inode(void *arg, const struct e4_inode *in)
{
	struct verify *v = arg;

	v->inodes++;
	note_kind(v, in);
	check_inode(v, in);
	claims_inode(v, in);
	return v->nomem ? 1 : 0;
}

int verify_inodes(struct verify *v)
{
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	const struct e4_enc_inode *idx;
	size_t n, flagged = 0;

	/* one read of the tables: the scan builds the index too */
	if (e4_fs_scan_inodes(v->fs, E4_SCAN_INDEX, scan_inode, v) == E4_IO ||
	    e4_fs_encrypted_inodes(v->fs, &idx, &n, NULL) != E4_OK)
		return -1;
	for (size_t i = 0; i < n; i++) {
		check_context(v, &idx[i]);
		flagged += idx[i].flagged;
	}
	check_nonces(v, idx, n);
	if (flagged && !ext2fs_has_feature_encrypt(sb))
		vfind(v, CHECK_SB_ENCRYPT_FEATURE, 0, NULL,
		      "%zu inodes are encrypted but the encrypt feature is not set",
		      flagged);
	if (sb->s_encryption_level)
		vfind(v, CHECK_SB_ENCRYPTION_LEVEL, 0, NULL,
		      "s_encryption_level is %u, not 0", sb->s_encryption_level);
	check_special_dirs(v);
	return 0;
}
