/* Opening and closing a filesystem: the source, the volume in it, the
 * superblock through libext2fs, the checks made before anything is read;
 * and everything a filesystem holds freed at the end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include <ext2fs/ext2_err.h>
#include "bigmem.h"
#include "container.h"
#include "fs_private.h"
#include "io.h"
#include "kdf.h"

/* ext4_max_size() (fs/ext4/super.c): extents address 2^32 - 1 blocks;
 * without huge_file i_blocks caps a file at 2^32 - 1 sectors. */
static uint64_t max_file_size(unsigned int blkbits, int huge_file)
{
	uint64_t res = ((uint64_t)1 << 32) - 1, upper = INT64_MAX;

	if (!huge_file) {
		upper = ((uint64_t)1 << 32) - 1;
		upper >>= blkbits - 9;
		upper <<= blkbits;
	}
	res <<= blkbits;
	return res < upper ? res : upper;
}

/* ext4_max_bitmap_size() (fs/ext4/super.c): what 12 direct pointers and
 * single, double and triple indirect blocks address, within the i_blocks
 * limit of 2^48 - 1 sectors (2^32 - 1 without huge_file) counting the
 * indirect blocks themselves. */
static uint64_t max_bitmap_size(unsigned int bits, int huge_file)
{
	uint64_t ppb = (uint64_t)1 << (bits - 2), res = 12, meta, upper;

	upper = huge_file ? ((uint64_t)1 << 48) - 1 :
			    (((uint64_t)1 << 32) - 1) >> (bits - 9);
	res += ppb + ppb * ppb + ppb * ppb * ppb;
	meta = 1 + (1 + ppb) + (1 + ppb + ppb * ppb);
	if (res + meta > upper) {
		res = upper;
		upper -= 12;
		meta = 1;
		upper -= ppb;
		if (upper < ppb * ppb) {
			meta += 1 + (upper + ppb - 1) / ppb;
		} else {
			meta += 1 + ppb;
			upper -= ppb * ppb;
			meta += 1 + (upper + ppb - 1) / ppb +
				(upper + ppb * ppb - 1) / (ppb * ppb);
		}
		res -= meta;
	}
	if (res > (uint64_t)INT64_MAX >> bits)
		return INT64_MAX;
	return res << bits;
}

/* libext2fs refuses a filesystem with an incompat feature it does not know.
 * Open it anyway when encrypt_2015 is the only one: e4dump reads that
 * format.  Any other unknown feature could change what the bytes mean.
 * EXT2_FLAG_FORCE also lets a journal device through (libext2fs 1.47
 * openfs.c skips that check with it), so that is refused here again. */
static errcode_t open_2015(struct e4_fs *fs, const char *name)
{
	errcode_t err;
	uint32_t unknown;

	err = ext2fs_open2(name, NULL,
			   EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | EXT2_FLAG_FORCE,
			   0, 0, e4_source_io_manager(), &fs->ext2);
	if (err)
		return err;
	unknown = fs->ext2->super->s_feature_incompat & ~EXT2_LIB_FEATURE_INCOMPAT_SUPP;
	if (unknown == E4_FEATURE_INCOMPAT_ENCRYPT_2015 &&
	    !ext2fs_has_feature_journal_dev(fs->ext2->super))
		return 0;
	ext2fs_close_free(&fs->ext2);
	return EXT2_ET_UNSUPP_FEATURE;
}

static void fill_info(struct e4_fs *fs)
{
	struct ext2_super_block *sb = fs->ext2->super;
	struct e4_fs_info *i = &fs->info;
	unsigned int bits = 10 + sb->s_log_block_size;

	i->name = fs->src->name;
	i->container = fs->src->kind;
	if (!fs->volume[0])
		snprintf(fs->volume, sizeof(fs->volume), "the whole image");
	i->volume = fs->volume;
	i->offset = fs->src->disk_offset;
	i->image_size = fs->src->disk_size;
	i->block_size = fs->ext2->blocksize;
	i->blocks_count = ext2fs_blocks_count(sb);
	i->inodes_count = sb->s_inodes_count;
	i->first_ino = EXT2_FIRST_INO(sb);
	memcpy(i->uuid, sb->s_uuid, 16);
	i->encrypt_feature = ext2fs_has_feature_encrypt(sb);
	i->encrypt_2015_feature = !!(sb->s_feature_incompat & E4_FEATURE_INCOMPAT_ENCRYPT_2015);
	i->casefold_feature = ext2fs_has_feature_casefold(sb);
	i->stable_inodes_feature = ext2fs_has_feature_stable_inodes(sb);
	i->encryption_level = sb->s_encryption_level;
	memcpy(i->encrypt_algos, sb->s_encrypt_algos, 4);
	memcpy(i->encrypt_pw_salt, sb->s_encrypt_pw_salt, 16);
	memcpy(i->last_mounted, sb->s_last_mounted, sizeof(sb->s_last_mounted));
	i->last_mounted_len = strnlen(i->last_mounted, sizeof(sb->s_last_mounted));
	i->max_file_size = max_file_size(bits, ext2fs_has_feature_huge_file(sb));
	i->max_bitmap_file_size = max_bitmap_size(bits,
						  ext2fs_has_feature_huge_file(sb));
	i->declared_size = i->blocks_count > UINT64_MAX / i->block_size ? UINT64_MAX :
			   i->blocks_count * i->block_size;
	i->source_size = fs->src->size;
	fs->range.first_data_block = sb->s_first_data_block;
	fs->range.blocks = i->blocks_count;
}

enum e4_status e4_fs_open_source(struct e4_fs **out, struct e4_source *src,
				 const struct e4_fs_options *opt)
{
	struct e4_fs *fs;
	char name[64];
	errcode_t err;
	enum e4_status st;

	*out = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		e4_source_close(src);
		return E4_NOMEM;
	}
	if (opt)
		fs->opt = *opt;
	if (!fs->opt.max_dir_entries)
		fs->opt.max_dir_entries = E4_DEFAULT_MAX_DIR_ENTRIES;
	if (!fs->opt.max_depth)
		fs->opt.max_depth = E4_DEFAULT_MAX_DEPTH;
	fs->format = fs->opt.format;
	fs->src = src;
	initialize_ext2_error_table();
	e4_source_io_name(src, name);
	/* No EXT2_FLAG_RW: read-only, and the source refuses writes too.
	 * Checksum errors are ignored: evidence is read as it is, and every
	 * structure is checked by its reader. */
	err = ext2fs_open2(name, NULL,
			   EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			   e4_source_io_manager(), &fs->ext2);
	if (err == EXT2_ET_UNSUPP_FEATURE)
		err = open_2015(fs, name);
	if (err) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, 0, src->name,
			  "cannot open as ext4: %s", error_message(err));
		fs->ext2 = NULL;
		e4_fs_close(fs);
		return E4_CORRUPT;
	}
	fill_info(fs);
	if (fs->info.block_size > 65536 || fs->info.block_size < 1024) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, 0, src->name,
			  "cannot open as ext4: block size %u", fs->info.block_size);
		e4_fs_close(fs);
		return E4_CORRUPT;
	}
	if (e4_fs_shortfall(&fs->info, NULL, 0)) {
		char what[400];

		e4_fs_shortfall(&fs->info, what, sizeof(what));
		e4_report_p(fs, E4_DIAG_WARNING, E4_OK, E4_P_SHORT, 0, src->name,
			    "%s", what);
	}
	st = e4_itable_check(fs);
	if (st != E4_OK) {
		e4_fs_close(fs);
		return st;
	}
	*out = fs;
	return E4_OK;
}

/* Report about path before there is a filesystem. */
static void report_early(const char *path, const struct e4_fs_options *opt,
			 enum e4_diag_level level, enum e4_status st,
			 enum e4_problem problem, const char *fmt,
			 const char *a, const char *b)
{
	struct e4_fs tmp;

	memset(&tmp, 0, sizeof(tmp));
	if (opt)
		tmp.opt = *opt;
	e4_report_p(&tmp, level, st, problem, 0, path, fmt, a, b);
}

/* Report a failure to open path before there is a filesystem. */
static void open_failed(const char *path, const struct e4_fs_options *opt,
			enum e4_status st, const char *fmt, const char *a,
			const char *b)
{
	report_early(path, opt, E4_DIAG_ERROR, st, E4_P_OTHER, fmt, a, b);
}

enum e4_status e4_fs_open(struct e4_fs **out, const char *path,
			  const struct e4_fs_options *opt)
{
	static const struct e4_volume_choice whole;
	struct e4_source *disk, *vol;
	enum e4_status st;
	char why[1024], desc[192], kind[64] = "", shortfall[512];

	*out = NULL;
	st = e4_source_open_any(path, &disk, why, sizeof(why));
	if (st != E4_OK) {
		open_failed(path, opt, st, "cannot open: %s%s", why, "");
		return st;
	}
	if (strcmp(disk->kind, "raw"))
		snprintf(kind, sizeof(kind), "%s image: ", disk->kind);
	st = e4_volume_select_short(disk, opt ? &opt->volume : &whole, &vol, desc,
				    sizeof(desc), why, sizeof(why), shortfall,
				    sizeof(shortfall));
	if (st != E4_OK) {
		open_failed(path, opt, st, "cannot open: %s%s", kind, why);
		return st;
	}
	if (shortfall[0])
		report_early(path, opt, E4_DIAG_WARNING, E4_OK, E4_P_SHORT, "%s%s",
			     shortfall, "");
	st = e4_fs_open_source(out, vol, opt);
	if (st == E4_OK) {
		snprintf((*out)->volume, sizeof((*out)->volume), "%s", desc);
		if (strncmp(desc, "partition", 9) == 0 && !(opt && opt->volume.partition))
			e4_report(*out, E4_DIAG_INFO, E4_OK, 0, path,
				  "using its only ext4 volume, %s", desc);
	}
	return st;
}

void e4_fs_close(struct e4_fs *fs)
{
	if (!fs)
		return;
	if (fs->ext2)
		ext2fs_close_free(&fs->ext2);
	e4_source_close(fs->src);
	e4_big_free(fs->idx, fs->capidx * sizeof(*fs->idx));
	for (size_t i = 0; i < fs->capslots; i++)
		free(fs->slots[i]);
	free(fs->slots);
	free(fs->by_policy);
	free(fs->key_used);
	free(fs->bad_groups);
	e4_blockset_free(&fs->claimed);
	e4_icache_free(fs);
	e4_algs_free(fs->algs);
	free(fs->iblock);
	free(fs);
}

