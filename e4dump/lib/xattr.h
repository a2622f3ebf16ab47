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

#endif
