/* A scan of every inode table in inode order (index.c's e4_fs_scan_inodes
 * adds the index of encrypted inodes on the way). */
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"

#define SCAN_BLOCKS 64

enum e4_status e4_itable_scan(struct e4_fs *fs, int all, e4_inode_fn fn, void *arg)
{
	uint32_t outer_ino = fs->scan_ino; /* a scan from a scan's callback */
	const uint8_t *outer_raw = fs->scan_raw;
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int bs = fs->info.block_size, isize = EXT2_INODE_SIZE(sb);
	uint32_t ipg = sb->s_inodes_per_group, per_block = bs / isize;
	struct ext2_inode_large raw;
	uint8_t *buf = malloc((size_t)SCAN_BLOCKS * bs);
	enum e4_status st = E4_OK;

	if (!buf)
		return E4_NOMEM;
	for (dgrp_t g = 0; g < fs->ext2->group_desc_count && st == E4_OK; g++) {
		uint64_t t = ext2fs_inode_table_loc(fs->ext2, g);
		uint32_t n = e4_itable_group_inodes(fs, g);

		for (uint32_t i = 0; i < n && st == E4_OK;) {
			uint64_t blk = t + i / per_block;
			uint64_t nblk = (n - i + per_block - 1) / per_block;
			uint32_t k;

			if (nblk > SCAN_BLOCKS)
				nblk = SCAN_BLOCKS;
			if (e4_read_blocks(fs, blk, nblk, buf) != E4_OK) {
				e4_report(fs, E4_DIAG_ERROR, E4_IO, 0, fs->info.name,
					  "inode table of group %u: blocks %llu..%llu cannot be read",
					  g, (unsigned long long)blk,
					  (unsigned long long)(blk + nblk - 1));
				i += (uint32_t)(nblk * per_block);
				continue;
			}
			for (k = 0; k < nblk * per_block && i < n; k++, i++) {
				struct e4_inode in;
				uint32_t ino = g * ipg + i + 1;

				memset(&raw, 0, sizeof(raw));
				memcpy(&raw, buf + (size_t)k * isize,
				       isize < sizeof(raw) ? isize : sizeof(raw));
				if (!all && (!raw.i_links_count || !raw.i_mode ||
					     (raw.i_dtime &&
					      !e4_dtime_is_orphan_link(fs, raw.i_dtime))))
					continue;
				if (e4_inode_decode(fs, ino, &raw, NULL, &in) != E4_OK)
					continue; /* reported */
				fs->scan_ino = ino;
				fs->scan_raw = buf + (size_t)k * isize;
				if (fn(arg, &in))
					st = E4_STOPPED;
				fs->scan_ino = outer_ino;
				fs->scan_raw = outer_raw;
				if (st != E4_OK)
					break;
			}
		}
	}
	free(buf);
	return st;
}
