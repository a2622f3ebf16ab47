/* The filesystem as libext2fs sees it, for a checker that reads ext4
 * structures itself (the tool's verify, as e2fsck reads them through
 * ext2fs.h): the read-only libext2fs handle, raw inodes and blocks.  The
 * rest of the filesystem context stays private (fs_private.h). */
#ifndef E4_FS_EXT2_H
#define E4_FS_EXT2_H

#include <ext2fs/ext2fs.h>
#include "fs.h"
#include "inode.h"

/* The libext2fs handle (read-only: never write through it). */
ext2_filsys e4_fs_ext2(struct e4_fs *fs);

/* The on-disk inode as libext2fs' structure. */
void e4_inode_ext2(const struct e4_inode *in, struct ext2_inode_large *out);

/* Read count blocks at pblk (inside the filesystem).  E4_CORRUPT for a
 * block outside it, E4_IO on a read error; nothing reported. */
enum e4_status e4_read_blocks(struct e4_fs *fs, uint64_t pblk, uint64_t count,
			      void *buf);

/* libext2fs' casefolding table, when the feature is on and its folding
 * passed a self-check; NULL otherwise. */
const struct ext2fs_nls_table *e4_fs_casefold_table(struct e4_fs *fs);

#endif
