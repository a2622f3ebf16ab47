/* The index of encrypted inodes: one scan of the inode tables. */
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"

static int index_inode(void *arg, const struct e4_inode *in)
{
	struct e4_fs *fs = arg;
	struct ext2_inode_large raw;
	struct e4_enc_inode e;

	fs->in_use++;
	memset(&e, 0, sizeof(e));
	e.ino = in->ino;
	e.mode = in->mode;
	e.flagged = in->encrypted;
	/* Only inodes that can hold xattrs can have a context. */
	e4_inode_ext2(in, &raw);
	if (!e.flagged && !raw.i_file_acl && !raw.osd2.linux2.l_i_file_acl_high &&
	    raw.i_extra_isize + EXT2_GOOD_OLD_INODE_SIZE + 4 >=
		    EXT2_INODE_SIZE(fs->ext2->super))
		return 0;
	e.ctx_status = e4_inode_context(fs, in, &e.ctx, &e.why);
	if (!e.flagged && e.ctx_status == E4_NOT_FOUND)
		return 0;
	if (fs->nidx == fs->capidx) {
		size_t cap = fs->capidx ? 2 * fs->capidx : 64;
		struct e4_enc_inode *v = realloc(fs->idx, cap * sizeof(*v));

		if (!v)
			return -1;
		fs->idx = v;
		fs->capidx = cap;
	}
	fs->idx[fs->nidx++] = e;
	return 0;
}

enum e4_status e4_fs_encrypted_inodes(struct e4_fs *fs,
				      const struct e4_enc_inode **v,
				      size_t *n, size_t *in_use)
{
	enum e4_status st = E4_OK;

	if (fs->idx_state == 0) {
		st = e4_fs_scan_inodes(fs, 0, index_inode, fs);
		if (st == E4_STOPPED) {
			e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, 0, fs->info.name,
				  "out of memory for the inode index");
			st = E4_NOMEM;
		}
		fs->idx_state = st == E4_OK ? 1 : -1;
	} else if (fs->idx_state < 0) {
		st = E4_IO;
	}
	*v = fs->idx;
	*n = fs->nidx;
	if (in_use)
		*in_use = fs->in_use;
	return st;
}
