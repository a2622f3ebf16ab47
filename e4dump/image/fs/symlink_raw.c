/* A symlink's stored bytes (inode.h e4_symlink_raw): in i_block, inline
 * data or its one block.  Read also by the key trial (keys.c), which is
 * why it lives with the filesystem and not with the targets (tree/link.c). */
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "fs_private.h"

struct first_block {
	struct e4_fs *fs;
	uint8_t *buf;
	enum e4_status st;
	int got;
};

static int first_block(void *arg, const struct e4_run *r)
{
	struct first_block *f = arg;

	if (r->lblk == 0 && !r->unwritten) {
		f->st = e4_read_blocks(f->fs, r->pblk, 1, f->buf);
		f->got = f->st == E4_OK;
	}
	return 1;
}

enum e4_status e4_symlink_raw(struct e4_fs *fs, const struct e4_inode *in,
			      const char *path, uint8_t **blob, size_t *size)
{
	struct first_block f = { fs, NULL, E4_OK, 0 };
	unsigned int bs = fs->info.block_size;
	uint64_t meta = 0;
	enum e4_status st;

	*blob = NULL;
	*size = 0;
	if (!E4_ISLNK(in->mode))
		return E4_INVALID;
	/* ext4_symlink() stores at most a block; the kernel refuses more. */
	if (in->size == 0 || in->size >= bs) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "symlink size %llu is out of range (1..%u)",
			  (unsigned long long)in->size, bs - 1);
		return E4_CORRUPT;
	}
	f.buf = calloc(1, bs + 1);
	if (!f.buf)
		return E4_NOMEM;
	if (in->flags & E4_INODE_INLINE_DATA_FL) {
		uint8_t *data;
		size_t len;

		st = e4_inline_data(fs, in, path, &data, &len);
		if (st == E4_OK && len < in->size) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "symlink size %llu is larger than its inline data (%zu)",
				  (unsigned long long)in->size, len);
			st = E4_CORRUPT;
		}
		if (st == E4_OK)
			memcpy(f.buf, data, in->size);
		free(data);
		if (st != E4_OK) {
			free(f.buf);
			return st;
		}
		goto done;
	}
	/* ext4_inode_is_fast_symlink(): a symlink owning no block but an
	 * xattr block keeps its bytes in i_block. */
	if (in->file_acl)
		meta = bs / 512;
	if (in->blocks <= meta) {
		/* ext4_iget: nd_terminate_link(i_data, i_size, 59); a target
		 * of 60 bytes (no NUL) is cut there too, not shown whole */
		if (in->size == sizeof(in->i_block) && !in->encrypted) {
			e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, in->ino, path,
				  "fast symlink of 60 bytes: shown as Linux shows it, cut to 59");
			memcpy(f.buf, in->i_block, sizeof(in->i_block) - 1);
			*blob = f.buf;
			*size = sizeof(in->i_block) - 1;
			return E4_OK;
		}
		if (in->size > sizeof(in->i_block)) {
			e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
				  "fast symlink size %llu is larger than i_block (60)",
				  (unsigned long long)in->size);
			free(f.buf);
			return E4_CORRUPT;
		}
		memcpy(f.buf, in->i_block, in->size);
		goto done;
	}
	st = e4_inode_map(fs, in, path, 1, first_block, &f);
	if (st == E4_STOPPED)
		st = f.st;
	if (st == E4_OK && !f.got) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, in->ino, path,
			  "symlink has no data block");
		st = E4_CORRUPT;
	} else if (st == E4_IO || st == E4_CORRUPT) {
		if (f.st != E4_OK)
			e4_report(fs, E4_DIAG_ERROR, st, in->ino, path,
				  "symlink block cannot be read");
	}
	if (st != E4_OK) {
		free(f.buf);
		return st;
	}
done:
	*blob = f.buf;
	*size = (size_t)in->size;
	return E4_OK;
}
