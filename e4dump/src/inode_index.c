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

struct build {
	struct img *im;
	struct inode_index *idx;
};

static int index_inode(void *arg, ext2_ino_t ino, struct ext2_inode_large *inode)
{
	struct build *b = arg;
	struct enc_inode e;

	b->idx->in_use++;
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.mode = inode->i_mode;
	e.flagged = img_inode_encrypted(inode);
	/* Only inodes that carry xattrs can have a context. */
	if (!e.flagged && !inode->i_file_acl &&
	    inode->i_extra_isize + EXT2_GOOD_OLD_INODE_SIZE + 4 >=
		    EXT2_INODE_SIZE(b->im->fs->super))
		return 0;
	e.res = img_read_context(b->im, ino, &e.ctx, &e.why);
	if (!e.flagged && e.res == CTX_NONE)
		return 0;
	if (push(b->idx, &e)) {
		report_error("%s: out of memory", b->im->path);
		return -1;
	}
	return 0;
}

int inode_index_build(struct img *im, struct inode_index *idx)
{
	struct build b = { im, idx };

	memset(idx, 0, sizeof(*idx));
	return img_scan_inodes(im, index_inode, &b) ? -1 : 0;
}

void inode_index_free(struct inode_index *idx)
{
	free(idx->v);
	memset(idx, 0, sizeof(*idx));
}
