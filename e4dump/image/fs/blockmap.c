/* Block maps, checked before use (blockmap.h). */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "fs_private.h"

/* Runs are merged where contiguous before they reach the callback. */
struct emit {
	e4_run_fn fn;
	void *arg;
	uint64_t end;           /* lblk_end */
	struct e4_run pending;
	int stopped;
};

static int flush(struct emit *e)
{
	if (e->pending.len && !e->stopped && e->fn(e->arg, &e->pending))
		e->stopped = 1;
	e->pending.len = 0;
	return e->stopped;
}

/* Returns 1 when the walk should end (stopped, or past lblk_end). */
static int add_run(struct emit *e, uint64_t lblk, uint64_t pblk, uint64_t len,
		   int unwritten)
{
	struct e4_run *p = &e->pending;

	if (lblk >= e->end)
		return 1;
	if (len > e->end - lblk)
		len = e->end - lblk;
	if (p->len && p->lblk + p->len == lblk && p->pblk + p->len == pblk &&
	    p->unwritten == unwritten) {
		p->len += len;
		return 0;
	}
	if (flush(e))
		return 1;
	p->lblk = lblk;
	p->pblk = pblk;
	p->len = len;
	p->unwritten = unwritten;
	return 0;
}

uint64_t e4_inode_size_blocks(const struct e4_fs *fs, const struct e4_inode *in)
{
	return (in->size + fs->info.block_size - 1) / fs->info.block_size;
}

static enum e4_status bad_map(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, enum e4_status st,
			      const char *what, const char *why, uint64_t blk)
{
	enum e4_problem p = E4_ISDIR(in->mode) ? E4_P_DIR_BLOCK : E4_P_BLOCK_MAP;

	if (blk)
		e4_report_p(fs, E4_DIAG_ERROR, st, p, in->ino, path,
			    "bad %s: %s (block %llu)", what, why,
			    (unsigned long long)blk);
	else
		e4_report_p(fs, E4_DIAG_ERROR, st, p, in->ino, path,
			    "bad %s: %s", what, why);
	return st;
}

struct walk_arg {
	struct e4_fs *fs;
	struct emit *em;
	uint32_t ino;
	uint32_t shared_with;   /* a tree block that another inode has */
	e4_tree_block_fn tree;
	void *tree_arg;
};

static enum e4_status read_block(void *arg, uint64_t pblk, uint8_t *buf)
{
	struct walk_arg *w = arg;
	enum e4_status st = e4_claim_block(w->fs, pblk, w->ino, &w->shared_with);

	if (st == E4_OK && w->tree)
		w->tree(w->tree_arg, pblk);
	return st != E4_OK ? st : e4_read_blocks(w->fs, pblk, 1, buf);
}

static int extent_cb(void *arg, const struct e4_extent *e)
{
	struct walk_arg *w = arg;

	return add_run(w->em, e->lblk, e->pblk, e->len, e->unwritten);
}

enum e4_status e4_inode_map(struct e4_fs *fs, const struct e4_inode *in,
			    const char *path, uint64_t lblk_end, e4_run_fn fn,
			    void *arg)
{
	return e4_inode_map_tree(fs, in, path, lblk_end, fn, NULL, arg);
}

enum e4_status e4_inode_map_tree(struct e4_fs *fs, const struct e4_inode *in,
				 const char *path, uint64_t lblk_end,
				 e4_run_fn fn, e4_tree_block_fn tree, void *arg)
{
	struct emit em;
	struct walk_arg w = { fs, &em, in->ino, 0, tree, arg };
	const char *why = NULL;
	uint64_t bad = 0;
	enum e4_status st;

	memset(&em, 0, sizeof(em));
	em.fn = fn;
	em.arg = arg;
	em.end = lblk_end;
	if (in->flags & E4_INODE_INLINE_DATA_FL)
		return bad_map(fs, in, path, E4_INVALID, "block map",
			       "inline data has none", 0);
	st = ((in->flags & E4_INODE_EXTENTS_FL) ? e4_extent_walk : e4_indirect_walk)(
		in->i_block, fs->info.block_size, &fs->range,
		lblk_end, read_block, extent_cb, &w, &why, &bad);
	flush(&em);
	if (st == E4_NOMEM)
		e4_report(fs, E4_DIAG_ERROR, st, in->ino, path, "out of memory");
	else if (st != E4_OK && st != E4_STOPPED && w.shared_with)
		e4_report_p(fs, E4_DIAG_ERROR, st, E4_ISDIR(in->mode) ?
			    E4_P_DIR_BLOCK : E4_P_BLOCK_MAP, in->ino, path,
			    "bad %s: tree block %llu belongs to inode %u too",
			    (in->flags & E4_INODE_EXTENTS_FL) ? "extent tree" : "block map",
			    (unsigned long long)bad, w.shared_with);
	else if (st != E4_OK && st != E4_STOPPED)
		(void)bad_map(fs, in, path, st, (in->flags & E4_INODE_EXTENTS_FL) ?
			"extent tree" : "block map", why ? why : e4_status_str(st),
			bad);
	if (em.stopped)
		st = E4_STOPPED;
	else if (st == E4_STOPPED)
		st = E4_OK; /* ended at lblk_end */
	return st;
}

struct run_list {
	struct e4_run *v;
	size_t n, cap;
	int nomem;
};

static int keep_run(void *arg, const struct e4_run *r)
{
	struct run_list *l = arg;

	if (r->unwritten)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct e4_run *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->nomem = 1;
			return 1;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *r;
	return 0;
}

enum e4_status e4_inode_runs(struct e4_fs *fs, const struct e4_inode *in,
			     const char *path, uint64_t lblk_end,
			     struct e4_run **runs, size_t *n)
{
	struct run_list l = { NULL, 0, 0, 0 };
	enum e4_status st = e4_inode_map(fs, in, path, lblk_end, keep_run, &l);

	if (l.nomem) {
		e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, in->ino, path,
			  "out of memory for the block map");
		st = E4_NOMEM;
	}
	if (st != E4_OK) {
		free(l.v);
		l.v = NULL;
		l.n = 0;
	}
	*runs = l.v;
	*n = l.n;
	return st;
}
