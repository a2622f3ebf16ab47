/* The directory reader (fs_private.h e4_dir_iterate): blocks from the
 * checked block map, below i_size, each entry checked (lib/dirblock.c). */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "dirblock.h"
#include <stdio.h>
#include "fs_private.h"

#define READ_BLOCKS 16

struct reader {
	struct e4_fs *fs;
	const struct e4_inode *in;
	const char *path;
	e4_dirent_fn fn;
	void *arg;
	struct e4_dir_read_info *info;
	struct e4_dirblock_rules rules;
	uint8_t *buf;
	struct e4_blockset seen;    /* blocks read in this directory */
	int stopped;                /* 1: by the callback (or no memory) */
	int first_seen;         /* block 0 was read */
	uint8_t dx_info[8];     /* block 0 bytes 0x18..0x1f */
	int dx_root_ok;
};

static void damaged(struct reader *r, uint64_t lblk, const char *why)
{
	r->info->damaged = 1;
	e4_report_p(r->fs, E4_DIAG_ERROR, E4_CORRUPT, E4_P_DIR_BLOCK, r->in->ino,
		    r->path, "directory block %llu: %s", (unsigned long long)lblk, why);
}

/* Parse one region (a block, or a part of inline data). */
static void parse(struct reader *r, const uint8_t *blk, size_t size,
		  uint64_t lblk)
{
	struct e4_dirblock_rules rules = r->rules;
	struct e4_dirent de;
	const char *why;
	size_t off = 0;
	enum e4_status st;

	rules.block_size = size;
	while (!r->stopped &&
	       (st = e4_dirblock_next(blk, &rules, &off, &de, &why)) == E4_OK) {
		if (!de.inode || de.is_tail)
			continue;
		if (r->fn(r->arg, &de))
			r->stopped = 1;
	}
	if (!r->stopped && st == E4_CORRUPT)
		damaged(r, lblk, why);
}

static int read_run(void *arg, const struct e4_run *run)
{
	struct reader *r = arg;
	unsigned int bs = r->fs->info.block_size;
	uint64_t lblk = run->lblk, pblk = run->pblk, left = run->len;

	/* ext4_readdir() skips holes and unwritten extents */
	if (run->unwritten)
		return 0;
	while (left && !r->stopped) {
		uint64_t n = left < READ_BLOCKS ? left : READ_BLOCKS;
		int end = 0;

		/* A block met twice (in this directory's map, or another
		 * inode's) ends the reading: else a map of one block repeated
		 * over 2^32 logical blocks would be read 2^32 times. */
		for (uint64_t i = 0; i < n; i++) {
			uint32_t other = 0;
			int fresh = e4_blockset_add(&r->seen, pblk + i);
			char why[96];

			if (fresh == 1 && e4_claim_block(r->fs, pblk + i, r->in->ino,
							  &other) == E4_OK)
				continue;
			if (fresh < 0)
				r->stopped = 1;
			else if (fresh == 0)
				damaged(r, lblk + i, "its block is mapped twice in the directory");
			else {
				snprintf(why, sizeof(why),
					 "its block %llu belongs to inode %u too",
					 (unsigned long long)(pblk + i), other);
				damaged(r, lblk + i, why);
			}
			n = i;
			end = 1;
			break;
		}
		if (n && e4_read_blocks(r->fs, pblk, n, r->buf) != E4_OK) {
			damaged(r, lblk, "cannot be read");
		} else {
			for (uint64_t i = 0; i < n && !r->stopped; i++) {
				const uint8_t *b = r->buf + i * bs;

				if (lblk + i == 0) {
					r->first_seen = 1;
					memcpy(r->dx_info, b + 0x18, 8);
					if (r->in->flags & E4_INODE_INDEX_FL) {
						struct e4_dx_node dx;
						const char *why;

						r->dx_root_ok = e4_dx_root_parse(
							b, bs, 0, 3, &dx, &why) == E4_OK ||
							e4_dx_root_parse(b, bs, 1, 3, &dx,
									 &why) == E4_OK;
					}
				}
				parse(r, b, bs, lblk + i);
			}
		}
		lblk += n;
		pblk += n;
		left -= n;
		if (end)
			return 1;
	}
	return r->stopped;
}

/* Inline directories (ext4 inline_data): the parent's inode number in the
 * first 4 bytes of i_block, entries in the other 56, and more in the
 * "system.data" xattr value. */
static enum e4_status read_inline(struct reader *r)
{
	uint8_t *data;
	size_t len;
	enum e4_status st = e4_inline_data(r->fs, r->in, r->path, &data, &len);

	if (st != E4_OK)
		return st;
	parse(r, data + 4, 56, 0);
	if (!r->stopped && len > 60)
		parse(r, data + 60, len - 60, 0);
	free(data);
	return E4_OK;
}

int e4_dir_readdir_hash(struct e4_fs *fs, uint32_t flags, uint64_t blocks,
			const uint8_t *dx_info)
{
	struct ext2_super_block *sb = fs->ext2->super;
	int v = sb->s_def_hash_version;

	if (!ext2fs_has_feature_dir_index(sb))
		return -1;
	if (flags & E4_INODE_INDEX_FL) {
		if (!dx_info)
			return -1;
		v = dx_info[4]; /* dx_root_info.hash_version */
		if (v > EXT2_HASH_SIPHASH || v == EXT2_HASH_HALF_MD4_UNSIGNED ||
		    v == EXT2_HASH_TEA_UNSIGNED || v == EXT2_HASH_LEGACY_UNSIGNED)
			return -1;
	} else if (blocks != 1 && !(flags & E4_INODE_INLINE_DATA_FL)) {
		return -1;
	}
	if (v <= EXT2_HASH_TEA && (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		v += 3;
	return v;
}

static void htree_hash(struct reader *r, uint64_t blocks)
{
	int v = e4_dir_readdir_hash(r->fs, r->in->flags, blocks,
				    r->first_seen && r->dx_root_ok ? r->dx_info : NULL);

	if (v < 0)
		return;
	r->info->htree_hash = 1;
	r->info->hash_version = v;
}

enum e4_status e4_dir_iterate(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, e4_dirent_fn fn, void *arg,
			      struct e4_dir_read_info *info)
{
	struct e4_dir_read_info dummy;
	struct reader r;
	uint64_t blocks = e4_inode_size_blocks(fs, in);
	enum e4_status st;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&r, 0, sizeof(r));
	r.fs = fs, r.in = in, r.path = path, r.fn = fn, r.arg = arg;
	r.info = info;
	info->hashed = e4_inode_hashed_dir(in);
	r.rules.inodes_count = fs->info.inodes_count;
	r.rules.hashed = info->hashed;
	if (!E4_ISDIR(in->mode)) {
		e4_report(fs, E4_DIAG_ERROR, E4_NOT_DIR, in->ino, path,
			  "not a directory");
		return E4_NOT_DIR;
	}
	if (in->flags & E4_INODE_INLINE_DATA_FL) {
		if (in->encrypted) {
			e4_report(fs, E4_DIAG_ERROR, E4_UNSUPPORTED, in->ino, path,
				  "encrypted directory with inline data");
			return E4_UNSUPPORTED;
		}
		st = read_inline(&r);
	} else {
		r.buf = malloc((size_t)READ_BLOCKS * fs->info.block_size);
		if (!r.buf)
			return E4_NOMEM;
		st = e4_inode_map(fs, in, path, blocks, read_run, &r);
		if (st == E4_CORRUPT || st == E4_IO)
			info->damaged = 1;  /* reported by e4_inode_map */
		free(r.buf);
		e4_blockset_free(&r.seen);
	}
	htree_hash(&r, blocks);
	if (r.stopped)
		return E4_STOPPED;
	if (st == E4_STOPPED)
		st = E4_OK;
	return st;
}
