/* The tree walker (walk.h): an explicit stack, one listing per level. */
#include <stdlib.h>
#include <string.h>
#include "blockset.h"
#include "escape.h"
#include "fs_private.h"
#include "walk.h"

struct frame {
	struct e4_dir *dir;
	size_t next;
	size_t *order, norder;      /* prescan: the entries not known files,
				     * in listing order */
	size_t path_len, rel_len;
	struct e4_inode inode;
	struct e4_walk_node node;   /* the directory's own node */
	struct e4_entry entry;      /* its entry (pointing into the parent's
				     * listing, which outlives this frame) */
	void *data;
};

struct strbuf {
	char *p;
	size_t len, cap;
};

struct walker {
	struct e4_fs *fs;
	const struct e4_walk_options *o;
	const struct e4_walk_visitor *v;
	void *arg;
	struct e4_walk_stats *stats;
	struct frame *stack;
	size_t depth, cap;
	struct strbuf path, rel;
	struct e4_blockset entered;
	/* prescan: per group, a bit per inode in use and not a directory */
	uint8_t **files;
	size_t ngroups;
	uint32_t ipg;
	int nomem;
};

static int sb_reserve(struct strbuf *b, size_t more)
{
	if (b->len + more + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + more + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	return 0;
}

/* Append "/" (unless the buffer ends in one or is empty and rel) and the
 * escaped name. */
static int sb_add_name(struct strbuf *b, const uint8_t *name, size_t len,
		       int rel)
{
	if (sb_reserve(b, E4_ESCAPE_SIZE(len) + 1))
		return -1;
	if (!(rel && b->len == 0) && !(b->len && b->p[b->len - 1] == '/'))
		b->p[b->len++] = '/';
	b->len += e4_escape(name, len, b->p + b->len, E4_ESCAPE_SLASH);
	return 0;
}

static void sb_cut(struct strbuf *b, size_t len)
{
	b->len = len;
	if (b->p)
		b->p[len] = '\0';
}

static int on_stack(const struct walker *w, uint32_t ino)
{
	for (size_t i = 0; i < w->depth; i++)
		if (w->stack[i].inode.ino == ino)
			return 1;
	return 0;
}

static int note_file(void *arg, const struct e4_inode *in)
{
	struct walker *w = arg;
	size_t g = (in->ino - 1) / w->ipg, i = (in->ino - 1) % w->ipg;

	if (!in->in_use || E4_ISDIR(in->mode) || g >= w->ngroups)
		return 0;
	if (!w->files[g] && !(w->files[g] = calloc(w->ipg / 8 + 1, 1))) {
		w->nomem = 1;
		return 1;
	}
	w->files[g][i / 8] |= (uint8_t)(1u << (i % 8));
	return 0;
}

static int known_file(const struct walker *w, uint32_t ino)
{
	size_t g, i;

	if (!w->files || !ino)
		return 0;
	g = (ino - 1) / w->ipg;
	i = (ino - 1) % w->ipg;
	return g < w->ngroups && w->files[g] && (w->files[g][i / 8] >> (i % 8) & 1);
}

/* The inode tables scanned (prescan): a failed scan leaves inodes
 * unknown, which the walk then reads. */
static void prescan(struct walker *w)
{
	struct e4_fs *fs = w->fs;

	w->ipg = fs->ext2->super->s_inodes_per_group;
	w->ngroups = fs->ext2->group_desc_count;
	if (!w->ipg || !w->ngroups ||
	    !(w->files = calloc(w->ngroups, sizeof(*w->files)))) {
		w->ngroups = 0;
		return;
	}
	e4_itable_scan(fs, 0, note_file, w);
	if (w->nomem) {
		/* without the map the walk reads every inode, as it would */
		for (size_t g = 0; g < w->ngroups; g++)
			free(w->files[g]);
		free(w->files);
		w->files = NULL;
		w->ngroups = 0;
		w->nomem = 0;
	}
}

/* List directory n and push it; 1 when the walk must stop. */
static int enter(struct walker *w, const struct e4_walk_node *n,
		 const struct e4_inode *in)
{
	struct e4_fs *fs = w->fs;
	struct e4_dir *d;
	struct frame *f;
	void *data = NULL;
	size_t *order = NULL, norder = 0;

	if (n->depth >= fs->opt.max_depth) {
		e4_report_p(fs, E4_DIAG_ERROR, E4_LIMIT, E4_P_DEPTH, in->ino, n->path,
			    "directories nested deeper than %u: not entered",
			  fs->opt.max_depth);
		w->stats->problems++;
		return 0;
	}
	switch (e4_blockset_add(&w->entered, in->ino)) {
	case 0:
		e4_report_p(fs, E4_DIAG_ERROR, E4_CORRUPT,
			    on_stack(w, in->ino) ? E4_P_DIR_LOOP : E4_P_DIR_RELINK,
			    in->ino, n->path, "%s", on_stack(w, in->ino) ?
			  "directory loop: the directory contains its own ancestor; not entered again" :
			  "second link to a directory already entered (ext4 directories have one parent); not entered again");
		w->stats->problems++;
		return 0;
	case -1:
		w->nomem = 1;
		return 1;
	}
	/* prescan: the entries it does not skip, sorted alone */
	if (e4_dir_list(fs, in, n->path, w->o->list_flags |
			(w->files ? E4_LIST_UNSORTED : 0), &d) != E4_OK) {
		w->stats->problems++;
		return 0;
	}
	if (w->files) {
		size_t count = e4_dir_count(d);

		order = malloc((count ? count : 1) * sizeof(*order));
		if (!order) {
			e4_dir_free(d);
			w->nomem = 1;
			return 1;
		}
		for (size_t i = 0; i < count; i++) {
			struct e4_entry e;

			e4_dir_get(d, i, &e);
			if (known_file(w, e.ino))
				w->stats->entries++; /* not visited */
			else
				order[norder++] = i;
		}
		e4_dir_sort_indices(d, order, norder);
	}
	w->stats->dirs++;
	if (w->v->enter) {
		enum e4_walk_action a = w->v->enter(w->arg, n, d, &data);

		if (a != E4_WALK_CONTINUE) {
			e4_dir_free(d);
			free(order);
			return a == E4_WALK_STOP;
		}
	}
	if (w->depth == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct frame *s = realloc(w->stack, cap * sizeof(*s));

		if (!s) {
			e4_dir_free(d);
			free(order);
			w->nomem = 1;
			return 1;
		}
		w->stack = s;
		w->cap = cap;
	}
	f = &w->stack[w->depth++];
	memset(f, 0, sizeof(*f));
	f->dir = d;
	f->order = order;
	f->norder = norder;
	f->path_len = w->path.len;
	f->rel_len = w->rel.len;
	f->inode = *in;
	f->node = *n;
	if (n->entry)
		f->entry = *n->entry; /* n->entry is the caller's local */
	f->data = data;
	return 0;
}

static void leave(struct walker *w)
{
	struct frame *f = &w->stack[w->depth - 1];

	sb_cut(&w->path, f->path_len);
	sb_cut(&w->rel, f->rel_len);
	f->node.path = w->path.p;
	f->node.rel = w->rel.p;
	f->node.inode = &f->inode;
	/* the frame may have moved since (the stack grows) */
	if (f->node.entry)
		f->node.entry = &f->entry;
	if (w->v->leave)
		w->v->leave(w->arg, &f->node, f->dir, f->data);
	e4_dir_free(f->dir);
	free(f->order);
	w->depth--;
}

/* The next entry of the top directory; 1 when the walk must stop. */
static int step(struct walker *w)
{
	struct e4_fs *fs = w->fs;
	struct frame *f = &w->stack[w->depth - 1];
	struct e4_walk_node n;
	struct e4_entry e;
	struct e4_inode in;
	int have = 0, want;
	enum e4_walk_action a = E4_WALK_CONTINUE;

	e4_dir_get(f->dir, f->order ? f->order[f->next] : f->next, &e);
	f->next++;
	sb_cut(&w->path, f->path_len);
	sb_cut(&w->rel, f->rel_len);
	if (sb_add_name(&w->path, e.name, e.name_len, 0) ||
	    sb_add_name(&w->rel, e.name, e.name_len, 1)) {
		w->nomem = 1;
		return 1;
	}
	memset(&n, 0, sizeof(n));
	n.path = w->path.p;
	n.path_len = w->path.len;
	n.rel = w->rel.p;
	n.depth = f->node.depth + 1;
	n.ino = e.ino;
	n.entry = &e;
	n.parent = e4_dir_facts(f->dir);
	n.parent_data = f->data;
	w->stats->entries++;
	/* the inode's mode, not the entry's file type, says what it is */
	want = w->o->need_inodes || w->o->recursive;
	if (want && w->v->skip_inode && w->v->skip_inode(w->arg, e.ino)) {
		want = 0;
		n.inode_skipped = 1;
	}
	if (want)
		w->stats->inodes_read++;
	if (want && (n.inode_status = e4_inode_read(fs, e.ino, n.path, &in)) == E4_OK) {
		if (in.in_use) {
			have = 1;
		} else {
			e4_report_p(fs, E4_DIAG_ERROR, E4_CORRUPT, E4_P_UNUSED_INODE,
				    e.ino, n.path, "the entry's inode is not in use");
			n.inode_status = E4_NOT_FOUND;
		}
	}
	if (want && !have)
		w->stats->problems++;
	n.inode = have ? &in : NULL;
	if (w->v->entry)
		a = w->v->entry(w->arg, &n);
	if (a == E4_WALK_STOP)
		return 1;
	if (a == E4_WALK_CONTINUE && w->o->recursive && have &&
	    E4_ISDIR(in.mode))
		return enter(w, &n, &in);
	return 0;
}

enum e4_status e4_walk(struct e4_fs *fs, uint32_t start, const char *start_path,
		       const struct e4_walk_options *o,
		       const struct e4_walk_visitor *v, void *arg,
		       struct e4_walk_stats *stats)
{
	struct e4_walk_stats dummy;
	struct walker w;
	struct e4_walk_node n;
	struct e4_inode in;
	enum e4_walk_action a = E4_WALK_CONTINUE;
	enum e4_status st;
	int stop = 0;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	memset(&w, 0, sizeof(w));
	w.fs = fs, w.o = o, w.v = v, w.arg = arg, w.stats = stats;
	/* display paths are escaped: the start too, given as raw bytes */
	if (sb_reserve(&w.path, E4_ESCAPE_SIZE(strlen(start_path))) || sb_reserve(&w.rel, 0)) {
		free(w.path.p);
		free(w.rel.p);
		return E4_NOMEM;
	}
	w.path.len = e4_escape((const uint8_t *)start_path, strlen(start_path), w.path.p, 0);
	st = e4_inode_read(fs, start, w.path.p, &in);
	if (st != E4_OK) {
		free(w.path.p);
		free(w.rel.p);
		return st;
	}
	w.rel.p[0] = '\0';
	if (o->prescan && o->recursive && !o->need_inodes && E4_ISDIR(in.mode))
		prescan(&w);
	memset(&n, 0, sizeof(n));
	n.path = w.path.p;
	n.path_len = w.path.len;
	n.rel = w.rel.p;
	n.ino = start;
	n.inode = &in;
	if (v->entry)
		a = v->entry(arg, &n);
	if (a == E4_WALK_STOP)
		stop = 1;
	else if (a == E4_WALK_CONTINUE && E4_ISDIR(in.mode))
		stop = enter(&w, &n, &in);
	while (w.depth && !stop) {
		struct frame *f = &w.stack[w.depth - 1];

		if (f->next == (f->order ? f->norder : e4_dir_count(f->dir))) {
			leave(&w);
			continue;
		}
		/* without -R only the start's own entries */
		if (!o->recursive && w.depth > 1) {
			leave(&w);
			continue;
		}
		stop = step(&w);
	}
	while (w.depth)
		leave(&w);
	if (w.nomem)
		e4_report(fs, E4_DIAG_ERROR, E4_NOMEM, 0, start_path,
			  "out of memory in the tree walk");
	free(w.stack);
	free(w.path.p);
	free(w.rel.p);
	e4_blockset_free(&w.entered);
	for (size_t g = 0; g < w.ngroups; g++)
		free(w.files[g]);
	free(w.files);
	return w.nomem ? E4_NOMEM : stop ? E4_STOPPED : E4_OK;
}
