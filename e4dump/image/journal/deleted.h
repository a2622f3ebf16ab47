/* A deleted entry as the journal's copies give it: what undelete's scan
 * passes and what recovery (recovery.h) rebuilds a file from. */
#ifndef E4_DELETED_H
#define E4_DELETED_H

#include <stddef.h>
#include <stdint.h>
#include "context.h"
#include "dir.h"
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

/* The path in the image of deleted entry d, in display form, the same
 * in every writer (undelete's JSON and manifest, timeline's JSON and body
 * file, the Python module): "/a/b", each name escaped as the walker
 * escapes it (E4_ESCAPE_SLASH: a '/' inside a name is "\x2f"); an
 * orphan (a freed inode whose name no copy holds) is
 * "/$OrphanFiles/OrphanFile-INO", as The Sleuth Kit names them.
 * malloc'd; NULL when out of memory. */
char *e4_deleted_path(const struct e4_deleted *d);

/* Return non-zero to stop the scan. */
typedef int (*e4_deleted_fn)(void *arg, const struct e4_deleted *d);

#endif
