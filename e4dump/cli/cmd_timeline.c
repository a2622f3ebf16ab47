/* e4dump timeline: a body file in The Sleuth Kit's 3.x layout, one line
 * per entry of the tree, with decrypted names, for mactime(1):
 *   MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|ctime|crtime
 * MD5 is 0 (not computed, as fls -m writes it); times are whole seconds
 * (0: none); names are the display paths of ls -R from the image root,
 * with '|' escaped as \x7c; an entry whose name no key decrypts keeps
 * its no-key name followed by " (encrypted, no key)", as fls marks
 * deleted entries with " (deleted)". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "dir.h"
#include "inode.h"
#include "session.h"
#include "walk.h"

struct timeline {
	struct session *s;
	const char *start;    /* the PATH given */
};

/* TSK's mode string: entry type, '/', inode type and permissions
 * ("r/rrw-r--r--"). */
static void mode_string(uint16_t mode, char out[13])
{
	static const char rwx[] = "rwxrwxrwx";
	char t;

	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: t = 'd'; break;
	case E4_S_IFREG: t = 'r'; break;
	case E4_S_IFLNK: t = 'l'; break;
	case E4_S_IFCHR: t = 'c'; break;
	case E4_S_IFBLK: t = 'b'; break;
	case E4_S_IFIFO: t = 'p'; break;
	case E4_S_IFSOCK: t = 'h'; break;
	default: t = '-';
	}
	out[0] = t;
	out[1] = '/';
	out[2] = t;
	for (int i = 0; i < 9; i++)
		out[3 + i] = (mode & (0400 >> i)) ? rwx[i] : '-';
	if (mode & 04000)
		out[5] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		out[8] = (mode & 0010) ? 's' : 'S';
	if (mode & 01000)
		out[11] = (mode & 0001) ? 't' : 'T';
	out[12] = 0;
}

static void put_name(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\x7c", stdout);
		else
			putchar(*s);
	}
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct timeline *t = arg;
	const struct e4_inode *in = n->inode;
	char mode[13];
	uint64_t size;

	if (!in)
		return E4_WALK_CONTINUE; /* reported */
	size = in->size;
	if (E4_ISLNK(in->mode)) {
		/* the size lstat gives, as ls -l and stat show it */
		char *target;
		size_t len;

		if (n->parent && n->parent->encrypted && !n->parent->have_key)
			e4_symlink_locked_size(t->s->fs, in, n->path, &size);
		else if (e4_symlink_read(t->s->fs, in, n->path, &target, &len) == E4_OK) {
			size = len;
			free(target);
		}
	}
	mode_string(in->mode, mode);
	printf("0|");
	if (!strcmp(t->start, "/")) {
		putchar('/');
		put_name(n->rel);
	} else {
		put_name(n->path);
	}
	if (n->entry && (n->entry->state == E4_NAME_NOKEY || n->entry->state == E4_NAME_BAD))
		fputs(" (encrypted, no key)", stdout);
	printf("|%" PRIu32 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|%" PRId64 "|%" PRId64
	       "|%" PRId64 "|%" PRId64 "\n",
	       n->ino, mode, in->uid, in->gid, size, in->atime.sec,
	       in->mtime.sec, in->ctime.sec, in->has_crtime ? in->crtime.sec : 0);
	return E4_WALK_CONTINUE;
}

int cmd_timeline(const struct options *o, struct report *r)
{
	struct session s;
	struct timeline t = { &s, o->n_args > 1 ? o->args[1] : "/" };
	struct e4_walk_options wo = { 1, 1, 0 };
	struct e4_walk_visitor v = { .entry = entry };
	uint32_t ino;
	int rc = session_open(&s, o, r, 1);

	if (rc)
		return rc;
	if (e4_path_lookup(s.fs, t.start, &ino) == E4_OK)
		e4_walk(s.fs, ino, t.start, &wo, &v, &t, NULL);
	rc = session_status(&s);
	session_close(&s);
	return finish_stdout(rc, r);
}
