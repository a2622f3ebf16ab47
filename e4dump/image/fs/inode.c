/* Inodes: reading, checking, decoding. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"

_Static_assert(sizeof(struct ext2_inode_large) == E4_INODE_RAW_SIZE,
	       "struct ext2_inode_large changed size");

void e4_inode_ext2(const struct e4_inode *in, struct ext2_inode_large *out)
{
	memcpy(out, in->raw, sizeof(*out));
}

/* Does field (offset off, size n) lie inside the inode's extra space? */
#define FITS(extra, field)                                                   \
	(offsetof(struct ext2_inode_large, field) +                          \
		 sizeof(((struct ext2_inode_large *)0)->field) <=            \
	 EXT2_GOOD_OLD_INODE_SIZE + (size_t)(extra))

/* ext4_decode_extra_time(): the low two bits of the extra word extend the
 * epoch, the rest are nanoseconds. */
static void decode_time(struct e4_timestamp *t, uint32_t base, uint32_t extra,
			int has_extra)
{
	t->sec = (int32_t)base;
	t->nsec = 0;
	if (!has_extra)
		return;
	t->sec += (int64_t)(extra & 3) << 32;
	t->nsec = extra >> 2;
	if (t->nsec > 999999999)
		t->nsec = 0;
}

int e4_dtime_is_orphan_link(const struct e4_fs *fs, uint32_t dtime)
{
	const struct ext2_super_block *sb = fs->ext2->super;
	uint32_t n = sb->s_inodes_count;
	uint64_t w = sb->s_wtime | (uint64_t)sb->s_wtime_hi << 32;
	uint64_t m = sb->s_mtime | (uint64_t)sb->s_mtime_hi << 32;
	uint64_t k = sb->s_mkfs_time | (uint64_t)sb->s_mkfs_time_hi << 32;

	/* e2fsck's low_dtime_check */
	if ((w && w < n) || (m && m < n) || (k && k < n))
		return 0;
	return dtime && dtime < n;
}

enum e4_status e4_inode_decode(struct e4_fs *fs, uint32_t ino,
			       const struct ext2_inode_large *disk,
			       const char *path, struct e4_inode *out)
{
	struct ext2_super_block *sb = fs->ext2->super;
	struct ext2_inode_large raw = *disk;
	unsigned int isize = EXT2_INODE_SIZE(sb), extra = 0;
	uint64_t size, limit;

	memset(out, 0, sizeof(*out));
	out->ino = ino;
	if (isize > EXT2_GOOD_OLD_INODE_SIZE) {
		/* ext4_iget: "bad extra_isize" */
		extra = raw.i_extra_isize;
		if (EXT2_GOOD_OLD_INODE_SIZE + extra > isize || extra % 4) {
			e4_report_p(fs, E4_DIAG_ERROR, E4_CORRUPT, E4_P_INODE, ino, path,
				    "bad i_extra_isize %u (inode size %u)", extra,
				  isize);
			return E4_CORRUPT;
		}
	}
	/* ext4_iget: an i_extra_isize of 0 is taken as 32 (the extra time
	 * fields are then decoded as they are on disk). */
	if (isize > EXT2_GOOD_OLD_INODE_SIZE && extra == 0)
		extra = isize - EXT2_GOOD_OLD_INODE_SIZE < 32 ?
			isize - EXT2_GOOD_OLD_INODE_SIZE : 32;
	if (extra < sizeof(raw) - EXT2_GOOD_OLD_INODE_SIZE)
		memset((uint8_t *)&raw + EXT2_GOOD_OLD_INODE_SIZE + extra, 0,
		       sizeof(raw) - EXT2_GOOD_OLD_INODE_SIZE - extra);
	memcpy(out->raw, &raw, sizeof(raw));
	out->mode = raw.i_mode;
	out->uid = inode_uid(raw);
	out->gid = inode_gid(raw);
	out->links = raw.i_links_count;
	out->flags = raw.i_flags;
	out->generation = raw.i_generation;
	if (e4_dtime_is_orphan_link(fs, raw.i_dtime))
		out->orphan_next = raw.i_dtime;
	else
		out->dtime = raw.i_dtime;
	out->encrypted = (raw.i_flags & EXT4_ENCRYPT_FL) != 0;
	out->in_use = raw.i_links_count && raw.i_mode && !out->dtime;
	/* decoded once: callers never parse raw for these */
	out->file_acl = raw.i_file_acl | (uint64_t)raw.osd2.linux2.l_i_file_acl_high << 32;
	out->extra_isize = isize > EXT2_GOOD_OLD_INODE_SIZE ? raw.i_extra_isize : 0;
	memcpy(out->i_block, raw.i_block, sizeof(out->i_block));
	out->blocks = raw.i_blocks | (uint64_t)raw.osd2.linux2.l_i_blocks_hi << 32;
	if (ext2fs_has_feature_huge_file(sb) && (raw.i_flags & EXT4_HUGE_FILE_FL))
		out->blocks *= fs->info.block_size / 512;
	out->has_extra_times = FITS(extra, i_ctime_extra);
	decode_time(&out->atime, raw.i_atime, raw.i_atime_extra,
		    FITS(extra, i_atime_extra));
	decode_time(&out->mtime, raw.i_mtime, raw.i_mtime_extra,
		    FITS(extra, i_mtime_extra));
	decode_time(&out->ctime, raw.i_ctime, raw.i_ctime_extra,
		    FITS(extra, i_ctime_extra));
	out->has_crtime = FITS(extra, i_crtime);
	if (out->has_crtime)
		decode_time(&out->crtime, raw.i_crtime, raw.i_crtime_extra,
			    FITS(extra, i_crtime_extra));
	/* ext4_isize(): the high half counts for regular files, and for
	 * directories with largedir. */
	size = raw.i_size;
	if (LINUX_S_ISREG(raw.i_mode) || ext2fs_has_feature_largedir(sb))
		size |= (uint64_t)raw.i_size_high << 32;
	/* ext4_iget: negative, or above ext4_get_maxbytes() */
	limit = (raw.i_flags & EXT4_EXTENTS_FL) ? fs->info.max_file_size :
						  fs->info.max_bitmap_file_size;
	if ((int64_t)size < 0 || size > limit) {
		e4_report_p(fs, E4_DIAG_ERROR, E4_CORRUPT, E4_P_INODE_SIZE, ino, path,
			    "bad i_size %llu (ext4 allows up to %llu)",
			  (unsigned long long)size, (unsigned long long)limit);
		return E4_CORRUPT;
	}
	out->size = size;
	return E4_OK;
}

enum e4_status e4_inode_read(struct e4_fs *fs, uint32_t ino, const char *path,
			     struct e4_inode *out)
{
	struct ext2_super_block *sb = fs->ext2->super;
	unsigned int isize = EXT2_INODE_SIZE(sb);
	struct ext2_inode_large raw;
	const uint8_t *buf;
	enum e4_status st;

	memset(out, 0, sizeof(*out));
	out->ino = ino;
	if (ino < 1 || ino > sb->s_inodes_count) {
		e4_report(fs, E4_DIAG_ERROR, E4_INVALID, ino, path,
			  "inode number out of range (1..%u)", sb->s_inodes_count);
		return E4_INVALID;
	}
	st = e4_inode_bytes(fs, ino, &buf);
	if (st != E4_OK) {
		e4_report(fs, E4_DIAG_ERROR, st, ino, path,
			  st == E4_CORRUPT ? "the inode table of its group lies outside the filesystem" :
					     "cannot read the inode");
		return st;
	}
	memset(&raw, 0, sizeof(raw));
	memcpy(&raw, buf, isize < sizeof(raw) ? isize : sizeof(raw));
	return e4_inode_decode(fs, ino, &raw, path, out);
}

int e4_inode_hashed_dir(const struct e4_inode *in)
{
	return E4_ISDIR(in->mode) && in->encrypted &&
	       (in->flags & E4_INODE_CASEFOLD_FL);
}
