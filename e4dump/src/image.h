/* Read-only access to an ext4 image through libext2fs. */
#ifndef E4DUMP_IMAGE_H
#define E4DUMP_IMAGE_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "context.h"

/* Which generation wrote the names of encrypted directories: it decides
 * the no-key names shown without a key. */
enum name_format {
	FORMAT_AUTO,  /* decided from stored name lengths */
	FORMAT_2015,  /* the 2015 seed: names stored as max(len, 16) bytes */
	FORMAT_61,    /* Linux 4.x to 6.1: names padded per the policy */
};

struct img {
	ext2_filsys fs;
	const char *path;
	unsigned int blocksize;
	enum name_format format;    /* as asked for */
	enum name_format detected;  /* FORMAT_AUTO until decided */
};

/* Open read-only.  On failure prints one error line and returns -1. */
int img_open(struct img *im, const char *path);
void img_close(struct img *im);

/* Read an inode; prints an error naming it on failure. */
int img_read_inode(struct img *im, ext2_ino_t ino,
		   struct ext2_inode_large *inode);

int img_inode_encrypted(const struct ext2_inode_large *inode);
uint64_t img_inode_size(const struct ext2_inode_large *inode);
void img_inode_mtime(const struct ext2_inode_large *inode, int64_t *sec,
		     long *nsec);

enum ctx_result {
	CTX_NONE,         /* no context xattr */
	CTX_OK,
	CTX_CORRUPT,
	CTX_UNRECOGNIZED,
	CTX_IO_ERROR,     /* xattrs could not be read */
};

/* Read and parse the encryption context of an inode.  *why explains any
 * result other than CTX_OK / CTX_NONE. */
enum ctx_result img_read_context(struct img *im, ext2_ino_t ino,
				 struct e4_context *ctx, const char **why);

/* Called for each run of allocated, initialized blocks of a file, in
 * increasing logical order.  Non-zero return stops the walk. */
typedef int (*img_run_fn)(void *arg, uint64_t lblk, uint64_t pblk,
			  uint64_t count);

/* Walk the data block runs of a regular file, directory or slow symlink.
 * Unwritten extents are holes.  Returns 0, the callback's non-zero value,
 * or -1 after printing an error. */
int img_map_blocks(struct img *im, ext2_ino_t ino,
		   struct ext2_inode_large *inode, img_run_fn fn, void *arg);

/* Called for each in-use inode (links > 0, no dtime, a mode) in inode
 * number order.  Non-zero return stops the scan. */
typedef int (*img_inode_fn)(void *arg, ext2_ino_t ino,
			    struct ext2_inode_large *inode);

/* Scan the inode tables, skipping bad blocks in them.  Returns 0, the
 * callback's non-zero value, or -1 after printing an error. */
int img_scan_inodes(struct img *im, img_inode_fn fn, void *arg);

/* Read count blocks at pblk; -1 after printing an error. */
int img_read_blocks(struct img *im, uint64_t pblk, uint64_t count,
		    void *buf);

/* Read a symlink's stored bytes (i_size bytes from i_block or its block)
 * into a malloc'd buffer.  -1 after printing an error. */
int img_read_symlink(struct img *im, ext2_ino_t ino,
		     struct ext2_inode_large *inode, uint8_t **blob,
		     size_t *size);

#endif
