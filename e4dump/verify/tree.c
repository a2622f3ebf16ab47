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
				  const struct vref *at)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	const struct ext2fs_nls_table *enc = e4_fs_casefold_table(v->fs);
	struct e4_policy_key pk;
	uint8_t key[16];
	int have_key = 0;

	if (dctx_ok && dctx->version == E4_CONTEXT_V2 &&
	    e4_fs_policy_key(v->fs, dctx, &pk) == E4_OK && pk.key >= 0) {
		const struct e4_master_key *mk = e4_keystore_key(v->keys, (size_t)pk.key);

		have_key = e4_keysetup_dirhash_key(mk->raw, mk->len, dctx, key) == E4_OK;
	}
	for (size_t i = 0; i < e4_dir_count(d); i++) {
		struct e4_entry e;
		uint32_t h, m;

		e4_dir_get(d, i, &e);
		if (!e.has_hash) {
			vfind(v, CHECK_DIRENT_CASEFOLD_HASH, f->ino, &at[i],
			      "entry of a casefolded encrypted directory has no room for its hash pair");
			continue;
		}
		if (!have_key || !e.plain || !(e.state == E4_NAME_DECRYPTED ||
					       e.problem == E4_NAME_UNTRUSTED))
			continue;
		if (e.plain_len && v->fs->info.casefold_feature && !enc)
			break; /* libext2fs' casefolding unusable: cannot judge */
		if (!e4_casefold_dirhash(enc, key, e.plain, e.plain_len, &h, &m) &&
		    (h != e.hash || m != e.minor_hash))
			vfind(v, CHECK_DIRENT_CASEFOLD_HASH, f->ino, &at[i],
			      "stored hash pair %08x/%08x, but the casefolded name hashes to %08x/%08x",
			      e.hash, e.minor_hash, h, m);
	}
	e4_wipe(key, sizeof(key));
}

/* The escaped last name of a display path. */
static const char *last_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void check_dir(struct verify *v, const struct e4_walk_node *n,
		      const struct e4_dir *d, struct pnode *node)
{
	const struct e4_dir_facts *f = e4_dir_facts(d);
	struct ext2_super_block *sb = e4_fs_ext2(v->fs)->super;
	struct e4_context dctx;
	const char *why;
	size_t count = e4_dir_count(d);
	struct vref *at = calloc(count ? count : 1, sizeof(*at));
	struct vref self = { node, NULL };
	int dctx_ok = 0;

	v->dirs++;
	if (!at) {
		v->nomem = 1;
		return;
	}
	if (f->encrypted)
		dctx_ok = e4_inode_context(v->fs, n->inode, &dctx, &why) == E4_OK;
	for (size_t i = 0; i < count && !v->nomem; i++) {
		struct e4_entry e;
		struct e4_inode child;
		enum e4_status st;
		char *name;
		int child_ok;

		e4_dir_get(d, i, &e);
		name = malloc(E4_ESCAPE_SIZE(e.name_len));
		if (!name) {
			v->nomem = 1;
			break;
		}
		e4_escape(e.name, e.name_len, name, E4_ESCAPE_SLASH);
		at[i].dir = node;
		at[i].name = name;
		st = e4_inode_read(v->fs, e.ino, NULL, &child);
		child_ok = st == E4_OK;
		/* an inode ext4 refuses is its own finding (inode.size) */
		if (!child_ok && st != E4_CORRUPT)
			vfind(v, CHECK_DIRENT_BAD_INODE, f->ino, &at[i],
			      "entry points to inode %u, which cannot be read", e.ino);
		else if (child_ok && !child.in_use)
			vfind(v, CHECK_DIRENT_BAD_INODE, f->ino, &at[i],
			      "entry points to inode %u, which is not in use", e.ino);
		if (f->encrypted)
			verify_encrypted_entry(v, &e, &at[i], &dctx, dctx_ok,
					       f->have_key,
					       child_ok && child.in_use ? &child : NULL);
	}
	if (!v->nomem && f->encrypted && f->casefolded)
		check_casefold_hashes(v, d, &dctx, dctx_ok, at);
	if (!v->nomem && count > 1)
		verify_duplicates(v, d, at);
	if (!v->nomem && f->indexed && ext2fs_has_feature_dir_index(sb) &&
	    !(n->inode->flags & E4_INODE_INLINE_DATA_FL))
		verify_htree(v, n->inode, &self);
	for (size_t i = 0; i < count; i++)
		free((char *)at[i].name);
	free(at);
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct verify *v = arg;
	struct vref at = { n->parent_data, n->entry ? last_name(n->path) : NULL };

	if (!n->entry)
		at.dir = v->root;
	verify_saw_path(v, n->ino, &at);
	if (n->entry)
		v->entries++;
	return v->nomem ? E4_WALK_STOP : E4_WALK_CONTINUE;
}

static enum e4_walk_action enter(void *arg, const struct e4_walk_node *n,
				 const struct e4_dir *listing, void **data)
{
	struct verify *v = arg;
	struct pnode *node;

	if (!n->entry) {
		node = pnode_ref(v->root);
	} else {
		const char *name = last_name(n->path);

		node = pnode_new(n->parent_data, name, strlen(name));
	}
	if (!node) {
		v->nomem = 1;
		return E4_WALK_STOP;
	}
	*data = node;
	v->cur = node;
	check_dir(v, n, listing, node);
	return v->nomem ? E4_WALK_STOP : E4_WALK_CONTINUE;
}

static void leave(void *arg, const struct e4_walk_node *n,
		  const struct e4_dir *listing, void *data)
{
	struct verify *v = arg;
	struct pnode *node = data;

	(void)n, (void)listing;
	v->cur = node->parent;
	pnode_unref(node);
}

void verify_tree(struct verify *v)
{
	struct e4_walk_options wo = { 1, 0, 0 };
	struct e4_walk_visitor vis = { entry, enter, leave };

	e4_walk(v->fs, EXT2_ROOT_INO, "/", &wo, &vis, v, NULL);
}
