/* e4dump verify: a conformance checker of the ext4 encryption format.
 * Every finding names an inode, a path and a stable check id (listed in
 * tests/verify/README.md).  Exit 0: no findings; 1: findings; 2: fatal. */
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "report.h"
#include "verify.h"

/* A key that opens no policy of the image is a finding.  Every policy is
 * looked up, so keys of policies without names (or of modes e4dump cannot
 * decrypt, matched by descriptor) count as used. */
static void check_keys(struct verify *v)
{
	struct keyring *kr = v->kr;
	struct inode_index *idx = keyring_index(kr);

	if (!kr->nkeys)
		return;
	for (size_t i = 0; i < idx->n; i++)
		if (idx->v[i].res == CTX_OK)
			keyring_lookup(kr, &idx->v[i].ctx);
	for (size_t i = 0; i < kr->nkeys; i++)
		if (!kr->keys[i].used)
			vfind(v, 0, NULL, "key.unused",
			      "the key from %s opens no policy of the image",
			      kr->keys[i].source);
}

int cmd_verify(const struct options *o)
{
	struct img im;
	struct keyring kr;
	struct verify v;
	int rc;

	rc = session_open(o, &im, &kr);
	if (rc)
		return rc;
	kr.listing = 1; /* a policy without its key: names are checked without */
	memset(&v, 0, sizeof(v));
	v.im = &im;
	v.kr = &kr;
	v.json = o->json;
	v.format = (enum name_format)o->format;
	v.ninodes = im.fs->super->s_inodes_count;
	v.path = calloc((size_t)v.ninodes + 1, sizeof(*v.path));
	v.parent = calloc((size_t)v.ninodes + 1, sizeof(*v.parent));
	if (!v.path || !v.parent) {
		report_error("%s: out of memory", im.path);
		rc = EXIT_FATAL;
		goto out;
	}
	verify_decide_format(&v);
	verify_tree(&v);
	if (verify_inodes(&v)) {
		rc = EXIT_FATAL;
		goto out;
	}
	check_keys(&v);
	if (v.nomem) {
		report_error("%s: out of memory", im.path);
		rc = EXIT_FATAL;
		goto out;
	}
	verify_print(&v);
	rc = v.n ? EXIT_SKIPPED : EXIT_DONE;
out:
	verify_free(&v);
	session_close(&im, &kr);
	return rc;
}
