/* e4dump undelete: entries deleted from directories, found in the
 * journal's copies of their directory blocks, rebuilt from copies of
 * their inodes and written under -o DIR with their decrypted paths; each
 * gets a verdict (exact, partial, locked, not recovered) with its
 * reasons.  The output rules are extract's (outdir.h).  Each entry's
 * record (record.h) is what --json prints, and what the rows of
 * --manifest and the fileobjects of --dfxml render (manifest.h, dfxml.h:
 * unallocated, with dtime, hashes of what was written, byte runs). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "dir.h"
#include "escape.h"
#include "jsonout.h"
#include "kept.h"
#include "record.h"
#include "filewriter.h"
#include "manifest.h"
#include "outdir.h"
#include "session.h"
#include "undelete.h"

#define MAX_REASONS 8
#define MAX_SUSPECTS 64

/* A name written in the output: directories are keyed by their inode
 * (one output directory per directory inode, whatever its name), and
 * each (parent, name) is taken by one inode: a second directory of one
 * name gets its own output directory, never a share of the first. */
struct outname {
	uint32_t ino;                   /* 0: a file's name (not looked up) */
	uint32_t parent;                /* its directory (0: the output root) */
	char *name;
};

struct names {
	struct outname *v;
	size_t n, cap;
	uint32_t *by_ino, *by_name;     /* index + 1, open addressing */
	size_t slots;
};

struct undel {
	struct manifest *man;           /* --manifest, or NULL */
	struct names out;
	struct session *s;
	const struct options *o;
	struct e4_journal *j;
	struct outdir od;
	json_object *kept_dirs;         /* --keep-locked: per output directory
					 * (its path in DIR), the record of
					 * its KEPT_DIR_FILE (write_dir_files) */
	json_object *listed;            /* --keep-locked: "PARENT/INO" listed */
	json_object *dir_laters;        /* --keep-locked: the directory file
					 * record (dir_record) of each
					 * directory deleted, by its inode
					 * number */
	size_t exact, partial, locked, lost, total, in_use;
	char names[64][OUTDIR_NAME_MAX];        /* escaped, as written */
	char path[64 * OUTDIR_NAME_MAX];
};

struct verdict {
	const char *word;               /* exact, partial, locked, not recovered */
	const char *reasons[MAX_REASONS];
	size_t nreasons;
	struct e4_suspect sus[MAX_SUSPECTS];    /* the first ones */
	size_t nsus;                    /* all of them */
	char *target;
	size_t target_len;
	char *shown_target;             /* target escaped (e4_escape) */
	/* --manifest, --dfxml: what the record of a file written adds */
	char hashes[MANIFEST_HASHES];   /* of what was written ("": none) */
	int ciphertext;                 /* they are of the ciphertext kept */
	char *unreadable;               /* the suspect blocks, or NULL */
	struct e4_run *runs;            /* its block map (have_runs) */
	size_t nruns;
	int have_runs;
};

static void because(struct verdict *v, const char *why)
{
	if (v->nreasons < MAX_REASONS)
		v->reasons[v->nreasons++] = why;
}

static const char *type_word(uint8_t ft)
{
	switch (ft) {
	case 1: return "file";
	case 2: return "dir";
	case 7: return "symlink";
	default: return "other";
	}
}

static uint64_t name_hash(uint32_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ parent;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 1099511628211ull;
	return h;
}

static size_t ino_slot(const struct names *t, uint32_t ino)
{
	size_t i = (ino * 2654435761u) & (t->slots - 1);

	while (t->by_ino[i] && t->v[t->by_ino[i] - 1].ino != ino)
		i = (i + 1) & (t->slots - 1);
	return i;
}

static size_t name_slot(const struct names *t, uint32_t parent, const char *name)
{
	size_t i = name_hash(parent, name) & (t->slots - 1);

	while (t->by_name[i] && (t->v[t->by_name[i] - 1].parent != parent ||
				 strcmp(t->v[t->by_name[i] - 1].name, name)))
		i = (i + 1) & (t->slots - 1);
	return i;
}

/* Room for one more (the tables never more than half full).  -1 no
 * memory. */
static int names_grow(struct names *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct outname *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	if (2 * (t->n + 1) > t->slots) {
		size_t slots = t->slots ? t->slots * 2 : 128;
		uint32_t *a = calloc(slots, sizeof(*a)), *b = calloc(slots, sizeof(*b));

		if (!a || !b) {
			free(a);
			free(b);
			return -1;
		}
		free(t->by_ino);
		free(t->by_name);
		t->by_ino = a;
		t->by_name = b;
		t->slots = slots;
		for (size_t k = 0; k < t->n; k++) {
			if (t->v[k].ino)
				t->by_ino[ino_slot(t, t->v[k].ino)] = (uint32_t)k + 1;
			t->by_name[name_slot(t, t->v[k].parent, t->v[k].name)] = (uint32_t)k + 1;
		}
	}
	return 0;
}

static void names_free(struct names *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->v[k].name);
	free(t->v);
	free(t->by_ino);
	free(t->by_name);
}

/* The output name (into out) of entry raw[len] (inode ino, ino_is_dir:
 * a directory, looked up by its inode) in directory parent, its escaped
 * form esc taken unless another inode has it there. */
static void out_name(struct undel *u, uint32_t parent, uint32_t ino, int ino_is_dir,
		     const struct e4_name_part *raw, char out[OUTDIR_NAME_MAX])
{
	struct names *t = &u->out;
	struct outname *e;
	size_t i;

	outdir_escape((const char *)raw->name, raw->len, ino, out);
	if (!ino || names_grow(t))
		return;         /* as before: by its name */
	if (ino_is_dir && t->by_ino[i = ino_slot(t, ino)]) {
		snprintf(out, OUTDIR_NAME_MAX, "%s", t->v[t->by_ino[i] - 1].name);
		return;
	}
	for (unsigned int k = 1; t->by_name[i = name_slot(t, parent, out)]; k++) {
		if (k > 64)
			return;
		outdir_escape_again((const char *)raw->name, raw->len, ino, k, out);
	}
	e = &t->v[t->n];
	e->name = strdup(out);
	if (!e->name)
		return;
	e->ino = ino_is_dir ? ino : 0;
	e->parent = parent;
	t->by_name[i] = (uint32_t)t->n + 1;
	if (ino_is_dir)
		t->by_ino[ino_slot(t, ino)] = (uint32_t)t->n + 1;
	t->n++;
}

/* Open (creating) the directories of the path's first n - 1 parts
 * (names[]: escaped). */
static int open_parent(struct undel *u, const struct e4_deleted *d,
		       char names[][OUTDIR_NAME_MAX])
{
	int fd = dup(u->od.root_fd);

	for (size_t i = 0; fd >= 0 && i + 1 < d->nparts; i++) {
		int next = outdir_mkdir(&u->od, fd, names[i]);

		close(fd);
		fd = next;
	}
	return fd;
}

struct sink {
	struct outdir *od;
	int fd;
	int err;
	int capped;             /* --max-output refused it */
	uint64_t bytes;         /* counted against od->max_output */
};

/* Through the output directory's writer: what undelete writes counts
 * against --max-output as extract's files do. */
static int write_at(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct sink *k = arg;
	int rc = outdir_write(k->od, k->fd, data, len, off);

	if (rc) {
		k->capped = rc == 2;
		k->err = errno ? errno : EIO;
		return 1;
	}
	k->bytes += len;
	return 0;
}

static void times_of(const struct e4_inode *in, struct timespec ts[2])
{
	ts[0].tv_sec = in->atime.sec;
	ts[0].tv_nsec = in->atime.nsec;
	ts[1].tv_sec = in->mtime.sec;
	ts[1].tv_nsec = in->mtime.nsec;
}

/* What the record of a file written adds (--json, --manifest, --dfxml):
 * the hashes of what was written (read back; of the ciphertext
 * when kept locked), the suspect blocks, its block map. */
static void keep_facts(struct undel *u, const struct e4_deleted *d, int dirfd,
		       const char *name, struct verdict *v, const struct e4_recovery *rec,
		       int ciphertext)
{
	const struct e4_suspect *sus;
	size_t nsus = e4_recovery_suspects(rec, &sus);
	struct e4_lblk_range *r = calloc(nsus ? nsus : 1, sizeof(*r));
	const struct e4_run *runs;
	uint64_t total = 0;
	int fd;

	for (size_t i = 0; r && i < nsus; i++) {
		r[i].lblk = sus[i].lblk;
		r[i].len = sus[i].count;
		total += sus[i].count;
	}
	if (r && nsus)
		v->unreadable = ranges_text(r, nsus, total);
	free(r);
	v->ciphertext = ciphertext;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	/* kept locked: the whole ciphertext written (every data unit
	 * whole), as extract --keep-locked hashes it */
	if (fd < 0 || manifest_hash(fd, ciphertext ? e4_recovery_size(rec) : d->inode.size,
				    v->hashes)) {
		report_error(u->s->report, "%s: cannot hash what was recovered", name);
		v->hashes[0] = 0;
	}
	if (fd >= 0)
		close(fd);
	v->nruns = e4_recovery_runs(rec, &runs);
	if ((v->runs = malloc((v->nruns ? v->nruns : 1) * sizeof(*runs)))) {
		if (v->nruns)
			memcpy(v->runs, runs, v->nruns * sizeof(*runs));
		v->have_runs = 1;
	}
}

static void write_file(struct undel *u, const struct e4_deleted *d, int dirfd,
		       char *name, struct verdict *v, struct e4_recovery *rec,
		       int ciphertext)
{
	struct out_file f;
	struct sink k = { &u->od, -1, 0, 0, 0 };
	struct timespec ts[2];

	if (outdir_file_open(&u->od, dirfd, name, d->inode.mode & 0777, &f)) {
		/* a name deleted twice: the later one by its inode */
		if (errno != EEXIST) {
			because(v, "cannot create the output file");
			v->word = "not recovered";
			return;
		}
		outdir_escape_again((const char *)d->parts[d->nparts - 1].name,
				    d->parts[d->nparts - 1].len, d->ino, 1, name);
		if (outdir_file_open(&u->od, dirfd, name, d->inode.mode & 0777, &f)) {
			because(v, "cannot create the output file");
			v->word = "not recovered";
			return;
		}
	}
	k.fd = f.fd;
	if (e4_recovery_stream(rec, write_at, &k) != E4_OK ||
	    ftruncate(f.fd, (off_t)e4_recovery_size(rec))) {
		outdir_file_abort(&f);
		outdir_unwrite(&u->od, k.bytes);
		if (k.capped)
			report_max_output(u->s->report, &u->od, u->path, d->ino,
					  e4_recovery_size(rec));
		because(v, k.capped ? "more than --max-output allows (its block map claims blocks more than once?)" :
			k.err ? strerror(k.err) : "cannot be written");
		v->word = "not recovered";
		return;
	}
	times_of(&d->inode, ts);
	(void)futimens(f.fd, ts);
	if (outdir_file_commit(&u->od, &f)) {
		because(v, "cannot put the output file in place");
		v->word = "not recovered";
		return;
	}
	{
		const struct e4_suspect *sus;

		v->nsus = e4_recovery_suspects(rec, &sus);
		if (v->nsus)
			memcpy(v->sus, sus, (v->nsus < MAX_SUSPECTS ? v->nsus : MAX_SUSPECTS) *
			       sizeof(*sus));
		/* kept locked: its sidecar needs them (write_sidecar) */
		if (u->man || u->o->json || ciphertext)
			keep_facts(u, d, dirfd, name, v, rec, ciphertext);
	}
	if (v->nsus) {
		v->word = "partial";
		because(v, "some blocks cannot be trusted (see suspect)");
	}
}

static int deleted_rec(struct undel *u, const struct e4_deleted *d,
		       const struct verdict *v, const char *out, const char *t,
		       struct record *rec);

/* A directory's record for its KEPT_DIR_FILE: type "kept_directory",
 * casefolded and decrypt_later added.  NULL when out of memory. */
static json_object *dir_record(struct record *rec)
{
	json_object *o = record_json(rec), *l = o ? kept_later_json(rec, NULL) : NULL;

	if (!l) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "casefolded", json_object_new_boolean(
				       (rec->inode.flags & E4_INODE_CASEFOLD_FL) != 0));
	json_object_object_add(o, "decrypt_later", l);
	return o;
}

/* The record of directory ino (a deleted entry's parent) for its output
 * directory's KEPT_DIR_FILE (a copy): a deleted directory's as recover()
 * noted it, else the live inode's, path dpath; NULL when neither can be
 * read. */
static json_object *dir_later(struct undel *u, uint32_t ino, const char *dpath)
{
	char key[16];
	struct e4_inode in;
	struct record rec;
	json_object *l = NULL;

	snprintf(key, sizeof(key), "%" PRIu32, ino);
	if (u->dir_laters && json_object_object_get_ex(u->dir_laters, key, &l)) {
		json_object *c = NULL;

		return json_object_deep_copy(l, &c, NULL) ? NULL : c;
	}
	if (e4_inode_read(u->s->fs, ino, NULL, &in) != E4_OK || !E4_ISDIR(in.mode))
		return NULL;
	record_init(&rec, "kept_directory");
	rec.without_xattrs = 1;
	if (!record_from_inode(&rec, u->s, ino, &in, dpath ? dpath : key))
		l = dir_record(&rec);
	record_free(&rec);
	return l;
}

/* A deleted directory: its record noted (dir_later). */
static void note_dir(struct undel *u, const struct e4_deleted *d, const struct verdict *v)
{
	char key[16];
	struct record rec;
	json_object *l = NULL;

	if (!u->o->keep_locked || d->file_type != 2 || !d->have_inode)
		return;
	snprintf(key, sizeof(key), "%" PRIu32, d->ino);
	if (!deleted_rec(u, d, v, NULL, "kept_directory", &rec)) {
		rec.without_xattrs = 1;
		l = dir_record(&rec);
	}
	record_free(&rec);
	if (!l)
		return;
	if (!u->dir_laters)
		u->dir_laters = json_object_new_object();
	json_object_object_add(u->dir_laters, key, l);
}

/* The display path of d's first k parts ("/" for none), each name
 * escaped as the walker shows it. */
static char *parts_path(const struct e4_deleted *d, size_t k)
{
	size_t size = 2;
	char *p, *o;

	for (size_t i = 0; i < k; i++)
		size += 1 + E4_ESCAPE_SIZE(d->parts[i].len);
	if (!(p = malloc(size)))
		return NULL;
	strcpy(p, "/");
	o = p;
	for (size_t i = 0; i < k; i++) {
		if (i)
			*o++ = '/';
		else
			o++;
		e4_escape(d->parts[i].name, d->parts[i].len, o, E4_ESCAPE_SLASH);
		o += strlen(o);
	}
	return p;
}

/* Whether list_entry listed (parent, ino) already. */
static int listed_already(const struct undel *u, uint32_t parent, uint32_t ino)
{
	char key[32];

	snprintf(key, sizeof(key), "%" PRIu32 "/%" PRIu32, parent, ino);
	return u->listed && json_object_object_get_ex(u->listed, key, NULL);
}

/* --keep-locked: an entry (written as name, inode ino, with its sidecar
 * side or none) listed in the KEPT_DIR_FILE of output directory rel (the
 * image's directory parent at dpath), as extract lists an entry of a
 * locked directory: its stored name (and when no key opened it, the
 * directory's inode and context, so that unlock-kept decrypts the names
 * and tries a v1 key on them), and its sidecar, by which unlock-kept
 * finds what decrypting it needs.  Each (parent, inode) once. */
static void list_entry(struct undel *u, const char *rel, uint32_t parent, const char *dpath,
		       const char *name, uint32_t ino, uint8_t ft, enum e4_name_state state,
		       const uint8_t *raw, size_t raw_len, const char *side)
{
	char key[32];
	json_object *dir, *e;

	snprintf(key, sizeof(key), "%" PRIu32 "/%" PRIu32, parent, ino);
	if (!u->kept_dirs)
		u->kept_dirs = json_object_new_object();
	if (!u->listed)
		u->listed = json_object_new_object();
	if (listed_already(u, parent, ino))
		return;
	json_object_object_add(u->listed, key, NULL);
	if (!json_object_object_get_ex(u->kept_dirs, rel, &dir)) {
		json_object *dl = json_object_object_get(dir = dir_later(u, parent, dpath),
							 "decrypt_later");

		if (!dir)
			return; /* its directory cannot be read: the entry stays
				 * as written (unlock-kept copies it) */
		/* its path is the one the entries were found under */
		if (dpath)
			json_object_object_add(dir, "path", json_object_new_string(dpath));
		json_object_object_add(dir, "names_locked", json_object_new_boolean(
					       state == E4_NAME_NOKEY &&
					       json_object_object_get(dl, "context_hex")));
		json_object_object_add(dir, "entries", json_object_new_array());
		json_object_object_add(u->kept_dirs, rel, dir);
	}
	e = json_object_new_object();
	json_object_object_add(e, "name", json_name(name));
	json_object_object_add(e, "name_hex", json_hex((const uint8_t *)name, strlen(name)));
	json_object_object_add(e, "inode", json_object_new_int64(ino));
	json_object_object_add(e, "file_type", json_object_new_string(record_file_type_ft(ft)));
	json_object_object_add(e, "name_state", json_object_new_string(json_name_state(state)));
	if (raw)
		json_object_object_add(e, "raw_name_hex", json_hex(raw, raw_len));
	if (side) {
		json_object_object_add(e, "sidecar", json_name(side));
		json_object_object_add(e, "sidecar_hex", json_hex((const uint8_t *)side, strlen(side)));
	}
	json_object_array_add(json_object_object_get(dir, "entries"), e);
}

/* --keep-locked: d (written as names[nparts - 1], with its sidecar side,
 * or a directory: none) listed, and the directories on its path with
 * it: a live one by its stored name in the live directory above it. */
static void list_path(struct undel *u, const struct e4_deleted *d,
		      char names[][OUTDIR_NAME_MAX], const char *side)
{
	char *rel = malloc(d->nparts * OUTDIR_NAME_MAX + 1), *dpath;
	size_t used = 0;

	if (!rel)
		return;
	rel[0] = 0;
	for (size_t i = 0; i < d->nparts; i++) {
		uint32_t parent = i ? d->inos[i - 1] : E4_ROOT_INO;

		dpath = parts_path(d, i);
		if (i + 1 == d->nparts) {
			list_entry(u, rel, d->parent, dpath, names[i], d->ino, d->file_type,
				   d->name_state, d->raw_name, d->raw_len, side);
		} else if (parent && d->inos[i] && !listed_already(u, parent, d->inos[i])) {
			/* a live directory on the way: its entry above, looked
			 * up once (not again for every kept entry below it) */
			struct e4_inode in;
			struct e4_dir *dir = NULL;
			struct e4_entry e;

			if (e4_inode_read(u->s->fs, parent, NULL, &in) == E4_OK &&
			    e4_dir_list(u->s->fs, &in, dpath, E4_LIST_QUIET | E4_LIST_UNSORTED,
					&dir) == E4_OK)
				for (size_t k = 0; k < e4_dir_count(dir); k++) {
					e4_dir_get(dir, k, &e);
					if (e.ino == d->inos[i] && e.name_len == d->parts[i].len &&
					    !memcmp(e.name, d->parts[i].name, e.name_len)) {
						list_entry(u, rel, parent, dpath, names[i], e.ino,
							   e.file_type, e.state, e.raw, e.raw_len, NULL);
						break;
					}
				}
			e4_dir_free(dir);
		}
		free(dpath);
		used += (size_t)snprintf(rel + used, d->nparts * OUTDIR_NAME_MAX + 1 - used, "%s%s",
					 i ? "/" : "", names[i]);
	}
	free(rel);
}

/* --keep-locked: NAME.e4dump.json next to what was written, as extract
 * --keep-locked leaves it: d's record (type "locked": its hashes, of the
 * ciphertext) and what a later decryption needs (kept_later_json_runs:
 * the data units of the block map the recovery rebuilt, not the live
 * inode's), so that unlock-kept finishes it from the output alone. */
static void write_sidecar(struct undel *u, const struct e4_deleted *d,
			  const struct verdict *v, int dirfd, char names[][OUTDIR_NAME_MAX])
{
	const char *name = names[d->nparts - 1];
	char side[OUTDIR_NAME_MAX + 32];
	struct record rec;
	struct e4_fs_info fi;
	json_object *o = NULL, *later = NULL;

	e4_fs_get_info(u->s->fs, &fi);
	(void)kept_sidecar_name(NULL, name, d->ino, side);
	if (deleted_rec(u, d, v, u->path, "locked", &rec) || !(o = record_json(&rec)) ||
	    !(later = kept_later_json_runs(&rec, v->have_runs ? u->s->fs : NULL,
					   v->runs, v->nruns)))
		goto out;
	json_object_object_add(o, "plaintext_size", json_object_new_uint64(d->inode.size));
	if (v->target) {
		/* its stored target, to be decrypted later (as extract's) */
		uint8_t *blob;
		size_t size;

		if (e4_recovery_symlink_raw(u->s->fs, u->j, d, &blob, &size) == E4_OK)
			json_object_object_add(o, "symlink_stored_hex", json_hex(blob, size));
		free(blob);
		json_object_object_add(o, "symlink_nokey_target",
				       json_object_new_string(v->shown_target));
	}
	if (kept_sidecar_write(&u->od, dirfd, side, name, o, later, fi.block_size)) {
		report_error_at(u->s->report, rec.path, d->ino, "cannot write its sidecar %s: %s",
				side, strerror(errno));
		goto out;
	}
	/* listed in its output directory's KEPT_DIR_FILE, as extract lists
	 * an entry kept locked: what unlock-kept finds its sidecar by */
	list_path(u, d, names, side);
out:
	record_free(&rec);
	json_object_put(later);
	json_object_put(o);
}

/* --keep-locked: each output directory holding something kept gets its
 * KEPT_DIR_FILE, as extract's: unlock-kept finds the sidecars by it. */
static void write_dir_files(struct undel *u)
{
	json_object_put(u->dir_laters);
	u->dir_laters = NULL;
	json_object_put(u->listed);
	u->listed = NULL;
	if (!u->kept_dirs)
		return;
	json_object_object_foreach(u->kept_dirs, rel, dir) {
		char *copy = strdup(rel), *part, *save = NULL;
		int fd = dup(u->od.root_fd);

		for (part = copy ? strtok_r(copy, "/", &save) : NULL; part && fd >= 0;
		     part = strtok_r(NULL, "/", &save)) {
			int next = outdir_mkdir(&u->od, fd, part);

			close(fd);
			fd = next;
		}
		if (!copy || fd < 0 || kept_write_json(&u->od, fd, KEPT_DIR_FILE, dir))
			report_error(u->s->report, "%s/%s/%s: cannot write: %s", u->o->out_dir, rel,
				     KEPT_DIR_FILE, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(copy);
	}
	json_object_put(u->kept_dirs);
	u->kept_dirs = NULL;
}

static void recover(struct undel *u, const struct e4_deleted *d, struct verdict *v,
		    char names[][OUTDIR_NAME_MAX])
{
	struct e4_recovery *rec = NULL;
	const char *why;
	int dirfd, locked = 0;
	enum e4_status st;

	v->word = "exact";
	if (d->still_in_use) {
		/* the name is gone, the file is not: nothing to recover */
		v->word = "still in use";
		because(v, d->no_inode_why);
		return;
	}
	if (!d->have_inode) {
		v->word = "not recovered";
		because(v, d->no_inode_why);
		return;
	}
	if (d->orphan)
		because(v, "its name is lost (no journal copy of its directory entry): written as <INODE>");
	if (d->name_state == E4_NAME_BAD)
		because(v, "the name does not decrypt to a valid name: shown as its no-key name");
	if (!d->inode_committed)
		because(v, "the inode copy is from a transaction without a commit block");
	if (d->file_type == 1) {
		st = e4_recovery_open(u->s->fs, u->j, d, 0, &rec, &why);
		if (st == E4_NO_KEY && u->o->keep_locked) {
			locked = 1;
			st = e4_recovery_open(u->s->fs, u->j, d, 1, &rec, &why);
		}
		if (st != E4_OK) {
			v->word = "not recovered";
			because(v, why ? why : e4_status_str(st));
			return;
		}
	} else if (d->file_type == 7) {
		size_t len;

		st = e4_recovery_symlink(u->s->fs, u->j, d, u->o->keep_locked, &v->target,
					 &len, &locked, &why);
		if (st != E4_OK) {
			v->word = "not recovered";
			because(v, why ? why : e4_status_str(st));
			return;
		}
		v->target_len = len;
		v->shown_target = malloc(E4_ESCAPE_SIZE(len));
		if (v->shown_target)
			e4_escape((const uint8_t *)v->target, len, v->shown_target, 0);
	} else if (d->file_type != 2) {
		v->word = "not recovered";
		because(v, "special files are listed, not created");
		return;
	}
	dirfd = open_parent(u, d, names);
	if (dirfd < 0) {
		v->word = "not recovered";
		because(v, "cannot create its directory under the output directory");
		e4_recovery_free(rec);
		return;
	}
	if (rec) {
		write_file(u, d, dirfd, names[d->nparts - 1], v, rec, locked);
		if (locked && !strcmp(v->word, "exact")) {
			v->word = "locked";
			because(v, "no key: the ciphertext was written");
			write_sidecar(u, d, v, dirfd, names);
		}
	} else if (v->target) {
		if (outdir_symlink(&u->od, v->target, dirfd, names[d->nparts - 1])) {
			v->word = "not recovered";
			because(v, "cannot create the symlink");
		} else if (locked) {
			v->word = "locked";
			because(v, "no key: the symlink holds the no-key target");
			write_sidecar(u, d, v, dirfd, names);
		}
	} else {
		int fd = outdir_mkdir(&u->od, dirfd, names[d->nparts - 1]);

		if (fd < 0) {
			v->word = "not recovered";
			because(v, "cannot create the directory");
		} else {
			close(fd);
			note_dir(u, d, v);
			if (u->o->keep_locked && d->name_state == E4_NAME_NOKEY)
				list_path(u, d, names, NULL);
		}
	}
	/* the contents decrypted, but the name did not: not exact */
	if (!strcmp(v->word, "exact") && d->name_state == E4_NAME_NOKEY)
		because(v, "the name is its no-key name: no key opens its directory");
	if (!strcmp(v->word, "exact") && v->nreasons)
		v->word = "partial";
	close(dirfd);
	e4_recovery_free(rec);
}

static void path_of(const struct e4_deleted *d, char names[][OUTDIR_NAME_MAX],
		    char *out, size_t size)
{
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; i < d->nparts && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s",
					 i ? "/" : "", names[i]);
}

/* The verdict in the record vocabulary's "status". */
static const char *status_of(const char *word)
{
	return !strcmp(word, "exact") ? "complete" :
	       !strcmp(word, "not recovered") ? "not_recovered" :
	       !strcmp(word, "still in use") ? "skipped" : word;
}

/* The record of d (record_from_deleted: as timeline's), with its verdict
 * as status, where it was written (out, raw; NULL: nowhere), and what
 * was written: its hashes and block map.  0, or -1 when out of memory. */
static int deleted_record_of(struct undel *u, const struct e4_deleted *d,
			     const struct verdict *v, const char *out, struct record *rec)
{
	if (record_from_deleted(rec, u->s, u->j, d))
		return -1;
	rec->status = status_of(v->word);
	if (out && strcmp(v->word, "not recovered") && strcmp(v->word, "still in use") &&
	    record_set_output(rec, out))
		return -1;
	if (v->hashes[0])
		record_set_hashes(rec, v->ciphertext ? "ciphertext" : "plaintext", v->hashes);
	return v->have_runs ? record_set_runs(rec, u->s, v->runs, v->nruns) : 0;
}

/* The record of d (deleted_record_of), of type t.  0, or -1 when out of
 * memory. */
static int deleted_rec(struct undel *u, const struct e4_deleted *d,
		       const struct verdict *v, const char *out, const char *t,
		       struct record *rec)
{
	record_init(rec, t);
	return deleted_record_of(u, d, v, out, rec);
}

/* --manifest, --dfxml: the row of d, its record (the path every writer
 * gives it), the hashes and block map of what was written. */
static void manifest_deleted(struct undel *u, const struct e4_deleted *d,
			     const struct verdict *v, const char *out)
{
	struct manifest_row *row = manifest_row_new("deleted");

	if (!row) {
		report_error(u->s->report, "undelete: out of memory writing --manifest/--dfxml");
		return;
	}
	row->rec.without_xattrs = 1;
	if (deleted_record_of(u, d, v, out, &row->rec)) {
		report_error(u->s->report, "undelete: out of memory writing --manifest/--dfxml");
		manifest_row_free(row);
		return;
	}
	manifest_write(u->man, row, v->hashes[0] ? v->hashes : MANIFEST_NO_HASHES, v->unreadable);
}

/* --json: the record of d (record.h) with undelete's own fields. */
static json_object *deleted_record(struct undel *u, const struct e4_deleted *d,
				   const struct verdict *v, const char *out)
{
	struct record rec;
	json_object *o = NULL, *rs, *ss;

	if (deleted_rec(u, d, v, out, "deleted", &rec) || !(o = record_json(&rec)))
		goto out;
	json_object_object_add(o, "parent", json_object_new_int64(d->parent));
	json_object_object_add(o, "verdict", json_object_new_string(v->word));
	rs = json_object_new_array();
	for (size_t i = 0; i < v->nreasons; i++)
		json_object_array_add(rs, json_object_new_string(v->reasons[i]));
	json_object_object_add(o, "reasons", rs);
	ss = json_object_new_array();
	for (size_t i = 0; i < v->nsus && i < MAX_SUSPECTS; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "lblk", json_object_new_int64((int64_t)v->sus[i].lblk));
		json_object_object_add(x, "count", json_object_new_int64((int64_t)v->sus[i].count));
		json_object_object_add(x, "why", json_object_new_string(v->sus[i].why));
		json_object_array_add(ss, x);
	}
	json_object_object_add(o, "suspect", ss);
	if (v->nsus > MAX_SUSPECTS)
		json_object_object_add(o, "suspect_ranges_not_listed",
				       json_object_new_int64((int64_t)(v->nsus - MAX_SUSPECTS)));
	json_object_object_add(o, "seen_sequence", json_object_new_int64(d->seen_sequence));
	json_object_object_add(o, "deleted_sequence", d->deleted_known ?
			       json_object_new_int64(d->deleted_sequence) : NULL);
	json_object_object_add(o, "inode_sequence", d->have_inode ?
			       json_object_new_int64(d->inode_sequence) : NULL);
	json_object_object_add(o, "deleted_with_parent",
			       json_object_new_boolean(d->parent_deleted));
out:
	record_free(&rec);
	return o;
}

static void emit(struct undel *u, const struct e4_deleted *d,
		 const struct verdict *v, const char *path, const char *out)
{
	if (u->o->json) {
		json_emit(deleted_record(u, d, v, out));
		return;
	}
	printf("%-13s %-7s <%" PRIu32 "> %s", v->word, type_word(d->file_type), d->ino, path);
	if (d->name_state == E4_NAME_NOKEY)
		printf(" (encrypted, no key)");
	printf("\n");
	for (size_t i = 0; i < v->nreasons; i++)
		printf("    %s\n", v->reasons[i]);
	for (size_t i = 0; i < v->nsus && i < MAX_SUSPECTS; i++)
		printf("    blocks %" PRIu64 "..%" PRIu64 ": %s\n", v->sus[i].lblk,
		       v->sus[i].lblk + v->sus[i].count - 1, v->sus[i].why);
}

static int one_deleted(void *arg, const struct e4_deleted *d)
{
	struct undel *u = arg;
	struct verdict v;
	char (*names)[OUTDIR_NAME_MAX] = u->names;
	char *path = u->path;

	memset(&v, 0, sizeof(v));
	/* directories by their inode: two of one name are two outputs */
	for (size_t i = 0; i < d->nparts; i++) {
		uint32_t parent = i && d->inos ? d->inos[i - 1] : 0;

		if (i + 1 < d->nparts)
			out_name(u, parent, d->inos ? d->inos[i] : 0, 1, &d->parts[i], names[i]);
		else if (d->still_in_use || !d->have_inode)
			outdir_escape((const char *)d->parts[i].name, d->parts[i].len,
				      d->ino, names[i]);
		else
			out_name(u, parent, d->ino, d->file_type == 2, &d->parts[i], names[i]);
	}
	path_of(d, names, path, sizeof(u->path));
	recover(u, d, &v, names);
	/* shown as names are (valid UTF-8 kept, other bytes escaped) */
	{
		size_t len = strlen(path);
		char *shown = malloc(E4_ESCAPE_SIZE(len));

		if (shown)
			e4_escape((const uint8_t *)path, len, shown, 0);
		emit(u, d, &v, shown ? shown : "?", path);
		free(shown);
	}
	/* the written path: a name taken twice was renamed */
	path_of(d, names, path, sizeof(u->path));
	if (u->man && !d->still_in_use)
		manifest_deleted(u, d, &v, path);
	free(v.target);
	free(v.shown_target);
	free(v.unreadable);
	free(v.runs);
	if (d->still_in_use) {
		u->in_use++;
		return 0;
	}
	u->total++;
	if (!strcmp(v.word, "exact"))
		u->exact++;
	else if (!strcmp(v.word, "partial"))
		u->partial++;
	else if (!strcmp(v.word, "locked"))
		u->locked++;
	else
		u->lost++;
	return 0;
}

int cmd_undelete(const struct options *o, struct report *r)
{
	struct session s;
	struct undel u;
	const char *path = o->n_args > 1 ? o->args[1] : "/";
	struct stat img;
	uint32_t ino;
	int rc;

	if (!o->out_dir) {
		report_error(r, "undelete: needs -o DIR");
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	rc = session_open(&s, o, r, 1);
	if (rc)
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	memset(&u, 0, sizeof(u));
	u.s = &s;
	u.o = o;
	if (stat(s.image, &img) == 0) {
		u.od.guard = 1;
		u.od.image_dev = img.st_dev;
		u.od.image_ino = img.st_ino;
	}
	if (e4_path_lookup(s.fs, path, &ino) != E4_OK) {
		session_close(&s);
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	switch (e4_fs_journal(s.fs, &u.j)) {
	case E4_OK:
		break;
	case E4_NOT_FOUND:
		report_error(r, "%s: the filesystem has no journal: nothing to recover from",
			     s.image);
		/* fall through */
	default:
		session_close(&s);
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	if (mkdir(o->out_dir, 0755) && errno != EEXIST) {
		report_error(r, "%s: cannot create: %s", o->out_dir, strerror(errno));
		e4_journal_free(u.j);
		session_close(&s);
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	u.od.max_output = o->max_output_set ? o->max_output : e4_fs_image_size(s.fs);
	u.od.root_fd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (u.od.root_fd < 0) {
		report_error(r, "%s: cannot open: %s", o->out_dir, strerror(errno));
		e4_journal_free(u.j);
		session_close(&s);
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	if (o->keep_locked) {
		/* what decrypting the output later needs of the filesystem:
		 * an export unlock-kept reads, as extract --keep-locked's */
		json_object *h = kept_export_json(s.fs, s.image, path);
		int bad = kept_write_json(&u.od, u.od.root_fd, KEPT_EXPORT_FILE, h);

		json_object_put(h);
		if (bad) {
			report_error(r, "%s/%s: cannot write: %s", o->out_dir, KEPT_EXPORT_FILE,
				     strerror(errno));
			close(u.od.root_fd);
			e4_journal_free(u.j);
			session_close(&s);
			return json_finish(o->json, "undelete", r, EXIT_FATAL);
		}
	}
	if ((o->manifest || o->dfxml) &&
	    !(u.man = manifest_open_for(o->manifest, o->dfxml, s.image, s.fs, 1, o->argc,
					o->argv, r))) {
		close(u.od.root_fd);
		e4_journal_free(u.j);
		session_close(&s);
		return json_finish(o->json, "undelete", r, EXIT_FATAL);
	}
	umask(0);
	if (e4_undelete_scan(s.fs, u.j, ino, one_deleted, &u) == E4_NOMEM)
		report_error(r, "undelete: out of memory");
	write_dir_files(&u);
	if (u.man && manifest_close(u.man, r))
		report_error(r, "undelete: the manifest or DFXML could not be written");
	close(u.od.root_fd);
	fprintf(stderr, "e4dump: undelete: %zu deleted entries: %zu exact, %zu partial, "
		"%zu locked, %zu not recovered; %zu old names of files still in use\n",
		u.total, u.exact, u.partial, u.locked, u.lost, u.in_use);
	names_free(&u.out);
	/* an entry not recovered whole (partial, kept locked, not recovered)
	 * is exit 1, as an entry extract could not write whole is */
	rc = session_status(&s);
	if (u.partial || u.locked || u.lost)
		rc = EXIT_SKIPPED;
	e4_journal_free(u.j);
	session_close(&s);
	if (o->json) {
		json_object *sum = json_summary("undelete", r, rc);

		json_object_object_add(sum, "deleted", json_object_new_int64((int64_t)u.total));
		json_object_object_add(sum, "exact", json_object_new_int64((int64_t)u.exact));
		json_object_object_add(sum, "partial", json_object_new_int64((int64_t)u.partial));
		json_object_object_add(sum, "locked", json_object_new_int64((int64_t)u.locked));
		json_object_object_add(sum, "not_recovered", json_object_new_int64((int64_t)u.lost));
		json_object_object_add(sum, "still_in_use", json_object_new_int64((int64_t)u.in_use));
		json_emit(sum);
	}
	return finish_stdout(rc, r);
}
