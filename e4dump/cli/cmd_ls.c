/* e4dump ls: a directory (or with -R a tree) with decrypted names, or the
 * no-key names Linux shows without the key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "jsonout.h"
#include "linkfacts.h"
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

/* atime mtime ctime crtime as JSON gives them, space-separated (crtime
 * "-" when none). */
static void iso_times(const struct e4_inode *in, char *buf, size_t len)
{
	char t[4][JSON_TIME_MAX] = { "-", "-", "-", "-" };

	json_time_text(&in->atime, t[0]);
	json_time_text(&in->mtime, t[1]);
	json_time_text(&in->ctime, t[2]);
	if (in->has_crtime)
		json_time_text(&in->crtime, t[3]);
	snprintf(buf, len, "%s %s %s %s", t[0], t[1], t[2], t[3]);
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct ls *l = arg;
	const char *shown = n->entry ? (l->o->recursive ? n->rel : n->rel) : n->path;
	const struct e4_inode *in = n->inode;
	char when[4 * JSON_TIME_MAX] = "?", *target = NULL;
	const char *state;
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
	target = inode_link(l->s, in, n->path, &state, &size);
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
