/* The index of encrypted inodes, built by one scan of the inode tables:
 * the first scan a caller makes builds it on the way. */
#include <stdlib.h>
#include <string.h>
#include "bigmem.h"
#include "fs_private.h"

int e4_index_add(struct e4_fs *fs, const struct e4_inode *in)
{
	struct e4_enc_inode e;

	fs->in_use++;
	memset(&e, 0, sizeof(e));
	e.ino = in->ino;
	e.mode = in->mode;
	e.flagged = in->encrypted;
	/* Only inodes that can hold xattrs can have a context. */
	if (!e.flagged && !in->file_acl &&
	    in->extra_isize + EXT2_GOOD_OLD_INODE_SIZE + 4 >=
		    EXT2_INODE_SIZE(fs->ext2->super))
		return 0;
	e.ctx_status = e4_inode_context(fs, in, &e.ctx, &e.why);
	if (!e.flagged && e.ctx_status == E4_NOT_FOUND)
		return 0;
	if (fs->nidx == fs->capidx) {
		size_t cap = fs->capidx ? 2 * fs->capidx : 64;
		struct e4_enc_inode *v = e4_big_realloc(fs->idx, fs->capidx * sizeof(*v),
							 cap * sizeof(*v));

		if (!v)
			return -1;
		fs->idx = v;
		fs->capidx = cap;
	}
	fs->idx[fs->nidx++] = e;
	return 0;
}

void e4_index_done(struct e4_fs *fs, enum e4_status st)
{
	if (st == E4_OK) {
		fs->idx_state = 1;
		return;
	}
	if (st == E4_STOPPED) { /* a caller's scan ended early: incomplete */
		e4_big_free(fs->idx, fs->capidx * sizeof(*fs->idx));
		fs->idx = NULL;
		fs->nidx = fs->capidx = fs->in_use = 0;
		fs->idx_state = 0;
		return;
	}
	if (st == E4_NOMEM)
		e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, 0, fs->info.name,
			  "out of memory for the inode index");
	fs->idx_state = -1;
	fs->idx_error = st;
}

/* A scan that builds the index too calls the caller's callback through
 * this. */
struct indexing {
	struct e4_fs *fs;
	e4_inode_fn fn;
	void *arg;
	int on;                 /* 1 building, -1 out of memory, 0 not */
};

static int index_and_call(void *arg, const struct e4_inode *in)
{
	struct indexing *x = arg;
	int stop;

	if (x->on && e4_index_add(x->fs, in))
		x->on = -1; /* out of memory */
	if (x->on)
		x->fs->idx_state = 2; /* being built */
	stop = x->fn && x->fn(x->arg, in);
	/* the callback needed the whole index: built */
	if (x->on && x->fs->idx_state != 2)
		x->on = 0;
	return stop;
}

enum e4_status e4_fs_scan_inodes(struct e4_fs *fs, unsigned int flags,
				 e4_inode_fn fn, void *arg)
{
	int all = flags & E4_SCAN_ALL;
	struct indexing x = { fs, fn, arg, 0 };
	enum e4_status st;

	x.on = !all && (flags & E4_SCAN_INDEX) && fs->idx_state == 0;
	st = e4_itable_scan(fs, all, index_and_call, &x);
	if (st == E4_NOMEM)
		return st; /* nothing was read */
	if (x.on)
		e4_index_done(fs, x.on < 0 ? E4_NOMEM : st);
	return st;
}

enum e4_status e4_fs_encrypted_inodes(struct e4_fs *fs,
				      const struct e4_enc_inode **v,
				      size_t *n, size_t *in_use)
{
	if (fs->idx_state == 2) {
		/* asked from the callback of a scan that builds it: start
		 * again, whole; that scan sees it built and stops adding */
		e4_index_done(fs, E4_STOPPED);
	}
	if (fs->idx_state == 0)
		e4_fs_scan_inodes(fs, E4_SCAN_INDEX, NULL, NULL);
	*v = fs->idx;
	*n = fs->nidx;
	if (in_use)
		*in_use = fs->in_use;
	return fs->idx_state > 0 ? E4_OK : fs->idx_error;
}
