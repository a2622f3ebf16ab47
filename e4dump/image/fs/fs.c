/* The filesystem context: facts, diagnostics, block reads (opened and
 * closed by open.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"

void e4_report_p(struct e4_fs *fs, enum e4_diag_level level,
		 enum e4_status status, enum e4_problem problem, uint32_t ino,
		 const char *path, const char *fmt, ...)
{
	struct e4_diag d = { level, status, problem, ino, path, NULL };
	char *msg = NULL;
	va_list ap;

	if (!fs->opt.diag)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	d.message = msg ? msg : fmt;
	fs->opt.diag(fs->opt.diag_arg, &d);
	free(msg);
}

void e4_fs_get_info(const struct e4_fs *fs, struct e4_fs_info *out)
{
	*out = fs->info;
}

ext2_filsys e4_fs_ext2(struct e4_fs *fs)
{
	return fs->ext2;
}

enum e4_status e4_read_blocks(struct e4_fs *fs, uint64_t pblk, uint64_t count,
			      void *buf)
{
	if (count == 0 || count > INT32_MAX / fs->info.block_size ||
	    pblk >= fs->range.blocks || count > fs->range.blocks - pblk)
		return E4_CORRUPT;
	if (io_channel_read_blk64(fs->ext2->io, pblk, (int)count, buf))
		return E4_IO;
	return E4_OK;
}

enum e4_status e4_claim_block(struct e4_fs *fs, uint64_t pblk, uint32_t ino,
			      uint32_t *other)
{
	switch (e4_blockset_claim(&fs->claimed, pblk, ino, other)) {
	case -1:
		return E4_NOMEM;
	case 2:
		return E4_CORRUPT;
	default:
		return E4_OK;
	}
}

int e4_fs_concurrent_reads(const struct e4_fs *fs)
{
	return fs->src->concurrent;
}
