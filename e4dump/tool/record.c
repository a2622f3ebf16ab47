/* The record of an entry (record.h): gathered once, rendered in one
 * vocabulary. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "escape.h"
#include "linkfacts.h"
#include "jsonout.h"
#include "modes.h"
#include "nokey.h"
#include "record.h"
#include "session.h"
#include "xattrs.h"

#define ADD(o, k, v) json_object_object_add((o), (k), (v))
#define STR(s) json_object_new_string(s)
#define INT(i) json_object_new_int64((int64_t)(i))

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

json_object *record_inode_flags(uint32_t flags)
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

/* e4_policy_flags_name's names ("PAD_32|DIRECT_KEY"), one a string */
json_object *record_policy_flags(uint8_t flags)
{
	json_object *a = json_object_new_array();
	char names[E4_FLAGS_NAME_MAX], *save = NULL;

	e4_policy_flags_name(flags, names);
	for (char *t = strtok_r(names, "|", &save); t; t = strtok_r(NULL, "|", &save))
		json_object_array_add(a, STR(t));
	return a;
}

const char *record_file_type(uint16_t mode)
{
	switch (mode & E4_S_IFMT) {
	case E4_S_IFDIR: return "directory";
	case E4_S_IFREG: return "regular";
	case E4_S_IFLNK: return "symlink";
	case E4_S_IFCHR: return "chardev";
	case E4_S_IFBLK: return "blockdev";
	case E4_S_IFIFO: return "fifo";
	case E4_S_IFSOCK: return "socket";
	}
	return "unknown";
}

/* EXT2_FT_*: 1 regular ... 7 symlink */
const char *record_file_type_ft(uint8_t ft)
{
	static const char *const words[] = { "unknown", "regular", "directory",
		"chardev", "blockdev", "fifo", "socket", "symlink" };

	return ft < sizeof(words) / sizeof(words[0]) ? words[ft] : "unknown";
}

json_object *record_time(const struct e4_timestamp *ts)
{
	return json_time(ts);
}


json_object *record_policy(const char *type, const struct e4_context *c, int nonce)
{
	json_object *o = type ? json_record(type) : json_object_new_object();
	char fl[8];

	snprintf(fl, sizeof(fl), "0x%02x", c->flags);
	ADD(o, "policy_version", INT(c->version));
	ADD(o, "contents_mode", INT(c->contents_mode));
	ADD(o, "contents", STR(e4_mode_name(c->contents_mode)));
	ADD(o, "filenames_mode", INT(c->filenames_mode));
	ADD(o, "filenames", STR(e4_mode_name(c->filenames_mode)));
	ADD(o, "flags", record_policy_flags(c->flags));
	ADD(o, "policy_flags", STR(fl));
	ADD(o, c->version == E4_CONTEXT_V1 ? "descriptor" : "identifier",
	    json_hex(c->key_id, c->key_id_size > sizeof(c->key_id) ?
		     sizeof(c->key_id) : c->key_id_size));
	if (nonce)
		ADD(o, "nonce", json_hex(c->nonce, sizeof(c->nonce)));
	return o;
}

void record_init(struct record *r, const char *type)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->allocated = -1;
	r->name_type = -1;
}

void record_free(struct record *r)
{
	free(r->path);
	free(r->name);
	free(r->raw_name);
	free(r->target);
	free(r->output_path);
	free(r->runs);
	free(r->unreadable);
	json_object_put(r->xattrs);
	r->xattrs = NULL;
	free(r->xattrs_error);
	r->xattrs_error = NULL;
	r->path = r->name = r->target = r->output_path = r->unreadable = NULL;
	r->raw_name = NULL;
	r->runs = NULL;
	r->nruns = 0;
	r->have_runs = 0;
}

int record_set_runs(struct record *r, struct session *s, const struct e4_run *v, size_t n)
{
	struct e4_fs_info fi;
	uint64_t bs, size = r->inode.size;

	e4_fs_get_info(s->fs, &fi);
	bs = fi.block_size;
	free(r->runs);
	r->nruns = 0;
	r->have_runs = 0;
	if (!(r->runs = malloc((n ? n : 1) * sizeof(*r->runs))))
		return -1;
	r->have_runs = 1;
	for (size_t i = 0; i < n; i++) {
		struct record_run *b = &r->runs[r->nruns];
		uint64_t off, len;

		/* bounded: a copy's map may claim any block number */
		if (v[i].unwritten || v[i].lblk > UINT64_MAX / bs || v[i].pblk > fi.blocks_count ||
		    v[i].len > fi.blocks_count)
			continue;
		off = v[i].lblk * bs;
		len = v[i].len * bs;
		if (off >= size)
			continue;
		if (len > size - off)
			len = size - off;
		b->file_offset = off;
		b->fs_offset = v[i].pblk * bs;
		b->img_offset = fi.offset + b->fs_offset;
		b->len = len;
		r->nruns++;
	}
	return 0;
}

int record_read_runs(struct record *r, struct session *s)
{
	const struct e4_inode *in = &r->inode;
	struct e4_run *v = NULL;
	size_t n = 0;
	int rc = 0;

	if (!r->have_inode || (in->flags & E4_INODE_INLINE_DATA_FL) ||
	    (!E4_ISREG(in->mode) && !E4_ISDIR(in->mode) && !E4_ISLNK(in->mode)) ||
	    (E4_ISLNK(in->mode) && !in->blocks))
		return 0;
	if (e4_inode_runs(s->fs, in, r->path, e4_inode_size_blocks(s->fs, in), &v, &n) == E4_OK)
		rc = record_set_runs(r, s, v, n);
	free(v);
	return rc;
}

static char *escaped(const uint8_t *p, size_t n)
{
	char *e = malloc(E4_ESCAPE_SIZE(n));

	if (e)
		e4_escape(p, n, e, 0);
	return e;
}

int record_set_name(struct record *r, enum e4_name_state state,
		    const uint8_t *raw, size_t len)
{
	free(r->raw_name);
	r->raw_name = malloc(len ? len : 1);
	if (!r->raw_name)
		return -1;
	if (len)
		memcpy(r->raw_name, raw, len);
	r->raw_name_len = len;
	r->name_state = state;
	r->have_name = 1;
	return 0;
}

int record_set_output(struct record *r, const char *raw)
{
	free(r->output_path);
	r->output_path = raw ? escaped((const uint8_t *)raw, strlen(raw)) : NULL;
	return raw && !r->output_path ? -1 : 0;
}

void record_set_hashes(struct record *r, const char *of, const char *tsv)
{
	char *f[3] = { r->hashes.md5, r->hashes.sha1, r->hashes.sha256 };
	size_t cap[3] = { sizeof(r->hashes.md5), sizeof(r->hashes.sha1),
			  sizeof(r->hashes.sha256) };

	r->hashes.of = of;
	for (int i = 0; i < 3; i++) {
		size_t n = strcspn(tsv, "\t");

		f[i][0] = 0;
		if (n + 1 == cap[i] && tsv[0] != '-') {
			memcpy(f[i], tsv, n);
			f[i][n] = 0;
		}
		tsv += n + (tsv[n] == '\t');
	}
}

/* The key that opens the context e->ctx read with status st. */
static void policy_key(struct record_encryption *e, struct session *s,
		       enum e4_status st)
{
	struct e4_policy_key pk;

	e->known = st == E4_OK;
	e->readable = e->ctx.version == E4_CONTEXT_V1 || e->ctx.version == E4_CONTEXT_V2;
	if (!e->known)
		return;
	e4_fs_policy_key(s->fs, &e->ctx, &pk);
	e->open = pk.open;
	e->key = pk.open ? (pk.key >= 0 ? e4_keystore_key(s->keys, (size_t)pk.key)->label :
			    "dummy key") : NULL;
	e->key_how = pk.open || e4_keystore_count(s->keys) ? pk.how : "no key given";
}

static void add_key(json_object *o, const struct record_encryption *e)
{
	ADD(o, "key", e->key ? STR(e->key) : NULL);
	if (e->key_how)
		ADD(o, "key_how", STR(e->key_how));
	ADD(o, "state", STR(e->open ? "decrypted" : "locked"));
}

void record_policy_key(json_object *o, struct session *s, const struct e4_context *c)
{
	struct record_encryption e;

	memset(&e, 0, sizeof(e));
	e.ctx = *c;
	policy_key(&e, s, E4_OK);
	add_key(o, &e);
}

static json_object *hex_or_null(const char *h)
{
	return *h ? STR(h) : NULL;
}

static json_object *hashes_json(const struct record_hashes *h, int partial)
{
	json_object *o = json_object_new_object();

	ADD(o, "of", STR(h->of));
	ADD(o, "md5", hex_or_null(h->md5));
	ADD(o, "sha1", hex_or_null(h->sha1));
	ADD(o, "sha256", hex_or_null(h->sha256));
	if (partial)
		ADD(o, "partial", json_object_new_boolean(1));
	return o;
}

json_object *record_hashes_json(const char *of, const char *tsv, const char *status)
{
	struct record r;

	record_init(&r, NULL);
	record_set_hashes(&r, of, tsv);
	r.status = status;
	return hashes_json(&r.hashes, record_hashes_partial(&r));
}

int record_hashes_partial(const struct record *r)
{
	return r->hashes.of && r->status && !strcmp(r->status, "partial");
}

/* The inode's context and the key that opens it. */
static void encryption_of(struct record *r, struct session *s)
{
	struct record_encryption *e = &r->enc;
	const char *why = NULL;
	enum e4_status st;

	memset(e, 0, sizeof(*e));
	if (!r->inode.encrypted)
		return;
	e->present = 1;
	st = e4_inode_context(s->fs, &r->inode, &e->ctx, &why);
	if (st != E4_OK && st != E4_UNRECOGNIZED)
		e->error = why ? why : e4_status_str(st);
	else
		policy_key(e, s, st);
	if (st == E4_UNRECOGNIZED)
		e->unknown_why = why;
}

/* A symlink's target as readlink gives it: decrypted with the key, or the
 * kernel's no-key form; escaped (inode_target). */
static void target_of(struct record *r, struct session *s)
{
	const char *state;

	if (E4_ISLNK(r->inode.mode))
		r->target = inode_target(s, &r->inode, r->path, &state);
}

int record_from_inode(struct record *r, struct session *s, uint32_t ino,
		      const struct e4_inode *in, const char *path)
{
	int allocated;

	r->ino = ino;
	if (!(r->path = strdup(path)))
		return -1;
	if (!in) {
		r->inode_error = "inode unreadable";
		return 0;
	}
	r->have_inode = 1;
	r->inode = *in;
	/* the inode bitmap's word, as istat's "Allocated" */
	r->allocated = e4_inode_allocated(s->fs, ino, &allocated) == E4_OK ? allocated : -1;
	encryption_of(r, s);
	r->size = inode_stat_size(s, in, path);
	target_of(r, s);
	if (r->without_xattrs)
		return 0;
	return (r->xattrs = xattrs_json(s->fs, in, path, r->xattrs_quiet,
					&r->xattrs_error)) ? 0 : -1;
}

/* What a saved copy of an inode (a journal's, an export's) gives its
 * record: number, path, the inode, size, and its context ctx, or missing:
 * why there is none. */
static int from_saved(struct record *r, const struct e4_inode *in, uint64_t size,
		      const char *path, const struct e4_context *ctx, const char *missing)
{
	r->ino = in->ino;
	if (!(r->path = strdup(path)))
		return -1;
	r->have_inode = 1;
	r->inode = *in;
	r->size = size;
	memset(&r->enc, 0, sizeof(r->enc));
	r->enc.present = in->encrypted;
	if (in->encrypted && !ctx)
		r->enc.error = missing;
	else if (in->encrypted)
		r->enc.ctx = *ctx;
	return 0;
}

int record_from_copy(struct record *r, struct session *s, const struct e4_inode *in,
		     const struct e4_context *ctx, uint64_t size,
		     const char *target, const char *path)
{
	if (from_saved(r, in, size, path, ctx, "its context is not in the copy") ||
	    (target && !(r->target = strdup(target))))
		return -1;
	r->allocated = 0;
	if (r->enc.present && !r->enc.error)
		policy_key(&r->enc, s, E4_OK);
	return 0;
}

int record_from_export(struct record *r, const struct e4_inode *in,
		       const struct e4_context *ctx, const char *key,
		       const char *target, size_t len, const char *path)
{
	int link = E4_ISLNK(in->mode) && target;

	if (from_saved(r, in, link ? len : in->size, path, ctx,
		       "its saved context is missing or bad") ||
	    (link && !(r->target = escaped((const uint8_t *)target, len))))
		return -1;
	if (r->enc.present && !r->enc.error) {
		r->enc.known = 1;
		r->enc.readable = 1;
		r->enc.open = key != NULL;
		r->enc.key = key;
		r->enc.key_how = key ? NULL : "no key given opens it";
	}
	return 0;
}

int record_from_node(struct record *r, struct session *s,
		     const struct e4_walk_node *n)
{
	const char *slash = strrchr(n->path, '/');

	if (record_from_inode(r, s, n->ino, n->inode, n->path))
		return -1;
	/* the start (the PATH given) too: its last component, or the whole
	 * path for "/" and "<INO>" */
	if (!(r->name = strdup(slash && slash[1] ? slash + 1 : n->path)))
		return -1;
	if (!n->entry)
		return 0;
	r->name_type = n->entry->file_type;
	return record_set_name(r, n->entry->state, n->entry->raw, n->entry->raw_len);
}

static json_object *encryption_json(const struct record_encryption *e)
{
	json_object *o;

	if (!e->present)
		return NULL;
	if (e->error) {
		o = json_object_new_object();
		ADD(o, "error", STR(e->error));
		ADD(o, "state", STR("locked"));
		return o;
	}
	if (e->readable) {
		o = record_policy(NULL, &e->ctx, 1);
	} else {
		/* a version no kernel defines: nothing else of it can be read */
		o = json_object_new_object();
		ADD(o, "policy_version", INT(e->ctx.version));
	}
	ADD(o, "known", json_object_new_boolean(e->known));
	add_key(o, e);
	return o;
}

static json_object *runs_json(const struct record *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->nruns; i++) {
		json_object *b = json_object_new_object();

		ADD(b, "file_offset", json_object_new_uint64(r->runs[i].file_offset));
		ADD(b, "fs_offset", json_object_new_uint64(r->runs[i].fs_offset));
		ADD(b, "img_offset", json_object_new_uint64(r->runs[i].img_offset));
		ADD(b, "len", json_object_new_uint64(r->runs[i].len));
		json_object_array_add(a, b);
	}
	return a;
}

json_object *record_json(const struct record *r)
{
	json_object *o = json_record(r->type);
	const struct e4_inode *in = &r->inode;
	char mode[8];

	if (!o)
		return NULL;
	ADD(o, "path", r->path ? STR(r->path) : NULL);
	if (r->name)
		ADD(o, "name", STR(r->name));
	ADD(o, "inode", INT(r->ino));
	if (r->have_name) {
		ADD(o, "name_state", STR(json_name_state(r->name_state)));
		ADD(o, "raw_name_hex", json_hex(r->raw_name, r->raw_name_len));
	}
	if (!r->have_inode) {
		if (r->inode_error) {
			ADD(o, "error", STR(r->inode_error));
		} else if (r->name_type >= 0) {
			/* the entry's type; nothing else of the inode is known */
			ADD(o, "file_type", STR(record_file_type_ft((uint8_t)r->name_type)));
			ADD(o, "size", NULL);
			ADD(o, "dtime", NULL);
			ADD(o, "orphan_next", NULL);
			ADD(o, "allocated", r->allocated < 0 ? NULL :
			    json_object_new_boolean(r->allocated));
		}
	} else {
		snprintf(mode, sizeof(mode), "%04o", in->mode & 07777);
		ADD(o, "file_type", STR(record_file_type(in->mode)));
		ADD(o, "mode", STR(mode));
		ADD(o, "uid", INT(in->uid));
		ADD(o, "gid", INT(in->gid));
		ADD(o, "links", INT(in->links));
		ADD(o, "size", json_object_new_uint64(r->size));
		ADD(o, "atime", json_time(&in->atime));
		ADD(o, "mtime", json_time(&in->mtime));
		ADD(o, "ctime", json_time(&in->ctime));
		ADD(o, "crtime", in->has_crtime ? json_time(&in->crtime) : NULL);
		if (in->dtime) {
			struct e4_timestamp d = { in->dtime, 0 };

			ADD(o, "dtime", json_time(&d));
		} else {
			ADD(o, "dtime", NULL);
		}
		ADD(o, "orphan_next", in->orphan_next ? INT(in->orphan_next) : NULL);
		ADD(o, "allocated", r->allocated < 0 ? NULL :
		    json_object_new_boolean(r->allocated));
		ADD(o, "flags", record_inode_flags(in->flags));
		ADD(o, "encrypted", json_object_new_boolean(in->encrypted));
		ADD(o, "encryption", encryption_json(&r->enc));
		if (E4_ISLNK(in->mode))
			ADD(o, "target", r->target ? STR(r->target) : NULL);
		/* what could not be read is never shown as none */
		if (r->xattrs_error) {
			ADD(o, "xattrs", json_object_array_length(r->xattrs) ?
			    json_object_get(r->xattrs) : NULL);
			ADD(o, "xattrs_error", STR(r->xattrs_error));
		} else if (r->xattrs) {
			ADD(o, "xattrs", json_object_get(r->xattrs));
		}
		if (r->have_runs)
			ADD(o, "byte_runs", runs_json(r));
	}
	if (r->hashes.of)
		ADD(o, "hashes", hashes_json(&r->hashes, record_hashes_partial(r)));
	if (r->output_path)
		ADD(o, "output_path", STR(r->output_path));
	if (r->status)
		ADD(o, "status", STR(r->status));
	return o;
}

/* A deleted symlink's target (escaped, malloc'd) as readlink would show
 * it: decrypted with the key, else its no-key form; NULL when unreadable. */
static char *deleted_target(struct session *s, const struct e4_journal *j,
			    const struct e4_deleted *d, uint64_t *len)
{
	char *target, *shown;
	size_t n;
	int nokey;
	const char *why;

	if (!d->have_inode || !E4_ISLNK(d->inode.mode) ||
	    e4_recovery_symlink(s->fs, j, d, 1, &target, &n, &nokey, &why) != E4_OK)
		return NULL;
	*len = n;
	shown = escaped((const uint8_t *)target, n);
	free(target);
	return shown;
}

int record_from_deleted(struct record *r, struct session *s, const struct e4_journal *j,
			const struct e4_deleted *d)
{
	struct e4_inode live;
	struct e4_context live_ctx;
	const struct e4_context *ctx = NULL;
	const struct e4_inode *in = NULL;
	const char *why;
	char *path = e4_deleted_path(d), *target = NULL;
	const char *slash;
	uint64_t len = 0;
	uint32_t dtime = 0;
	int allocated, rc;

	if (!path)
		return -1;
	if (d->have_inode) {
		in = &d->inode;
		ctx = d->have_ctx ? &d->ctx : NULL;
		dtime = d->have_dtime ? d->dtime : 0;
		target = deleted_target(s, j, d, &len);
	} else if (!d->still_in_use && e4_inode_allocated(s->fs, d->ino, &allocated) == E4_OK &&
		   !allocated && e4_inode_read(s->fs, d->ino, path, &live) == E4_OK &&
		   !live.in_use && live.mode && live.dtime) {
		/* no copy from while it was in use: the freed inode, as fls
		 * shows a deleted name's */
		in = &live;
		dtime = live.dtime;
		/* its context, where the freed inode still holds it */
		if (live.encrypted && e4_inode_context(s->fs, &live, &live_ctx, &why) == E4_OK)
			ctx = &live_ctx;
	}
	/* what lstat gave: a symlink's size is its target's length */
	rc = in ? record_from_copy(r, s, in, ctx, target ? len : in->size, target, path) :
		  !(r->path = strdup(path)) ? -1 : 0;
	free(path);
	free(target);
	if (rc)
		return -1;
	r->ino = d->ino;
	/* no entry names an orphan: its name type is unknown, as fls's "-" */
	r->name_type = d->orphan ? 0 : d->file_type;
	r->deleted = 1;
	r->orphan = d->orphan;
	/* the inode bitmap's bit now (set: the inode was allocated again) */
	r->allocated = e4_inode_allocated(s->fs, d->ino, &allocated) == E4_OK ? allocated : -1;
	r->inode.dtime = dtime;
	slash = strrchr(r->path, '/');
	if (!(r->name = strdup(slash ? slash + 1 : r->path)))
		return -1;
	return d->orphan ? 0 : record_set_name(r, d->name_state, d->raw_name, d->raw_len);
}

json_object *json_entry(struct session *s, const struct e4_walk_node *n,
			uint64_t size)
{
	struct record r;
	json_object *o = NULL;

	record_init(&r, "entry");
	if (!record_from_node(&r, s, n)) {
		if (n->inode)
			r.size = size;
		o = record_json(&r);
	}
	record_free(&r);
	return o;
}
