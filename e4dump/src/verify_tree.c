/* e4dump verify: the directory tree from the root.  Each directory is
 * visited once (an explicit stack, no recursion); a directory met again is
 * a cycle or a second link, never a loop. */
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include "casefold_hash.h"
#include "dirlist.h"
#include "kdf.h"
#include "keyring.h"
#include "report.h"
#include "verify.h"

struct collect {
	struct ventry *v;
	struct dent *d;      /* parallel to v */
	size_t n, cap;
	int nomem;
	int hashes;          /* casefold + encrypt: entries store a hash pair */
};

static int collect_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct collect *c = priv;
	unsigned int len = ext2fs_dirent_name_len(de);
	struct ventry *e;
	struct dent *d;

	(void)dir, (void)entry, (void)offset, (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		e = realloc(c->v, cap * sizeof(*e));
		if (e)
			c->v = e;
		d = realloc(c->d, cap * sizeof(*d));
		if (d)
			c->d = d;
		if (!e || !d) {
			c->nomem = 1;
			return DIRENT_ABORT;
		}
		c->cap = cap;
	}
	e = &c->v[c->n];
	d = &c->d[c->n++];
	memset(e, 0, sizeof(*e));
	memset(d, 0, sizeof(*d));
	d->ino = de->inode;
	d->ftype = (uint8_t)ext2fs_dirent_file_type(de);
	d->raw_len = len;
	memcpy(d->raw, de->name, len);
	e->len_field = de->name_len;
	if (c->hashes) {
		d->has_hash = !casefold_stored_hash(de, blocksize, &d->hash,
						    &d->minor_hash);
		e->hash_missing = !d->has_hash;
	}
	return 0;
}

struct stack {
	ext2_ino_t *v;
	size_t n, cap;
};

static int push(struct stack *s, ext2_ino_t ino)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		ext2_ino_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ino;
	return 0;
}

static char *join(const char *dir, const char *name)
{
	size_t ld = strlen(dir);
	char *s = malloc(ld + strlen(name) + 2);

	if (s)
		strcpy(stpcpy(stpcpy(s, dir), ld && dir[ld - 1] == '/' ? "" : "/"), name);
	return s;
}

/* Is anc an ancestor of (or equal to) dir in the walk? */
static int is_ancestor(struct verify *v, ext2_ino_t anc, ext2_ino_t dir)
{
	for (uint32_t steps = 0; steps <= v->ninodes; steps++) {
		if (dir == anc)
			return 1;
		if (dir == EXT2_ROOT_INO || dir == 0 || dir > v->ninodes)
			return 0;
		dir = v->parent[dir];
	}
	return 0;
}


struct dirwalk {
	struct stack todo;
	ext2_ino_t *indexed;  /* htree directories, checked at the end */
	size_t nindexed, capindexed;
};

static void visit_child(struct verify *v, struct dirwalk *w, ext2_ino_t dir,
			struct ventry *e, const char *path,
			const struct ext2_inode_large *child)
{
	ext2_ino_t ino = e->d->ino;

	if (!v->path[ino])
		v->path[ino] = strdup(path);
	if (!LINUX_S_ISDIR(child->i_mode))
		return;
	if (ino == EXT2_ROOT_INO || v->parent[ino]) {
		if (is_ancestor(v, ino, dir))
			vfind(v, ino, path, "tree.cycle",
			      "directory entry leads back to directory %s (inode %u), an ancestor: a cycle",
			      verify_path(v, ino), ino);
		else
			vfind(v, ino, path, "tree.multiply_linked",
			      "directory already reached as %s: directories cannot have two parents",
			      verify_path(v, ino));
		return;
	}
	v->parent[ino] = dir;
	if (push(&w->todo, ino))
		v->nomem = 1;
}

/* Casefolded encrypted directories: every entry stores the SipHash pair
 * of its casefolded plaintext name (spec section 10.8); with the key it is
 * recomputed from the decrypted name. */
static void check_casefold_hashes(struct verify *v, ext2_ino_t dir,
				  const struct e4_context *dctx,
				  struct ventry *e, size_t n, char **paths)
{
	const struct master_key *mk = NULL;
	const struct ext2fs_nls_table *enc = casefold_table(v->im->fs);
	uint8_t key[16];
	int have_key = 0;

	if (dctx && dctx->version == 2 && v->kr->nkeys) {
		mk = keyring_lookup(v->kr, dctx);
		have_key = mk && !casefold_dirhash_key(mk->raw, mk->len, dctx->nonce, key);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t h, m;
		int r;

		if (e[i].hash_missing) {
			vfind(v, dir, paths[i], "dirent.casefold_hash",
			      "entry of a casefolded encrypted directory has no room for its hash pair");
			continue;
		}
		if (!have_key || !e[i].dec)
			continue;
		r = casefold_dirhash(enc, key, e[i].plain, e[i].plain_len, &h, &m);
		if (r == -2)
			break;  /* libext2fs' casefolding unusable: cannot judge */
		if (!r && (h != e[i].d->hash || m != e[i].d->minor_hash))
			vfind(v, dir, paths[i], "dirent.casefold_hash",
			      "stored hash pair %08x/%08x, but the casefolded name hashes to %08x/%08x",
			      e[i].d->hash, e[i].d->minor_hash, h, m);
	}
	e4_wipe(key, sizeof(key));
}

static void walk_dir(struct verify *v, struct dirwalk *w, ext2_ino_t dir)
{
	struct ext2_super_block *sb = v->im->fs->super;
	struct ext2_inode_large inode;
	struct collect col = { NULL, NULL, 0, 0, 0, 0 };
	struct e4_context dctx;
	struct e4_cipher *cipher = NULL;
	const char *why, *dpath = verify_path(v, dir);
	char **paths = NULL;
	int encrypted, dctx_ok = 0;
	errcode_t err;

	if (img_read_inode(v->im, dir, &inode) || !LINUX_S_ISDIR(inode.i_mode))
		return;
	v->dirs++;
	encrypted = img_inode_encrypted(&inode);
	col.hashes = casefold_hash_in_dirent((struct ext2_inode *)&inode);
	err = ext2fs_dir_iterate2(v->im->fs, dir, 0, NULL, collect_cb, &col);
	if (col.nomem) {
		v->nomem = 1;
		goto out;
	}
	if (err)
		vfind(v, dir, NULL, "dir.corrupt", "cannot read the directory: %s",
		      error_message(err));
	if ((inode.i_flags & EXT2_INDEX_FL) && ext2fs_has_feature_dir_index(sb) &&
	    !(inode.i_flags & EXT4_INLINE_DATA_FL)) {
		if (w->nindexed == w->capindexed) {
			size_t cap = w->capindexed ? 2 * w->capindexed : 16;
			ext2_ino_t *p = realloc(w->indexed, cap * sizeof(*p));

			if (!p) {
				v->nomem = 1;
				goto out;
			}
			w->indexed = p;
			w->capindexed = cap;
		}
		w->indexed[w->nindexed++] = dir;
	}
	if (encrypted) {
		dctx_ok = img_read_context(v->im, dir, &dctx, &why) == CTX_OK;
		if (dctx_ok && (v->kr->nkeys || v->kr->dummy_key) &&
		    keyring_inode_cipher(v->kr, dir, &dctx, 1, &cipher) != E4_OK)
			cipher = NULL;
	}
	paths = calloc(col.n ? col.n : 1, sizeof(*paths));
	if (!paths) {
		v->nomem = 1;
		goto out;
	}
	/* Shown names: plain, decrypted, or else the no-key name. */
	for (size_t i = 0; i < col.n; i++)
		col.v[i].d = &col.d[i];
	if (encrypted && col.n)
		dir_nokey_names(v->im, dir, &inode,
				v->format == FORMAT_2015 ? FORMAT_2015 : FORMAT_61,
				col.d, col.n);
	for (size_t i = 0; i < col.n; i++) {
		struct ventry *e = &col.v[i];
		struct ext2_inode_large child;
		int child_ok = 0;
		char esc[4 * 256 + 1], tmp[4 * 256 + 1];

		v->entries++;
		if (!encrypted)
			escape_name(e->d->raw, e->d->raw_len, esc);
		else
			escape_name((unsigned char *)e->d->name, strlen(e->d->name), esc);
		paths[i] = join(dpath, esc);
		if (!paths[i]) {
			v->nomem = 1;
			break;
		}
		if (e->d->ino == 0 || e->d->ino > v->ninodes) {
			vfind(v, dir, paths[i], "dirent.bad_inode",
			      "entry points to inode %u, outside 1..%u", e->d->ino,
			      v->ninodes);
		} else if (ext2fs_read_inode2(v->im->fs, e->d->ino,
					      (struct ext2_inode *)&child,
					      sizeof(child), 0)) {
			vfind(v, dir, paths[i], "dirent.bad_inode",
			      "entry points to inode %u, which cannot be read", e->d->ino);
		} else if (!child.i_links_count || !child.i_mode || child.i_dtime) {
			vfind(v, dir, paths[i], "dirent.bad_inode",
			      "entry points to inode %u, which is not in use", e->d->ino);
		} else {
			child_ok = 1;
		}
		if (encrypted) {
			verify_encrypted_entry(v, e, paths[i], &dctx, dctx_ok,
					       cipher, &child, child_ok);
			if (e->dec) {
				/* the path shows the decrypted name */
				char *p;

				escape_name(e->plain, e->plain_len, tmp);
				p = join(dpath, tmp);
				if (p) {
					free(paths[i]);
					paths[i] = p;
				}
			}
		}
		if (child_ok)
			visit_child(v, w, dir, e, paths[i], &child);
	}
	if (col.hashes && !v->nomem)
		check_casefold_hashes(v, dir, dctx_ok ? &dctx : NULL, col.v, col.n, paths);
	if (col.n > 1 && !v->nomem)
		verify_duplicates(v, col.v, col.n, paths, encrypted);
out:
	if (paths)
		for (size_t i = 0; i < col.n; i++)
			free(paths[i]);
	free(paths);
	for (size_t i = 0; i < col.n; i++)
		memset(col.v[i].plain, 0, sizeof(col.v[i].plain));
	free(col.v);
	free(col.d);
	e4_cipher_free(cipher);
}


void verify_tree(struct verify *v)
{
	struct dirwalk w;

	memset(&w, 0, sizeof(w));
	v->path[EXT2_ROOT_INO] = strdup("/");
	v->parent[EXT2_ROOT_INO] = EXT2_ROOT_INO;
	if (!v->path[EXT2_ROOT_INO] || push(&w.todo, EXT2_ROOT_INO)) {
		v->nomem = 1;
		return;
	}
	while (w.todo.n && !v->nomem) {
		ext2_ino_t dir = w.todo.v[--w.todo.n];

		walk_dir(v, &w, dir);
	}
	free(w.todo.v);
	/* htree hashes depend on the format, known once all names were seen */
	verify_judge_lengths(v);
	for (size_t i = 0; i < w.nindexed && !v->nomem; i++) {
		struct ext2_inode_large inode;

		if (img_read_inode(v->im, w.indexed[i], &inode))
			continue;
		verify_htree(v, w.indexed[i], &inode,
			     img_inode_encrypted(&inode) && v->format == FORMAT_2015);
	}
	free(w.indexed);
}
