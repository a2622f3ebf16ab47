/* The encrypted directories each policy covers, as `fscrypt status` tells
 * them: a policy's top directories are those whose parent is not
 * encrypted or has another policy (a directory inside another policy's
 * directory, which the kernel refuses to make, is reported).  Found by one
 * walk of the tree (only directories' inodes read); only the top
 * directories are kept, at most POLICYDIRS_MAX_TOPS per policy and
 * POLICYDIRS_MAX_POLICIES policies, the rest counted. */
#ifndef E4DUMP_POLICYDIRS_H
#define E4DUMP_POLICYDIRS_H

#include <json-c/json.h>
#include "context.h"
#include "fs.h"
#include "report.h"

#define POLICYDIRS_MAX_TOPS 64
#define POLICYDIRS_MAX_POLICIES 64

struct policy_top {
	char *path;             /* display form, as the walker builds it */
	uint32_t ino;
	int inside;             /* its parent is encrypted under another policy */
	struct e4_context outer; /* that policy, when inside */
};

struct policy_tops {
	struct e4_context ctx;
	struct policy_top *top;
	size_t n;
	size_t more;            /* top directories beyond the cap, counted */
};

struct policy_dirs {
	struct policy_tops pol[POLICYDIRS_MAX_POLICIES];
	size_t n;
	size_t more;            /* top directories of further policies */
	int walked;             /* 0: no walk (no encrypted directory) */
};

/* Walk fs from the root and fill pd (zeroed first).  Problems of the walk
 * (loops, unreadable directories) are reported by the walker; a top
 * directory inside another policy's directory is reported here. */
void policy_dirs_collect(struct e4_fs *fs, struct report *r,
			 struct policy_dirs *pd);
void policy_dirs_free(struct policy_dirs *pd);

/* The top directories of the policies with this version and key
 * descriptor/identifier (lowercase hex): appended to JSON array a (may be
 * NULL), printed as text lines with indent (may be NULL); the count of
 * those not listed is returned through *more.  Returns how many were
 * listed. */
size_t policy_dirs_emit(const struct policy_dirs *pd, unsigned int version,
			const char *key_hex, json_object *a,
			const char *indent, size_t *more);

/* Whether the walk kept ctx's policy (one of the first
 * POLICYDIRS_MAX_POLICIES): a policy it did not keep has directories
 * that were not collected, not none. */
int policy_dirs_tracked(const struct policy_dirs *pd, const struct e4_context *ctx);

/* The same for one policy exactly (e4_context_same_policy). */
size_t policy_dirs_emit_ctx(const struct policy_dirs *pd,
			    const struct e4_context *ctx, json_object *a,
			    const char *indent, size_t *more);

#endif
