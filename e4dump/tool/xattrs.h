/* The extended attributes of an inode as the tool shows them: the
 * "xattrs" JSON array, stat's lines, and the attributes Linux would list
 * (for the mount and extract --xattrs).  All read through
 * e4_inode_xattrs. */
#ifndef E4DUMP_XATTRS_H
#define E4DUMP_XATTRS_H

#include <stdio.h>
#include <json-c/json.h>
#include "fs.h"
#include "inode.h"
#include "xattr.h"

/* The attributes Linux 6.1's listxattr shows (user., trusted.,
 * security., the POSIX ACLs, gnu.), in its order: each
 * {"name": display form, "value_hex": hex, "value": text (only when the
 * value is UTF-8 without a control character)}; an attribute whose value
 * cannot be read has "error" instead of the value fields.  A POSIX ACL:
 * value_hex its VFS form (what getxattr gives), "acl" its text as
 * getfacl's short form, "stored_hex" ext4's form; one Linux would refuse:
 * value_hex as stored and "acl_error".  The encryption context (index 9)
 * and system.data are not in it.  *error: what could not be read
 * (malloc'd: "xattr block N: bad xattr block magic"; the array then has
 * only what could), else NULL; quiet: not reported (else reported by the
 * library).  NULL when out of memory. */
json_object *xattrs_json(struct e4_fs *fs, const struct e4_inode *in,
			 const char *shown, int quiet, char **error);

/* stat's text: one line per attribute (name and value escaped, where it
 * is stored; a POSIX ACL as getfacl's short text), "xattrs: unreadable:
 * REASON" when an area could not be read ("xattrs: none" only when all
 * were and hold none), then those Linux does not list (the encryption
 * context first, as "encryption context").  quiet: damage not reported
 * (the record's reading of them reported it). */
void xattrs_print(FILE *f, struct e4_fs *fs, const struct e4_inode *in,
		  const char *shown, int quiet);

/* The value is text: UTF-8 that e4_escape shows as it is (no control,
 * no bidirectional control), a backslash allowed. */
int xattrs_is_text(const uint8_t *v, size_t n);

/* The listed attributes of an inode, copied (names unescaped). */
struct xattr_one {
	char *name;
	uint8_t index;
	uint8_t *value;         /* NULL: not read, or an ACL Linux would
				 * refuse (error says why); a POSIX ACL in
				 * its VFS form */
	size_t len;
	const char *error;
	int none;               /* an ACL Linux reads as none: getxattr
				 * gives ENODATA, nothing is set */
};
struct xattr_set {
	struct xattr_one *v;
	size_t n;
};

/* Collect in's listed attributes into *set (empty on error).  E4_OK, or
 * the status of e4_inode_xattrs (damage reported; what could be read is
 * in *set), E4_NOMEM. */
enum e4_status xattrs_collect(struct e4_fs *fs, const struct e4_inode *in,
			      const char *shown, struct xattr_set *set);
void xattrs_free(struct xattr_set *set);

/* extract --xattrs: set the attributes of set that level restores (1:
 * user.*; 2: also security.*, trusted.* and the POSIX ACLs, in their
 * VFS form) on an output file: fd, or
 * when fd < 0 the symlink name in dirfd.  Each one that cannot be set
 * (or whose value could not be read) is reported as an error naming path
 * (the entry in the image), inode ino, the attribute and why.  The number
 * that failed. */
struct report;
int xattrs_restore(struct report *r, const char *path, uint32_t ino,
		   const struct xattr_set *set, int level, int fd, int dirfd,
		   const char *name);

/* Collect the attributes of in that level restores into a new set
 * (NULL when there are none; damage reported). */
struct xattr_set *xattrs_for_restore(struct e4_fs *fs, const struct e4_inode *in,
				     const char *path, int level);
void xattrs_set_free(struct xattr_set *set);

#endif
