/* e4dump verify: the directory tree from the root, walked once by the
 * library's walker (which reports cycles and second links; cmd_verify.c
 * turns those reports into findings).  Each directory's entries are
 * checked together when it is entered. */
#include <stdlib.h>
#include <string.h>
#include "casefold.h"
#include "escape.h"
#include "kdf.h"
#include "keysetup.h"
#include "verify.h"
#include "walk.h"

/* Casefolded encrypted directories: every entry stores the SipHash pair
 * of its casefolded plaintext name (spec section 10.8); with the key it is
 * recomputed from the decrypted name. */
static void check_casefold_hashes(struct verify *v, const struct e4_dir *d,
				  const struct e4_context *dctx, int dctx_ok,
				  struct pnode *dir)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	const struct ext2fs_nls_table *enc = e4_fs_casefold_table(v->fs);
	struct e4_policy_key pk;
	uint8_t key[16];
	int have_key = 0;

	if (dctx_ok && dctx->version == E4_CONTEXT_V2 &&
	    e4_fs_policy_key(v->fs, dctx, &pk) == E4_OK && pk.key >= 0) {
		const struct e4_master_key *mk = e4_keystore_key(v->keys, (size_t)pk.key);

		have_key = e4_keysetup_dirhash_key(mk, dctx, key) == E4_OK;
	}
	for (size_t i = 0; i < e4_dir_count(d) && !v->nomem; i++) {
		struct e4_entry e;
		struct vref at;
		uint32_t h, m;

		e4_dir_get(d, i, &e);
		if (!e.has_hash) {
			if (verify_entry_ref(v, d, i, dir, &at))
				break;
			vfind(v, CHECK_DIRENT_CASEFOLD_HASH, f->ino, &at,
			      "entry of a casefolded encrypted directory has no room for its hash pair");
			free((char *)at.name);
			continue;
		}
		if (!have_key || !e.plain || !(e.state == E4_NAME_DECRYPTED ||
					       e.problem == E4_NAME_UNTRUSTED))
			continue;
		if (e.plain_len && v->info.casefold_feature && !enc)
			break; /* libext2fs' casefolding unusable: cannot judge */
		if (!e4_casefold_dirhash(enc, key, e.plain, e.plain_len, &h, &m) &&
		    (h != e.hash || m != e.minor_hash) &&
		    !verify_entry_ref(v, d, i, dir, &at)) {
			vfind(v, CHECK_DIRENT_CASEFOLD_HASH, f->ino, &at,
			      "stored hash pair %08x/%08x, but the casefolded name hashes to %08x/%08x",
			      e.hash, e.minor_hash, h, m);
			free((char *)at.name);
		}
	}
	e4_wipe(key, sizeof(key));
}

/* The escaped last name of a display path. */
static const char *last_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* What the walk keeps of a directory while it is in it. */
struct vdir {
	struct pnode *node;
	const struct e4_dir_facts *f;
	struct e4_context dctx;
	int dctx_ok;
};

/* The checks of a whole listing: duplicates, casefold hashes, htree.
 * Entries' places are made only for findings. */
static void check_dir(struct verify *v, const struct e4_walk_node *n,
		      const struct e4_dir *d, struct vdir *vd)
{
	const struct e4_dir_facts *f = vd->f;
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	struct vref self = { vd->node, NULL };

	v->dirs++;
	if (f->encrypted && f->casefolded)
		check_casefold_hashes(v, d, &vd->dctx, vd->dctx_ok, vd->node);
	if (!v->nomem && e4_dir_count(d) > 1)
		verify_duplicates(v, d, vd->node);
	if (!v->nomem && f->indexed && ext2fs_has_feature_dir_index(sb) &&
	    !(n->inode->flags & E4_INODE_INLINE_DATA_FL))
		verify_htree(v, n->inode, &self);
}

/* An entry's inode: its encryption from the index (the scan read it), or
 * read when the index does not have it.  0 when it cannot be had. */
static int child_facts(struct verify *v, const struct e4_walk_node *n,
		       struct child_facts *cf)
{
	const struct e4_enc_inode *ei = verify_enc_inode(v, n->ino);
	const struct e4_inode *c = n->inode;
	struct e4_inode in;
	const char *why;

	if (ei) {
		cf->mode = ei->mode;
		cf->encrypted = ei->flagged;
		cf->ctx_status = ei->ctx_status;
		cf->ctx = ei->ctx;
		return 1;
	}
	if (!c) {
		if (e4_inode_read(v->fs, n->ino, n->path, &in) != E4_OK || !in.in_use)
			return 0;
		c = &in;
	}
	cf->mode = c->mode;
	cf->encrypted = c->encrypted;
	cf->ctx_status = e4_inode_context(v->fs, c, &cf->ctx, &why);
	return 1;
}

/* One entry: its inode in use, and in an encrypted directory its name,
 * encryption and policy. */
static void check_entry(struct verify *v, const struct e4_walk_node *n,
			const struct vdir *vd, const struct vref *at)
{
	const struct e4_entry *e = n->entry;
	struct child_facts cf;
	int have = 0;

	if (n->inode_status == E4_NOT_FOUND)
		vfind(v, CHECK_DIRENT_BAD_INODE, vd->f->ino, at,
		      "entry points to inode %u, which is not in use", e->ino);
	/* an inode ext4 refuses is its own finding (inode.size) */
	else if (n->inode_status != E4_OK && n->inode_status != E4_CORRUPT)
		vfind(v, CHECK_DIRENT_BAD_INODE, vd->f->ino, at,
		      "entry points to inode %u, which cannot be read", e->ino);
	else if (n->inode_status == E4_OK && vd->f->encrypted)
		have = child_facts(v, n, &cf);
	if (vd->f->encrypted)
		verify_encrypted_entry(v, e, at, &vd->dctx, vd->dctx_ok,
				       vd->f->have_key, have ? &cf : NULL);
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct verify *v = arg;
	const struct vdir *vd = n->parent_data;
	struct vref at = { v->root, NULL };

	if (n->entry) {
		at.dir = vd->node;
		at.name = last_name(n->path);
	}
	verify_saw_path(v, n->ino, &at);
	if (n->entry) {
		v->entries++;
		check_entry(v, n, vd, &at);
		progress_add(&v->progress, 1, 0);
	}
	return v->nomem ? E4_WALK_STOP : E4_WALK_CONTINUE;
}

static enum e4_walk_action enter(void *arg, const struct e4_walk_node *n,
				 const struct e4_dir *listing, void **data)
{
	struct verify *v = arg;
	struct vdir *vd = calloc(1, sizeof(*vd));
	const char *why;

	if (vd && !n->entry) {
		vd->node = pnode_ref(v->root);
	} else if (vd) {
		const char *name = last_name(n->path);

		vd->node = pnode_new(((const struct vdir *)n->parent_data)->node,
				     name, strlen(name));
	}
	if (!vd || !vd->node) {
		free(vd);
		v->nomem = 1;
		return E4_WALK_STOP;
	}
	*data = vd;
	v->cur = vd->node;
	vd->f = e4_dir_facts(listing);
	if (vd->f->encrypted)
		vd->dctx_ok = e4_inode_context(v->fs, n->inode, &vd->dctx, &why) == E4_OK;
	check_dir(v, n, listing, vd);
	return v->nomem ? E4_WALK_STOP : E4_WALK_CONTINUE;
}

static void leave(void *arg, const struct e4_walk_node *n,
		  const struct e4_dir *listing, void *data)
{
	struct verify *v = arg;
	struct vdir *vd = data;

	(void)n, (void)listing;
	v->cur = vd->node->parent;
	pnode_unref(vd->node);
	free(vd);
}

static int skip_inode(void *arg, uint32_t ino)
{
	return verify_known_file(arg, ino);
}

void verify_tree(struct verify *v)
{
	struct e4_walk_options wo = { 1, 0, E4_LIST_UNSORTED | E4_LIST_QUIET, 0 };
	struct e4_walk_visitor vis = {
		.entry = entry, .enter = enter, .leave = leave,
		.skip_inode = skip_inode,
	};

	e4_walk(v->fs, EXT2_ROOT_INO, "/", &wo, &vis, v, NULL);
}
