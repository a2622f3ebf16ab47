/* e4dump ls: a directory (or with -R a tree) with decrypted names, or the
 * no-key names Linux shows without the key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "escape.h"
#include "jsonout.h"
#include "record.h"
#include "session.h"
#include "walk.h"

struct ls {
	struct session *s;
	const struct options *o;
	size_t entries;         /* --json: records written */
};

static char type_char(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: return 'd';
	case E4_S_IFREG: return '-';
	case E4_S_IFLNK: return 'l';
	case E4_S_IFCHR: return 'c';
	case E4_S_IFBLK: return 'b';
	case E4_S_IFIFO: return 'p';
	case E4_S_IFSOCK: return 's';
	}
	return '?';
}

/* Escaped target of a symlink (malloc'd) and the size Linux's lstat
 * gives it: the target's length, or for a locked one the length of its
 * no-key form; NULL target when locked or unreadable (reported). */
static char *symlink_target(struct ls *l, const struct e4_walk_node *n,
			    uint64_t *size)
{
	char *target, *esc;
	size_t len;

	/* a locked directory's symlinks are locked too */
	if (n->parent && n->parent->encrypted && !n->parent->have_key) {
		e4_symlink_locked_size(l->s->fs, n->inode, n->path, size);
		return NULL;
	}
	if (e4_symlink_read(l->s->fs, n->inode, n->path, &target, &len) != E4_OK)
		return NULL;
	*size = len;
	esc = malloc(E4_ESCAPE_SIZE(len));
	if (esc)
		e4_escape((const uint8_t *)target, len, esc, 0);
	free(target);
	return esc;
}

/* One time as ISO 8601, UTC, with nanoseconds. */
static size_t iso_time(const struct e4_timestamp *ts, char *buf, size_t len)
{
	time_t t = (time_t)ts->sec;
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm) || !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)))
		return (size_t)snprintf(buf, len, "?");
	return n + (size_t)snprintf(buf + n, len - n, ".%09uZ", (unsigned int)ts->nsec);
}

/* atime mtime ctime crtime, space-separated (crtime "-" when none). */
static void iso_times(const struct e4_inode *in, char *buf, size_t len)
{
	size_t n = iso_time(&in->atime, buf, len);

	buf[n++] = ' ';
	n += iso_time(&in->mtime, buf + n, len - n);
	buf[n++] = ' ';
	n += iso_time(&in->ctime, buf + n, len - n);
	buf[n++] = ' ';
	if (in->has_crtime)
		iso_time(&in->crtime, buf + n, len - n);
	else
		snprintf(buf + n, len - n, "-");
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct ls *l = arg;
	const char *shown = n->entry ? (l->o->recursive ? n->rel : n->rel) : n->path;
	const struct e4_inode *in = n->inode;
	char when[160] = "?", *target = NULL;
	uint64_t size;
	struct tm tm;
	time_t t;

	/* a directory given as PATH is listed, not shown */
	if (!n->entry && in && E4_ISDIR(in->mode))
		return E4_WALK_CONTINUE;
	if (l->o->json) {
		struct record rec;

		record_init(&rec, "entry");
		if (!record_from_node(&rec, l->s, n))
			json_emit(record_json(&rec));
		record_free(&rec);
		l->entries++;
		return E4_WALK_CONTINUE;
	}
	if (!l->o->long_format) {
		printf("%s\n", shown);
		return E4_WALK_CONTINUE;
	}
	if (!in) {
		printf("%10u ? ????          ? ?                   %s\n", n->ino, shown);
		return E4_WALK_CONTINUE;
	}
	size = in->size;
	if (E4_ISLNK(in->mode))
		target = symlink_target(l, n, &size);
	if (l->o->full_time) {
		iso_times(in, when, sizeof(when));
	} else {
		t = (time_t)in->mtime.sec;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	}
	printf("%10u %c %04o %12llu %s %s", n->ino, type_char(in->mode),
	       in->mode & 07777, (unsigned long long)size, when, shown);
	if (target)
		printf(" -> %s", target);
	printf("\n");
	free(target);
	return E4_WALK_CONTINUE;
}

int cmd_ls(const struct options *o, struct report *r)
{
	struct session s;
	struct ls l = { &s, o, 0 };
	const char *path = o->n_args > 1 ? o->args[1] : "/";
	struct e4_walk_options wo = { o->recursive, o->long_format || o->json, 0, 0 };
	struct e4_walk_visitor v = { .entry = entry };
	uint32_t ino;
	int rc = session_open(&s, o, r, 1);

	if (rc) {
		if (o->json)
			json_emit(json_summary("ls", r, rc));
		return finish_stdout(rc, r);
	}
	if (e4_path_lookup(s.fs, path, &ino) == E4_OK)
		e4_walk(s.fs, ino, path, &wo, &v, &l, NULL);
	rc = session_status(&s);
	if (o->json) {
		json_object *sum = json_summary("ls", r, rc);

		json_object_object_add(sum, "entries", json_object_new_uint64(l.entries));
		json_emit(sum);
	}
	session_close(&s);
	return finish_stdout(rc, r);
}
