#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "content.h"
#include "dirlist.h"
#include "report.h"

struct cat_state {
	uint64_t pos; /* bytes written so far */
};

static int write_zeros(uint64_t n)
{
	static const uint8_t zeros[4096];

	while (n) {
		size_t k = n > sizeof(zeros) ? sizeof(zeros) : (size_t)n;

		if (fwrite(zeros, 1, k, stdout) != k)
			return -1;
		n -= k;
	}
	return 0;
}

static int cat_sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct cat_state *s = arg;

	if (off > s->pos && write_zeros(off - s->pos))
		return -1;
	if (fwrite(data, 1, len, stdout) != len)
		return -1;
	s->pos = off + len;
	return 0;
}

int cmd_cat(const struct options *o)
{
	struct img im;
	struct keyring kr;
	struct ext2_inode_large inode;
	struct cat_state s = { 0 };
	ext2_ino_t ino;
	int rc, ret = EXIT_DONE;

	if (o->n_args != 2) {
		report_error("cat: needs IMAGE and PATH");
		return EXIT_FATAL;
	}
	rc = session_open(o, &im, &kr);
	if (rc)
		return rc;
	if (path_lookup(&kr, o->args[1], &ino) ||
	    img_read_inode(&im, ino, &inode)) {
		ret = EXIT_SKIPPED;
	} else if (LINUX_S_ISREG(inode.i_mode)) {
		rc = content_read(&kr, ino, &inode, o->args[1], cat_sink, &s);
		if (rc == 0 && s.pos < img_inode_size(&inode) &&
		    write_zeros(img_inode_size(&inode) - s.pos))
			rc = -1;
		if (rc)
			ret = EXIT_SKIPPED;
	} else if (LINUX_S_ISLNK(inode.i_mode)) {
		char *target;
		size_t len;

		if (symlink_target(&kr, ino, &inode, o->args[1], &target, &len)) {
			ret = EXIT_SKIPPED;
		} else {
			fwrite(target, 1, len, stdout);
			free(target);
		}
	} else {
		report_error("%s (inode %u): not a regular file or symlink",
			     o->args[1], ino);
		ret = EXIT_SKIPPED;
	}
	if (fflush(stdout) || ferror(stdout)) {
		report_error("cat: writing to standard output failed");
		ret = EXIT_FATAL;
	}
	session_close(&im, &kr);
	return ret;
}
