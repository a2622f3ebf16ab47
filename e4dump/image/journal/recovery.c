/* Rebuilding a deleted file from its inode copy (recovery.h): the block
 * map as it was, data blocks read where they still are, and the checks
 * that are the only evidence the bytes are the file's (fscrypt has no
 * MAC): no block allocated now, zeros past the end of file. */
#include <stdlib.h>
#include <string.h>
#include "cipher.h"
#include "kdf.h"
#include "nokey.h"
#include "symlink.h"
#include "recovery.h"
#include "moment.h"

#define CHUNK_BLOCKS 64

static const char WHY_REUSED[] = "allocated now (reused by another file or metadata)";
static const char WHY_TAIL[] = "bytes past the end of file are not zeros";
static const char WHY_UNREADABLE[] = "cannot be read from the image";
static const char WHY_MAP[] = "hole, but the block map is incomplete (i_blocks counts more blocks)";
static const char WHY_NO_BITMAP[] = "the live block bitmap cannot be read: reuse not checked";
static const char WHY_DECRYPT[] = "decryption failed";

struct tree_read {
	struct e4_fs *fs;
	const struct e4_journal *j;
	uint32_t limit;
	struct e4_runvec *rv;
};

const struct e4_jcopy *e4_newest_copy(const struct e4_journal *j, uint64_t blk,
				      uint32_t limit)
{
	size_t first, n = e4_journal_block_copies(j, blk, &first), lo = 0;

	/* sorted by transaction: the last one below limit */
	while (lo < n) {
		size_t mid = lo + (n - lo) / 2;

		if (e4_journal_block_copy(j, first + mid)->trans < limit)
			lo = mid + 1;
		else
			n = mid;
	}
	return lo ? e4_journal_block_copy(j, first + lo - 1) : NULL;
}

/* The moment's block: the newest copy below the limit unless a revoke
 * from its transaction on (below the limit) cancels it, as jbd2's replay
 * decides; else the live block. */
static enum e4_status moment_read(void *arg, uint64_t pblk, void *buf)
{
	struct e4_moment *m = arg;
	const struct e4_jcopy *c = e4_newest_copy(m->j, pblk, m->limit);

	m->reads++;
	if (!c || e4_journal_revoked(m->j, pblk, c->trans, m->limit) ||
	    e4_journal_read_copy(m->j, c, buf) != E4_OK) {
		m->live_reads++;
		return E4_NOT_FOUND;
	}
	return E4_OK;
}

void e4_moment_enter(struct e4_fs *fs, const struct e4_journal *j, uint32_t limit,
		     struct e4_moment *m)
{
	m->fs = fs;
	m->j = j;
	m->limit = limit;
	m->reads = m->live_reads = 0;
	e4_fs_moment_enter(fs, moment_read, m, &m->save);
}

void e4_moment_leave(struct e4_moment *m)
{
	e4_fs_moment_leave(m->fs, &m->save);
}

/* A tree block of the map, as the moment has it (e4_read_blocks). */
static enum e4_status tree_block(void *arg, uint64_t pblk, uint8_t *buf)
{
	struct tree_read *t = arg;

	return e4_read_blocks(t->fs, pblk, 1, buf);
}

static int take_extent(void *arg, const struct e4_extent *e)
{
	struct tree_read *t = arg;
	struct e4_runvec *rv = t->rv;

	rv->blocks += e->len;
	if (e->lblk >= rv->below)
		return 0;
	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 16;
		struct e4_run *p = realloc(rv->v, cap * sizeof(*p));

		if (!p)
			return 1;
		rv->v = p;
		rv->cap = cap;
	}
	rv->v[rv->n].lblk = e->lblk;
	rv->v[rv->n].pblk = e->pblk;
	rv->v[rv->n].len = e->lblk + (uint64_t)e->len > rv->below ?
			   rv->below - e->lblk : e->len;
	rv->v[rv->n].unwritten = e->unwritten;
	rv->n++;
	return 0;
}

enum e4_status e4_copy_map(struct e4_fs *fs, const struct e4_journal *j,
			   const struct e4_inode *in, uint32_t limit,
			   uint64_t below, struct e4_runvec *rv, const char **why)
{
	struct tree_read tr = { fs, j, limit, rv };
	struct e4_moment m;
	uint64_t bad = 0;
	enum e4_status st;

	memset(rv, 0, sizeof(*rv));
	rv->below = below;
	*why = NULL;
	/* the tree as it was before limit: its blocks through the moment */
	e4_moment_enter(fs, j, limit, &m);
	if (in->flags & E4_INODE_EXTENTS_FL)
		st = e4_extent_walk(in->i_block, fs->info.block_size,
				    &fs->range, UINT32_MAX, tree_block, take_extent,
				    &tr, why, &bad);
	else
		st = e4_indirect_walk(in->i_block, fs->info.block_size,
				      &fs->range, UINT32_MAX, tree_block, take_extent,
				      &tr, why, &bad);
	rv->tree_blocks = m.reads;
	rv->tree_live = m.live_reads;
	e4_moment_leave(&m);
	if (st == E4_STOPPED) {
		*why = "out of memory";
		st = E4_NOMEM;
	}
	return st;
}

struct e4_recovery {
	struct e4_fs *fs;
	struct e4_inode in;
	struct e4_runvec rv;
	struct e4_cipher *cipher;       /* NULL: plaintext, or kept locked */
	int locked;                     /* ciphertext: every data unit whole */
	int map_incomplete;
	int lost_suspects;              /* a range could not be recorded */
	struct e4_suspect *sus;
	size_t nsus, capsus;
	uint8_t *buf, *out;
};

static void suspect(struct e4_recovery *r, uint64_t lblk, uint64_t count,
		    const char *why)
{
	struct e4_suspect *last = r->nsus ? &r->sus[r->nsus - 1] : NULL;

	if (last && last->why == why && last->lblk + last->count == lblk) {
		last->count += count;
		return;
	}
	if (r->nsus == r->capsus) {
		size_t cap = r->capsus ? r->capsus * 2 : 8;
		struct e4_suspect *p = realloc(r->sus, cap * sizeof(*p));

		if (!p) {
			r->lost_suspects = 1;
			return;
		}
		r->sus = p;
		r->capsus = cap;
	}
	r->sus[r->nsus].lblk = lblk;
	r->sus[r->nsus].count = count;
	r->sus[r->nsus++].why = why;
}

static int cmp_suspect(const void *a, const void *b)
{
	const struct e4_suspect *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

static int cmp_run(const void *a, const void *b)
{
	const struct e4_run *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

enum e4_status e4_recovery_open(struct e4_fs *fs, const struct e4_journal *j,
				const struct e4_deleted *d, int locked,
				struct e4_recovery **out, const char **why)
{
	struct e4_recovery *r;
	uint64_t bs = fs->info.block_size, counted;
	enum e4_status st;

	*out = NULL;
	*why = NULL;
	if (!d->have_inode || !E4_ISREG(d->inode.mode)) {
		*why = "no inode copy of a regular file";
		return E4_INVALID;
	}
	if (d->inode.flags & E4_INODE_INLINE_DATA_FL) {
		*why = "inline data is not recovered";
		return E4_UNSUPPORTED;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return E4_NOMEM;
	r->fs = fs;
	r->in = d->inode;
	r->buf = malloc(CHUNK_BLOCKS * bs);
	r->out = malloc(bs);
	if (!r->buf || !r->out) {
		e4_recovery_free(r);
		return E4_NOMEM;
	}
	r->locked = d->encrypted && locked;
	if (d->encrypted && !locked) {
		if (!d->have_ctx) {
			*why = "its inode copy has no valid encryption context";
			e4_recovery_free(r);
			return E4_CORRUPT;
		}
		st = e4_fs_inode_cipher(fs, d->ino, &d->ctx, E4_KEY_CONTENTS, &r->cipher);
		if (st != E4_OK) {
			*why = st == E4_NO_KEY ? "no key" : "cannot set up decryption";
			e4_recovery_free(r);
			return st;
		}
	}
	st = e4_copy_map(fs, j, &d->inode, d->before, e4_inode_size_blocks(fs, &d->inode),
			 &r->rv, why);
	if (st != E4_OK) {
		if (st == E4_NOMEM || !r->rv.n) {
			if (!*why)
				*why = e4_status_str(st);
			e4_recovery_free(r);
			return st == E4_NOMEM ? st : E4_CORRUPT;
		}
		r->map_incomplete = 1;  /* damaged below: what was found is kept */
	}
	if (r->rv.n)
		qsort(r->rv.v, r->rv.n, sizeof(*r->rv.v), cmp_run);
	/* i_blocks counts data and tree blocks (and an xattr block): fewer
	 * found means leaves of the map were lost (truncated before their
	 * copy, or overwritten) */
	counted = r->rv.blocks + r->rv.tree_blocks;
	if (d->inode.file_acl)
		counted++;
	if (counted < d->inode.blocks / (bs / 512))
		r->map_incomplete = 1;
	*out = r;
	return E4_OK;
}

static int allocated(struct e4_fs *fs, uint64_t blk)
{
	return ext2fs_test_block_bitmap2(fs->ext2->block_map, blk);
}

/* Mark the holes below size as suspect (the map is incomplete). */
static void holes_suspect(struct e4_recovery *r, uint64_t nblocks)
{
	uint64_t at = 0;

	for (size_t i = 0; i <= r->rv.n; i++) {
		uint64_t next = i < r->rv.n ? r->rv.v[i].lblk : nblocks;

		if (next > nblocks)
			next = nblocks;
		if (next > at)
			suspect(r, at, next - at, WHY_MAP);
		if (i < r->rv.n && r->rv.v[i].lblk + r->rv.v[i].len > at)
			at = r->rv.v[i].lblk + r->rv.v[i].len;
	}
}

enum e4_status e4_recovery_stream(struct e4_recovery *r, e4_sink_fn sink,
				  void *arg)
{
	struct e4_fs *fs = r->fs;
	uint64_t bs = fs->info.block_size, size = r->in.size;
	uint64_t nblocks = e4_inode_size_blocks(fs, &r->in);
	int bitmap = fs->ext2->block_map || !ext2fs_read_block_bitmap(fs->ext2);

	for (size_t i = 0; i < r->rv.n; i++) {
		const struct e4_run *run = &r->rv.v[i];

		if (run->unwritten)
			continue;       /* reads as zeros: a hole to the sink */
		for (uint64_t k = 0; k < run->len; k += CHUNK_BLOCKS) {
			uint64_t n = run->len - k < CHUNK_BLOCKS ? run->len - k : CHUNK_BLOCKS;
			uint64_t lblk = run->lblk + k, pblk = run->pblk + k;

			if (e4_read_blocks(fs, pblk, n, r->buf) != E4_OK) {
				suspect(r, lblk, n, WHY_UNREADABLE);
				continue;
			}
			for (uint64_t b = 0; b < n; b++) {
				uint64_t off = (lblk + b) * bs;
				const uint8_t *data = r->buf + b * bs;
				size_t len = size - off < bs && !r->locked ?
					     (size_t)(size - off) : (size_t)bs;

				if (!bitmap)
					suspect(r, lblk + b, 1, WHY_NO_BITMAP);
				else if (allocated(fs, pblk + b))
					suspect(r, lblk + b, 1, WHY_REUSED);
				if (r->cipher) {
					if (e4_decrypt_data_unit(r->cipher, lblk + b, data,
								 r->out, bs) != E4_OK) {
						suspect(r, lblk + b, 1, WHY_DECRYPT);
						continue;
					}
					data = r->out;
				}
				/* the kernel zeroes the last block past i_size
				 * before it is written (and encrypted) */
				if (len < bs) {
					for (size_t t = len; t < bs; t++)
						if (data[t]) {
							suspect(r, lblk + b, 1, WHY_TAIL);
							break;
						}
				}
				if (sink(arg, off, data, len)) {
					e4_wipe(r->out, bs);
					return E4_STOPPED;
				}
			}
		}
	}
	e4_wipe(r->out, bs);
	if (r->map_incomplete)
		holes_suspect(r, nblocks);
	/* sorted by block for the caller */
	if (r->nsus)
		qsort(r->sus, r->nsus, sizeof(*r->sus), cmp_suspect);
	return r->lost_suspects ? E4_NOMEM : E4_OK;
}

size_t e4_recovery_suspects(const struct e4_recovery *r,
			    const struct e4_suspect **v)
{
	*v = r->sus;
	return r->nsus;
}

uint64_t e4_recovery_size(const struct e4_recovery *r)
{
	return r->locked ? e4_inode_size_blocks(r->fs, &r->in) * r->fs->info.block_size :
			   r->in.size;
}

size_t e4_recovery_runs(const struct e4_recovery *r, const struct e4_run **v)
{
	*v = r->rv.v;
	return r->rv.n;
}

void e4_recovery_free(struct e4_recovery *r)
{
	if (!r)
		return;
	e4_cipher_free(r->cipher);
	free(r->rv.v);
	free(r->sus);
	if (r->buf)
		e4_wipe(r->buf, CHUNK_BLOCKS * r->fs->info.block_size);
	free(r->buf);
	free(r->out);
	free(r);
}

enum e4_status e4_recovery_symlink(struct e4_fs *fs, const struct e4_journal *j,
				   const struct e4_deleted *d, int locked,
				   char **target, size_t *len, int *nokey,
				   const char **why)
{
	struct e4_cipher *c = NULL;
	struct e4_moment m;
	uint8_t *blob = NULL;
	size_t size = 0;
	enum e4_status st;

	*target = NULL;
	*len = 0;
	*nokey = 0;
	*why = NULL;
	if (!d->have_inode || !E4_ISLNK(d->inode.mode)) {
		*why = "no inode copy of a symlink";
		return E4_INVALID;
	}
	/* the core's reader and rules (tree/link.c), on the filesystem as
	 * it was before the deletion */
	e4_moment_enter(fs, j, d->before, &m);
	st = e4_symlink_raw(fs, &d->inode, NULL, &blob, &size);
	if (st != E4_OK) {
		*why = st == E4_NOMEM ? "out of memory" :
		       "bad symlink size, or its block cannot be read (reported)";
		goto out;
	}
	if (d->encrypted) {
		if (!d->have_ctx) {
			*why = "its inode copy has no valid encryption context";
			st = E4_CORRUPT;
			goto out;
		}
		st = e4_fs_inode_cipher(fs, d->ino, &d->ctx, E4_KEY_NAMES, &c);
		if (st == E4_NO_KEY && locked) {
			/* what readlink gives without the key */
			char nk[E4_NOKEY_NAME_MAX + 1];

			st = e4_symlink_locked_target(fs, &d->inode, NULL, nk);
			if (st != E4_OK) {
				*why = "corrupt symlink header or length";
				goto out;
			}
			*target = strdup(nk);
			st = *target ? E4_OK : E4_NOMEM;
			*len = *target ? strlen(nk) : 0;
			*nokey = *target != NULL;
			goto out;
		}
		if (st != E4_OK) {
			*why = st == E4_NO_KEY ? "no key" : "cannot set up decryption";
			goto out;
		}
	}
	st = e4_symlink_target(fs, &d->inode, NULL, c, blob, size, target, len);
	blob = NULL;
	if (st != E4_OK)
		*why = d->encrypted ? "the target does not decrypt to a valid path" :
				      "NUL inside the target";
out:
	e4_moment_leave(&m);
	e4_cipher_free(c);
	free(blob);
	return st;
}

enum e4_status e4_recovery_symlink_raw(struct e4_fs *fs, const struct e4_journal *j,
				       const struct e4_deleted *d, uint8_t **blob,
				       size_t *size)
{
	struct e4_moment m;
	enum e4_status st;

	*blob = NULL;
	*size = 0;
	if (!d->have_inode || !E4_ISLNK(d->inode.mode))
		return E4_INVALID;
	/* the copy e4_recovery_symlink reads */
	e4_moment_enter(fs, j, d->before, &m);
	st = e4_symlink_raw(fs, &d->inode, NULL, blob, size);
	e4_moment_leave(&m);
	return st;
}
