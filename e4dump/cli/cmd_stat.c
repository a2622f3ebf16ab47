/* e4dump stat: one inode as istat and debugfs's stat show it, with its
 * encryption context decoded and what opens it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "blockmap.h"
#include "commands.h"
#include "dir.h"
#include "escape.h"
#include "inode.h"
#include "inodeinfo.h"
#include "linkfacts.h"
#include "jsonout.h"
#include "modes.h"
#include "nokey.h"
#include "session.h"
#include "xattrs.h"

static const char *str(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

/* str, or "?" where the text must show something */
static const char *txt(json_object *o, const char *k)
{
	const char *s = str(o, k);

	return s ? s : "?";
}

/* The file_type word as istat and debugfs say it. */
static const char *type_text(const char *word)
{
	static const char *const names[][2] = {
		{ "regular", "regular file" }, { "symlink", "symbolic link" },
		{ "chardev", "character device" }, { "blockdev", "block device" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(word, names[i][0]))
			return names[i][1];
	return word;
}

/* The names of an array, '|'-joined */
static void print_names(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("%s%s", i ? "|" : "", json_object_get_string(json_object_array_get_idx(a, i)));
}

static void print_text(json_object *o)
{
	json_object *v, *enc;
	const char *keys[] = { "path", "inode", "file_type", "mode", "uid", "gid", "size" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		printf("%s: %s\n", i == 2 ? "type" : keys[i],
		       i == 2 ? type_text(txt(o, keys[i])) : txt(o, keys[i]));
		/* the inode bitmap's word, as istat's "Allocated" */
		if (i == 1 && json_object_object_get_ex(o, "allocated", &v) && v)
			printf("allocation: %s\n", json_object_get_boolean(v) ?
			       "allocated" : "not allocated");
	}
	if (strcmp(str(o, "size"), str(o, "stored_size")))
		printf("stored size: %s\n", str(o, "stored_size"));
	if (str(o, "target_state"))
		printf("target: %s (%s)\n", txt(o, "target"), str(o, "target_state"));
	printf("links: %s\nflags: %s (", str(o, "links"), str(o, "inode_flags"));
	json_object_object_get_ex(o, "flags", &v);
	print_names(v);
	printf(")\ngeneration: %s\n", str(o, "generation"));
	printf("atime: %s\nmtime: %s\nctime: %s\n", txt(o, "atime"), txt(o, "mtime"),
	       txt(o, "ctime"));
	if (str(o, "crtime"))
		printf("crtime: %s\n", str(o, "crtime"));
	/* i_dtime as e2fsck reads it: a time, the orphan list's link, or a
	 * time left on an inode in use (e2fsck: "in use, but has dtime set") */
	if (str(o, "dtime"))
		printf("dtime: %s%s\n", str(o, "dtime"),
		       strcmp(txt(o, "links"), "0") ? " (set on an inode with links: "
		       "the kernel ignores it, e2fsck clears it)" : "");
	if (str(o, "orphan_next"))
		printf("orphan list: next inode %s (i_dtime holds the orphan list's link, "
		       "not a time: %s)\n", str(o, "orphan_next"),
		       strcmp(txt(o, "links"), "0") ? "a truncate the kernel had not finished" :
		       "unlinked while open, not yet freed");
	printf("blocks (logical -> physical):\n");
	json_object_object_get_ex(o, "blocks", &v);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *r = json_object_array_get_idx(v, i), *x;
		uint64_t l, p, n;

		json_object_object_get_ex(r, "logical", &x);
		l = json_object_get_uint64(x);
		json_object_object_get_ex(r, "physical", &x);
		p = json_object_get_uint64(x);
		json_object_object_get_ex(r, "blocks", &x);
		n = json_object_get_uint64(x);
		json_object_object_get_ex(r, "unwritten", &x);
		printf("  %" PRIu64 "-%" PRIu64 " -> %" PRIu64 "-%" PRIu64 " (%" PRIu64 " block%s%s)\n",
		       l, l + n - 1, p, p + n - 1, n, n == 1 ? "" : "s",
		       json_object_get_boolean(x) ? ", unwritten" : "");
	}
	if (!json_object_object_get_ex(o, "encryption", &enc) || !enc) {
		printf("encryption: none\n");
	} else if (str(enc, "error")) {
		printf("encryption: context unreadable (%s)\n", str(enc, "error"));
	} else {
		json_object_object_get_ex(enc, "known", &v);
		printf("encryption: policy v%s%s\n", str(enc, "policy_version"),
		       json_object_get_boolean(v) ? "" : " (not one Linux 6.1 knows)");
		if (!str(enc, "contents"))
			goto nokey;
		printf("  contents: %s (%s)\n", str(enc, "contents"), str(enc, "contents_mode"));
		printf("  filenames: %s (%s)\n", str(enc, "filenames"), str(enc, "filenames_mode"));
		printf("  policy flags: %s (", str(enc, "policy_flags"));
		json_object_object_get_ex(enc, "flags", &v);
		print_names(v);
		printf(")\n");
		if (str(enc, "descriptor"))
			printf("  descriptor: %s\n", str(enc, "descriptor"));
		else
			printf("  identifier: %s\n", str(enc, "identifier"));
		printf("  nonce: %s\n", str(enc, "nonce"));
		if (str(enc, "key"))
			printf("  key: %s (%s)\n", str(enc, "key"), str(enc, "key_how"));
		else if (str(enc, "key_how"))
			printf("  key: none opens it (%s)\n", str(enc, "key_how"));
	}
nokey:
	if (str(o, "nokey_name"))
		printf("no-key name: %s\n", str(o, "nokey_name"));
}

int cmd_stat(const struct options *o, struct report *r)
{
	struct session s;
	struct e4_inode in;
	const char *path = o->args[1];
	char *shown = malloc(E4_ESCAPE_SIZE(strlen(path)));
	json_object *rec;
	uint32_t ino;
	int rc = session_open(&s, o, r, 1);

	if (rc || !shown) {
		free(shown);
		if (!rc)
			session_close(&s);
		rc = rc ? rc : EXIT_FATAL;
		if (o->json)
			json_emit(json_summary("stat", r, rc));
		return finish_stdout(rc, r);
	}
	e4_escape((const uint8_t *)path, strlen(path), shown, 0);
	if (e4_path_lookup(s.fs, path, &ino) != E4_OK ||
	    e4_inode_read(s.fs, ino, shown, &in) != E4_OK) {
		rec = NULL;
	} else {
		rec = inode_info(&s, path, shown, &in, NULL);
	}
	rc = rec ? session_status(&s) : EXIT_SKIPPED;
	/* keys were given and none opens it: kept locked, as ls says of its
	 * directory (without keys, its no-key facts are the whole answer) */
	if (rec && e4_keystore_count(s.keys) && inode_locked(&s, &in))
		rc = EXIT_SKIPPED;
	if (o->json) {
		if (rec)
			json_emit(rec);
		json_emit(json_summary("stat", r, rc));
	} else if (rec) {
		print_text(rec);
		/* inode_info's record read them and reported their damage */
		xattrs_print(stdout, s.fs, &in, shown, 1);
		json_object_put(rec);
	}
	free(shown);
	session_close(&s);
	return finish_stdout(rc, r);
}
