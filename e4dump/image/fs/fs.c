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
	if (fs->moment_read) {
		for (uint64_t i = 0; i < count; i++) {
			uint8_t *b = (uint8_t *)buf + i * fs->info.block_size;
			enum e4_status st = fs->moment_read(fs->moment_arg, pblk + i, b);

			if (st == E4_NOT_FOUND)
				st = io_channel_read_blk64(fs->ext2->io, pblk + i, 1, b) ?
				     E4_IO : E4_OK;
			if (st != E4_OK)
				return st;
		}
		return E4_OK;
	}
	if (io_channel_read_blk64(fs->ext2->io, pblk, (int)count, buf))
		return E4_IO;
	return E4_OK;
}

void e4_fs_moment_enter(struct e4_fs *fs, e4_moment_read_fn read, void *arg,
			struct e4_fs_moment_save *save)
{
	save->claimed = fs->claimed;
	save->scan_ino = fs->scan_ino;
	save->scan_raw = fs->scan_raw;
	save->read = fs->moment_read;
	save->arg = fs->moment_arg;
	memset(&fs->claimed, 0, sizeof(fs->claimed));
	fs->scan_ino = 0;
	fs->scan_raw = NULL;
	fs->moment_read = read;
	fs->moment_arg = arg;
	fs->ibitmap_valid = 0;
}

void e4_fs_moment_leave(struct e4_fs *fs, struct e4_fs_moment_save *save)
{
	e4_blockset_free(&fs->claimed);
	fs->claimed = save->claimed;
	fs->scan_ino = save->scan_ino;
	fs->scan_raw = save->scan_raw;
	fs->moment_read = save->read;
	fs->moment_arg = save->arg;
	fs->ibitmap_valid = 0;
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

uint64_t e4_fs_image_size(const struct e4_fs *fs)
{
	uint64_t bs = fs->info.block_size, n = fs->info.blocks_count;
	uint64_t size = n > UINT64_MAX / bs ? UINT64_MAX : n * bs;

	return size < fs->src->size ? size : fs->src->size;
}

uint64_t e4_fs_shortfall(const struct e4_fs_info *i, char *what, size_t len)
{
	uint64_t missing;

	if (i->declared_size <= i->source_size)
		return 0;
	missing = i->declared_size - i->source_size;
	if (what)
		snprintf(what, len, "the image ends at byte %llu of the filesystem, %llu bytes short of the %llu its superblock declares (%llu blocks of %u): blocks %llu to %llu are missing, files with blocks there are partial",
			 (unsigned long long)i->source_size, (unsigned long long)missing,
			 (unsigned long long)i->declared_size,
			 (unsigned long long)i->blocks_count, i->block_size,
			 (unsigned long long)(i->source_size / i->block_size),
			 (unsigned long long)(i->blocks_count - 1));
	return missing;
}

int e4_fs_concurrent_reads(const struct e4_fs *fs)
{
	return fs->src->concurrent;
}
