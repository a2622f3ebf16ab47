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
 * fraction; mactime 4.11 drops it).  The one writer of body lines; it
 * renders the record of an entry (record.h). */
#ifndef E4DUMP_BODYFILE_H
#define E4DUMP_BODYFILE_H

#include <stdint.h>
#include <stdio.h>
#include "inode.h"
#include "record.h"

struct bodyfile {
	FILE *f;
	const char *prefix;         /* the mount prefix, */
	size_t prefix_len;          /* without its trailing '/' */
	int nanoseconds;
};

/* prefix: fls -m's mount point, or NULL for none. */
void bodyfile_init(struct bodyfile *b, FILE *f, const char *prefix, int nanoseconds);

/* The line of record r (record.h), every field from it: its path (the
 * path in the image, display form), " (encrypted, no key)" when its name
 * is a no-key name (name_state no-key or bad), " -> TARGET" for a
 * symlink whose target is known, " (deleted)" for a deleted name
 * (" (deleted-realloc)" when allocated says its inode is in use again),
 * its inode, the entry's type (name_type, else the inode's), and when the
 * inode is known its type and permissions, uid, gid, size and times. */
void bodyfile_record(const struct bodyfile *b, const struct record *r);

/* An event that is no file (a journal commit, say): name (display form,
 * no prefix) with inode 0, mode "-/----------", and its time as the
 * change time (mactime's "..c."). */
void bodyfile_event(const struct bodyfile *b, const char *name,
		    const struct e4_timestamp *when);

/* TSK's letter of an inode's type (mode) and of an entry's (EXT2_FT_*;
 * -1: none): '-' for an unknown one. */
char bodyfile_mode_letter(uint16_t mode);
char bodyfile_ft_letter(int ft);

#endif
