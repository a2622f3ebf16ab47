/* Deleted entries from journal copies (undelete.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"
#include "cipher.h"
#include "crc32c.h"
#include "dirblock.h"
#include "escape.h"
#include "kdf.h"
#include "nokey.h"
#include "symlink.h"
#include "undelete.h"
#include "moment.h"
#include "byteorder.h"


/* What a directory being searched for deleted names is. */
struct dirctx {
	uint32_t ino;
	uint32_t generation;
	uint32_t flags;
	uint64_t size_blocks;
	int encrypted;
	int hashed;                     /* casefold + encrypt: stored hashes */
	int readdir_hash;               /* hash version no-key names carry, or -1 */
	struct e4_inode in;             /* the directory (live, or its copy) */
	int have_ctx;
	struct e4_context ctx;
	uint64_t *blocks;               /* its blocks (physical) */
	size_t nblocks;
	uint32_t limit;                 /* copies from transactions below it */
	/* live entries (ino, name hash) sorted, to tell deleted from live */
	uint64_t *live;
	size_t nlive;
};

struct islot {
	uint32_t generation;
	uint32_t dtime;         /* i_dtime of an inode freed (no links) */
	uint8_t in_use;
	uint8_t ftype;
};

/* A row of names[]: a stored name (255 bytes) or a no-key name (252). */
#define NAME_ROW 256

struct cand {
	uint32_t ino;
	uint8_t ftype;
	uint8_t len;
	int has_hash;
	uint32_t hash, minor;
	uint32_t seen;                  /* newest transaction (index) with it */
	uint64_t block;                 /* the block it was last seen in */
	uint8_t raw[255];
};

struct ud {
	struct e4_fs *fs;
	const struct e4_journal *j;
	e4_deleted_fn fn;
	void *arg;
	uint32_t start;
	struct e4_name_part parts[64];
	uint32_t inos[64];              /* the inode of each part */
	uint8_t names[64][NAME_ROW];
	size_t depth;
	uint8_t *buf;                   /* one block */
	uint8_t *ibuf;                  /* an inode-table block */
	int stopped;
	uint32_t *seen;                 /* inodes passed, for the orphans */
	size_t nseen, capseen;
	/* the copies of one inode-table block, decoded once: per copy and
	 * inode slot, whether it is in use, its file type and generation
	 * (candidates come sorted by inode, so one block at a time) */
	uint64_t icache_blk;
	size_t icache_first, icache_n;
	struct islot *icache;
	struct {                        /* parents listed for paths (LRU) */
		uint32_t ino;
		struct e4_dir *d;
		uint64_t used;
	} plist[4];
	uint64_t clock;
	uint32_t *searched;             /* deleted directories searched: each */
	size_t nsearched, capsearched;  /* once (a hostile copy may name an
					 * ancestor) */
};

/* Add ino to the set of searched directories (open addressing, never
 * more than half full).  1 when it was new, 0 when there, -1 no memory. */
static int searched_add(struct ud *u, uint32_t ino)
{
	size_t i;

	if (2 * (u->nsearched + 1) > u->capsearched) {
		size_t cap = u->capsearched ? u->capsearched * 2 : 64;
		uint32_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return -1;
		for (size_t k = 0; k < u->capsearched; k++) {
			uint32_t x = u->searched[k];

			if (!x)
				continue;
			for (i = (x * 2654435761u) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = x;
		}
		free(u->searched);
		u->searched = t;
		u->capsearched = cap;
	}
	for (i = (ino * 2654435761u) & (u->capsearched - 1); u->searched[i];
	     i = (i + 1) & (u->capsearched - 1))
		if (u->searched[i] == ino)
			return 0;
	u->searched[i] = ino;
	u->nsearched++;
	return 1;
}

static void note_seen(struct ud *u, uint32_t ino)
{
	if (u->nseen == u->capseen) {
		size_t cap = u->capseen ? u->capseen * 2 : 64;
		uint32_t *p = realloc(u->seen, cap * sizeof(*p));

		if (!p)
			return;         /* an orphan may be passed twice */
		u->seen = p;
		u->capseen = cap;
	}
	u->seen[u->nseen++] = ino;
}

static uint64_t entry_key(uint32_t ino, const uint8_t *name, size_t len)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a over the name */

	for (size_t i = 0; i < len; i++)
		h = (h ^ name[i]) * 1099511628211ull;
	return (uint64_t)ino << 32 ^ (h & 0xffffffffu) ^ (h >> 32);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t i = e4_u64_lower_bound(v, n, x);

	return i < n && v[i] == x;
}

/* With metadata_csum, a directory block's tail checksum is seeded with its
 * directory's inode number and generation (ext4_dirblock_csum): a copy
 * that does not match was another directory's block then.  1 ok, 0 not,
 * and 1 without checksums or without a tail (htree blocks hold no
 * names but "." and ".."). */
static int dirblock_is_of(struct e4_fs *fs, const uint8_t *b, uint32_t ino,
			  uint32_t gen)
{
	size_t bs = fs->info.block_size;
	const uint8_t *t = b + bs - E4_DIRENT_TAIL_SIZE;
	uint8_t v[4];
	uint32_t c;

	if (!ext2fs_has_feature_metadata_csum(fs->ext2->super))
		return 1;
	if (e4_le32(t) != 0 || t[4] != E4_DIRENT_TAIL_SIZE || t[5] != 0 || t[6] != 0 ||
	    t[7] != E4_DIRENT_TAIL_FT)
		return 1;
	v[0] = ino; v[1] = ino >> 8; v[2] = ino >> 16; v[3] = ino >> 24;
	c = e4_crc32c(fs->ext2->csum_seed, v, 4);
	v[0] = gen; v[1] = gen >> 8; v[2] = gen >> 16; v[3] = gen >> 24;
	c = e4_crc32c(c, v, 4);
	return e4_crc32c(c, b, bs - E4_DIRENT_TAIL_SIZE) == e4_le32(t + 8);
}

/* The directory entry's file type (EXT2_FT_*) of a mode. */
static uint8_t mode_file_type(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFREG: return EXT2_FT_REG_FILE;
	case E4_S_IFDIR: return EXT2_FT_DIR;
	case E4_S_IFCHR: return EXT2_FT_CHRDEV;
	case E4_S_IFBLK: return EXT2_FT_BLKDEV;
	case E4_S_IFIFO: return EXT2_FT_FIFO;
	case E4_S_IFSOCK: return EXT2_FT_SOCK;
	case E4_S_IFLNK: return EXT2_FT_SYMLINK;
	default: return EXT2_FT_UNKNOWN;
	}
}

/* Decode every copy of inode-table block blk once (u->icache).  0 when
 * out of memory. */
static int icache_load(struct ud *u, uint64_t blk)
{
	unsigned int isize = EXT2_INODE_SIZE(u->fs->ext2->super);
	size_t per = u->fs->info.block_size / isize, first;
	size_t n = e4_journal_block_copies(u->j, blk, &first);
	struct islot *v;

	if (u->icache && u->icache_blk == blk)
		return 1;
	v = calloc(n * per + 1, sizeof(*v));
	if (!v)
		return 0;
	for (size_t k = 0; k < n; k++) {
		if (e4_journal_read_copy(u->j, e4_journal_block_copy(u->j, first + k),
					 u->ibuf) != E4_OK)
			continue;       /* never in use */
		for (size_t i = 0; i < per; i++) {
			struct ext2_inode_large raw;
			struct islot *is = &v[k * per + i];
			int link;

			memset(&raw, 0, sizeof(raw));
			memcpy(&raw, u->ibuf + i * isize, isize < sizeof(raw) ? isize : sizeof(raw));
			/* an orphan list's link in i_dtime is not a time:
			 * the inode is not freed yet */
			link = e4_dtime_is_orphan_link(u->fs, raw.i_dtime);
			is->in_use = raw.i_links_count && raw.i_mode && (!raw.i_dtime || link);
			is->dtime = raw.i_links_count || link ? 0 : raw.i_dtime;
			is->ftype = mode_file_type(raw.i_mode);
			is->generation = raw.i_generation;
		}
	}
	free(u->icache);
	u->icache = v;
	u->icache_blk = blk;
	u->icache_first = first;
	u->icache_n = n;
	return 1;
}

/* Fill in the inode of d: the newest copy, from a transaction below
 * limit, of the inode-table block of d->ino in which it is in use with
 * the entry's type. */
static void find_inode(struct ud *u, struct e4_deleted *d, uint32_t limit,
		       int same_generation)
{
	struct e4_fs *fs = u->fs;
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int isize = EXT2_INODE_SIZE(sb), bs = fs->info.block_size;
	uint32_t ipg = sb->s_inodes_per_group, g, idx;
	uint64_t blk, off;
	size_t first, n, lo, per;
	const uint8_t *live = NULL;
	uint32_t live_gen = 0, live_dtime = 0;
	int live_used = 0;

	d->have_inode = 0;
	d->no_inode_why = "no journal copy of its inode from while it was in use";
	if (d->ino < 1 || d->ino > sb->s_inodes_count || !ipg) {
		d->no_inode_why = "inode number out of range";
		return;
	}
	g = (d->ino - 1) / ipg;
	idx = (d->ino - 1) % ipg;
	blk = ext2fs_inode_table_loc(fs->ext2, g) + (uint64_t)idx * isize / bs;
	off = (uint64_t)idx * isize % bs;
	if (e4_inode_bytes(fs, d->ino, &live) == E4_OK) {
		struct ext2_inode_large l;
		int link;

		memset(&l, 0, sizeof(l));
		memcpy(&l, live, isize < sizeof(l) ? isize : sizeof(l));
		live_gen = l.i_generation;
		link = e4_dtime_is_orphan_link(fs, l.i_dtime);
		live_used = l.i_links_count && l.i_mode && (!l.i_dtime || link);
		live_dtime = l.i_links_count || link ? 0 : l.i_dtime;
	}
	if (!icache_load(u, blk)) {
		d->no_inode_why = "out of memory reading copies of its inode";
		return;
	}
	first = u->icache_first;
	per = bs / isize;
	/* the copies below limit, newest first */
	for (lo = 0, n = u->icache_n; lo < n;) {
		size_t mid = lo + (n - lo) / 2;

		if (e4_journal_block_copy(u->j, first + mid)->trans < limit)
			lo = mid + 1;
		else
			n = mid;
	}
	while (n--) {
		const struct e4_jcopy *c = e4_journal_block_copy(u->j, first + n);
		const struct islot *is = &u->icache[n * per + off / isize];
		struct ext2_inode_large raw;
		const char *why;

		if (!is->in_use || (d->file_type && is->ftype != d->file_type))
			continue;
		if (same_generation && is->generation != live_gen)
			continue;
		/* the live inode, reused by another file, has its own
		 * generation: copies with it are that file's */
		if (live_used && is->generation == live_gen) {
			d->still_in_use = 1;
			d->no_inode_why = "the inode is still in use: renamed, or another link remains";
			return;
		}
		if (e4_journal_read_copy(u->j, c, u->ibuf) != E4_OK)
			continue;
		memset(&raw, 0, sizeof(raw));
		memcpy(&raw, u->ibuf + off, isize < sizeof(raw) ? isize : sizeof(raw));
		if (e4_inode_decode(fs, d->ino, &raw, NULL, &d->inode) != E4_OK)
			continue;       /* reported */
		d->have_inode = 1;
		d->no_inode_why = NULL;
		d->inode_sequence = e4_journal_trans(u->j, c->trans)->sequence;
		d->inode_trust = (enum e4_jcopy_trust)c->trust;
		d->inode_committed = e4_journal_trans(u->j, c->trans)->committed;
		/* when it was freed: the newest later copy of it freed, with
		 * this generation, else the live inode if it is that one */
		d->have_dtime = 0;
		for (size_t k = u->icache_n; k-- > n + 1;) {
			const struct islot *f = &u->icache[k * per + off / isize];

			if (!f->in_use && f->dtime && f->generation == is->generation) {
				d->have_dtime = 1;
				d->dtime = f->dtime;
				d->dtime_sequence = e4_journal_trans(
					u->j, e4_journal_block_copy(u->j, first + k)->trans)->sequence;
				break;
			}
		}
		if (!d->have_dtime && !live_used && live_dtime && live_gen == is->generation) {
			d->have_dtime = 1;
			d->dtime = live_dtime;
			d->dtime_sequence = 0;
		}
		d->encrypted = d->inode.encrypted;
		if (d->encrypted) {
			/* the context as the core reads it, on the filesystem
			 * of the copy's transaction: its inode table block is
			 * this copy, its xattr block that moment's */
			struct e4_moment m;

			e4_moment_enter(fs, u->j, c->trans + 1, &m);
			d->have_ctx = e4_inode_context(fs, &d->inode, &d->ctx, &why) == E4_OK;
			e4_moment_leave(&m);
		}
		return;
	}
}

/* The name shown for candidate k of directory dc: as the listing of the
 * candidates (e4_dir_list_given: the core's decryption, trust and no-key
 * rules) shows it. */
static void show_name(struct ud *u, const struct e4_dir *ld, size_t k,
		      struct e4_deleted *d)
{
	struct e4_entry e;
	size_t len;

	e4_dir_get(ld, k, &e);
	len = e.name_len < NAME_ROW - 1 ? e.name_len : NAME_ROW - 1;
	memcpy(u->names[u->depth], e.name, len);
	u->parts[u->depth].len = len;
	d->name_state = e.state;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->raw, y->raw, x->len);
}

static int dirctx_from_copy(struct ud *u, struct dirctx *dc,
			    const struct e4_deleted *d, uint32_t limit);
static void dirctx_free(struct dirctx *dc);

/* One candidate per (inode, name): the newest sighting.  Returns the
 * count left. */
static size_t compact(struct cand *v, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_cand);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_cand(&v[m - 1], &v[i])) {
			if (v[i].seen > v[m - 1].seen) {
				v[m - 1].seen = v[i].seen;
				v[m - 1].block = v[i].block;
			}
			continue;
		}
		v[m++] = v[i];
	}
	return m;
}

/* Collect the names copies of dc's blocks hold that the directory does
 * not hold now. */
static enum e4_status collect(struct ud *u, const struct dirctx *dc,
			      struct cand **out, size_t *nout)
{
	struct e4_fs *fs = u->fs;
	struct e4_dirblock_rules rules = { fs->info.block_size,
					   fs->ext2->super->s_inodes_count, dc->hashed };
	struct cand *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t b = 0; b < dc->nblocks; b++) {
		size_t first, nc = e4_journal_block_copies(u->j, dc->blocks[b], &first);

		for (size_t k = 0; k < nc; k++) {
			const struct e4_jcopy *c = e4_journal_block_copy(u->j, first + k);
			size_t off = 0;
			struct e4_dirent de;
			const char *why;

			if (c->trans >= dc->limit ||
			    e4_journal_read_copy(u->j, c, u->buf) != E4_OK ||
			    !dirblock_is_of(fs, u->buf, dc->ino, dc->generation))
				continue;
			while (e4_dirblock_next(u->buf, &rules, &off, &de, &why) == E4_OK) {
				struct cand *x;

				if (!de.inode || de.is_tail || e4_dirent_is_dot(&de) ||
				    !de.name_len ||
				    has_u64(dc->live, dc->nlive,
					    entry_key(de.inode, de.name, de.name_len)))
					continue;
				/* many copies repeat the same names: memory
				 * stays in the distinct names */
				if (n == cap && cap >= 1024)
					n = compact(v, n);
				if (n == cap || (cap >= 1024 && n > cap / 2)) {
					size_t nc2 = cap ? cap * 2 : 16;
					struct cand *p = realloc(v, nc2 * sizeof(*p));

					if (!p) {
						free(v);
						return E4_NOMEM;
					}
					v = p;
					cap = nc2;
				}
				x = &v[n++];
				x->ino = de.inode;
				x->ftype = de.file_type;
				x->len = de.name_len;
				memcpy(x->raw, de.name, de.name_len);
				x->has_hash = de.has_hash;
				x->hash = de.hash;
				x->minor = de.minor_hash;
				x->seen = c->trans;
				x->block = dc->blocks[b];
			}
		}
	}
	n = compact(v, n);
	*out = v;
	*nout = n;
	return E4_OK;
}

static void search_dir(struct ud *u, const struct dirctx *dc, int deleted_dir);

/* Reserved inodes (the root, the resize inode, the journal, quota and
 * orphan-file inodes, anything below s_first_ino) are never a deleted
 * file, whatever a copy says. */
static int reserved_ino(const struct e4_fs *fs, uint32_t ino)
{
	const struct ext2_super_block *sb = fs->ext2->super;

	return ino < EXT2_FIRST_INO(sb) || ino == sb->s_journal_inum ||
	       ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
	       ino == sb->s_prj_quota_inum || ino == sb->s_orphan_file_inum;
}

/* The path of the entry at u->depth, escaped, for a report (malloc'd;
 * NULL without memory). */
static char *shown_path(const struct ud *u)
{
	size_t len = 0, used = 0;
	char *p;

	for (size_t i = 0; i <= u->depth; i++)
		len += E4_ESCAPE_SIZE(u->parts[i].len);
	p = malloc(len + 1);
	if (!p)
		return NULL;
	for (size_t i = 0; i <= u->depth; i++) {
		if (i)
			p[used++] = '/';
		used += e4_escape(u->parts[i].name, u->parts[i].len, p + used,
				  E4_ESCAPE_SLASH);
	}
	p[used] = 0;
	return p;
}

/* A directory entry's directory is entered once, under its first name,
 * as the live walker does (walk.c): 1 to go on, 0 when it was entered
 * (reported: a loop when it is on the path, else a second link). */
static int enter_once(struct ud *u, uint32_t ino)
{
	int loop = 0;
	char *path;

	switch (searched_add(u, ino)) {
	case 1:
		return 1;
	case -1:
		e4_report(u->fs, E4_DIAG_ERROR, E4_NOMEM, ino, NULL,
			  "out of memory: the deleted directory's entries are not searched");
		return 0;
	}
	for (size_t i = 0; i < u->depth; i++)
		loop |= u->inos[i] == ino;
	path = shown_path(u);
	e4_report_p(u->fs, E4_DIAG_ERROR, E4_CORRUPT, loop ? E4_P_DIR_LOOP : E4_P_DIR_RELINK,
		    ino, path, "%s", loop ?
		    "directory loop in journal copies: the deleted directory contains its own ancestor; not entered again" :
		    "second link to a directory already entered (ext4 directories have one parent); not entered again");
	free(path);
	return 0;
}

/* One deleted entry: its inode, then the callback; a deleted directory
 * is searched in turn. */
static void one_entry(struct ud *u, const struct dirctx *dc,
		      const struct cand *c, const struct e4_dir *ld, size_t k,
		      int deleted_dir)
{
	struct e4_deleted d;
	uint32_t deleted_trans = dc->limit;
	size_t first, nc = e4_journal_block_copies(u->j, c->block, &first);
	int fresh = 0;

	memset(&d, 0, sizeof(d));
	/* deleted by the first transaction after its last sighting whose
	 * copy of that block lacks it (copies sorted by transaction) */
	{
		size_t lo = 0, hi = nc;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (e4_journal_block_copy(u->j, first + mid)->trans <= c->seen)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nc && e4_journal_block_copy(u->j, first + lo)->trans < dc->limit)
			deleted_trans = e4_journal_block_copy(u->j, first + lo)->trans;
	}
	d.parent = dc->ino;
	d.ino = c->ino;
	d.file_type = c->ftype;
	d.parent_deleted = deleted_dir;
	d.before = deleted_trans;
	d.seen_sequence = e4_journal_trans(u->j, c->seen)->sequence;
	if (deleted_trans != E4_NO_LIMIT) {
		d.deleted_known = 1;
		d.deleted_sequence = e4_journal_trans(u->j, deleted_trans)->sequence;
	}
	d.raw_name = c->raw;
	d.raw_len = c->len;
	show_name(u, ld, k, &d);
	u->parts[u->depth].name = u->names[u->depth];
	u->inos[u->depth] = c->ino;
	d.parts = u->parts;
	d.inos = u->inos;
	d.nparts = u->depth + 1;
	if (reserved_ino(u->fs, c->ino)) {
		char *path = shown_path(u);

		e4_report(u->fs, E4_DIAG_NOTE, E4_CORRUPT, c->ino, path,
			  "a journal copy of directory <%" PRIu32 "> names reserved inode %" PRIu32
			  ": never a deleted file; skipped", dc->ino, c->ino);
		free(path);
		return;
	}
	if (c->ftype == EXT2_FT_DIR && !(fresh = enter_once(u, c->ino)))
		return;
	find_inode(u, &d, deleted_trans, 0);
	note_seen(u, d.ino);
	if (u->fn(u->arg, &d)) {
		u->stopped = 1;
		return;
	}
	if (c->ftype == EXT2_FT_DIR && d.have_inode && fresh == 1) {
		struct dirctx sub;

		if (u->depth + 1 >= 64) {
			e4_report(u->fs, E4_DIAG_ERROR, E4_LIMIT, d.ino, NULL,
				  "deleted directory nested too deep: its entries are not searched");
			return;
		}
		if (dirctx_from_copy(u, &sub, &d, deleted_trans) == 0) {
			u->depth++;
			search_dir(u, &sub, 1);
			u->depth--;
		}
		dirctx_free(&sub);
	}
}

static void search_dir(struct ud *u, const struct dirctx *dc, int deleted_dir)
{
	struct cand *v = NULL;
	struct e4_dirent *de = NULL;
	struct e4_dir *ld = NULL;
	struct e4_dir_read_info info;
	size_t n = 0;

	if (collect(u, dc, &v, &n) != E4_OK) {
		e4_report(u->fs, E4_DIAG_ERROR, E4_NOMEM, dc->ino, NULL,
			  "out of memory collecting deleted names");
		return;
	}
	/* the names as the core lists them, all of the directory's at once */
	memset(&info, 0, sizeof(info));
	info.hashed = dc->hashed;
	info.htree_hash = dc->readdir_hash >= 0;
	info.hash_version = dc->readdir_hash;
	de = calloc(n ? n : 1, sizeof(*de));
	if (de)
		for (size_t i = 0; i < n; i++) {
			de[i].inode = v[i].ino;
			de[i].name_len = v[i].len;
			de[i].file_type = v[i].ftype;
			de[i].name = v[i].raw;
			de[i].has_hash = v[i].has_hash;
			de[i].hash = v[i].hash;
			de[i].minor_hash = v[i].minor;
		}
	if (!de || e4_dir_list_given(u->fs, &dc->in, dc->have_ctx ? &dc->ctx : NULL,
				     &info, de, n, E4_LIST_UNSORTED, &ld) != E4_OK) {
		e4_report(u->fs, E4_DIAG_ERROR, E4_NOMEM, dc->ino, NULL,
			  "out of memory listing deleted names");
		free(de);
		free(v);
		return;
	}
	for (size_t i = 0; i < n && !u->stopped; i++)
		one_entry(u, dc, &v[i], ld, i, deleted_dir);
	e4_dir_free(ld);
	free(de);
	free(v);
}

static void dirctx_free(struct dirctx *dc)
{
	free(dc->blocks);
	free(dc->live);
	memset(dc, 0, sizeof(*dc));
}

/* The key and hash facts shared by live and deleted directories. */
static void dirctx_names(struct ud *u, struct dirctx *dc, const struct e4_inode *in,
			 const struct e4_context *ctx, int have_ctx,
			 const uint8_t *block0)
{
	dc->ino = in->ino;
	dc->generation = in->generation;
	dc->flags = in->flags;
	dc->encrypted = in->encrypted;
	dc->hashed = e4_inode_hashed_dir(in);
	dc->size_blocks = e4_inode_size_blocks(u->fs, in);
	dc->readdir_hash = e4_dir_readdir_hash(u->fs, in->flags, dc->size_blocks,
					       block0 ? block0 + 0x18 : NULL);
	dc->in = *in;
	dc->have_ctx = in->encrypted && have_ctx;
	if (dc->have_ctx)
		dc->ctx = *ctx;
}

static int cmp_run_pblk(const void *a, const void *b)
{
	const struct e4_run *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* A deleted directory, from its inode copy: its blocks from the copy's
 * map; copies of them from before it was deleted. */
static int dirctx_from_copy(struct ud *u, struct dirctx *dc,
			    const struct e4_deleted *d, uint32_t limit)
{
	struct e4_runvec rv;
	const char *why;
	const struct e4_jcopy *c0;

	memset(dc, 0, sizeof(*dc));
	if (d->inode.flags & E4_INODE_INLINE_DATA_FL)
		return -1;
	if (e4_copy_map(u->fs, u->j, &d->inode, limit,
			e4_inode_size_blocks(u->fs, &d->inode), &rv, &why) != E4_OK && !rv.n) {
		free(rv.v);
		return -1;
	}
	/* only blocks with journal copies matter: the runs' physical ranges
	 * made disjoint (a hostile map may alias them), then each range's
	 * copies found by one search: the cost follows the journal, not
	 * the size the map claims */
	if (rv.n) {
		struct e4_run *ph = malloc(rv.n * sizeof(*ph));
		size_t nph = 0, cap = 0;

		if (!ph) {
			free(rv.v);
			return -1;
		}
		memcpy(ph, rv.v, rv.n * sizeof(*ph));
		qsort(ph, rv.n, sizeof(*ph), cmp_run_pblk);
		for (size_t i = 0; i < rv.n; i++) {
			if (nph && ph[i].pblk <= ph[nph - 1].pblk + ph[nph - 1].len) {
				uint64_t end = ph[i].pblk + ph[i].len;

				if (end > ph[nph - 1].pblk + ph[nph - 1].len)
					ph[nph - 1].len = end - ph[nph - 1].pblk;
				continue;
			}
			ph[nph++] = ph[i];
		}
		for (size_t i = 0; i < nph; i++) {
			size_t first, nc = e4_journal_range_copies(u->j, ph[i].pblk,
								   ph[i].pblk + ph[i].len, &first);

			for (size_t k = 0; k < nc; k++) {
				uint64_t b = e4_journal_block_copy(u->j, first + k)->fs_block;

				if (dc->nblocks && dc->blocks[dc->nblocks - 1] == b)
					continue;
				if (dc->nblocks == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					uint64_t *p = realloc(dc->blocks, ncap * sizeof(*p));

					if (!p) {
						free(ph);
						free(rv.v);
						return -1;
					}
					dc->blocks = p;
					cap = ncap;
				}
				dc->blocks[dc->nblocks++] = b;
			}
		}
		free(ph);
	}
	/* block 0 as it was, for the htree hash version */
	c0 = rv.n && rv.v[0].lblk == 0 && (d->inode.flags & E4_INODE_INDEX_FL) ?
	     e4_newest_copy(u->j, rv.v[0].pblk, limit) : NULL;
	if (c0 && e4_journal_read_copy(u->j, c0, u->buf) != E4_OK)
		c0 = NULL;
	free(rv.v);
	dirctx_names(u, dc, &d->inode, &d->ctx, d->have_ctx, c0 ? u->buf : NULL);
	dc->limit = limit;
	return 0;
}

/* Live directories that copies of the journal show. */
struct owned {
	uint32_t owner;
	uint64_t block;
};

static int cmp_owned(const void *a, const void *b)
{
	const struct owned *x = a, *y = b;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->block < y->block ? -1 : x->block > y->block;
}

static int take_dotdot(void *arg, const struct e4_dirent *de)
{
	if (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.') {
		*(uint32_t *)arg = de->inode;
		return 1;
	}
	return 0;
}

/* The parent of a live directory, from its ".." entry. */
static enum e4_status parent_of(struct e4_fs *fs, const struct e4_inode *in,
				uint32_t *parent)
{
	struct e4_dir_read_info info;

	*parent = 0;
	memset(&info, 0, sizeof(info));
	(void)e4_dir_iterate(fs, in, NULL, take_dotdot, parent, &info);
	return *parent ? E4_OK : E4_NOT_FOUND;
}

/* The listing of live directory ino, kept for the siblings that follow
 * (a few, least recently used out): listing a large parent once per
 * child would be quadratic. */
static struct e4_dir *parent_listing(struct ud *u, uint32_t ino)
{
	size_t victim = 0;
	struct e4_inode in;
	struct e4_dir *d;

	for (size_t i = 0; i < 4; i++) {
		if (u->plist[i].d && u->plist[i].ino == ino) {
			u->plist[i].used = ++u->clock;
			return u->plist[i].d;
		}
		if (u->plist[i].used < u->plist[victim].used)
			victim = i;
	}
	if (e4_inode_read(u->fs, ino, NULL, &in) != E4_OK ||
	    e4_dir_list(u->fs, &in, NULL, E4_LIST_UNSORTED | E4_LIST_QUIET, &d) != E4_OK)
		return NULL;
	e4_dir_free(u->plist[victim].d);
	u->plist[victim].d = d;
	u->plist[victim].ino = ino;
	u->plist[victim].used = ++u->clock;
	return d;
}

/* The path of live directory ino from the root, into u->parts (by ".."
 * and the parent's entry naming it).  0 when it lies below u->start. */
static int live_path(struct ud *u, uint32_t ino)
{
	size_t n = 0;
	int below = ino == u->start;
	uint32_t cur = ino;

	while (cur != E4_ROOT_INO && n < 64) {
		struct e4_inode in;
		struct e4_dir *pd = NULL;
		uint32_t parent = 0;

		if (e4_inode_read(u->fs, cur, NULL, &in) != E4_OK ||
		    parent_of(u->fs, &in, &parent) != E4_OK ||
		    !(pd = parent_listing(u, parent)))
			return -1;
		snprintf((char *)u->names[63 - n], sizeof(u->names[0]), "<%u>", cur);
		u->inos[63 - n] = cur;
		u->parts[63 - n].len = strlen((char *)u->names[63 - n]);
		for (size_t i = 0; i < e4_dir_count(pd); i++) {
			struct e4_entry e;

			e4_dir_get(pd, i, &e);
			if (e.ino == cur) {
				size_t len = e.name_len > NAME_ROW - 1 ? NAME_ROW - 1 : e.name_len;

				memcpy(u->names[63 - n], e.name, len);
				u->parts[63 - n].len = len;
				break;
			}
		}
		n++;
		cur = parent;
		if (cur == u->start)
			below = 1;
	}
	if (cur != E4_ROOT_INO || n >= 63) {
		/* not reachable from the root: named by its inode number */
		if (u->start != E4_ROOT_INO)
			return -1;
		snprintf((char *)u->names[0], sizeof(u->names[0]), "<%u>", ino);
		u->parts[0].name = u->names[0];
		u->parts[0].len = strlen((char *)u->names[0]);
		u->inos[0] = ino;
		u->depth = 1;
		return 0;
	}
	/* move the components to the front */
	for (size_t i = 0; i < n; i++) {
		memmove(u->names[i], u->names[64 - n + i], u->parts[64 - n + i].len);
		u->parts[i].len = u->parts[64 - n + i].len;
		u->parts[i].name = u->names[i];
		u->inos[i] = u->inos[64 - n + i];
	}
	u->depth = n;
	return below || u->start == E4_ROOT_INO ? 0 : 1;
}

static int dirctx_live(struct ud *u, struct dirctx *dc, uint32_t ino,
		       const struct owned *o, size_t n)
{
	struct e4_inode in;
	struct e4_dir *d = NULL;
	struct e4_context ctx;
	const char *why;
	int have_ctx = 0;

	memset(dc, 0, sizeof(*dc));
	if (e4_inode_read(u->fs, ino, NULL, &in) != E4_OK || !E4_ISDIR(in.mode))
		return -1;
	if (e4_dir_list(u->fs, &in, NULL, E4_LIST_UNSORTED | E4_LIST_QUIET, &d) != E4_OK)
		return -1;
	dc->live = malloc((e4_dir_count(d) ? e4_dir_count(d) : 1) * sizeof(*dc->live));
	dc->blocks = malloc(n * sizeof(*dc->blocks));
	if (!dc->live || !dc->blocks) {
		e4_dir_free(d);
		return -1;
	}
	for (size_t i = 0; i < e4_dir_count(d); i++) {
		struct e4_entry e;

		e4_dir_get(d, i, &e);
		dc->live[dc->nlive++] = entry_key(e.ino, e.raw, e.raw_len);
	}
	e4_dir_free(d);
	qsort(dc->live, dc->nlive, sizeof(*dc->live), cmp_u64);
	for (size_t i = 0; i < n; i++)
		dc->blocks[dc->nblocks++] = o[i].block;
	if (in.encrypted)
		have_ctx = e4_inode_context(u->fs, &in, &ctx, &why) == E4_OK;
	{
		/* block 0 as it is now, for the htree hash version */
		struct e4_runvec rv;
		uint8_t *b0 = NULL;

		memset(&rv, 0, sizeof(rv));
		if ((in.flags & E4_INODE_INDEX_FL) &&
		    e4_inode_runs(u->fs, &in, NULL, 1, &rv.v, &rv.n) == E4_OK && rv.n &&
		    rv.v[0].lblk == 0 && e4_read_blocks(u->fs, rv.v[0].pblk, 1, u->buf) == E4_OK)
			b0 = u->buf;
		dirctx_names(u, dc, &in, &ctx, have_ctx, b0);
		free(rv.v);
	}
	dc->limit = E4_NO_LIMIT;
	return 0;
}

struct freed {
	uint32_t *v;
	size_t n, cap;
};

static int take_freed(void *arg, const struct e4_inode *in)
{
	struct freed *f = arg;

	/* freed (a deletion time), or unlinked and on the orphan list (a
	 * link in i_dtime: the kernel had not finished deleting it) */
	if (in->in_use || !in->mode || (!in->dtime && !in->orphan_next) || in->links)
		return 0;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		uint32_t *p = realloc(f->v, cap * sizeof(*p));

		if (!p)
			return 1;
		f->v = p;
		f->cap = cap;
	}
	f->v[f->n++] = in->ino;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Freed inodes no name was found for: their newest copy in use with the
 * generation the freed inode still has. */
static void orphans(struct ud *u)
{
	struct freed f = { NULL, 0, 0 };
	uint32_t first = EXT2_FIRST_INO(u->fs->ext2->super);

	if (e4_fs_scan_inodes(u->fs, E4_SCAN_ALL, take_freed, &f) == E4_STOPPED)
		e4_report(u->fs, E4_DIAG_ERROR, E4_NOMEM, 0, NULL,
			  "out of memory listing freed inodes: some orphans are left out");
	if (u->nseen)
		qsort(u->seen, u->nseen, sizeof(*u->seen), cmp_u32);
	for (size_t i = 0; i < f.n && !u->stopped; i++) {
		struct e4_deleted d;
		struct e4_inode live;
		size_t lo = 0, hi = u->nseen;

		if (f.v[i] < first)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (u->seen[mid] < f.v[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < u->nseen && u->seen[lo] == f.v[i])
			continue;
		if (e4_inode_read(u->fs, f.v[i], NULL, &live) != E4_OK)
			continue;
		memset(&d, 0, sizeof(d));
		d.ino = f.v[i];
		d.file_type = mode_file_type(live.mode);
		d.orphan = 1;
		d.name_state = E4_NAME_PLAIN;
		d.before = E4_NO_LIMIT;
		snprintf((char *)u->names[0], sizeof(u->names[0]), "<%u>", d.ino);
		u->parts[0].name = u->names[0];
		u->parts[0].len = strlen((char *)u->names[0]);
		u->inos[0] = d.ino;
		d.parts = u->parts;
		d.inos = u->inos;
		d.nparts = 1;
		find_inode(u, &d, E4_NO_LIMIT, 1);
		if (!d.have_inode)
			d.no_inode_why = "no journal copy of the inode from while it was in use";
		if (u->fn(u->arg, &d))
			u->stopped = 1;
	}
	free(f.v);
}

enum e4_status e4_undelete_scan(struct e4_fs *fs, const struct e4_journal *j,
				uint32_t dir, e4_deleted_fn fn, void *arg)
{
	struct ud *u = calloc(1, sizeof(*u));
	size_t nb = 0, no = 0;
	uint64_t *blocks = NULL;
	struct owned *own = NULL;
	struct e4_blockmap_index *cls = NULL;
	enum e4_status st = E4_NOMEM;

	if (!u)
		goto out;
	u->fs = fs;
	u->j = j;
	u->fn = fn;
	u->arg = arg;
	u->start = dir;
	u->buf = malloc(fs->info.block_size);
	u->ibuf = malloc(fs->info.block_size);
	if (!u->buf || !u->ibuf)
		goto out;
	st = e4_journal_blocks(j, &blocks, &nb);
	if (st == E4_OK)
		st = e4_fs_classify_blocks(fs, blocks, nb, &cls);
	if (st != E4_OK)
		goto out;
	own = malloc((nb ? nb : 1) * sizeof(*own));
	if (!own) {
		st = E4_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < nb; i++) {
		const struct e4_block_class *c = e4_blockmap_index_get(cls, i);

		if (c->kind == E4_BLOCK_DIRECTORY) {
			own[no].owner = c->owner;
			own[no++].block = blocks[i];
		}
	}
	qsort(own, no, sizeof(*own), cmp_owned);
	for (size_t i = 0; i < no && !u->stopped;) {
		size_t k = i;
		struct dirctx dc;

		memset(&dc, 0, sizeof(dc));
		while (k < no && own[k].owner == own[i].owner)
			k++;
		if (live_path(u, own[i].owner) == 0 &&
		    dirctx_live(u, &dc, own[i].owner, own + i, k - i) == 0)
			search_dir(u, &dc, 0);
		dirctx_free(&dc);
		i = k;
	}
	if (dir == E4_ROOT_INO && !u->stopped)
		orphans(u);
	st = u->stopped ? E4_STOPPED : E4_OK;
out:
	e4_blockmap_index_free(cls);
	free(own);
	free(blocks);
	if (u) {
		for (size_t i = 0; i < 4; i++)
			e4_dir_free(u->plist[i].d);
		free(u->icache);
		free(u->searched);
		free(u->seen);
		free(u->buf);
		free(u->ibuf);
	}
	free(u);
	return st;
}

char *e4_deleted_path(const struct e4_deleted *d)
{
	size_t len = 1, at = 0;
	char *p;

	if (d->orphan) {
		/* no name: The Sleuth Kit's virtual directory */
		if (!(p = malloc(48)))
			return NULL;
		snprintf(p, 48, "/$OrphanFiles/OrphanFile-%" PRIu32, d->ino);
		return p;
	}
	for (size_t i = 0; i < d->nparts; i++)
		len += 1 + E4_ESCAPE_SIZE(d->parts[i].len);
	if (!(p = malloc(len)))
		return NULL;
	for (size_t i = 0; i < d->nparts; i++) {
		p[at++] = '/';
		at += e4_escape(d->parts[i].name, d->parts[i].len, p + at, E4_ESCAPE_SLASH);
	}
	p[at] = 0;
	return p;
}
