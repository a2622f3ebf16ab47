/* Deleted entries and their files, from the journal's copies of
 * directory blocks, inode-table blocks and extent-tree blocks (data blocks
 * are not journaled in data=ordered mode: they are read where they still
 * are, in the live image).  The rules (which copy belongs to a deleted
 * name, what makes a recovery exact) are in spec §15.3. */
#ifndef E4_UNDELETE_H
#define E4_UNDELETE_H

#include <stddef.h>
#include <stdint.h>
#include "deleted.h"
#include "journal.h"
#include "recovery.h"

/* Find the entries deleted from directory dir (and below it), from the
 * journal j of fs.  Each is passed once, parents before what was deleted
 * with them.  As the live walker does, each deleted directory is passed
 * under one name and searched once: another entry naming it is reported
 * (a second link, or a loop), not passed.  Entries naming a reserved
 * inode (below s_first_ino, the journal, quota or orphan-file inodes) are
 * noted and skipped: those are never a deleted file.  From the root, freed inodes (i_dtime set) that no name was
 * found for follow as orphans, named "<INO>".  Names decrypt with the directories' keys where the store has
 * them (no-key names otherwise).  E4_OK, E4_STOPPED, E4_NOMEM; problems
 * of single blocks and inodes are reported and skipped. */
enum e4_status e4_undelete_scan(struct e4_fs *fs, const struct e4_journal *j,
				uint32_t dir, e4_deleted_fn fn, void *arg);

#endif
