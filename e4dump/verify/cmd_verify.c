/* e4dump verify: a conformance checker of the ext4 encryption format.
 * Every finding names an inode, a path and a stable check id (checks.h).
 * Exit 0: no findings; 1: findings; 2: fatal. */
#include <stdlib.h>
#include <string.h>
#include "verify_command.h"
#include "jsonout.h"
#include "session.h"
#include "verify.h"

/* Problems the library reports while verify reads the image: those that
 * are findings become findings; those verify checks itself are dropped;
 * the rest are printed as usual. */
static void verify_diag(void *arg, const struct e4_diag *d)
{
	struct verify *v = arg;
	const char *slash = d->path ? strrchr(d->path, '/') : NULL;
	/* a diagnostic of the walk names an entry of the directory being
	 * walked (or the directory being entered from it) */
	struct vref at = { v->cur ? v->cur : v->root, slash && slash[1] ? slash + 1 : NULL };
	const struct vref *where = d->path ? &at : NULL;

	if (v->mute_maps == 2 || (v->mute_maps && (d->problem == E4_P_DIR_BLOCK ||
			     d->problem == E4_P_BLOCK_MAP || d->problem == E4_P_INODE_SIZE)))
		return;
	switch (d->problem) {
	case E4_P_DIR_BLOCK:
		vfind(v, CHECK_DIR_CORRUPT, d->ino, where,
		      "cannot read the directory: %s", d->message);
		return;
	case E4_P_DIR_LOOP:
		vfind(v, CHECK_TREE_CYCLE, d->ino, where,
		      "directory entry leads back to an ancestor: a cycle");
		return;
	case E4_P_DIR_RELINK:
		vfind(v, CHECK_TREE_MULTIPLY_LINKED, d->ino, where,
		      "directory already reached by another path: directories cannot have two parents");
		return;
	case E4_P_INODE_SIZE:
		vfind(v, CHECK_INODE_SIZE, d->ino, where, "%s", d->message);
		return;
	case E4_P_BLOCK_MAP:
		vfind(v, CHECK_INODE_BLOCK_MAP, d->ino, where, "%s", d->message);
		return;
	case E4_P_SHORT:
		vfind(v, CHECK_IMAGE_SHORT, 0, NULL, "%s", d->message);
		return;
	case E4_P_NAME:
	case E4_P_DUP_NAME:
	case E4_P_UNUSED_INODE:
	case E4_P_NO_KEY:
		return; /* verify's own checks report these */
	default:
		report_diag(v->r, d);
	}
}

/* A key that opens no policy of the image is a finding.  Every policy is
 * looked up, so keys of policies without names (or of modes e4dump cannot
 * decrypt, matched by descriptor) count as used. */
static void check_keys(struct verify *v)
{
	const struct e4_enc_inode *idx;
	size_t n;

	if (!e4_keystore_count(v->keys))
		return;
	e4_fs_encrypted_inodes(v->fs, &idx, &n, NULL);
	for (size_t i = 0; i < n; i++) {
		struct e4_policy_key pk;

		if (idx[i].ctx_status == E4_OK)
			e4_fs_policy_key(v->fs, &idx[i].ctx, &pk);
	}
	for (size_t i = 0; i < e4_keystore_count(v->keys); i++)
		if (!e4_fs_key_used(v->fs, i))
			vfind(v, CHECK_KEY_UNUSED, 0, NULL,
			      "the key from %s opens no policy of the image",
			      e4_keystore_key(v->keys, i)->label);
}

int cmd_verify(const struct options *o, struct report *r)
{
	struct session s;
	struct verify v;
	int rc;

	memset(&v, 0, sizeof(v));
	v.r = r;
	v.json = o->json;
	rc = session_open_diag(&s, o, r, 1, verify_diag, &v);
	if (rc)
		return json_finish(o->json, "verify", r, rc);
	v.fs = s.fs;
	e4_fs_get_info(s.fs, &v.info);
	v.keys = s.keys;
	v.ninodes = v.info.inodes_count;
	v.root = pnode_new(NULL, "", 0);
	if (!v.root) {
		rc = EXIT_FATAL;
		goto out;
	}
	v.format = e4_fs_name_format(s.fs);
	/* the inode pass first: its findings get the paths the walk finds */
	if (verify_inodes(&v)) {
		claims_finish(&v);
		rc = EXIT_FATAL;
		goto out;
	}
	claims_finish(&v);
	/* about one entry per inode in use */
	progress_start(&v.progress, !o->quiet, "verifying", v.inodes);
	verify_tree(&v);
	progress_end(&v.progress);
	check_keys(&v);
	if (o->evidence && verify_evidence(&v, s.image, o->quiet)) {
		rc = EXIT_FATAL;
		goto out;
	}
	if (v.nomem) {
		report_error(r, "%s: out of memory", s.image);
		rc = EXIT_FATAL;
		goto out;
	}
	verify_print(&v);
	rc = finish_stdout(v.n ? EXIT_FINDINGS : EXIT_DONE, r);
out:
	verify_free(&v);
	session_close(&s);
	return rc;
}
