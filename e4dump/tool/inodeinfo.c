/* What e4dump knows of one inode, as one JSON object: stat's record and
 * extract --keep-locked's sidecar. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blockmap.h"
#include "dir.h"
#include "escape.h"
#include "inodeinfo.h"
#include "jsonout.h"
#include "linkfacts.h"
#include "modes.h"
#include "nokey.h"
#include "record.h"

/* What stat shows is gathered into one JSON object (the --json record);
 * the text form is printed from it. */
#define ADD(o, k, v) json_object_object_add((o), (k), (v))
#define STR(s) json_object_new_string(s)
#define INT(i) json_object_new_int64((int64_t)(i))

static int add_run(void *arg, const struct e4_run *r)
{
	json_object *run = json_object_new_object();

	ADD(run, "logical", json_object_new_uint64(r->lblk));
	ADD(run, "physical", json_object_new_uint64(r->pblk));
	ADD(run, "blocks", json_object_new_uint64(r->len));
	ADD(run, "unwritten", json_object_new_boolean(r->unwritten));
	json_object_array_add(arg, run);
	return 0;
}

/* The no-key name of path's last component, shown by its parent (when
 * that is an encrypted directory), or NULL. */
static json_object *nokey_name(struct session *s, const char *path, uint32_t ino)
{
	const char *slash = strrchr(path, '/');
	char *parent, nk[E4_NOKEY_NAME_MAX + 1];
	uint32_t pino;
	struct e4_inode pin;
	struct e4_dir *d = NULL;
	const char *name = slash ? slash + 1 : path;
	json_object *o = NULL;

	if (path[0] == '<' || !*name)
		return NULL;
	parent = strndup(path, slash ? (size_t)(slash - path) : 0);
	if (!parent)
		return NULL;
	if (e4_path_lookup(s->fs, *parent ? parent : "/", &pino) == E4_OK &&
	    e4_inode_read(s->fs, pino, parent, &pin) == E4_OK &&
	    e4_dir_list(s->fs, &pin, parent, E4_LIST_QUIET, &d) == E4_OK &&
	    e4_dir_facts(d)->encrypted) {
		size_t i = e4_dir_find(s->fs, d, (const uint8_t *)name, strlen(name));
		struct e4_entry e;

		if (i < e4_dir_count(d)) {
			e4_dir_get(d, i, &e);
			if (e.ino == ino) {
				e4_dir_nokey_name(s->fs, d, i, nk);
				o = STR(nk);
			}
		}
	}
	e4_dir_free(d);
	free(parent);
	return o;
}

void inode_info_add(json_object *o, struct session *s, const char *path,
		    const char *shown, const struct e4_inode *in, const char *nokey)
{
	json_object *runs = json_object_new_array();
	char flags[16];

	snprintf(flags, sizeof(flags), "0x%08" PRIx32, in->flags);
	ADD(o, "stored_size", json_object_new_uint64(in->size));
	ADD(o, "inode_flags", STR(flags));
	ADD(o, "generation", INT(in->generation));
	if ((E4_ISREG(in->mode) || E4_ISDIR(in->mode) || (E4_ISLNK(in->mode) && in->blocks)) &&
	    !(in->flags & E4_INODE_INLINE_DATA_FL))
		e4_inode_map(s->fs, in, shown, UINT64_MAX, add_run, runs);
	ADD(o, "blocks", runs);
	if (E4_ISLNK(in->mode))
		ADD(o, "target_state", STR(inode_target_state(s, in)));
	ADD(o, "nokey_name", nokey ? STR(nokey) : path ? nokey_name(s, path, in->ino) : NULL);
}

json_object *inode_info(struct session *s, const char *path, const char *shown,
			const struct e4_inode *in, const char *nokey)
{
	struct record rec;
	json_object *o;

	record_init(&rec, "stat");
	if (record_from_inode(&rec, s, in->ino, in, shown) || !(o = record_json(&rec))) {
		record_free(&rec);
		return NULL;
	}
	record_free(&rec);
	inode_info_add(o, s, path, shown, in, nokey);
	return o;
}
