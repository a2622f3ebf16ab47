/* Extended attributes of an inode (lib/xattr.c parses them): the
 * encryption context, inline data and the listing of all of them.  The
 * in-inode area is searched first, then the xattr block, as
 * ext4_xattr_get() does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "fs_private.h"
#include "xattr.h"

/* Where in's in-inode area starts (EXT4_INODE_HAS_XATTR_SPACE: a
 * non-zero i_extra_isize leaving room for the magic and a terminator), or
 * 0 when it has none. */
static unsigned int ibody_start(struct e4_fs *fs, const struct e4_inode *in)
{
	unsigned int start = EXT2_GOOD_OLD_INODE_SIZE + in->extra_isize;

	return in->extra_isize && start + 8u <= EXT2_INODE_SIZE(fs->ext2->super) ?
	       start : 0;
}

/* Read xattr block acl into buf (a block): E4_OK, or E4_CORRUPT / E4_IO
 * with *why. */
static enum e4_status read_xattr_block(struct e4_fs *fs, const struct e4_inode *in,
				       uint64_t acl, uint8_t *buf, const char **why)
{
	if (acl <= fs->range.first_data_block || acl >= fs->range.blocks) {
		*why = "xattr block outside the filesystem";
		return E4_CORRUPT;
	}
	if (e4_read_blocks(fs, acl, 1, buf) != E4_OK) {
		*why = "xattr block cannot be read";
		return E4_IO;
	}
	/* metadata_csum: ext4_xattr_block_csum_verify refuses the block
	 * (EFSBADCRC); the magic first, the checksum's field is in it */
	if (ext2fs_has_feature_metadata_csum(fs->ext2->super) &&
	    buf[0] == 0x00 && buf[1] == 0x00 && buf[2] == 0x02 && buf[3] == 0xea &&
	    !ext2fs_ext_attr_block_csum_verify(fs->ext2, in->ino, acl,
					       (struct ext2_ext_attr_header *)buf)) {
		*why = "checksum does not match (metadata_csum)";
		return E4_CORRUPT;
	}
	return E4_OK;
}

/* Attribute (index, name) of inode in, copied (malloc'd, *len bytes).
 * E4_NOT_FOUND when absent; E4_CORRUPT / E4_IO / E4_UNSUPPORTED (a value
 * in an EA inode) with *why. */
static enum e4_status get_xattr(struct e4_fs *fs, const struct e4_inode *in,
				uint8_t index, const char *name, int body_only,
				uint8_t **val, size_t *len, const char **why)
{
	unsigned int isize = EXT2_INODE_SIZE(fs->ext2->super), bs = fs->info.block_size;
	unsigned int start = ibody_start(fs, in);
	struct e4_xattr x;
	const uint8_t *ib;
	uint8_t *blk = NULL;
	uint64_t acl;
	enum e4_status st = E4_NOT_FOUND;

	*val = NULL;
	*len = 0;
	*why = NULL;
	if (start) {
		st = e4_inode_bytes(fs, in->ino, &ib);
		if (st != E4_OK) {
			*why = "the inode cannot be read again";
			return E4_IO;
		}
		st = e4_xattr_find_ibody(ib + start, isize - start, index, name, &x, why);
		if (st == E4_CORRUPT)
			return st;
	}
	acl = in->file_acl;
	if (st == E4_NOT_FOUND && acl && !body_only) {
		blk = malloc(bs);
		if (!blk)
			return E4_NOMEM;
		st = read_xattr_block(fs, in, acl, blk, why);
		if (st != E4_OK) {
			free(blk);
			return st;
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

/* ---- the listing ------------------------------------------------------ */

#define XATTR_SIZE_MAX 65536u   /* <linux/limits.h>: what getxattr returns */
#define EA_INODE_FL 0x00200000u

struct list_arg {
	struct e4_fs *fs;
	const struct e4_inode *in;
	const char *path;
	uint64_t block;
	e4_xattr_item_fn fn;
	void *arg;
	int quiet;
};

/* The value of an attribute stored in EA inode inum, size bytes
 * (ext4_xattr_inode_get: the inode flagged EA_INODE, i_size the value's
 * size), malloc'd; NULL with *why. */
static uint8_t *ea_inode_value(struct e4_fs *fs, uint32_t inum, size_t size,
			       const char *path, const char **why)
{
	unsigned int bs = fs->info.block_size;
	struct e4_inode ea;
	struct e4_run *runs = NULL;
	size_t n = 0, i;
	uint8_t *val, *blk;

	if (!ext2fs_has_feature_ea_inode(fs->ext2->super)) {
		*why = "value in an EA inode without the ea_inode feature";
		return NULL;
	}
	if (size > XATTR_SIZE_MAX) {
		*why = "value in an EA inode larger than 64 KiB";
		return NULL;
	}
	if (e4_inode_read(fs, inum, path, &ea) != E4_OK) {
		*why = "its EA inode cannot be read";
		return NULL;
	}
	if (!(ea.flags & EA_INODE_FL)) {
		*why = "its EA inode is not flagged EA_INODE";
		return NULL;
	}
	if (ea.size != size) {
		*why = "its EA inode's size is not the value's size";
		return NULL;
	}
	if (e4_inode_runs(fs, &ea, path, ((uint64_t)size + bs - 1) / bs,
			  &runs, &n) != E4_OK) {
		*why = "its EA inode's block map is damaged";
		return NULL;
	}
	val = calloc(1, size + 1);
	blk = malloc(bs);
	if (!val || !blk) {
		free(val);
		free(blk);
		free(runs);
		*why = "out of memory";
		return NULL;
	}
	/* holes read as zeros */
	for (i = 0; i < n; i++) {
		uint64_t b;

		for (b = 0; b < runs[i].len; b++) {
			uint64_t off = (runs[i].lblk + b) * bs;

			if (off >= size)
				break;
			if (e4_read_blocks(fs, runs[i].pblk + b, 1, blk) != E4_OK) {
				*why = "a block of its EA inode cannot be read";
				free(val);
				free(blk);
				free(runs);
				return NULL;
			}
			memcpy(val + off, blk, size - off < bs ? size - off : bs);
		}
	}
	free(blk);
	free(runs);
	return val;
}

static int list_one(void *arg, const struct e4_xattr *x)
{
	struct list_arg *l = arg;
	struct e4_xattr_item it;
	const char *prefix = e4_xattr_prefix(x->index, &it.listed);
	size_t plen = strlen(prefix);
	char name[64 + 256];
	uint8_t *owned = NULL, *vfs = NULL;
	const char *acl_why;
	size_t vfs_len;
	int stop;

	memcpy(name, prefix, plen);
	memcpy(name + plen, x->name, x->name_len);   /* at most 255 */
	name[plen + x->name_len] = '\0';
	it.name = name;
	it.index = x->index;
	it.block = l->block;
	it.value_inum = x->value_inum;
	it.value = x->value;
	it.value_len = x->value_len;
	it.error = NULL;
	it.stored = NULL;
	it.stored_len = 0;
	it.acl_error = NULL;
	it.acl_none = 0;
	if (x->value_inum) {
		owned = ea_inode_value(l->fs, x->value_inum, x->value_len,
				       l->path, &it.error);
		it.value = owned;
		if (!owned && !l->quiet)
			e4_report(l->fs, E4_DIAG_ERROR, E4_CORRUPT, l->in->ino, l->path,
				  "xattr %s: value in EA inode %u not read: %s",
				  name, (unsigned)x->value_inum, it.error);
	}
	/* a POSIX ACL: the VFS form getxattr gives (ext4_get_acl, then
	 * posix_acl_to_xattr) */
	if (it.value && (x->index == E4_XATTR_INDEX_POSIX_ACL_ACCESS ||
			 x->index == E4_XATTR_INDEX_POSIX_ACL_DEFAULT)) {
		if (!(vfs = malloc(E4_ACL_VFS_MAX(it.value_len)))) {
			free(owned);
			return 1;
		}
		enum e4_status ast = e4_acl_to_vfs(it.value, it.value_len, vfs, &vfs_len, &acl_why);

		if (ast == E4_OK) {
			it.stored = it.value;
			it.stored_len = it.value_len;
			it.value = vfs;
			it.value_len = vfs_len;
		} else if (ast == E4_NOT_FOUND) {
			it.acl_error = acl_why;
			it.acl_none = 1;
			if (!l->quiet)
				e4_report(l->fs, E4_DIAG_NOTE, E4_OK, l->in->ino, l->path,
					  "xattr %s: %s", name, acl_why);
		} else {
			it.acl_error = acl_why;
			if (!l->quiet)
				e4_report(l->fs, E4_DIAG_ERROR, E4_CORRUPT, l->in->ino, l->path,
					  "xattr %s: not an ACL Linux reads: %s; shown as stored",
					  name, acl_why);
		}
	}
	stop = l->fn(l->arg, &it);
	free(owned);
	free(vfs);
	return stop;
}

/* Add "what: reason" to out[size] (a "; " between). */
static void damage(char *out, size_t size, const char *what, const char *reason)
{
	size_t at;

	if (!out || !size)
		return;
	at = strlen(out);
	if (at + 1 < size)
		snprintf(out + at, size - at, "%s%s: %s", at ? "; " : "", what, reason);
}

enum e4_status e4_inode_xattrs(struct e4_fs *fs, const struct e4_inode *in,
			       const char *path, e4_xattr_item_fn fn, void *arg)
{
	return e4_inode_xattrs_why(fs, in, path, fn, arg, 0, NULL, 0);
}

enum e4_status e4_inode_xattrs_why(struct e4_fs *fs, const struct e4_inode *in,
				   const char *path, e4_xattr_item_fn fn, void *arg,
				   int quiet, char *damaged, size_t damaged_size)
{
	unsigned int isize = EXT2_INODE_SIZE(fs->ext2->super);
	unsigned int bs = fs->info.block_size;
	unsigned int start = ibody_start(fs, in);
	struct list_arg l = { fs, in, path, 0, fn, arg, quiet };
	enum e4_status st, ret = E4_OK;
	const char *why = NULL;
	const uint8_t *ib;
	uint8_t *buf;
	char where[48];

	if (damaged && damaged_size)
		damaged[0] = 0;
	buf = malloc(isize > bs ? isize : bs);
	if (!buf)
		return E4_NOMEM;
	/* the in-inode area, copied: reading an EA inode reads the inode
	 * tables again */
	if (start) {
		st = e4_inode_bytes(fs, in->ino, &ib);
		if (st != E4_OK) {
			why = "the inode cannot be read again";
			if (!quiet)
				e4_report(fs, E4_DIAG_ERROR, E4_IO, in->ino, path,
					  "xattrs in the inode: %s", why);
			damage(damaged, damaged_size, "in the inode", why);
			ret = E4_IO;
		} else {
			memcpy(buf, ib + start, isize - start);
			st = e4_xattr_each_ibody(buf, isize - start, list_one, &l, &why);
			if (st == E4_STOPPED) {
				free(buf);
				return st;
			}
			if (st == E4_CORRUPT) {
				if (!quiet)
					e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
						  "xattrs in the inode: %s", why);
				damage(damaged, damaged_size, "in the inode", why);
				ret = E4_CORRUPT;
			}
		}
	}
	if (in->file_acl) {
		l.block = in->file_acl;
		st = read_xattr_block(fs, in, l.block, buf, &why);
		if (st == E4_OK)
			st = e4_xattr_each_block(buf, bs, list_one, &l, &why);
		if (st == E4_STOPPED) {
			free(buf);
			return st;
		}
		if (st != E4_OK) {
			snprintf(where, sizeof(where), "xattr block %llu",
				 (unsigned long long)l.block);
			if (!quiet)
				e4_report(fs, E4_DIAG_ERROR, st, in->ino, path, "%s: %s",
					  where, why);
			damage(damaged, damaged_size, where, why);
			ret = st;
		}
	}
	free(buf);
	return ret;
}
