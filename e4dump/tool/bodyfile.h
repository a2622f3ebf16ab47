/* The body file of The Sleuth Kit 3.x and later, as fls -m writes it
 * and mactime(1) reads it: one line per entry,
 *   MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|ctime|crtime
 * MD5 is 0 (not computed); name is the mount prefix (fls -m's argument,
 * trailing '/' dropped) and the path in the image, '|' escaped as \x7c,
 * then " -> TARGET" for a symlink whose target is known and " (deleted)"
 * (" (deleted-realloc)" when its inode is allocated again) for an entry
 * deleted from its directory, as fls writes them; mode_as_string is the
 * entry's type, '/', then the inode's type and permissions
 * ("r/rrw-r--r--"); times are seconds since the epoch (0: none), or with
 * nanoseconds "SECONDS.NNNNNNNNN" (TSK 4.11 and plaso read a decimal
 * fraction; mactime 4.11 drops it).  The one writer of body lines. */
#ifndef E4DUMP_BODYFILE_H
#define E4DUMP_BODYFILE_H

#include <stdint.h>
#include <stdio.h>
#include "inode.h"

struct bodyfile {
	FILE *f;
	const char *prefix;         /* the mount prefix, */
	size_t prefix_len;          /* without its trailing '/' */
	int nanoseconds;
};

/* prefix: fls -m's mount point, or NULL for none. */
void bodyfile_init(struct bodyfile *b, FILE *f, const char *prefix, int nanoseconds);

struct body_entry {
	const char *path;           /* display path from the image root ("/...") */
	const char *marker;         /* after the name (" (encrypted, no key)"), or NULL */
	const char *target;         /* a symlink's target (display form), or NULL */
	int deleted;                /* the name was deleted from its directory */
	int realloc;                /* and its inode is allocated again */
	uint32_t ino;
	int name_type;              /* EXT2_FT_* of the entry; -1: from the inode */
	const struct e4_inode *in;  /* NULL: nothing known of the inode */
	uint64_t size;              /* what lstat gives */
};

void bodyfile_line(const struct bodyfile *b, const struct body_entry *e);

/* An event that is no file (a journal commit, say): name (display form,
 * no prefix) with inode 0, mode "-/----------", and its time as the
 * change time (mactime's "..c."). */
void bodyfile_event(const struct bodyfile *b, const char *name,
		    const struct e4_timestamp *when);

#endif
