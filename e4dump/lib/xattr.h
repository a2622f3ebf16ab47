/* ext4 extended attributes (fs/ext4/xattr.h): the in-inode area and the
 * xattr block, every entry checked as the kernel's
 * ext4_xattr_check_entries checks it.  Pure. */
#ifndef E4_XATTR_H
#define E4_XATTR_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

#define E4_XATTR_MAGIC 0xea020000u
#define E4_XATTR_BLOCK_HEADER 32    /* struct ext4_xattr_header */
#define E4_XATTR_INDEX_USER 1
#define E4_XATTR_INDEX_POSIX_ACL_ACCESS 2   /* system.posix_acl_access */
#define E4_XATTR_INDEX_POSIX_ACL_DEFAULT 3  /* system.posix_acl_default */
#define E4_XATTR_INDEX_TRUSTED 4
#define E4_XATTR_INDEX_SECURITY 6
#define E4_XATTR_INDEX_SYSTEM 7     /* "system.data": inline data */

struct e4_xattr {
	uint8_t index;
	const uint8_t *name;
	size_t name_len;
	const uint8_t *value;   /* NULL when in an EA inode */
	size_t value_len;
	uint32_t value_inum;    /* EA inode holding the value, or 0 */
};

/* Find attribute (index, name) in the in-inode area: area points at the
 * 4-byte magic after i_extra_isize and runs to the end of the inode
 * (size bytes).  E4_NOT_FOUND when the area has no magic or no such
 * attribute; E4_CORRUPT with *why when an entry is invalid. */
enum e4_status e4_xattr_find_ibody(const uint8_t *area, size_t size,
				   uint8_t index, const char *name,
				   struct e4_xattr *out, const char **why);

/* The same in an xattr block (h_magic, h_blocks 1, entries at 32, value
 * offsets from the block start). */
enum e4_status e4_xattr_find_block(const uint8_t *blk, size_t size,
				   uint8_t index, const char *name,
				   struct e4_xattr *out, const char **why);

/* Called for each entry of an area (in stored order); the pointers are
 * valid during the call.  Non-zero stops the walk. */
typedef int (*e4_xattr_fn)(void *arg, const struct e4_xattr *x);

/* Every entry of the in-inode area / of an xattr block, once all of them
 * passed the checks of the find functions above: E4_OK, E4_STOPPED,
 * E4_NOT_FOUND (an in-inode area without the magic), E4_CORRUPT with
 * *why (nothing was passed). */
enum e4_status e4_xattr_each_ibody(const uint8_t *area, size_t size,
				   e4_xattr_fn fn, void *arg, const char **why);
enum e4_status e4_xattr_each_block(const uint8_t *blk, size_t size,
				   e4_xattr_fn fn, void *arg, const char **why);

/* The name prefix of index (fs/ext4/xattr.h; as e2fsprogs spells them:
 * "user.", "trusted.", "security.", "system.posix_acl_access", ...; ""
 * for an index without one, such as 9, the encryption context "c").
 * *listed (may be NULL): whether Linux 6.1's listxattr shows entries of
 * this index at all. */
const char *e4_xattr_prefix(uint8_t index, int *listed);

/* ---- POSIX ACLs ----------------------------------------------------
 * ext4 stores system.posix_acl_access and system.posix_acl_default in a
 * format of its own (fs/ext4/acl.h: a version 1 header, then entries of
 * 4 bytes (tag, perm) for USER_OBJ, GROUP_OBJ, MASK and OTHER and of 8
 * bytes (tag, perm, id) for USER and GROUP); getxattr gives them in the
 * VFS format (include/uapi/linux/posix_acl_xattr.h: a version 2 header,
 * every entry 8 bytes, id 0xffffffff where the tag has none). */

/* The VFS form of an ACL stored in n bytes is at most this long. */
#define E4_ACL_VFS_MAX(n) (2 * (size_t)(n) + 4)

/* Convert stored ACL in[n] as ext4_acl_from_disk reads it (the header's
 * version, ext4_acl_count's size rule, each entry inside the value and
 * of a known tag, nothing after the last) into its VFS form in out (room
 * for E4_ACL_VFS_MAX(n) bytes), *out_len bytes.  E4_CORRUPT with *why
 * when Linux would refuse it (EINVAL); E4_NOT_FOUND with *why for a
 * header with no entry, which Linux reads as no ACL at all
 * (ext4_acl_from_disk returns NULL: getxattr gives ENODATA). */
enum e4_status e4_acl_to_vfs(const uint8_t *in, size_t n, uint8_t *out,
			     size_t *out_len, const char **why);

/* The text of VFS-form ACL v[n] as getfacl's short form gives it, ids as
 * numbers: "user::rw-,user:1000:r--,group::r--,mask::r--,other::r--"
 * (NUL-terminated; "" for an empty ACL).  out needs E4_ACL_TEXT_MAX(n)
 * bytes.  E4_CORRUPT when v is not a VFS-form ACL. */
#define E4_ACL_TEXT_MAX(n) (((size_t)(n) / 8 + 1) * 24)
enum e4_status e4_acl_text(const uint8_t *v, size_t n, char *out);

#endif
