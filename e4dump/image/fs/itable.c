/* Inode tables, located and bounded here (libext2fs computes the table
 * length in 32 bits and does not check that an inode lies inside it):
 * the groups' tables checked, and one inode's bytes (scan.c reads them
 * all). */
#include <stdlib.h>
#include <string.h>
#include "bigmem.h"
#include "fs_private.h"

/* Inode-table blocks are cached in windows of ICACHE_WINDOW bytes, at
 * most ICACHE_BYTES of them, filled as used: an htree lists in hash
 * order, so consecutive entries' inodes lie all over the tables, and a
 * one-block cache missed at nearly every entry.  The cache is fully
 * associative, evicting the least recently used window: with 4-way sets,
 * ls -l of 100,000 entries (480 windows) read 45 windows about 50 times
 * each, as sets took more than their four (2,754 reads of a window, each
 * two chunks to inflate through an E01). */
#define ICACHE_BYTES (32u << 20)
#define ICACHE_WINDOW (64u << 10)
#define ICACHE_SLOTS (ICACHE_BYTES / ICACHE_WINDOW)
#define ICACHE_BUCKETS (2 * ICACHE_SLOTS)

struct e4_icache_slot {
	uint64_t win;       /* window number + 1; 0: empty */
	uint64_t nblocks;   /* blocks read into data */
	uint64_t age;       /* last use */
	uint8_t *data;
	int hnext;          /* the next slot of its hash chain, or -1 */
};

struct e4_icache {
	struct e4_icache_slot slot[ICACHE_SLOTS];
	int bucket[ICACHE_BUCKETS]; /* the first slot of each chain, or -1 */
};

static int has_gdt_csum(struct ext2_super_block *sb)
{
	return ext2fs_has_feature_gdt_csum(sb) ||
	       ext2fs_has_feature_metadata_csum(sb);
}

enum e4_status e4_itable_check(struct e4_fs *fs)
{
	struct ext2_super_block *sb = fs->ext2->super;
	uint64_t bs = fs->info.block_size, ipg = sb->s_inodes_per_group;
	uint64_t isize = EXT2_INODE_SIZE(sb);
	dgrp_t groups = fs->ext2->group_desc_count;

	/* ext4_fill_super: the inode bitmap is one block. */
	if (ipg == 0 || ipg > 8 * bs) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, 0, fs->info.name,
			  "cannot open as ext4: s_inodes_per_group %llu is not in 1..%llu",
			  (unsigned long long)ipg, (unsigned long long)(8 * bs));
		return E4_CORRUPT;
	}
	fs->itable_blocks = (ipg * isize + bs - 1) / bs;
	fs->bad_groups = calloc(groups / 8 + 1, 1);
	fs->iblock = malloc(bs);
	if (!fs->bad_groups || !fs->iblock)
		return E4_NOMEM;
	for (dgrp_t g = 0; g < groups; g++) {
		uint64_t t = ext2fs_inode_table_loc(fs->ext2, g);

		/* ext4_check_descriptors(): the table inside the filesystem */
		if (t <= fs->range.first_data_block || t >= fs->range.blocks ||
		    fs->itable_blocks > fs->range.blocks - t) {
			fs->bad_groups[g / 8] |= (uint8_t)(1u << (g % 8));
			fs->n_bad_groups++;
		}
	}
	if (fs->n_bad_groups)
		e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, 0, fs->info.name,
			  "%u of %u block groups have their inode table outside the filesystem; their inodes cannot be read",
			  fs->n_bad_groups, groups);
	return E4_OK;
}

static int group_bad(const struct e4_fs *fs, dgrp_t g)
{
	return (fs->bad_groups[g / 8] >> (g % 8)) & 1;
}

static int group_uninit(const struct e4_fs *fs, dgrp_t g)
{
	return has_gdt_csum(fs->ext2->super) &&
	       ext2fs_bg_flags_test(fs->ext2, g, EXT2_BG_INODE_UNINIT);
}

uint32_t e4_itable_group_inodes(const struct e4_fs *fs, dgrp_t g)
{
	struct ext2_super_block *sb = fs->ext2->super;
	uint32_t ipg = sb->s_inodes_per_group;

	if (group_bad(fs, g) || group_uninit(fs, g))
		return 0;
	/* Lazily initialized tables: past bg_itable_unused nothing was
	 * ever written. */
	if (has_gdt_csum(sb) && ext2fs_bg_itable_unused(fs->ext2, g) <= ipg)
		return ipg - ext2fs_bg_itable_unused(fs->ext2, g);
	return ipg;
}

enum e4_status e4_inode_allocated(struct e4_fs *fs, uint32_t ino, int *allocated)
{
	struct ext2_super_block *sb = fs->ext2->super;
	uint32_t ipg = sb->s_inodes_per_group, idx;
	uint8_t *b;
	enum e4_status st;
	dgrp_t g;

	if (ino < 1 || ino > sb->s_inodes_count)
		return E4_INVALID;
	g = (ino - 1) / ipg;
	idx = (ino - 1) % ipg;      /* below 8 * block size: e4_itable_check */
	/* an uninitialized bitmap is all zeros (ext4_read_inode_bitmap) */
	if (has_gdt_csum(sb) && ext2fs_bg_flags_test(fs->ext2, g, EXT2_BG_INODE_UNINIT)) {
		*allocated = 0;
		return E4_OK;
	}
	/* A listing asks group by group: keep the block read last. */
	if (!fs->ibitmap_valid || fs->ibitmap_group != g) {
		if (!fs->ibitmap && !(fs->ibitmap = malloc(fs->info.block_size)))
			return E4_NOMEM;
		fs->ibitmap_valid = 0;
		st = e4_read_blocks(fs, ext2fs_inode_bitmap_loc(fs->ext2, g), 1, fs->ibitmap);
		if (st != E4_OK)
			return st;
		fs->ibitmap_group = g;
		fs->ibitmap_valid = 1;
	}
	b = fs->ibitmap;
	*allocated = (b[idx / 8] >> (idx % 8)) & 1;
	return E4_OK;
}

void e4_icache_free(struct e4_fs *fs)
{
	free(fs->ibitmap);
	fs->ibitmap = NULL;
	fs->ibitmap_valid = 0;
	if (!fs->icache)
		return;
	if (fs->icache_map)
		e4_big_free(fs->icache_map, ICACHE_BYTES);
	else
		for (size_t i = 0; i < ICACHE_SLOTS; i++)
			free(fs->icache->slot[i].data);
	free(fs->icache);
	fs->icache = NULL;
	fs->icache_map = NULL;
}

static unsigned int icache_hash(uint64_t win)
{
	return (unsigned int)(win * 0x9e3779b97f4a7c15ull >> 40) % ICACHE_BUCKETS;
}

static struct e4_icache *icache_new(void)
{
	struct e4_icache *c = calloc(1, sizeof(*c));

	if (c)
		for (size_t i = 0; i < ICACHE_BUCKETS; i++)
			c->bucket[i] = -1;
	return c;
}

/* Slot i out of its hash chain (it holds a window). */
static void icache_unlink(struct e4_icache *c, int i)
{
	int *p = &c->bucket[icache_hash(c->slot[i].win - 1)];

	while (*p != i)
		p = &c->slot[*p].hnext;
	*p = c->slot[i].hnext;
}

/* Memory for one more window.  Windows are handed out one after another
 * from one huge-page block (bigmem.h): a listing fills hundreds of
 * windows.  Without the block, malloc. */
static uint8_t *icache_window(struct e4_fs *fs)
{
	if (!fs->icache_tried) {
		fs->icache_tried = 1;
		fs->icache_map = e4_big_realloc(NULL, 0, ICACHE_BYTES);
	}
	if (fs->icache_map)
		return fs->icache_map + (fs->icache_map_used++) * (size_t)ICACHE_WINDOW;
	return malloc(ICACHE_WINDOW);
}

/* Block blk of an inode table, from the cache or read into it with its
 * window; NULL when the window cannot be read (the caller reads the block
 * alone). */
static const uint8_t *icache_block(struct e4_fs *fs, uint64_t blk)
{
	unsigned int bs = fs->info.block_size;
	uint64_t wblocks = ICACHE_WINDOW / bs ? ICACHE_WINDOW / bs : 1;
	uint64_t win = blk / wblocks, first = win * wblocks;
	struct e4_icache *c;
	struct e4_icache_slot *victim;
	int i, v = 0;

	if (!fs->icache && !(fs->icache = icache_new()))
		return NULL;
	c = fs->icache;
	for (i = c->bucket[icache_hash(win)]; i >= 0; i = c->slot[i].hnext)
		if (c->slot[i].win == win + 1 && blk - first < c->slot[i].nblocks) {
			c->slot[i].age = ++fs->icache_clock;
			return c->slot[i].data + (blk - first) * bs;
		}
	/* a miss reads a window: a pass over the slots costs less */
	for (i = 1; i < (int)ICACHE_SLOTS; i++)
		if (c->slot[i].age < c->slot[v].age)
			v = i;
	victim = &c->slot[v];
	if (!victim->data && !(victim->data = icache_window(fs)))
		return NULL;
	if (victim->win)
		icache_unlink(c, v);
	victim->win = 0;
	victim->age = 0;
	if (wblocks > fs->range.blocks - first)
		wblocks = fs->range.blocks - first;
	if (e4_read_blocks(fs, first, wblocks, victim->data) != E4_OK)
		return NULL;
	victim->win = win + 1;
	victim->nblocks = wblocks;
	victim->age = ++fs->icache_clock;
	victim->hnext = c->bucket[icache_hash(win)];
	c->bucket[icache_hash(win)] = v;
	return victim->data + (blk - first) * bs;
}

enum e4_status e4_inode_bytes(struct e4_fs *fs, uint32_t ino, const uint8_t **p)
{
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int bs = fs->info.block_size, isize = EXT2_INODE_SIZE(sb);
	uint32_t ipg = sb->s_inodes_per_group;
	const uint8_t *b;
	dgrp_t g;
	uint64_t off, blk;
	enum e4_status st;

	if (ino < 1 || ino > sb->s_inodes_count)
		return E4_INVALID;
	/* A scan's callback reading its own inode again (its xattrs) must
	 * not read the table a second time, nor fill the cache with it. */
	if (ino == fs->scan_ino && fs->scan_raw) {
		*p = fs->scan_raw;
		return E4_OK;
	}
	g = (ino - 1) / ipg;
	if (group_bad(fs, g))
		return E4_CORRUPT;
	if (group_uninit(fs, g)) {
		memset(fs->iblock, 0, isize); /* never initialized: unused */
		*p = fs->iblock;
		return E4_OK;
	}
	off = (uint64_t)((ino - 1) % ipg) * isize;
	blk = ext2fs_inode_table_loc(fs->ext2, g) + off / bs;
	/* a moment's tables are its own: never the live cache's */
	b = fs->moment_read ? NULL : icache_block(fs, blk);
	if (!b) {
		/* one unreadable block must not cost its window's inodes */
		st = e4_read_blocks(fs, blk, 1, fs->iblock);
		if (st != E4_OK)
			return st;
		b = fs->iblock;
	}
	*p = b + off % bs;
	return E4_OK;
}
