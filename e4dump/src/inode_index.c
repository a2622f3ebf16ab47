#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include "inode_index.h"
#include "report.h"

static int push(struct inode_index *idx, const struct enc_inode *e)
{
	struct enc_inode *v;

	if (idx->n == idx->cap) {
		size_t cap = idx->cap ? 2 * idx->cap : 64;

		v = realloc(idx->v, cap * sizeof(*v));
		if (!v)
			return -1;
		idx->v = v;
		idx->cap = cap;
	}
	idx->v[idx->n++] = *e;
	return 0;
}

int inode_index_build(struct img *im, struct inode_index *idx)
{
	ext2_inode_scan scan;
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	errcode_t err;
	int ret = 0;

	memset(idx, 0, sizeof(*idx));
	err = ext2fs_open_inode_scan(im->fs, 0, &scan);
	if (err) {
		report_error("%s: cannot scan inodes: %s", im->path,
			     error_message(err));
		return -1;
	}
	for (;;) {
		struct enc_inode e;

		err = ext2fs_get_next_inode_full(scan, &ino,
						 (struct ext2_inode *)&inode,
						 sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			report_error("%s: inode scan stopped after inode %u: %s",
				     im->path, ino, error_message(err));
			ret = -1;
			break;
		}
		if (!ino)
			break;
		if (!inode.i_links_count || inode.i_dtime || !inode.i_mode)
			continue;
		idx->in_use++;
		memset(&e, 0, sizeof(e));
		e.ino = ino;
		e.mode = inode.i_mode;
		e.flagged = img_inode_encrypted(&inode);
		/* Only inodes that carry xattrs can have a context. */
		if (!e.flagged && !inode.i_file_acl &&
		    inode.i_extra_isize + EXT2_GOOD_OLD_INODE_SIZE + 4 >=
			    EXT2_INODE_SIZE(im->fs->super))
			continue;
		e.res = img_read_context(im, ino, &e.ctx, &e.why);
		if (!e.flagged && e.res == CTX_NONE)
			continue;
		if (push(idx, &e)) {
			report_error("%s: out of memory", im->path);
			ret = -1;
			break;
		}
	}
	ext2fs_close_inode_scan(scan);
	return ret;
}

void inode_index_free(struct inode_index *idx)
{
	free(idx->v);
	memset(idx, 0, sizeof(*idx));
}
