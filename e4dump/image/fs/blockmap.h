/* The block map of an inode, checked before use: extent trees (each tree
 * block visited once, depth at most 5, entries ordered and inside their
 * parent's range, blocks inside the filesystem) and indirect maps (each
 * indirect block once), read only below the blocks that i_size covers. */
#ifndef E4_BLOCKMAP_H
#define E4_BLOCKMAP_H

#include <stdint.h>
#include "inode.h"

/* A run of logical blocks lblk..lblk+len-1 stored at pblk.. */
struct e4_run {
	uint64_t lblk;
	uint64_t pblk;
	uint64_t len;
	int unwritten;      /* preallocated: reads as zeros */
};

/* Return non-zero to stop the walk. */
typedef int (*e4_run_fn)(void *arg, const struct e4_run *r);

/* Pass the runs of in (a regular file, directory or slow symlink) that
 * start below lblk_end, in increasing order, merged where contiguous; a
 * run is cut at lblk_end.  E4_OK, E4_STOPPED when fn stopped it, or
 * E4_CORRUPT / E4_IO (reported, naming path or the inode) for a bad map;
 * the runs before the damage have been passed. */
enum e4_status e4_inode_map(struct e4_fs *fs, const struct e4_inode *in,
			    const char *path, uint64_t lblk_end, e4_run_fn fn,
			    void *arg);

/* e4_inode_map, also passing each extent tree or indirect block read
 * (once, after the inode has claimed it) to tree(arg, pblk). */
typedef void (*e4_tree_block_fn)(void *arg, uint64_t pblk);
enum e4_status e4_inode_map_tree(struct e4_fs *fs, const struct e4_inode *in,
				 const char *path, uint64_t lblk_end,
				 e4_run_fn fn, e4_tree_block_fn tree, void *arg);

/* The initialized runs (unwritten ones are holes) below lblk_end, as one
 * malloc'd array (*runs, *n; NULL and 0 for none).  Errors as
 * e4_inode_map (reported); E4_NOMEM when the array cannot grow. */
enum e4_status e4_inode_runs(struct e4_fs *fs, const struct e4_inode *in,
			     const char *path, uint64_t lblk_end,
			     struct e4_run **runs, size_t *n);

/* The number of blocks that hold i_size bytes. */
uint64_t e4_inode_size_blocks(const struct e4_fs *fs, const struct e4_inode *in);

#endif
