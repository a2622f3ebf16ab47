/* Undelete on whole images: the input is an ext4 image with a journal
 * (held in a memfd, opened read-only through e4_fs_open with the fixed
 * test key in the keystore).  The journal is loaded (e4_fs_journal), the
 * deleted entries found from the root (e4_undelete_scan), and each one
 * recovered as undelete does: a regular file opened (the key, else
 * locked) and streamed to a sink that keeps nothing, a symlink's target
 * read (locked too).  Nothing is written anywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <ext2fs/ext2_err.h>
#include "fs.h"
#include "fuzz_common.h"
#include "journal.h"
#include "keystore.h"
#include "undelete.h"

#define MAX_IMAGE (8u << 20)
#define MAX_STREAM (64u << 20)  /* bytes passed per input, at most */

static int img_fd = -1;
static char img_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_quiet();
	initialize_ext2_error_table();
	img_fd = fuzz_memfd("e4dump-fuzz-undelete", img_path, sizeof(img_path));
	return 0;
}

struct run {
	struct e4_fs *fs;
	struct e4_journal *j;
	uint64_t passed;
};

static int sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct run *r = arg;

	(void)off;
	if (len && (data[0] ^ data[len - 1]) == 0x5a)
		r->passed++;    /* touch the bytes */
	r->passed += len;
	return r->passed > MAX_STREAM;
}

static int one(void *arg, const struct e4_deleted *d)
{
	struct run *r = arg;
	struct e4_recovery *rec = NULL;
	const char *why;

	/* what the record shows: every part of the path */
	for (size_t i = 0; i < d->nparts; i++)
		if (d->parts[i].len && d->parts[i].name[0] == 0x7f)
			r->passed++;
	if (!d->have_inode)
		return 0;
	if (d->file_type == 1) {
		enum e4_status st = e4_recovery_open(r->fs, r->j, d, 0, &rec, &why);

		if (st == E4_NO_KEY)
			st = e4_recovery_open(r->fs, r->j, d, 1, &rec, &why);
		if (st == E4_OK) {
			const struct e4_suspect *sus;

			(void)e4_recovery_stream(rec, sink, r);
			(void)e4_recovery_suspects(rec, &sus);
			(void)e4_recovery_size(rec);
			e4_recovery_free(rec);
		}
	} else if (d->file_type == 7) {
		char *target = NULL;
		size_t len;
		int nokey;

		for (int locked = 0; locked < 2; locked++) {
			if (e4_recovery_symlink(r->fs, r->j, d, locked, &target, &len,
						&nokey, &why) == E4_OK && len != strlen(target))
				abort();        /* a NUL inside a target */
			free(target);
			target = NULL;
		}
	}
	return r->passed > MAX_STREAM;
}

static void quiet(void *arg, const struct e4_diag *d)
{
	(void)arg, (void)d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_keystore *ks;
	struct e4_fs_options fo;
	struct run r;

	if (size > MAX_IMAGE)
		return 0;
	if (ftruncate(img_fd, 0) || pwrite(img_fd, data, size, 0) != (ssize_t)size)
		abort();
	ks = e4_keystore_new();
	if (!ks || e4_keystore_add(ks, fuzz_test_key, sizeof(fuzz_test_key),
				   "fuzz") != E4_OK)
		abort();
	memset(&fo, 0, sizeof(fo));
	fo.keys = ks;
	fo.diag = quiet;
	memset(&r, 0, sizeof(r));
	if (e4_fs_open(&r.fs, img_path, &fo) == E4_OK) {
		if (e4_fs_journal(r.fs, &r.j) == E4_OK) {
			(void)e4_undelete_scan(r.fs, r.j, E4_ROOT_INO, one, &r);
			e4_journal_free(r.j);
		}
		e4_fs_close(r.fs);
	}
	e4_keystore_free(ks);
	return 0;
}
