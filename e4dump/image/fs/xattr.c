/* Extended attributes of an inode (lib/xattr.c parses them): the
 * encryption context and inline data.  The in-inode area is searched
 * first, then the xattr block, as ext4_xattr_get() does. */
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"
#include "xattr.h"

/* Attribute (index, name) of inode in, copied (malloc'd, *len bytes).
 * E4_NOT_FOUND when absent; E4_CORRUPT / E4_IO / E4_UNSUPPORTED (a value
 * in an EA inode) with *why. */
static enum e4_status get_xattr(struct e4_fs *fs, const struct e4_inode *in,
				uint8_t index, const char *name, int body_only,
				uint8_t **val, size_t *len, const char **why)
{
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int isize = EXT2_INODE_SIZE(sb), bs = fs->info.block_size;
	struct e4_xattr x;
	const uint8_t *ib;
	uint8_t *blk = NULL;
	uint64_t acl;
	enum e4_status st = E4_NOT_FOUND;

	*val = NULL;
	*len = 0;
	*why = NULL;
	/* EXT4_INODE_HAS_XATTR_SPACE: a non-zero i_extra_isize leaving room
	 * for the magic and a terminator. */
	if (in->extra_isize &&
	    EXT2_GOOD_OLD_INODE_SIZE + in->extra_isize + 8u <= isize) {
		st = e4_inode_bytes(fs, in->ino, &ib);
		if (st != E4_OK) {
			*why = "the inode cannot be read again";
			return E4_IO;
		}
		st = e4_xattr_find_ibody(ib + EXT2_GOOD_OLD_INODE_SIZE + in->extra_isize,
					 isize - EXT2_GOOD_OLD_INODE_SIZE - in->extra_isize,
					 index, name, &x, why);
		if (st == E4_CORRUPT)
			return st;
	}
	acl = in->file_acl;
	if (st == E4_NOT_FOUND && acl && !body_only) {
		if (acl <= fs->range.first_data_block || acl >= fs->range.blocks) {
			*why = "xattr block outside the filesystem";
			return E4_CORRUPT;
		}
		blk = malloc(bs);
		if (!blk)
			return E4_NOMEM;
		if (e4_read_blocks(fs, acl, 1, blk) != E4_OK) {
			free(blk);
			*why = "xattr block cannot be read";
			return E4_IO;
		}
		st = e4_xattr_find_block(blk, bs, index, name, &x, why);
	}
	if (st == E4_OK && x.value_inum) {
		*why = "value stored in an EA inode";
		st = E4_UNSUPPORTED;
	}
	if (st == E4_OK) {
		*val = malloc(x.value_len + 1);
		if (!*val) {
			st = E4_NOMEM;
		} else {
			memcpy(*val, x.value, x.value_len);
			*len = x.value_len;
		}
	}
	free(blk);
	return st;
}

enum e4_status e4_inode_context(struct e4_fs *fs, const struct e4_inode *in,
				struct e4_context *ctx, const char **why)
{
	uint8_t *val;
	size_t len;
	enum e4_status st;

	memset(ctx, 0, sizeof(*ctx));
	st = get_xattr(fs, in, E4_XATTR_INDEX_ENCRYPTION, E4_XATTR_NAME_CONTEXT,
		       0, &val, &len, why);
	if (st == E4_UNSUPPORTED)
		st = E4_CORRUPT;
	if (st != E4_OK)
		return st;
	st = e4_context_parse(ctx, val, len);
	if (st != E4_OK)
		*why = e4_context_problem(val, len);
	free(val);
	return st;
}

enum e4_status e4_inline_data(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, uint8_t **data, size_t *len)
{
	struct ext2_inode_large raw;
	const char *why;
	uint8_t *extra = NULL, *buf;
	size_t extra_len = 0;
	enum e4_status st;

	*data = NULL;
	*len = 0;
	/* ext4_find_inline_data_nolock: only in the inode body; without it
	 * ext4_read_inline_page fails ("doesn't have inline data") */
	st = get_xattr(fs, in, E4_XATTR_INDEX_SYSTEM, "data", 1, &extra,
		       &extra_len, &why);
	if (st == E4_NOT_FOUND) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "inline data flag without a system.data attribute in the inode");
		return E4_CORRUPT;
	}
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "inline data: %s", why ? why : e4_status_str(st));
		return st == E4_NOMEM ? st : E4_CORRUPT;
	}
	buf = malloc(sizeof(in->i_block) + extra_len + 1);
	if (!buf) {
		free(extra);
		return E4_NOMEM;
	}
	/* EXT4_MIN_INLINE_DATA_SIZE bytes in i_block, the rest in the
	 * "system.data" value. */
	memcpy(buf, in->i_block, sizeof(in->i_block));
	if (extra_len)
		memcpy(buf + sizeof(in->i_block), extra, extra_len);
	free(extra);
	*data = buf;
	*len = sizeof(raw.i_block) + extra_len;
	return E4_OK;
}
