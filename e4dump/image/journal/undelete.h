/* Deleted entries and their files, from the journal's copies of
 * directory blocks, inode-table blocks and extent-tree blocks (data blocks
 * are not journaled in data=ordered mode: they are read where they still
 * are, in the live image).  The rules (which copy belongs to a deleted
 * name, what makes a recovery exact) are in spec §15.3. */
#ifndef E4_UNDELETE_H
#define E4_UNDELETE_H

#include <stddef.h>
#include <stdint.h>
#include "blockmap.h"
#include "dir.h"
#include "file.h"
#include "inode.h"
#include "journal.h"

/* One component of a path from the image root: the name shown (the
 * plaintext, or the no-key name), not NUL-terminated. */
struct e4_name_part {
	const uint8_t *name;
	size_t len;
};

/* A deleted entry: a name that journal copies of its directory's blocks
 * hold and the directory no longer does. */
struct e4_deleted {
	uint32_t parent;                /* the directory (inode) */
	uint32_t ino;                   /* what the entry named */
	uint8_t file_type;              /* EXT2_FT_* of the entry */
	const struct e4_name_part *parts; /* path from the root; the last */
	size_t nparts;                  /* is this entry's name */
	const uint32_t *inos;           /* the inode of each part (0: not
					 * known): what the path's
					 * directories are keyed by, never
					 * their names */
	enum e4_name_state name_state;  /* PLAIN, DECRYPTED, NOKEY or BAD */
	const uint8_t *raw_name;        /* the entry's stored name */
	size_t raw_len;
	int parent_deleted;             /* deleted together with its directory */
	int orphan;                     /* a freed inode whose name no copy
					 * holds: parts is "<INO>" */
	uint32_t seen_sequence;         /* newest transaction holding the name */
	int deleted_known;              /* a later copy without it was found: */
	uint32_t deleted_sequence;      /* its transaction */
	/* The inode as it was while the name was in use: the newest journal
	 * copy, older than the deletion, of an inode of the entry's type. */
	int have_inode;
	const char *no_inode_why;       /* when not */
	int still_in_use;               /* the live inode is the same one
					 * (same i_generation): renamed or
					 * another link remains; not a
					 * deleted file (have_inode 0) */
	struct e4_inode inode;
	uint32_t inode_sequence;        /* the copy's transaction */
	enum e4_jcopy_trust inode_trust;
	int inode_committed;            /* the copy's transaction committed */
	/* When it was freed (have_inode): i_dtime of the newest later
	 * journal copy of that inode freed (same i_generation), else of the
	 * live inode when it is that inode freed (dtime_sequence 0). */
	int have_dtime;
	uint32_t dtime;
	uint32_t dtime_sequence;        /* the copy's transaction, or 0 */
	int encrypted;                  /* inode.encrypted, with ctx: */
	int have_ctx;
	struct e4_context ctx;
	uint32_t before;                /* (library) the copies used are from
					 * transactions below this index */
};

/* Return non-zero to stop the scan. */
typedef int (*e4_deleted_fn)(void *arg, const struct e4_deleted *d);

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

/* A range of a recovered file's blocks that cannot be trusted, and why. */
struct e4_suspect {
	uint64_t lblk;
	uint64_t count;
	const char *why;                /* static text */
};

struct e4_recovery;

/* Rebuild regular file d (have_inode): its block map from the inode copy
 * and journal copies of its extent-tree blocks, its cipher from its
 * context.  locked: no decryption (ciphertext), for --keep-locked.
 * E4_NO_KEY when its policy is locked and not locked; E4_CORRUPT with
 * *why when no map can be built. */
enum e4_status e4_recovery_open(struct e4_fs *fs, const struct e4_journal *j,
				const struct e4_deleted *d, int locked,
				struct e4_recovery **out, const char **why);
/* Pass its bytes (decrypted; locked: the ciphertext of every block
 * whole, to the end of the last block) up to i_size in increasing
 * offsets (holes left out), reading data blocks from the live image; the
 * checks of each block are made on the way.  E4_NOMEM when a suspect
 * range could not be recorded (the file cannot be called exact). */
enum e4_status e4_recovery_stream(struct e4_recovery *r, e4_sink_fn sink,
				  void *arg);
/* After the stream: the suspect ranges (*v, sorted; valid until freed). */
size_t e4_recovery_suspects(const struct e4_recovery *r,
			    const struct e4_suspect **v);
uint64_t e4_recovery_size(const struct e4_recovery *r);
/* Its block map as rebuilt (*v: sorted by logical block, unwritten ones
 * marked; valid until freed): where its bytes are in the image. */
size_t e4_recovery_runs(const struct e4_recovery *r, const struct e4_run **v);
void e4_recovery_free(struct e4_recovery *r);

/* A deleted symlink's target (malloc'd, NUL-terminated), decrypted; with
 * locked and no key, what readlink shows without it (*nokey set).  Its
 * block is the newest journal copy from before the deletion, else the
 * live block.  E4_NO_KEY, or E4_CORRUPT with *why. */
enum e4_status e4_recovery_symlink(struct e4_fs *fs, const struct e4_journal *j,
				   const struct e4_deleted *d, int locked,
				   char **target, size_t *len, int *nokey,
				   const char **why);
/* Its stored bytes (malloc'd: an encrypted symlink's length header and
 * ciphertext, as e4_symlink_raw gives them), from the same copy, for
 * --keep-locked's sidecar.  E4_INVALID without a symlink's inode copy,
 * else as e4_symlink_raw. */
enum e4_status e4_recovery_symlink_raw(struct e4_fs *fs, const struct e4_journal *j,
				       const struct e4_deleted *d, uint8_t **blob,
				       size_t *size);

#endif
