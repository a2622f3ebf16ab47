/* e4dump extract: a tree, decrypted, into DIR.  Every file is created
 * relative to a directory descriptor inside DIR without following
 * symlinks (outdir.c); names unsafe there are escaped and two entries
 * never share a name, so nothing is written outside DIR, nothing is
 * merged, and the image is never replaced.  No device node, FIFO or
 * socket is made; setuid and setgid bits are dropped unless asked for.
 * Every entry is accounted for: extracted, kept locked (--keep-locked),
 * partial (unreadable blocks left as holes) or skipped, also each entry
 * below a directory that is skipped. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "escape.h"
#include "file.h"
#include "filewriter.h"
#include "progress.h"
#include "hardlinks.h"
#include "inodeinfo.h"
#include "linkfacts.h"
#include "jsonout.h"
#include "kept.h"
#include "nameset.h"
#include "outdir.h"
#include "record.h"
#include "session.h"
#include "walk.h"
#include "xattrs.h"

/* Directory descriptors kept open on the current path; deeper trees
 * close their ancestors' and reopen them through "..". */
#define FD_WINDOW 64

struct xdir {
	struct xdir *parent;
	int fd;                 /* -1 while closed */
	dev_t dev;              /* the output directory, to check a reopen */
	ino_t ino;
	char *name;             /* its output name ("" for DIR itself) */
	struct nameset names;   /* output names made in it */
	int phantom;            /* not made: its entries are only counted */
	int skip;               /* its entries are skipped (counted) */
	struct xdir *skip_top;  /* the skipped directory this is below */
	size_t below;           /* skip_top: entries skipped below it */
	const char *why;        /* skip_top: why */
	int locked;             /* --keep-locked: its names stay encrypted */
	int casefolded;
	json_object *kept;      /* --keep-locked: its entries for KEPT_DIR_FILE */
};

struct extract {
	struct session *s;
	const struct options *o;
	struct report *r;
	struct outdir od;
	struct hardlinks links;
	struct xdir root;
	struct filewriter *writer;
	struct manifest *man;       /* --manifest, --dfxml */
	struct progress progress;
	size_t dirs, files, symlinks, locked, renamed, skipped;
	size_t partial_here;        /* partial files written here */
	uint64_t bytes;             /* of files written here (not the writer's) */
	const char *start_path;
	int stop;
};

static void inode_times(const struct e4_inode *in, struct timespec ts[2])
{
	ts[0].tv_sec = (time_t)in->atime.sec;
	ts[0].tv_nsec = in->atime.nsec;
	ts[1].tv_sec = (time_t)in->mtime.sec;
	ts[1].tv_nsec = in->mtime.nsec;
}

static void set_times(int dirfd, const char *name, int fd,
		      const struct e4_inode *in)
{
	struct timespec ts[2];

	inode_times(in, ts);
	if (fd >= 0)
		futimens(fd, ts);
	else if (name)
		utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

static mode_t out_mode(const struct extract *x, const struct e4_inode *in)
{
	return in->mode & (x->o->keep_setid ? 07777 : 01777);
}

/* The output path of name in d, from DIR ('/'-joined), malloc'd. */
static char *out_rel(const struct xdir *d, const char *name)
{
	size_t len = strlen(name) + 1;
	char *p, *end;

	for (const struct xdir *a = d; a; a = a->parent)
		len += strlen(a->name) + 1;
	p = malloc(len);
	if (!p)
		return NULL;
	end = p + len - 1;
	*end = '\0';
	end -= strlen(name);
	memcpy(end, name, strlen(name));
	for (const struct xdir *a = d; a; a = a->parent) {
		size_t n = strlen(a->name);

		if (!n)
			continue;
		*--end = '/';
		end -= n;
		memcpy(end, a->name, n);
	}
	memmove(p, end, strlen(end) + 1);
	return p;
}

/* The manifest row of a hard link made to a file already written. */
static void manifest_link(struct extract *x, struct xdir *d, const char *name,
			  const struct e4_walk_node *n, const char *unreadable)
{
	char ct[65] = "-", *rel;
	struct manifest_row *row;
	int fd;

	if (!x->man)
		return;
	if (n->inode->encrypted && manifest_ct_sha256(x->s->fs, n->inode, n->path, ct))
		snprintf(ct, sizeof(ct), "-");
	rel = out_rel(d, name);
	row = rel ? manifest_row_entry(x->man, x->s, n, rel, ct, 1) : NULL;
	free(rel);
	fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (row && fd >= 0)
		manifest_row(x->man, row, fd, n->inode->size, unreadable, x->r);
	else
		manifest_row_free(row);
	if (fd >= 0)
		close(fd);
}

/* --xattrs: the image's attributes of n set on fd, or the symlink name
 * in dirfd (fd < 0); failures reported. */
static void restore_xattrs(struct extract *x, const struct e4_walk_node *n,
			   int fd, int dirfd, const char *name)
{
	struct xattr_set *set;

	if (!x->o->xattrs || !n->inode)
		return;
	set = xattrs_for_restore(x->s->fs, n->inode, n->path, x->o->xattrs);
	xattrs_restore(x->r, n->path, n->ino, set, x->o->xattrs, fd, dirfd, name);
	xattrs_set_free(set);
}

/* Which reading of an entry's xattrs reports their damage, once: the
 * restore (--xattrs), else the JSON record, else the DFXML's, else the
 * sidecar of --keep-locked.  Whether reader who is quiet. */
enum { XR_RESTORE, XR_JSON, XR_DFXML, XR_SIDECAR };
static int xattrs_quiet(const struct extract *x, int who)
{
	int reporter = x->o->xattrs ? XR_RESTORE : x->o->json ? XR_JSON :
		       x->o->dfxml ? XR_DFXML : XR_SIDECAR;

	return who != reporter;
}

/* --json: the record of an entry written (or not) at rel in DIR. */
static json_object *record(struct extract *x, const struct e4_walk_node *n,
			   const char *rel, const char *status)
{
	struct record rec;
	json_object *o = NULL;

	if (!x->o->json)
		return NULL;
	record_init(&rec, "extracted");
	rec.status = status;
	rec.xattrs_quiet = xattrs_quiet(x, XR_JSON);
	if (!record_from_node(&rec, x->s, n) && !record_set_output(&rec, rel))
		o = record_json(&rec);
	record_free(&rec);
	return o;
}

static void emit(struct extract *x, const struct e4_walk_node *n,
		 struct xdir *d, const char *name, const char *status)
{
	char *rel;

	if (!x->o->json)
		return;
	rel = name ? out_rel(d, name) : NULL;
	json_emit(record(x, n, rel, status));
	free(rel);
}

/* A regular file: created here, written by the writer (filewriter.h);
 * the first link of a hard-linked file is written at once, as the next
 * links need its output inode. */
static int write_file(struct extract *x, struct xdir *d, const char *name,
		      const struct e4_walk_node *n)
{
	const struct e4_inode *in = n->inode;
	const struct hardlink *first = NULL;
	struct file_job job;
	struct stat st;
	char *rel, *bad;
	int rc;

	if (in->links > 1 && (first = hardlinks_find(&x->links, in->ino))) {
		if (outdir_link(&x->od, first->rel, first->dev, first->out_ino,
				d->fd, name) == 0) {
			/* a link of a partial file lacks the same blocks */
			manifest_link(x, d, name, n, first->unreadable);
			emit(x, n, d, name, first->unreadable ? "partial" : "complete");
			x->bytes += in->size;
			x->partial_here += first->unreadable != NULL;
			return 0;
		}
		/* fall back to a copy */
	}
	memset(&job, 0, sizeof(job));
	if (e4_file_open(x->s->fs, in, n->path, &job.file) != E4_OK)
		return -1; /* reported */
	e4_file_keep_going(job.file);
	job.ino = in->ino;
	job.path = strdup(n->path);
	memcpy(job.name, name, strlen(name) + 1);
	if (!job.path) {
		report_error_at(x->r, n->path, n->ino, "out of memory");
		e4_file_close(job.file);
		return -1;
	}
	job.mode = out_mode(x, in);
	if (x->o->xattrs)
		job.xattrs = xattrs_for_restore(x->s->fs, in, n->path, x->o->xattrs);
	job.xattrs_level = x->o->xattrs;
	/* attributes are set before the final mode, by the owner: made
	 * writable for them */
	if (outdir_file_open(&x->od, d->fd, job.name,
			     job.mode | (job.xattrs ? 0200 : 0), &job.out)) {
		xattrs_set_free(job.xattrs);
		report_error_at(x->r, n->path, n->ino, "cannot create: %s", strerror(errno));
		e4_file_close(job.file);
		free(job.path);
		return -1;
	}
	job.chmod = (job.mode & ~(mode_t)0755) != 0 || /* made with umask 0 */
		    (job.xattrs && !(job.mode & 0200));
	if (x->man) {
		char ct[65] = "-";

		if (in->encrypted && manifest_ct_sha256(x->s->fs, in, n->path, ct))
			snprintf(ct, sizeof(ct), "-");
		rel = out_rel(d, name);
		job.man = x->man;
		job.man_row = rel ? manifest_row_entry(x->man, x->s, n, rel, ct, 1) : NULL;
		free(rel);
		rel = NULL;
		if (!job.man_row)
			job.man = NULL;
	}
	job.size = in->size;
	inode_times(in, job.times);
	if (x->o->json) {
		rel = out_rel(d, name);
		job.rec = record(x, n, rel, NULL);
		free(rel);
		rel = NULL;
	}
	/* a large file: written by the writer's threads at once */
	filewriter_add_parts(x->writer, &job);
	if (in->links == 1 || first) {
		filewriter_submit(x->writer, &job);
		return 0;
	}
	job.st = &st;
	rc = file_job_run(&x->od, x->r, &job, NULL);
	bad = job.unreadable_out;
	job.unreadable_out = NULL;
	file_job_free(&job);
	if (rc < 0)
		return -1;
	x->bytes += in->size;
	x->partial_here += rc > 0;
	rel = out_rel(d, name);
	if (!rel || hardlinks_add(&x->links, in->ino, st.st_dev, st.st_ino, rel, bad)) {
		if (x->links.full == 1) {
			x->links.full = 2;
			report_note(x->r, "too many hard-linked files to remember: further links are written as copies");
		}
	}
	free(rel);
	free(bad);
	return 0;
}

/* The manifest row of a directory or symlink written at name in d,
 * without hashes (the DFXML has one; the TSV has files only); an entry
 * kept locked has its own (kept_rows). */
static void manifest_entry(struct extract *x, struct xdir *d, const char *name,
			   const struct e4_walk_node *n, int map_read)
{
	char *rel;

	if (!x->man)
		return;
	rel = out_rel(d, name);
	if (rel)
		manifest_write(x->man, manifest_row_entry(x->man, x->s, n, rel, "-", map_read),
			       MANIFEST_NO_HASHES, NULL);
	free(rel);
}

static int write_symlink(struct extract *x, struct xdir *d, const char *name,
			 const struct e4_walk_node *n)
{
	char *target;
	size_t len;

	if (e4_symlink_read(x->s->fs, n->inode, n->path, &target, &len) != E4_OK)
		return -1; /* reported */
	if (outdir_symlink(&x->od, target, d->fd, name)) {
		report_error_at(x->r, n->path, n->ino, "cannot create symlink: %s",
			     errno == OUTDIR_EIMAGE ? "it would replace the image being read" :
			     strerror(errno));
		free(target);
		return -1;
	}
	free(target);
	restore_xattrs(x, n, -1, d->fd, name);
	set_times(d->fd, name, -1, n->inode);
	manifest_entry(x, d, name, n, 1);
	emit(x, n, d, name, "complete");
	return 0;
}

/* The sidecar of a locked entry written as ciphertext: NAME.e4dump.json
 * (a name of its own in d), holding what a later decryption needs. */
static unsigned int block_size(struct extract *x)
{
	struct e4_fs_info fi;

	e4_fs_get_info(x->s->fs, &fi);
	return fi.block_size;
}

static int write_sidecar(struct extract *x, struct xdir *d, const char *name,
			 const struct e4_walk_node *n, const struct record *rec,
			 json_object *later, json_object *extra,
			 char side[OUTDIR_NAME_MAX + 32])
{
	const char *nokey = n->entry && n->entry->state == E4_NAME_NOKEY ?
			    (const char *)n->entry->name : NULL;
	char *nk = nokey ? strndup(nokey, n->entry->name_len) : NULL;
	json_object *o = record_json(rec);
	int rc = -1;

	if (o)
		inode_info_add(o, x->s, NULL, n->path, n->inode, nk);
	free(nk);
	json_object_object_foreach(extra, k, v)
		json_object_object_add(o, k, json_object_get(v));
	if (!o || kept_sidecar_name(&d->names, name, n->ino, side) ||
	    kept_sidecar_write(&x->od, d->fd, side, name, o, later, block_size(x)))
		report_error_at(x->r, n->path, n->ino, "cannot write its sidecar %s", side);
	else
		rc = 0;
	json_object_put(o);
	return rc;
}

/* --keep-locked: entry n, written in d as name (with its sidecar, when
 * kept locked), for d's KEPT_DIR_FILE: every entry of a directory whose
 * names stay encrypted (its stored name, to be decrypted later), and
 * every one kept locked. */
static void note_entry(struct extract *x, struct xdir *d,
		       const struct e4_walk_node *n, const char *name,
		       const char *sidecar)
{
	json_object *e;

	if (!x->o->keep_locked || (!d->locked && !sidecar))
		return;
	if (!d->kept)
		d->kept = json_object_new_array();
	e = json_object_new_object();
	json_object_object_add(e, "name", json_name(name));
	json_object_object_add(e, "name_hex", json_hex((const uint8_t *)name, strlen(name)));
	json_object_object_add(e, "inode", json_object_new_int64(n->ino));
	if (n->entry) {
		json_object_object_add(e, "file_type", json_object_new_string(
					       record_file_type_ft(n->entry->file_type)));
		json_object_object_add(e, "name_state", json_object_new_string(
					       json_name_state(n->entry->state)));
		json_object_object_add(e, "raw_name_hex", json_hex(n->entry->raw, n->entry->raw_len));
		if (n->entry->has_hash) {
			json_object_object_add(e, "hash", json_object_new_int64(n->entry->hash));
			json_object_object_add(e, "minor_hash",
					       json_object_new_int64(n->entry->minor_hash));
		}
	}
	if (sidecar) {
		json_object_object_add(e, "sidecar", json_name(sidecar));
		json_object_object_add(e, "sidecar_hex",
				       json_hex((const uint8_t *)sidecar, strlen(sidecar)));
	}
	json_object_array_add(d->kept, e);
}

/* --keep-locked: d's KEPT_DIR_FILE (a directory whose names stay
 * encrypted, or that holds entries kept locked), written into it. */
static void write_dir_file(struct extract *x, struct xdir *d,
			   const struct e4_walk_node *n)
{
	struct record rec;
	json_object *o = NULL, *later = NULL;
	char *rel = d->parent ? out_rel(d->parent, d->name) : NULL;

	if (!x->o->keep_locked || (!d->locked && !d->kept) || d->fd < 0) {
		free(rel);
		return;
	}
	/* its record, and what decrypting its names later needs */
	record_init(&rec, "kept_directory");
	rec.xattrs_quiet = xattrs_quiet(x, XR_SIDECAR);
	if (!record_from_node(&rec, x->s, n) && !record_set_output(&rec, rel) &&
	    (o = record_json(&rec)) && (later = kept_later_json(&rec, NULL))) {
		json_object_object_add(o, "names_locked", json_object_new_boolean(d->locked));
		json_object_object_add(o, "casefolded", json_object_new_boolean(d->casefolded));
		json_object_object_add(o, "decrypt_later", later);
		json_object_object_add(o, "entries", d->kept ? d->kept : json_object_new_array());
		d->kept = NULL;
	}
	record_free(&rec);
	free(rel);
	if (!later || kept_write_json(&x->od, d->fd, KEPT_DIR_FILE, o)) {
		report_error_at(x->r, n->path, n->ino, "cannot write %s: %s", KEPT_DIR_FILE,
				later ? strerror(errno) : "out of memory");
		x->skipped++;
	}
	json_object_put(o);
}

struct ct_out {
	struct outdir *od;
	int fd;
	uint64_t bytes;         /* counted against od->max_output */
	int capped;             /* refused by it */
};

static int ct_sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	struct ct_out *c = arg;

	int rc = outdir_write(c->od, c->fd, data, len, off);

	if (rc) {
		c->capped = rc == 2;
		return 1;
	}
	c->bytes += len;
	return 0;
}

/* --keep-locked: a file or symlink no key opens, as the kernel shows it
 * without the key (a file: its stored blocks, every data unit whole; a
 * symlink: its no-key target), and its sidecar. */
static int write_locked(struct extract *x, struct xdir *d, const char *name,
			const struct e4_walk_node *n, struct record *rec,
			char hashes[MANIFEST_HASHES], char side[OUTDIR_NAME_MAX + 32])
{
	const struct e4_inode *in = n->inode;
	json_object *extra = json_object_new_object(), *later;
	int rc = -1;

	hashes[0] = 0;
	later = kept_later_json(rec, x->s->fs);
	if (!later)
		goto out; /* reported */

	if (E4_ISLNK(in->mode)) {
		char target[E4_NOKEY_NAME_MAX + 1];
		uint8_t *blob;
		size_t len;

		if (e4_symlink_locked_target(x->s->fs, in, n->path, target) != E4_OK ||
		    e4_symlink_raw(x->s->fs, in, n->path, &blob, &len) != E4_OK)
			goto out; /* reported */
		json_object_object_add(extra, "symlink_stored_hex", json_hex(blob, len));
		json_object_object_add(extra, "symlink_nokey_target", json_object_new_string(target));
		free(blob);
		if (outdir_symlink(&x->od, target, d->fd, name)) {
			report_error_at(x->r, n->path, n->ino, "cannot create symlink: %s",
				     strerror(errno));
			goto out;
		}
		restore_xattrs(x, n, -1, d->fd, name);
		set_times(d->fd, name, -1, in);
	} else {
		struct out_file f;
		uint64_t stored = e4_inode_size_blocks(x->s->fs, in) * block_size(x);

		if (stored < in->size) {
			report_error_at(x->r, n->path, n->ino, "i_size %" PRIu64 " cannot be stored",
					in->size);
			goto out;
		}
		if (outdir_file_open(&x->od, d->fd, name, 0644, &f)) {
			report_error_at(x->r, n->path, n->ino, "cannot create: %s", strerror(errno));
			goto out;
		}
		struct ct_out c = { &x->od, f.fd, 0, 0 };

		if (e4_inode_stream_blocks(x->s->fs, in, n->path, ct_sink, &c) != E4_OK ||
		    ftruncate(f.fd, (off_t)stored)) {
			outdir_file_abort(&f);
			outdir_unwrite(&x->od, c.bytes);
			if (c.capped)
				report_max_output(x->r, &x->od, n->path, n->ino, stored);
			else
				report_error_at(x->r, n->path, n->ino, "its ciphertext cannot be written");
			goto out;
		}
		{
			struct timespec ts[2];

			restore_xattrs(x, n, f.fd, -1, NULL);
			inode_times(in, ts);
			futimens(f.fd, ts);
		}
		if (outdir_file_commit(&x->od, &f)) {
			report_error_at(x->r, n->path, n->ino, "write failed: %s", strerror(errno));
			goto out;
		}
		json_object_object_add(extra, "ciphertext_bytes", json_object_new_uint64(stored));
		json_object_object_add(extra, "plaintext_size", json_object_new_uint64(in->size));
		/* the hashes of what was written, read back: the record's */
		int fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0 || manifest_hash(fd, stored, hashes)) {
			report_error_at(x->r, n->path, n->ino, "its ciphertext cannot be read back");
			hashes[0] = 0;
		} else {
			record_set_hashes(rec, "ciphertext", hashes);
		}
		if (fd >= 0)
			close(fd);
	}
	rc = write_sidecar(x, d, name, n, rec, later, extra, side);
out:
	json_object_put(later);
	json_object_put(extra);
	return rc;
}

/* An entry kept locked in the manifest and the JSON: its one row, a
 * file's with the hashes of its ciphertext file, marked as such (a
 * symlink's and a file not read back: no hashes); its JSON record is the
 * sidecar's (rec). */
static void kept_rows(struct extract *x, struct xdir *d, const char *name,
		      const struct e4_walk_node *n, struct record *rec,
		      const char *hashes)
{
	char *rel = out_rel(d, name);

	if (x->man && rel) {
		char ct[65] = "-";
		struct manifest_row *row;
		int file = E4_ISREG(n->inode->mode);

		if (file && manifest_ct_sha256(x->s->fs, n->inode, n->path, ct))
			snprintf(ct, sizeof(ct), "-");
		row = manifest_row_entry(x->man, x->s, n, rel, ct, 1);
		manifest_row_status(row, "locked");
		if (file)
			manifest_row_ciphertext(row);
		manifest_write(x->man, row, hashes[0] ? hashes : MANIFEST_NO_HASHES, NULL);
	}
	if (x->o->json) {
		rec->type = "extracted";
		json_emit(record_json(rec));
	}
	free(rel);
}

/* The last name of path that is not "." (as the lookup skips those). */
static const char *base_name(const char *path, size_t *len)
{
	const char *b = "";

	*len = 0;
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n && !(n == 1 && path[0] == '.')) {
			b = path;
			*len = n;
		}
		path += n;
		path += strspn(path, "/");
	}
	return b;
}

/* The output name of node n in d: escaped when unsafe, and unique in d. */
static int out_name(struct extract *x, struct xdir *d,
		    const struct e4_walk_node *n, char out[OUTDIR_NAME_MAX])
{
	const char *name;
	size_t len;
	int renamed, r;

	if (n->entry) {
		name = (const char *)n->entry->name;
		len = n->entry->name_len;
	} else {
		name = base_name(x->start_path, &len);
	}
	renamed = outdir_escape(name, len, n->ino, out);
	/* the k-th repeat of a name in the listing tries "~k" first, so that
	 * N entries of one name cost N tries, not N^2 */
	for (unsigned int k = n->entry && n->entry->dup ? n->entry->dup : 1;
	     (r = nameset_add(&d->names, out)) == 0; k++) {
		outdir_escape_again(name, len, n->ino, k, out);
		renamed = 2;
	}
	if (r < 0) {
		report_error_at(x->r, n->path, n->ino, "out of memory");
		return -1;
	}
	if (renamed) {
		char esc[E4_ESCAPE_SIZE(OUTDIR_NAME_MAX)];

		e4_escape((const uint8_t *)out, strlen(out), esc, 0);
		if (renamed == 2)
			report_error_at(x->r, n->path, n->ino, "name already taken in this directory, extracted as \"%s\"", esc);
		else
			report_warning_at(x->r, n->path, n->ino, "unsafe name, extracted as \"%s\"", esc);
		x->renamed++;
	}
	return 0;
}

/* An entry below a skipped directory: counted against it. */
static enum e4_walk_action skip_below(struct extract *x, struct xdir *d,
				      const struct e4_walk_node *n)
{
	x->skipped++;
	d->skip_top->below++;
	if (x->o->json) {
		json_object *o = record(x, n, NULL, "skipped");

		json_object_object_add(o, "reason", json_object_new_string(d->skip_top->why));
		json_emit(o);
	}
	return E4_WALK_CONTINUE; /* a directory: entered to count its entries */
}

static enum e4_walk_action entry(void *arg, const struct e4_walk_node *n)
{
	struct extract *x = arg;
	struct xdir *d = n->parent_data ? n->parent_data : &x->root;
	const struct e4_inode *in = n->inode;
	char name[OUTDIR_NAME_MAX], hashes[MANIFEST_HASHES] = "", side[OUTDIR_NAME_MAX + 32];
	struct record rec;
	int rc, locked;

	if (x->stop)
		return E4_WALK_STOP;
	if (d->skip)
		return skip_below(x, d, n);
	if (n->entry && n->entry->state == E4_NAME_BAD) {
		x->skipped++; /* reported by the listing */
		emit(x, n, d, NULL, "skipped");
		return E4_WALK_SKIP;
	}
	if (!in) {
		emit(x, n, d, NULL, "skipped");
		return E4_WALK_SKIP; /* reported and counted by the walker */
	}
	if (E4_ISDIR(in->mode))
		return E4_WALK_CONTINUE; /* made in enter() */
	if (!E4_ISREG(in->mode) && !E4_ISLNK(in->mode)) {
		report_error_at(x->r, n->path, n->ino, "special file not extracted");
		x->skipped++;
		emit(x, n, d, NULL, "skipped");
		return E4_WALK_CONTINUE;
	}
	if (out_name(x, d, n, name)) {
		x->skipped++;
		emit(x, n, d, NULL, "skipped");
		return E4_WALK_CONTINUE;
	}
	locked = x->o->keep_locked && inode_locked(x->s, in);
	if (locked) {
		/* its record: the sidecar's and its JSON line */
		char *rel = out_rel(d, name);

		record_init(&rec, "locked");
		rec.status = "locked";
		rec.xattrs_quiet = xattrs_quiet(x, x->o->json ? XR_JSON : XR_SIDECAR);
		rc = !rel || record_from_node(&rec, x->s, n) || record_set_output(&rec, rel) ? -1 :
		     write_locked(x, d, name, n, &rec, hashes, side);
		if (rc && !rel)
			report_error_at(x->r, n->path, n->ino, "out of memory");
		free(rel);
	} else {
		rc = E4_ISREG(in->mode) ? write_file(x, d, name, n) :
					  write_symlink(x, d, name, n);
	}
	if (rc) {
		x->skipped++;
		emit(x, n, d, NULL, "skipped");
	} else if (locked) {
		x->locked++;
		note_entry(x, d, n, name, side);
		kept_rows(x, d, name, n, &rec, hashes);
	} else {
		note_entry(x, d, n, name, NULL);
		if (E4_ISREG(in->mode))
			x->files++;
		else
			x->symlinks++;
	}
	if (locked)
		record_free(&rec);
	progress_add(&x->progress, 1, rc || !E4_ISREG(in->mode) ? 0 : in->size);
	return E4_WALK_CONTINUE;
}

/* Close the descriptor of the ancestor FD_WINDOW levels up. */
static void trim_fds(struct extract *x, struct xdir *d)
{
	for (int i = 0; d && i < FD_WINDOW; i++)
		d = d->parent;
	if (d && d->parent && d->fd >= 0) {
		filewriter_drain(x->writer); /* its jobs use d->fd */
		close(d->fd);
		d->fd = -1;
	}
}

static void finish_dir(struct extract *x, struct xdir *d,
		       const struct e4_walk_node *n, const struct e4_dir *listing)
{
	if (d->skip_top == d && d->below)
		report_error_at(x->r, n->path, n->ino, "skipped %zu entries below it: %s",
				d->below, d->why);
	if (!d->phantom) {
		/* its files are in place (a rename would change its times)
		 * and no job uses d->fd */
		filewriter_drain(x->writer);
		write_dir_file(x, d, n);
		restore_xattrs(x, n, d->fd, -1, NULL);
		fchmod(d->fd, out_mode(x, n->inode));
		set_times(-1, NULL, d->fd, n->inode);
		close(d->fd);
		x->dirs++;
		manifest_entry(x, d->parent, d->name, n,
			       !listing || !e4_dir_facts(listing)->damaged);
		emit(x, n, d->parent, d->name, "complete");
	}
	nameset_free(&d->names);
	json_object_put(d->kept);
	free(d->name);
	free(d);
	progress_add(&x->progress, 1, 0);
}

/* --keep-locked: whether d's names stay encrypted, and its name reserved
 * for KEPT_DIR_FILE. */
static void keep_facts(struct extract *x, struct xdir *d,
		       const struct e4_dir_facts *f)
{
	if (!x->o->keep_locked)
		return;
	d->locked = f->encrypted && !f->have_key;
	d->casefolded = f->casefolded;
	nameset_add(&d->names, KEPT_DIR_FILE);
}

/* Skip d's entries (counted, and reported once when d is left). */
static void skip_entries(struct xdir *d, const char *why)
{
	d->skip = 1;
	d->skip_top = d;
	d->why = why;
}

static enum e4_walk_action enter(void *arg, const struct e4_walk_node *n,
				 const struct e4_dir *listing, void **data)
{
	struct extract *x = arg;
	struct xdir *p = n->parent_data ? n->parent_data : &x->root;
	const struct e4_dir_facts *f = e4_dir_facts(listing);
	char name[OUTDIR_NAME_MAX];
	struct xdir *d;
	struct stat st;

	if (!n->entry && n->ino == E4_ROOT_INO && !p->skip) {
		*data = &x->root; /* DIR itself is the root */
		if (f->encrypted && !f->have_key && !x->o->keep_locked)
			skip_entries(&x->root, "no key opens its names");
		keep_facts(x, &x->root, f);
		return E4_WALK_CONTINUE;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		report_error_at(x->r, n->path, n->ino, "out of memory");
		x->skipped++;
		return E4_WALK_SKIP;
	}
	d->parent = p;
	d->fd = -1;
	if (p->skip) {
		/* below a skipped directory: counted, not made */
		d->phantom = d->skip = 1;
		d->skip_top = p->skip_top;
		*data = d;
		return E4_WALK_CONTINUE;
	}
	if (out_name(x, p, n, name) || !(d->name = strdup(name))) {
		x->skipped++;
		emit(x, n, p, NULL, "skipped");
		d->phantom = 1;
		skip_entries(d, "its directory could not be made");
		*data = d;
		return E4_WALK_CONTINUE;
	}
	d->fd = outdir_mkdir(&x->od, p->fd, name);
	if (d->fd < 0 || fstat(d->fd, &st)) {
		report_error_at(x->r, n->path, n->ino, "cannot open directory: %s",
			     errno == OUTDIR_EIMAGE ? "it would replace the image being read" :
			     strerror(errno));
		if (d->fd >= 0)
			close(d->fd);
		d->fd = -1;
		x->skipped++;
		emit(x, n, p, NULL, "skipped");
		d->phantom = 1;
		skip_entries(d, "its directory could not be made");
		*data = d;
		return E4_WALK_CONTINUE;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	note_entry(x, p, n, name, NULL);
	if (f->encrypted && !f->have_key && !x->o->keep_locked)
		skip_entries(d, "no key opens its names");
	keep_facts(x, d, f);
	trim_fds(x, d);
	*data = d;
	return E4_WALK_CONTINUE;
}

static void leave(void *arg, const struct e4_walk_node *n,
		  const struct e4_dir *listing, void *data)
{
	struct extract *x = arg;
	struct xdir *d = data, *p;
	struct stat st;

	if (d == &x->root) {
		if (d->skip && d->below)
			report_error_at(x->r, n->path, n->ino, "skipped %zu entries below it: %s",
					d->below, d->why);
		filewriter_drain(x->writer);
		write_dir_file(x, d, n);
		return;
	}
	p = d->parent;
	if (!d->phantom && p->fd < 0) {
		/* reopen the parent through "..", and check it is the same */
		p->fd = openat(d->fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
		if (p->fd < 0 || fstat(p->fd, &st) || st.st_dev != p->dev ||
		    st.st_ino != p->ino) {
			report_error(x->r, "%s: the output directory changed while extracting; stopping",
				     n->path);
			x->stop = 1;
		}
	}
	finish_dir(x, d, n, listing);
}

static int run(const struct options *o, struct report *r)
{
	struct session s;
	struct extract x;
	struct e4_walk_options wo = { 1, 1, E4_LIST_KEEP_UNSAFE, 0 };
	struct e4_walk_visitor v = { .entry = entry, .enter = enter, .leave = leave };
	struct e4_walk_stats stats;
	struct filewriter_totals totals;
	const char *path = o->n_args > 1 ? o->args[1] : "/";
	struct stat img;
	uint32_t ino;
	struct e4_fs_info info;
	uint64_t missing;
	char tail[256];
	int rc;

	if (!o->out_dir) {
		report_error(r, "extract: needs -o DIR");
		return EXIT_FATAL;
	}
	/* security.* and trusted.* need CAP_SYS_ADMIN (trusted) or an LSM's
	 * consent: asked for without root, most would fail one by one */
	if (o->xattrs == 2 && geteuid() != 0) {
		report_error(r, "extract: --xattrs=all restores security.* and trusted.* attributes and POSIX ACLs: run it as root (or use --xattrs for user.* only)");
		return EXIT_FATAL;
	}
	rc = session_open(&s, o, r, 0);
	if (rc)
		return rc;
	memset(&x, 0, sizeof(x));
	memset(&stats, 0, sizeof(stats));
	x.s = &s, x.o = o, x.r = r;
	x.start_path = path;
	x.od.force = o->force;
	x.od.max_output = o->max_output_set ? o->max_output : e4_fs_image_size(s.fs);
	if (stat(s.image, &img) == 0) {
		x.od.guard = 1;
		x.od.image_dev = img.st_dev;
		x.od.image_ino = img.st_ino;
	}
	if (mkdir(o->out_dir, 0755) && errno != EEXIST) {
		report_error(r, "%s: cannot create: %s", o->out_dir, strerror(errno));
		session_close(&s);
		return EXIT_FATAL;
	}
	x.od.root_fd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.od.root_fd < 0) {
		report_error(r, "%s: cannot open: %s", o->out_dir, strerror(errno));
		session_close(&s);
		return EXIT_FATAL;
	}
	x.root.fd = x.od.root_fd;
	x.root.name = (char *)"";
	if (o->keep_locked) {
		/* once: what decrypting the export needs of the filesystem */
		json_object *h = kept_export_json(s.fs, s.image, path);

		nameset_add(&x.root.names, KEPT_EXPORT_FILE);
		nameset_add(&x.root.names, KEPT_DIR_FILE);
		if (kept_write_json(&x.od, x.od.root_fd, KEPT_EXPORT_FILE, h)) {
			report_error(r, "%s/%s: cannot write: %s", o->out_dir, KEPT_EXPORT_FILE,
				     strerror(errno));
			json_object_put(h);
			close(x.od.root_fd);
			session_close(&s);
			return EXIT_FATAL;
		}
		json_object_put(h);
	}
	if ((o->manifest || o->dfxml) &&
	    !(x.man = manifest_open(o->manifest, o->dfxml, s.image, s.fs, o->argc, o->argv, r))) {
		close(x.od.root_fd);
		session_close(&s);
		return EXIT_FATAL;
	}
	if (xattrs_quiet(&x, XR_DFXML))
		manifest_xattrs_quiet(x.man);
	/* modes are set exactly as in the image (outdir_file_open) */
	umask(0);
	x.writer = filewriter_start(s.fs, &x.od, r, session_extra_threads(&s, o, FILEWRITER_MAX_THREADS), 64);
	if (!x.writer) {
		report_error(r, "extract: out of memory");
		manifest_close(x.man, r);
		close(x.od.root_fd);
		session_close(&s);
		return EXIT_FATAL;
	}
	{
		size_t in_use = 0, nenc;
		const struct e4_enc_inode *ev;

		/* the whole image: every inode in use is about one entry */
		if (!o->quiet && !strcmp(path, "/") && isatty(STDERR_FILENO))
			e4_fs_encrypted_inodes(s.fs, &ev, &nenc, &in_use);
		progress_start(&x.progress, !o->quiet, "extracting", in_use);
	}
	if (e4_path_lookup(s.fs, path, &ino) != E4_OK)
		x.skipped++;
	else
		e4_walk(s.fs, ino, path, &wo, &v, &x, &stats);
	x.skipped += stats.problems;
	filewriter_finish(x.writer, &totals);
	x.files -= totals.failed;
	x.skipped += totals.failed;
	x.bytes += totals.bytes;
	totals.partial += x.partial_here;
	if (manifest_close(x.man, r))
		x.stop = 1;
	progress_end(&x.progress);
	close(x.od.root_fd);
	nameset_free(&x.root.names);
	json_object_put(x.root.kept);
	hardlinks_free(&x.links);
	/* the accounting, always; an image cut short is named in it (the
	 * files it made partial are among the partial ones) */
	e4_fs_get_info(s.fs, &info);
	missing = e4_fs_shortfall(&info, NULL, 0);
	if (missing)
		snprintf(tail, sizeof(tail), "; the image ends at byte %" PRIu64 " of the filesystem, %"
			 PRIu64 " bytes short of what its superblock declares: files with blocks past its end are partial",
			 info.source_size, missing);
	rc = x.skipped || x.stop || totals.partial || x.locked ? EXIT_SKIPPED :
	     session_status(&s);
	{
		const struct tally t[] = {
			{ "directories", "directories", x.dirs, 0 },
			{ "files", "files", x.files, 0 },
			{ "symlinks", "symlinks", x.symlinks, 0 },
			{ "bytes", "bytes", x.bytes, 1 },
			{ "renamed", "renamed", x.renamed, 0 },
			{ "partial", "partial", totals.partial, 0 },
			{ "locked_kept", "locked kept", x.locked, 0 },
			{ "skipped", "skipped", x.skipped, 0 },
		};

		json_tally("extract", r, rc, o->json, t, sizeof(t) / sizeof(t[0]),
			   missing ? tail : NULL);
	}
	session_close(&s);
	return rc;
}

int cmd_extract(const struct options *o, struct report *r)
{
	int rc = run(o, r);

	/* a fatal error is a diagnostic record, then the summary */
	return json_finish(rc == EXIT_FATAL && o->json, "extract", r, rc);
}
