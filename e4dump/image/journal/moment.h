/* Internal to journal/: the filesystem at a moment of the journal (the
 * core readers reading the newest copy before a transaction) and the
 * block maps of inode copies read through it; defined in recovery.c, used
 * by undelete.c and recovery.c. */
#ifndef E4_JOURNAL_MOMENT_H
#define E4_JOURNAL_MOMENT_H

#include "blockmap.h"
#include "fs_private.h"
#include "journal.h"

#define E4_NO_LIMIT UINT32_MAX  /* transaction bound: none */

/* The runs of an inode copy. */
struct e4_runvec {
	struct e4_run *v;
	size_t n, cap;
	uint64_t blocks;        /* every mapped block, past i_size too */
	uint64_t below;         /* runs only below this block */
	uint64_t tree_blocks;   /* index, leaf or indirect blocks read */
	uint64_t tree_live;     /* of them, read from the live image */
};

/* The block map of inode copy in as it was before transaction (index)
 * limit: tree blocks read through the moment (e4_moment_enter: the
 * newest journal copy below it unless revoked, else the live image).  E4_OK, E4_NOMEM, or E4_CORRUPT / the reader's error with
 * *why (the runs before the damage are kept). */
enum e4_status e4_copy_map(struct e4_fs *fs, const struct e4_journal *j,
			   const struct e4_inode *in, uint32_t limit,
			   uint64_t below, struct e4_runvec *rv, const char **why);

/* The newest copy of fs block blk from a transaction below limit. */
const struct e4_jcopy *e4_newest_copy(const struct e4_journal *j, uint64_t blk,
				      uint32_t limit);

/* The filesystem as journal j says it was before transaction (index)
 * limit (fs_private.h, e4_fs_moment_enter): the core readers called
 * between enter and leave read that moment. */
struct e4_moment {
	struct e4_fs *fs;
	const struct e4_journal *j;
	uint32_t limit;
	uint64_t reads;                 /* blocks read through it, */
	uint64_t live_reads;            /* of them from the live image */
	struct e4_fs_moment_save save;
};
void e4_moment_enter(struct e4_fs *fs, const struct e4_journal *j, uint32_t limit,
		     struct e4_moment *m);
void e4_moment_leave(struct e4_moment *m);

#endif
