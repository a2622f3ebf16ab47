/* The internal journal of an image (journal.h), and what the live image
 * says its blocks are. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"
#include "blockmap.h"
#include "journal.h"

struct jsrc {
	struct e4_fs *fs;
	struct e4_run *runs;
	size_t nruns;
};

static enum e4_status jread(void *arg, uint32_t jblock, uint8_t *buf)
{
	const struct jsrc *s = arg;
	size_t lo = 0, hi = s->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->runs[mid].lblk + s->runs[mid].len <= jblock)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nruns || s->runs[lo].lblk > jblock)
		return E4_CORRUPT;      /* a hole in the journal */
	{
		/* the log itself is always the live one, also while a
		 * moment it makes is entered (a copy "of" a journal block
		 * must not be read through itself) */
		e4_moment_read_fn mr = s->fs->moment_read;
		enum e4_status st;

		s->fs->moment_read = NULL;
		st = e4_read_blocks(s->fs, s->runs[lo].pblk + (jblock - s->runs[lo].lblk),
				    1, buf);
		s->fs->moment_read = mr;
		return st;
	}
}

static int cmp_run_pblk(const void *a, const void *b)
{
	const struct e4_run *x = a, *y = b;

	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* jbd2 never maps two journal blocks onto one filesystem block: a journal
 * whose runs alias would be read (and its log walked) once per name of
 * each block, as often as its extents claim.  0, or 1 with *a (the later
 * journal block) and *b (the earlier) naming one shared block; -1 no
 * memory. */
static int runs_alias(const struct e4_run *runs, size_t n, uint64_t *a,
		      uint64_t *b)
{
	struct e4_run *v;
	int found = 0;

	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, runs, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_run_pblk);
	/* sorted by start: an overlap shows between a run and the one of
	 * all before it that reaches furthest */
	for (size_t i = 1, far = 0; i < n && !found; i++) {
		if (v[far].pblk + v[far].len > v[i].pblk) {
			uint64_t x = v[i].lblk;
			uint64_t y = v[far].lblk + (v[i].pblk - v[far].pblk);

			*a = x > y ? x : y;
			*b = x > y ? y : x;
			found = 1;
		} else if (v[i].pblk + v[i].len > v[far].pblk + v[far].len) {
			far = i;
		}
	}
	free(v);
	return found;
}

static void jsrc_free(void *p)
{
	struct jsrc *s = p;

	free(s->runs);
	free(s);
}

enum e4_status e4_fs_journal(struct e4_fs *fs, struct e4_journal **out)
{
	struct ext2_super_block *sb = fs->ext2->super;
	struct e4_inode in;
	struct jsrc *src;
	uint64_t nblocks, la = 0, lb = 0;
	const char *why = NULL;
	enum e4_status st;

	*out = NULL;
	if (!ext2fs_has_feature_journal(sb))
		return E4_NOT_FOUND;
	if (!sb->s_journal_inum) {
		e4_report(fs, E4_DIAG_ERROR, E4_UNSUPPORTED, 0, NULL,
			  "the journal is on an external device, not in this image");
		return E4_UNSUPPORTED;
	}
	st = e4_inode_read(fs, sb->s_journal_inum, "<journal>", &in);
	if (st != E4_OK)
		return st;
	if (!E4_ISREG(in.mode)) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in.ino, "<journal>",
			  "the journal inode is not a regular file");
		return E4_CORRUPT;
	}
	src = calloc(1, sizeof(*src));
	if (!src)
		return E4_NOMEM;
	src->fs = fs;
	nblocks = e4_inode_size_blocks(fs, &in);
	if (nblocks > UINT32_MAX)
		nblocks = UINT32_MAX;
	st = e4_inode_runs(fs, &in, "<journal>", nblocks, &src->runs, &src->nruns);
	if (st == E4_OK) {
		/* the log is read block by block: no more than the blocks
		 * mapped, nor than the filesystem has (runs may alias) */
		uint64_t mapped = 0;

		for (size_t i = 0; i < src->nruns; i++)
			mapped += src->runs[i].len;
		if (mapped > fs->range.blocks)
			mapped = fs->range.blocks;
		if (nblocks > mapped)
			nblocks = mapped;
		switch (runs_alias(src->runs, src->nruns, &la, &lb)) {
		case 1:
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in.ino, "<journal>",
				  "journal block %" PRIu64 " maps the same filesystem block as journal block %" PRIu64
				  ": not a journal jbd2 wrote; not read",
				  la, lb);
			st = E4_CORRUPT;
			break;
		case -1:
			st = E4_NOMEM;
			break;
		}
	}
	if (st == E4_OK)
		st = e4_journal_load(jread, src, (uint32_t)nblocks,
				     fs->info.block_size,
				     ext2fs_has_feature_fast_commit(sb), out, &why);
	if (st != E4_OK) {
		if (why)
			e4_report(fs, E4_DIAG_ERROR, st, in.ino, "<journal>", "%s", why);
		free(src->runs);
		free(src);
		return st;
	}
	e4_journal_set_owner(*out, src, jsrc_free);
	return E4_OK;
}

uint32_t e4_fs_journal_inode(struct e4_fs *fs)
{
	return ext2fs_has_feature_journal(fs->ext2->super) ?
	       fs->ext2->super->s_journal_inum : 0;
}

/* The group layout: superblock and descriptors, bitmaps, inode tables. */
struct area {
	uint64_t start, len;
	enum e4_block_kind kind;
	uint32_t group;
};

struct e4_blockmap_index {
	struct e4_block_class *cls;
	size_t n;
};

static int cmp_area(const void *a, const void *b)
{
	const struct area *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void layout_of_group(struct e4_fs *fs, dgrp_t g, struct area *a,
			    size_t *n)
{
	ext2_filsys e = fs->ext2;
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;
	uint64_t itb = fs->itable_blocks;

	ext2fs_super_and_bgd_loc2(e, g, &super, &old_desc, &new_desc, &used);
	if (super || g == 0) {
		a[*n].start = g == 0 ? 0 : super;
		a[*n].len = 1 + (old_desc ? e->desc_blocks +
				 e->super->s_reserved_gdt_blocks : 0);
		if (g == 0)
			a[*n].len += e->super->s_first_data_block;
		a[*n].kind = E4_BLOCK_SUPER;
		a[(*n)++].group = g;
	}
	if (new_desc) {
		a[*n].start = new_desc;
		a[*n].len = 1;
		a[*n].kind = E4_BLOCK_SUPER;
		a[(*n)++].group = g;
	}
	a[*n].start = ext2fs_block_bitmap_loc(e, g);
	a[*n].len = 1;
	a[*n].kind = E4_BLOCK_BLOCK_BITMAP;
	a[(*n)++].group = g;
	a[*n].start = ext2fs_inode_bitmap_loc(e, g);
	a[*n].len = 1;
	a[*n].kind = E4_BLOCK_INODE_BITMAP;
	a[(*n)++].group = g;
	a[*n].start = ext2fs_inode_table_loc(e, g);
	a[*n].len = itb;
	a[*n].kind = E4_BLOCK_INODE_TABLE;
	a[(*n)++].group = g;
}

static void fill_from_area(struct e4_fs *fs, const struct area *a, uint64_t blk,
			   struct e4_block_class *out)
{
	out->kind = a->kind;
	out->group = a->group;
	if (a->kind == E4_BLOCK_INODE_TABLE) {
		uint32_t per = fs->info.block_size / EXT2_INODE_SIZE(fs->ext2->super);
		uint64_t first = (uint64_t)a->group * fs->ext2->super->s_inodes_per_group +
				 (blk - a->start) * per + 1;

		out->first_ino = (uint32_t)first;
		out->last_ino = (uint32_t)(first + per - 1);
	}
}

void e4_fs_block_layout(struct e4_fs *fs, uint64_t blk, struct e4_block_class *out)
{
	memset(out, 0, sizeof(*out));
	for (dgrp_t g = 0; g < fs->ext2->group_desc_count; g++) {
		struct area a[5];
		size_t n = 0;

		layout_of_group(fs, g, a, &n);
		for (size_t i = 0; i < n; i++)
			if (blk >= a[i].start && blk - a[i].start < a[i].len) {
				fill_from_area(fs, &a[i], blk, out);
				return;
			}
	}
}

struct owners {
	struct e4_fs *fs;
	const uint64_t *blocks;
	size_t n;
	struct e4_block_class *cls;
	uint32_t ino;
	enum e4_block_kind kind;
};

size_t e4_u64_lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int owner_run(void *arg, const struct e4_run *r)
{
	struct owners *o = arg;

	for (size_t i = e4_u64_lower_bound(o->blocks, o->n, r->pblk);
	     i < o->n && o->blocks[i] - r->pblk < r->len; i++) {
		o->cls[i].kind = o->kind;
		o->cls[i].owner = o->ino;
		o->cls[i].lblk = r->lblk + (o->blocks[i] - r->pblk);
	}
	return 0;
}

static int owner_inode(void *arg, const struct e4_inode *in)
{
	struct owners *o = arg;

	if (!E4_ISDIR(in->mode) || (in->flags & E4_INODE_INLINE_DATA_FL))
		return 0;
	o->ino = in->ino;
	o->kind = E4_BLOCK_DIRECTORY;
	(void)e4_inode_map(o->fs, in, NULL, e4_inode_size_blocks(o->fs, in),
			   owner_run, o);
	return 0;
}

enum e4_status e4_fs_classify_blocks(struct e4_fs *fs, const uint64_t *blocks,
				     size_t n, struct e4_blockmap_index **out)
{
	struct e4_blockmap_index *x = calloc(1, sizeof(*x));
	size_t ng = fs->ext2->group_desc_count, na = 0;
	struct area *a = calloc(ng * 5 + 1, sizeof(*a));
	struct owners o;
	uint8_t *buf = malloc(fs->info.block_size);
	enum e4_status st = E4_OK;

	*out = NULL;
	if (x)
		x->cls = calloc(n ? n : 1, sizeof(*x->cls));
	if (!x || !x->cls || !a || !buf) {
		free(a);
		free(buf);
		e4_blockmap_index_free(x);
		return E4_NOMEM;
	}
	x->n = n;
	for (dgrp_t g = 0; g < ng; g++)
		layout_of_group(fs, g, a, &na);
	qsort(a, na, sizeof(*a), cmp_area);
	for (size_t i = 0, k = 0; i < n; i++) {
		/* both sorted: a merge; areas do not overlap, so the one
		 * starting last at or below the block is the only candidate */
		while (k + 1 < na && a[k + 1].start <= blocks[i])
			k++;
		if (na && a[k].start <= blocks[i] && blocks[i] - a[k].start < a[k].len)
			fill_from_area(fs, &a[k], blocks[i], &x->cls[i]);
	}
	memset(&o, 0, sizeof(o));
	o.fs = fs;
	o.blocks = blocks;
	o.n = n;
	o.cls = x->cls;
	if (n)
		st = e4_fs_scan_inodes(fs, 0, owner_inode, &o);
	if (st == E4_STOPPED)
		st = E4_OK;
	/* the rest by content: extent tree nodes carry a magic */
	for (size_t i = 0; i < n && st == E4_OK; i++) {
		if (x->cls[i].kind != E4_BLOCK_OTHER)
			continue;
		if (e4_read_blocks(fs, blocks[i], 1, buf) == E4_OK &&
		    buf[0] == (E4_EXTENT_MAGIC & 0xff) && buf[1] == (E4_EXTENT_MAGIC >> 8))
			x->cls[i].kind = E4_BLOCK_EXTENT_TREE;
	}
	free(a);
	free(buf);
	*out = x;
	return st == E4_NOMEM ? E4_NOMEM : E4_OK;
}

const struct e4_block_class *e4_blockmap_index_get(const struct e4_blockmap_index *x,
						   size_t i)
{
	return &x->cls[i];
}

void e4_blockmap_index_free(struct e4_blockmap_index *x)
{
	if (!x)
		return;
	free(x->cls);
	free(x);
}

const char *e4_block_kind_name(enum e4_block_kind k)
{
	switch (k) {
	case E4_BLOCK_SUPER:
		return "superblock/descriptors";
	case E4_BLOCK_BLOCK_BITMAP:
		return "block bitmap";
	case E4_BLOCK_INODE_BITMAP:
		return "inode bitmap";
	case E4_BLOCK_INODE_TABLE:
		return "inode table";
	case E4_BLOCK_DIRECTORY:
		return "directory";
	case E4_BLOCK_EXTENT_TREE:
		return "extent tree";
	case E4_BLOCK_JOURNAL:
		return "journal";
	default:
		return "other";
	}
}
