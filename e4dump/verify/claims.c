/* e4dump verify: blocks claimed more than once (e2fsck's pass 1B).
 *
 * Pass 1 (the inode scan of inodes.c calls claims_inode for each in-use
 * inode): every block a file, directory or symlink maps (all its extents,
 * also past i_size) and every extent tree or indirect block it reads is
 * marked in a bitmap of the filesystem's blocks, after the static metadata
 * (superblocks and group descriptors, block and inode bitmaps, inode
 * tables).  A block already marked goes into a second bitmap, the
 * duplicates.  Pass 1B, only when there are duplicates: a second scan
 * finds, per inode, how many of its blocks are duplicates and the first
 * one, and which inode (or the metadata) claimed that one first.
 *
 * Memory: the bitmaps have one bit per filesystem block, allocated in
 * 4 KiB pieces (32768 blocks) only where a block is marked, so at most
 * 2 x s_blocks_count / 8 bytes and 4 KiB per piece a run touches; pass 1B
 * keeps one owner per run that holds a duplicate and one record per inode
 * that has some. */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "verify.h"

#define CHUNK_BITS 32768u
#define CHUNK_WORDS (CHUNK_BITS / 64)

struct chunkmap {
	uint64_t *keys;         /* chunk number + 1; 0 empty */
	uint64_t **bits;
	size_t cap, n;
};

/* One inode's duplicates, found by pass 1B. */
struct dup_rec {
	uint32_t ino;
	uint32_t other;         /* who else has first; 0: metadata */
	int kind;               /* 0 unknown yet, 1 inode other, 2 metadata, 3 itself */
	uint64_t first;         /* the first duplicate block of the inode */
	uint64_t count;         /* its blocks that are duplicates */
};

struct dup_scan {
	uint64_t count, first;
	int found;
};

struct claims {
	struct chunkmap used, dup;
	uint64_t blocks;
	int pass;               /* 1 or 2 (1B) */
	int any_dup;
	/* pass 1B */
	struct e4_blockset owner; /* first claimer of a duplicate block */
	struct dup_rec *recs;
	size_t nrecs, caprecs;
	struct dup_rec cur;     /* the inode being mapped */
	struct dup_scan *scan;  /* the run being looked at */
	struct verify *v;
};

static size_t chunk_slot(uint64_t key, size_t cap)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ULL;
	key ^= key >> 29;
	return (size_t)key & (cap - 1);
}

/* The bitmap of chunk c, NULL when absent (make: allocate it). */
static uint64_t *chunk(struct chunkmap *m, uint64_t c, int make, int *nomem)
{
	size_t j;

	if (m->cap) {
		for (j = chunk_slot(c + 1, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
			if (m->keys[j] == c + 1)
				return m->bits[j];
	}
	if (!make)
		return NULL;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		uint64_t *k = calloc(cap, sizeof(*k));
		uint64_t **b = calloc(cap, sizeof(*b));

		if (!k || !b) {
			free(k);
			free(b);
			*nomem = 1;
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			for (j = chunk_slot(m->keys[i], cap); k[j]; j = (j + 1) & (cap - 1))
				;
			k[j] = m->keys[i];
			b[j] = m->bits[i];
		}
		free(m->keys);
		free(m->bits);
		m->keys = k;
		m->bits = b;
		m->cap = cap;
	}
	for (j = chunk_slot(c + 1, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
		;
	if (!(m->bits[j] = calloc(CHUNK_WORDS, sizeof(uint64_t)))) {
		*nomem = 1;
		return NULL;
	}
	m->keys[j] = c + 1;
	m->n++;
	return m->bits[j];
}

static void chunkmap_free(struct chunkmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->bits[i]);
	free(m->keys);
	free(m->bits);
	memset(m, 0, sizeof(*m));
}

/* Bits lo..hi-1 (inside one word) set. */
static uint64_t mask_of(unsigned int lo, unsigned int hi)
{
	uint64_t m = hi == 64 ? ~(uint64_t)0 : (((uint64_t)1 << hi) - 1);

	return m & ~(((uint64_t)1 << lo) - 1);
}

/* For each word of the blocks b..b+len-1 (clipped to the filesystem):
 * fn(claims, chunk number, word index, mask); non-zero stops. */
typedef int (*word_fn)(struct claims *c, uint64_t ch, unsigned int w,
		       uint64_t mask, uint64_t first_block);

static int each_word(struct claims *c, uint64_t b, uint64_t len, word_fn fn)
{
	if (b >= c->blocks)
		return 0;
	if (len > c->blocks - b)
		len = c->blocks - b;
	while (len) {
		uint64_t ch = b / CHUNK_BITS;
		unsigned int off = (unsigned int)(b % CHUNK_BITS);
		unsigned int w = off / 64, lo = off % 64;
		unsigned int hi = len >= 64 - lo ? 64 : lo + (unsigned int)len;
		int r = fn(c, ch, w, mask_of(lo, hi), b - lo);

		if (r)
			return r;
		b += hi - lo;
		len -= hi - lo;
	}
	return 0;
}

/* Pass 1: mark; what was marked already is a duplicate. */
static int mark_word(struct claims *c, uint64_t ch, unsigned int w,
		     uint64_t mask, uint64_t base)
{
	uint64_t *u = chunk(&c->used, ch, 1, &c->v->nomem), *d, again;

	(void)base;
	if (!u)
		return 1;
	again = u[w] & mask;
	u[w] |= mask;
	if (again) {
		if (!(d = chunk(&c->dup, ch, 1, &c->v->nomem)))
			return 1;
		d[w] |= again;
		c->any_dup = 1;
	}
	return 0;
}

/* Pass 1B: the duplicates among these blocks: count them, and the first
 * one of the run decides who else has it. */

static int scan_word(struct claims *c, uint64_t ch, unsigned int w,
		     uint64_t mask, uint64_t base)
{
	uint64_t *d = chunk(&c->dup, ch, 0, NULL), hit;

	if (!d || !(hit = d[w] & mask))
		return 0;
	c->scan->count += (uint64_t)__builtin_popcountll(hit);
	if (!c->scan->found) {
		c->scan->found = 1;
		c->scan->first = base + (uint64_t)__builtin_ctzll(hit);
	}
	return 0;
}

static struct dup_rec *rec_of(struct claims *c, uint32_t ino)
{
	size_t lo = 0, hi = c->nrecs;

	while (lo < hi) { /* in inode order */
		size_t mid = lo + (hi - lo) / 2;

		if (c->recs[mid].ino == ino)
			return &c->recs[mid];
		if (c->recs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Blocks b..b+len-1 of the inode being mapped in pass 1B. */
static void claim_dups(struct claims *c, uint64_t b, uint64_t len)
{
	struct dup_scan s = { 0, 0, 0 };
	uint32_t other = 0;

	c->scan = &s;
	each_word(c, b, len, scan_word);
	c->scan = NULL; /* s ends with this call */
	if (!s.count)
		return;
	c->cur.count += s.count;
	if (!s.first) { /* block 0: the superblock's, never a file's */
		if (!c->cur.kind) {
			c->cur.kind = 2;
			c->cur.first = 0;
		}
		return;
	}
	switch (e4_blockset_claim(&c->owner, s.first, c->cur.ino, &other)) {
	case -1:
		c->v->nomem = 1;
		return;
	case 0: /* this inode had it already */
		if (!c->cur.kind) {
			c->cur.first = s.first;
			c->cur.kind = 3;
		}
		return;
	case 1: /* the first to claim it: a later claimer names us */
		if (!c->cur.kind && c->cur.count == s.count)
			c->cur.first = s.first;
		return;
	default: { /* another inode, or the metadata (owner 0), was first */
		struct dup_rec *o = other ? rec_of(c, other) : NULL;

		if (!c->cur.kind) {
			c->cur.first = s.first;
			c->cur.other = other;
			c->cur.kind = other ? 1 : 2;
		}
		if (o && !o->kind) {
			o->first = s.first;
			o->other = c->cur.ino;
			o->kind = 1;
		}
		return;
	}
	}
}

static int run_cb(void *arg, const struct e4_run *r)
{
	struct claims *c = arg;

	if (c->pass == 1)
		return each_word(c, r->pblk, r->len, mark_word);
	claim_dups(c, r->pblk, r->len);
	return c->v->nomem;
}

static void tree_cb(void *arg, uint64_t pblk)
{
	struct claims *c = arg;

	if (c->pass == 1)
		each_word(c, pblk, 1, mark_word);
	else
		claim_dups(c, pblk, 1);
}

/* Superblocks, group descriptors, bitmaps and inode tables: claimed by
 * the filesystem itself (owner 0 in pass 1B). */
static void each_meta(struct claims *c, word_fn fn)
{
	ext2_filsys fs = e4_fs_ext2(c->v->fs);
	uint64_t itable = fs->inode_blocks_per_group;

	for (dgrp_t g = 0; g < fs->group_desc_count && !c->v->nomem; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;
		blk_t used = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used);
		if (super || g == 0)
			each_word(c, super, 1, fn);
		if (old_desc)
			each_word(c, old_desc, fs->desc_blocks, fn);
		if (new_desc)
			each_word(c, new_desc, 1, fn);
		each_word(c, ext2fs_block_bitmap_loc(fs, g), 1, fn);
		each_word(c, ext2fs_inode_bitmap_loc(fs, g), 1, fn);
		each_word(c, ext2fs_inode_table_loc(fs, g), itable, fn);
	}
}

static int owner0_word(struct claims *c, uint64_t ch, unsigned int w,
		       uint64_t mask, uint64_t base)
{
	uint64_t *d = chunk(&c->dup, ch, 0, NULL), hit;
	uint32_t other;

	if (!d || !(hit = d[w] & mask))
		return 0;
	for (unsigned int i = 0; i < 64; i++)
		if (hit >> i & 1 && base + i &&
		    e4_blockset_claim(&c->owner, base + i, 0, &other) < 0) {
			c->v->nomem = 1;
			return 1;
		}
	return 0;
}

static struct claims *claims_get(struct verify *v)
{
	if (!v->claims) {
		struct claims *c = calloc(1, sizeof(*c));

		if (!c) {
			v->nomem = 1;
			return NULL;
		}
		c->v = v;
		c->pass = 1;
		c->blocks = v->info.blocks_count;
		v->claims = c;
		each_meta(c, mark_word);
	}
	return v->claims;
}

/* Files, directories and slow symlinks have a block map. */
static int has_map(struct verify *v, const struct e4_inode *in)
{
	struct ext2_inode_large raw;
	uint64_t meta;

	if (in->flags & E4_INODE_INLINE_DATA_FL)
		return 0;
	if (E4_ISREG(in->mode) || E4_ISDIR(in->mode))
		return 1;
	if (!E4_ISLNK(in->mode))
		return 0;
	e4_inode_ext2(in, &raw);
	meta = raw.i_file_acl || raw.osd2.linux2.l_i_file_acl_high ?
	       v->info.block_size / 512 : 0;
	return in->blocks > meta;
}

void claims_inode(struct verify *v, const struct e4_inode *in)
{
	struct claims *c = claims_get(v);

	if (!c || !has_map(v, in))
		return;
	/* the blocks-past-EOF check and the tree walk report bad maps */
	v->mute_maps = 1;
	c->pass = 1;
	e4_inode_map_tree(v->fs, in, NULL, UINT64_MAX, run_cb, tree_cb, c);
	v->mute_maps = 0;
}

static int pass1b_inode(void *arg, const struct e4_inode *in)
{
	struct claims *c = arg;
	struct verify *v = c->v;

	if (!has_map(v, in))
		return 0;
	memset(&c->cur, 0, sizeof(c->cur));
	c->cur.ino = in->ino;
	e4_inode_map_tree(v->fs, in, NULL, UINT64_MAX, run_cb, tree_cb, c);
	if (!c->cur.count)
		return v->nomem;
	if (c->nrecs == c->caprecs) {
		size_t cap = c->caprecs ? 2 * c->caprecs : 16;
		struct dup_rec *r = realloc(c->recs, cap * sizeof(*r));

		if (!r) {
			v->nomem = 1;
			return 1;
		}
		c->recs = r;
		c->caprecs = cap;
	}
	c->recs[c->nrecs++] = c->cur;
	return v->nomem;
}

void claims_finish(struct verify *v)
{
	struct claims *c = v->claims;

	if (!c)
		return;
	if (c->any_dup && !v->nomem) {
		c->pass = 2;
		v->mute_maps = 2; /* the first scan reported all there is */
		each_meta(c, owner0_word);
		e4_fs_scan_inodes(v->fs, 0, pass1b_inode, c);
		v->mute_maps = 0;
		for (size_t i = 0; i < c->nrecs && !v->nomem; i++) {
			const struct dup_rec *r = &c->recs[i];
			char also[64];

			switch (r->kind) {
			case 1:
				snprintf(also, sizeof(also), "is also claimed by inode %u", r->other);
				break;
			case 2:
				snprintf(also, sizeof(also), "is also filesystem metadata");
				break;
			case 3:
				snprintf(also, sizeof(also), "is mapped more than once by this inode");
				break;
			default:
				snprintf(also, sizeof(also), "is also claimed by another inode");
			}
			vfind(v, CHECK_BLOCK_MULTIPLY_CLAIMED, r->ino, NULL,
			      "%llu of its blocks are claimed more than once; block %llu %s",
			      (unsigned long long)r->count,
			      (unsigned long long)r->first, also);
		}
	}
	chunkmap_free(&c->used);
	chunkmap_free(&c->dup);
	e4_blockset_free(&c->owner);
	free(c->recs);
	free(c);
	v->claims = NULL;
}
