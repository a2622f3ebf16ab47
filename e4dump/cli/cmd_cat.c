/* e4dump cat: a file's contents (or a symlink's target), decrypted. */
#include <stdio.h>
#include <stdlib.h>
#include "commands.h"
#include "dir.h"
#include "file.h"
#include "session.h"

static int write_zeros(uint64_t n)
{
	static const uint8_t zeros[65536];

	while (n) {
		size_t k = n > sizeof(zeros) ? sizeof(zeros) : (size_t)n;

		if (fwrite(zeros, 1, k, stdout) != k)
			return -1;
		n -= k;
	}
	return 0;
}

struct cat {
	uint64_t pos;   /* bytes written so far */
	int failed;
};

static int sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct cat *c = arg;

	if ((off > c->pos && write_zeros(off - c->pos)) ||
	    fwrite(data, 1, len, stdout) != len) {
		c->failed = 1;
		return 1;
	}
	c->pos = off + len;
	return 0;
}

static void cat_file(struct session *s, const struct e4_inode *in,
		     const char *path)
{
	struct e4_file *f;
	struct cat c = { 0, 0 };

	if (e4_file_open(s->fs, in, path, &f) != E4_OK)
		return; /* reported */
	if (e4_file_stream(f, sink, &c) == E4_OK && !c.failed &&
	    c.pos < in->size && write_zeros(in->size - c.pos))
		c.failed = 1;
	e4_file_close(f);
}

int cmd_cat(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_inode in;
	const char *path = o->args[1];
	uint32_t ino;
	int rc = session_open(&s, o, r, 0);

	if (rc)
		return rc;
	if (e4_path_lookup(s.fs, path, &ino) == E4_OK &&
	    e4_inode_read(s.fs, ino, path, &in) == E4_OK) {
		if (E4_ISREG(in.mode)) {
			cat_file(&s, &in, path);
		} else if (E4_ISLNK(in.mode)) {
			char *target;
			size_t len;

			if (e4_symlink_read(s.fs, &in, path, &target, &len) == E4_OK) {
				fwrite(target, 1, len, stdout);
				free(target);
			}
		} else {
			report_error(r, "%s (inode %u): not a regular file or symlink",
				     path, ino);
		}
	}
	rc = session_status(&s);
	session_close(&s);
	return finish_stdout(rc, r);
}
