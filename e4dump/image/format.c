/* The one name-format decision of a filesystem, and its casefolding. */
#include <string.h>
#include "casefold.h"
#include "dirblock.h"
#include "fs_private.h"

/* Two stored lengths that Linux 6.1's padding cannot produce make the
 * 2015 format (one alone is taken as damage, which verify reports). */
#define FORMAT_2015_EVIDENCE 2

struct lens {
	unsigned int pad;
	unsigned int count;     /* 2015-only lengths seen */
};

static int len_cb(void *arg, const struct e4_dirent *de)
{
	struct lens *l = arg;

	if (e4_dirent_is_dot(de))
		return 0;
	if (!e4_fname_stored_len_possible(E4_FORMAT_61, l->pad, de->name_len,
					  E4_NAME_MAX) &&
	    e4_fname_stored_len_possible(E4_FORMAT_2015, l->pad, de->name_len,
					 E4_NAME_MAX))
		l->count++;
	return l->count >= FORMAT_2015_EVIDENCE;
}

static void quiet(void *arg, const struct e4_diag *d)
{
	(void)arg, (void)d;
}

enum e4_name_format e4_fs_name_format(struct e4_fs *fs)
{
	const struct e4_enc_inode *v;
	struct lens l = { 0, 0 };
	e4_diag_fn diag = fs->opt.diag;
	size_t n;

	if (fs->format != E4_FORMAT_AUTO)
		return fs->format;
	fs->format = E4_FORMAT_61;
	e4_fs_encrypted_inodes(fs, &v, &n, NULL);
	/* damage is reported where the directories are read, not here */
	fs->opt.diag = quiet;
	for (size_t i = 0; i < n && l.count < FORMAT_2015_EVIDENCE; i++) {
		struct e4_inode in;

		if (!v[i].flagged || v[i].ctx_status != E4_OK ||
		    !E4_ISDIR(v[i].mode) ||
		    e4_inode_read(fs, v[i].ino, NULL, &in) != E4_OK)
			continue;
		l.pad = e4_context_name_padding(&v[i].ctx);
		e4_dir_iterate(fs, &in, NULL, len_cb, &l, NULL);
	}
	fs->opt.diag = diag;
	if (l.count >= FORMAT_2015_EVIDENCE)
		fs->format = E4_FORMAT_2015;
	return fs->format;
}

const struct ext2fs_nls_table *e4_fs_casefold_table(struct e4_fs *fs)
{
	if (!fs->info.casefold_feature)
		return NULL;
	if (fs->casefold_state == 0)
		fs->casefold_state = e4_casefold_self_check(fs->ext2->encoding) ? 1 : -1;
	return fs->casefold_state > 0 ? fs->ext2->encoding : NULL;
}
