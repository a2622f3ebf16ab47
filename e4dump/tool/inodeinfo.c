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
#include "modes.h"
#include "nokey.h"
#include "xattrs.h"

/* i_flags by the kernel's names (fs/ext4/ext4.h EXT4_*_FL). */
static const struct {
	uint32_t bit;
	const char *name;
} inode_flags[] = {
	{ 0x00000001, "SECRM" }, { 0x00000002, "UNRM" },
	{ 0x00000004, "COMPR" }, { 0x00000008, "SYNC" },
	{ 0x00000010, "IMMUTABLE" }, { 0x00000020, "APPEND" },
	{ 0x00000040, "NODUMP" }, { 0x00000080, "NOATIME" },
	{ 0x00000100, "DIRTY" }, { 0x00000200, "COMPRBLK" },
	{ 0x00000400, "NOCOMPR" }, { 0x00000800, "ENCRYPT" },
	{ 0x00001000, "INDEX" }, { 0x00002000, "IMAGIC" },
	{ 0x00004000, "JOURNAL_DATA" }, { 0x00008000, "NOTAIL" },
	{ 0x00010000, "DIRSYNC" }, { 0x00020000, "TOPDIR" },
	{ 0x00040000, "HUGE_FILE" }, { 0x00080000, "EXTENTS" },
	{ 0x00100000, "VERITY" }, { 0x00200000, "EA_INODE" },
	{ 0x02000000, "DAX" }, { 0x10000000, "INLINE_DATA" },
	{ 0x20000000, "PROJINHERIT" }, { 0x40000000, "CASEFOLD" },
};

static const char *type_name(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: return "directory";
	case E4_S_IFREG: return "regular file";
	case E4_S_IFLNK: return "symbolic link";
	case E4_S_IFCHR: return "character device";
	case E4_S_IFBLK: return "block device";
	case E4_S_IFIFO: return "fifo";
	case E4_S_IFSOCK: return "socket";
	}
	return "unknown";
}

/* What stat shows is gathered into one JSON object (the --json record);
 * the text form is printed from it. */
#define ADD(o, k, v) json_object_object_add((o), (k), (v))
#define STR(s) json_object_new_string(s)
#define INT(i) json_object_new_int64((int64_t)(i))

static json_object *flag_names(uint32_t flags)
{
	json_object *a = json_object_new_array();
	char hex[16];

	for (size_t i = 0; i < sizeof(inode_flags) / sizeof(inode_flags[0]); i++)
		if (flags & inode_flags[i].bit) {
			json_object_array_add(a, STR(inode_flags[i].name));
			flags &= ~inode_flags[i].bit;
		}
	for (int b = 0; b < 32; b++)
		if (flags & (1u << b)) {
			snprintf(hex, sizeof(hex), "0x%08x", 1u << b);
			json_object_array_add(a, STR(hex));
		}
	return a;
}

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

static json_object *context_of(struct session *s, const struct e4_inode *in)
{
	struct e4_context c;
	struct e4_policy_key pk;
	const char *why = NULL;
	char flags[E4_FLAGS_NAME_MAX], fl[8];
	enum e4_status st = e4_inode_context(s->fs, in, &c, &why);
	json_object *o;

	if (st == E4_NOT_FOUND)
		return NULL;
	o = json_object_new_object();
	if (st != E4_OK && st != E4_UNRECOGNIZED) {
		ADD(o, "error", STR(why ? why : e4_status_str(st)));
		return o;
	}
	/* the context's version byte as stored (v2 is stored as 2) */
	ADD(o, "version", INT(c.version));
	ADD(o, "known", json_object_new_boolean(st == E4_OK));
	if (c.version != E4_CONTEXT_V1 && c.version != E4_CONTEXT_V2)
		return o; /* nothing else of it can be read */
	e4_policy_flags_name(c.flags, flags);
	snprintf(fl, sizeof(fl), "0x%02x", c.flags);
	ADD(o, "contents_mode", INT(c.contents_mode));
	ADD(o, "contents", STR(e4_mode_name(c.contents_mode)));
	ADD(o, "filenames_mode", INT(c.filenames_mode));
	ADD(o, "filenames", STR(e4_mode_name(c.filenames_mode)));
	ADD(o, "policy_flags", STR(fl));
	ADD(o, "policy_flag_names", STR(flags));
	ADD(o, c.version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
	    json_hex(c.key_id, c.key_id_size));
	ADD(o, "nonce", json_hex(c.nonce, sizeof(c.nonce)));
	if (st != E4_OK)
		return o;
	e4_fs_policy_key(s->fs, &c, &pk);
	ADD(o, "key", pk.open ? STR(pk.key >= 0 ?
		e4_keystore_key(s->keys, (size_t)pk.key)->label : "dummy key") : NULL);
	ADD(o, "key_how", STR(pk.open || e4_keystore_count(s->keys) ? pk.how : "no key given"));
	return o;
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

int inode_locked(struct session *s, const struct e4_inode *in)
{
	struct e4_context c;
	struct e4_policy_key pk;
	const char *why;

	return in->encrypted && e4_inode_context(s->fs, in, &c, &why) == E4_OK &&
	       (e4_fs_policy_key(s->fs, &c, &pk) != E4_OK || !pk.open);
}

uint64_t inode_stat_size(struct session *s, const struct e4_inode *in,
			 const char *shown)
{
	uint64_t size = in->size;
	char *target;
	size_t len;

	if (!E4_ISLNK(in->mode))
		return size;
	if (inode_locked(s, in))
		e4_symlink_locked_size(s->fs, in, shown, &size);
	else if (e4_symlink_read(s->fs, in, shown, &target, &len) == E4_OK) {
		size = len;
		free(target);
	}
	return size;
}

char *inode_target(struct session *s, const struct e4_inode *in,
		   const char *shown, const char **state)
{
	char nk[E4_NOKEY_NAME_MAX + 1], *target = NULL, *esc;
	size_t len;

	if (inode_locked(s, in)) {
		*state = "nokey";
		return e4_symlink_locked_target(s->fs, in, shown, nk) == E4_OK ?
		       strdup(nk) : NULL;
	}
	*state = in->encrypted ? "decrypted" : "plain";
	if (e4_symlink_read(s->fs, in, shown, &target, &len) != E4_OK)
		return NULL;
	esc = malloc(E4_ESCAPE_SIZE(len));
	if (esc)
		e4_escape((const uint8_t *)target, len, esc, 0);
	free(target);
	return esc;
}

static json_object *symlink_target(struct session *s, const struct e4_inode *in,
				   const char *shown, const char **state)
{
	char *t = inode_target(s, in, shown, state);
	json_object *o = t ? STR(t) : NULL;

	free(t);
	return o;
}

json_object *inode_info(struct session *s, const char *path, const char *shown,
			const struct e4_inode *in, const char *nokey)
{
	json_object *o = json_record("stat"), *runs = json_object_new_array();
	uint64_t size = inode_stat_size(s, in, shown);
	char mode[8], flags[16];

	snprintf(mode, sizeof(mode), "%04o", in->mode & 07777);
	snprintf(flags, sizeof(flags), "0x%08" PRIx32, in->flags);
	ADD(o, "path", STR(shown));
	ADD(o, "inode", INT(in->ino));
	ADD(o, "file_type", STR(type_name(in->mode)));
	ADD(o, "mode", STR(mode));
	ADD(o, "uid", INT(in->uid));
	ADD(o, "gid", INT(in->gid));
	ADD(o, "size", json_object_new_uint64(size));
	ADD(o, "stored_size", json_object_new_uint64(in->size));
	ADD(o, "links", INT(in->links));
	ADD(o, "flags", STR(flags));
	ADD(o, "flag_names", flag_names(in->flags));
	ADD(o, "generation", INT(in->generation));
	ADD(o, "atime", json_time(&in->atime));
	ADD(o, "mtime", json_time(&in->mtime));
	ADD(o, "ctime", json_time(&in->ctime));
	ADD(o, "crtime", in->has_crtime ? json_time(&in->crtime) : NULL);
	if ((E4_ISREG(in->mode) || E4_ISDIR(in->mode) || (E4_ISLNK(in->mode) && in->blocks)) &&
	    !(in->flags & E4_INODE_INLINE_DATA_FL))
		e4_inode_map(s->fs, in, shown, UINT64_MAX, add_run, runs);
	ADD(o, "blocks", runs);
	if (E4_ISLNK(in->mode)) {
		const char *state = NULL;

		ADD(o, "target", symlink_target(s, in, shown, &state));
		ADD(o, "target_state", STR(state));
	}
	ADD(o, "encryption", context_of(s, in));
	ADD(o, "xattrs", xattrs_json(s->fs, in, shown));
	ADD(o, "nokey_name", nokey ? STR(nokey) : path ? nokey_name(s, path, in->ino) : NULL);
	return o;
}

