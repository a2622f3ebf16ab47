#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include "image.h"
#include "report.h"

int img_open(struct img *im, const char *path)
{
	errcode_t err;

	memset(im, 0, sizeof(*im));
	im->path = path;
	/* No EXT2_FLAG_RW: libext2fs opens the device O_RDONLY. */
	err = ext2fs_open2(path, NULL,
			   EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0,
			   0, unix_io_manager, &im->fs);
	if (err) {
		report_error("%s: cannot open as ext4: %s", path,
			     error_message(err));
		return -1;
	}
	im->blocksize = im->fs->blocksize;
	return 0;
}

void img_close(struct img *im)
{
	if (im->fs)
		ext2fs_close_free(&im->fs);
}

int img_read_inode(struct img *im, ext2_ino_t ino,
		   struct ext2_inode_large *inode)
{
	errcode_t err;

	memset(inode, 0, sizeof(*inode));
	if (ino < 1 || ino > im->fs->super->s_inodes_count) {
		report_error("inode %u: inode number out of range", ino);
		return -1;
	}
	err = ext2fs_read_inode2(im->fs, ino, (struct ext2_inode *)inode,
				 sizeof(*inode), 0);
	if (err) {
		report_error("inode %u: cannot read: %s", ino,
			     error_message(err));
		return -1;
	}
	return 0;
}

int img_inode_encrypted(const struct ext2_inode_large *inode)
{
	return (inode->i_flags & EXT4_ENCRYPT_FL) != 0;
}

uint64_t img_inode_size(const struct ext2_inode_large *inode)
{
	return EXT2_I_SIZE(inode);
}

void img_inode_mtime(const struct ext2_inode_large *inode, int64_t *sec,
		     long *nsec)
{
	*sec = (int32_t)inode->i_mtime;
	*nsec = 0;
	if (inode->i_extra_isize >= 2 * sizeof(__u32) + 2 * sizeof(__u16) +
				    sizeof(__u32)) {
		/* i_mtime_extra: low 2 bits extend the epoch, the rest are
		 * nanoseconds (ext4_decode_extra_time). */
		*sec += (int64_t)(inode->i_mtime_extra & 3) << 32;
		*nsec = (long)(inode->i_mtime_extra >> 2);
		if (*nsec > 999999999)
			*nsec = 0;
	}
}

enum ctx_result img_read_context(struct img *im, ext2_ino_t ino,
				 struct e4_context *ctx, const char **why)
{
	struct ext2_xattr_handle *h = NULL;
	void *val = NULL;
	size_t len = 0;
	errcode_t err;
	enum ctx_result res;

	*why = NULL;
	err = ext2fs_xattrs_open(im->fs, ino, &h);
	if (!err)
		err = ext2fs_xattrs_read(h);
	if (err) {
		*why = error_message(err);
		if (h)
			ext2fs_xattrs_close(&h);
		return CTX_IO_ERROR;
	}
	/* libext2fs has no prefix for index 9, so the name is just "c". */
	err = ext2fs_xattr_get(h, E4_XATTR_NAME_CONTEXT, &val, &len);
	ext2fs_xattrs_close(&h);
	if (err == EXT2_ET_EA_KEY_NOT_FOUND)
		return CTX_NONE;
	if (err) {
		*why = error_message(err);
		return CTX_IO_ERROR;
	}
	switch (e4_context_parse(ctx, val, len)) {
	case E4_OK:
		res = CTX_OK;
		break;
	case E4_UNRECOGNIZED:
		res = CTX_UNRECOGNIZED;
		*why = e4_context_problem(val, len);
		break;
	default:
		res = CTX_CORRUPT;
		*why = e4_context_problem(val, len);
		break;
	}
	ext2fs_free_mem(&val);
	return res;
}

struct blockmap_state {
	img_run_fn fn;
	void *arg;
	uint64_t lblk, pblk, count; /* pending run */
	int ret;
};

static int flush_run(struct blockmap_state *s)
{
	int r = 0;

	if (s->count)
		r = s->fn(s->arg, s->lblk, s->pblk, s->count);
	s->count = 0;
	return r;
}

static int blockmap_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk, int ref_offset, void *priv)
{
	struct blockmap_state *s = priv;

	(void)fs, (void)ref_blk, (void)ref_offset;
	if (blockcnt < 0 || !*blocknr)
		return 0;
	if (s->count && s->lblk + s->count == (uint64_t)blockcnt &&
	    s->pblk + s->count == *blocknr) {
		s->count++;
		return 0;
	}
	s->ret = flush_run(s);
	if (s->ret)
		return BLOCK_ABORT;
	s->lblk = (uint64_t)blockcnt;
	s->pblk = *blocknr;
	s->count = 1;
	return 0;
}

static int map_extents(struct img *im, ext2_ino_t ino,
		       struct ext2_inode_large *inode, img_run_fn fn,
		       void *arg)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ext;
	errcode_t err;
	uint64_t next = 0;
	int op = EXT2_EXTENT_ROOT, r = 0;

	err = ext2fs_extent_open2(im->fs, ino, (struct ext2_inode *)inode, &h);
	if (err) {
		report_error("inode %u: bad extent tree: %s", ino,
			     error_message(err));
		return -1;
	}
	for (;;) {
		err = ext2fs_extent_get(h, op, &ext);
		op = EXT2_EXTENT_NEXT_LEAF;
		if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_NO_CURRENT_NODE)
			break;
		if (err) {
			report_error("inode %u: bad extent tree: %s", ino,
				     error_message(err));
			r = -1;
			break;
		}
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			continue;
		if (ext.e_lblk < next) {
			report_error("inode %u: extents overlap or go backwards at logical block %llu",
				     ino, (unsigned long long)ext.e_lblk);
			r = -1;
			break;
		}
		next = ext.e_lblk + ext.e_len;
		if (ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT)
			continue; /* preallocated: reads as zeros */
		r = fn(arg, ext.e_lblk, ext.e_pblk, ext.e_len);
		if (r)
			break;
	}
	ext2fs_extent_free(h);
	return r;
}

int img_map_blocks(struct img *im, ext2_ino_t ino,
		   struct ext2_inode_large *inode, img_run_fn fn, void *arg)
{
	struct blockmap_state s = { fn, arg, 0, 0, 0, 0 };
	errcode_t err;

	if (inode->i_flags & EXT4_INLINE_DATA_FL) {
		report_error("inode %u: inline data is not supported here", ino);
		return -1;
	}
	if (inode->i_flags & EXT4_EXTENTS_FL)
		return map_extents(im, ino, inode, fn, arg);
	err = ext2fs_block_iterate3(im->fs, ino,
				    BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
				    NULL, blockmap_cb, &s);
	if (err) {
		report_error("inode %u: bad block map: %s", ino,
			     error_message(err));
		return -1;
	}
	if (s.ret)
		return s.ret;
	return flush_run(&s);
}

int img_read_blocks(struct img *im, uint64_t pblk, uint64_t count, void *buf)
{
	errcode_t err;

	if (pblk >= ext2fs_blocks_count(im->fs->super) ||
	    count > ext2fs_blocks_count(im->fs->super) - pblk) {
		report_error("block %llu+%llu: beyond the end of the filesystem",
			     (unsigned long long)pblk, (unsigned long long)count);
		return -1;
	}
	err = io_channel_read_blk64(im->fs->io, pblk, (int)count, buf);
	if (err) {
		report_error("block %llu: read failed: %s",
			     (unsigned long long)pblk, error_message(err));
		return -1;
	}
	return 0;
}

struct symlink_read {
	struct img *im;
	uint8_t *buf;
	int got;
};

static int symlink_block(void *arg, uint64_t lblk, uint64_t pblk,
			 uint64_t count)
{
	struct symlink_read *s = arg;

	(void)count;
	if (lblk != 0)
		return 0;
	if (img_read_blocks(s->im, pblk, 1, s->buf))
		return -1;
	s->got = 1;
	return 1;
}

int img_read_symlink(struct img *im, ext2_ino_t ino,
		     struct ext2_inode_large *inode, uint8_t **blob,
		     size_t *size)
{
	uint64_t isize = img_inode_size(inode);
	struct symlink_read s = { im, NULL, 0 };
	int r;

	*blob = NULL;
	*size = 0;
	if (isize == 0 || isize >= im->blocksize) {
		report_error("inode %u: symlink size %llu is out of range", ino,
			     (unsigned long long)isize);
		return -1;
	}
	s.buf = calloc(1, im->blocksize + 1);
	if (!s.buf) {
		report_error("inode %u: out of memory", ino);
		return -1;
	}
	/* As ext4_inode_is_fast_symlink(): a symlink owning no data block
	 * keeps its bytes in i_block. */
	if (ext2fs_inode_data_blocks2(im->fs, (struct ext2_inode *)inode) == 0) {
		if (isize > sizeof(inode->i_block)) {
			report_error("inode %u: fast symlink larger than i_block", ino);
			free(s.buf);
			return -1;
		}
		memcpy(s.buf, inode->i_block, isize);
	} else {
		r = img_map_blocks(im, ino, inode, symlink_block, &s);
		if (r < 0 || !s.got) {
			if (r >= 0)
				report_error("inode %u: symlink has no data block", ino);
			free(s.buf);
			return -1;
		}
	}
	*blob = s.buf;
	*size = isize;
	return 0;
}

int img_scan_inodes(struct img *im, img_inode_fn fn, void *arg)
{
	ext2_inode_scan scan;
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	errcode_t err;
	int ret = 0;

	err = ext2fs_open_inode_scan(im->fs, 0, &scan);
	if (err) {
		report_error("%s: cannot scan inodes: %s", im->path,
			     error_message(err));
		return -1;
	}
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino,
						 (struct ext2_inode *)&inode,
						 sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			report_error("%s: inode scan stopped after inode %u: %s",
				     im->path, ino, error_message(err));
			ret = -1;
			break;
		}
		if (!ino)
			break;
		if (!inode.i_links_count || inode.i_dtime || !inode.i_mode)
			continue;
		ret = fn(arg, ino, &inode);
		if (ret)
			break;
	}
	ext2fs_close_inode_scan(scan);
	return ret;
}
