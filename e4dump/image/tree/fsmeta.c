#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fs_private.h"
#include "dir.h"
#include "escape.h"
#include "file.h"
#include "fsmeta.h"
#include "inode.h"

/* The entry name in directory ino (path names it), as a directory; 0
 * when absent or not a directory (a symlink is said: fscrypt allows
 * /.fscrypt to be one, which an image alone cannot follow). */
static uint32_t subdir(struct e4_fs *fs, uint32_t ino, const char *path,
		       const char *name, const char *child)
{
	struct e4_inode in;
	struct e4_dir *d;
	struct e4_entry e;
	size_t i;
	uint32_t found = 0;

	if (e4_inode_read(fs, ino, path, &in) != E4_OK)
		return 0;
	if (!E4_ISDIR(in.mode) || in.encrypted ||
	    e4_dir_list(fs, &in, path, E4_LIST_QUIET, &d) != E4_OK)
		return 0;
	i = e4_dir_find(fs, d, (const uint8_t *)name, strlen(name));
	if (i < e4_dir_count(d)) {
		e4_dir_get(d, i, &e);
		if (e4_inode_read(fs, e.ino, child, &in) == E4_OK) {
			if (E4_ISDIR(in.mode))
				found = e.ino;
			else if (E4_ISLNK(in.mode))
				e4_report(fs, E4_DIAG_WARNING, E4_UNSUPPORTED, e.ino, child,
					  "a symlink (fscrypt keeps its metadata where it points, on a mounted system); not followed");
			else
				e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, e.ino, child,
					  "not a directory");
		}
	}
	e4_dir_free(d);
	return found;
}

static enum e4_status read_one(struct e4_fs *fs, const struct e4_entry *e,
			       const char *path, size_t max,
			       struct e4_fsmeta_file *f)
{
	struct e4_inode in;
	struct e4_file *fh;
	enum e4_status st;
	size_t got = 0;

	st = e4_inode_read(fs, e->ino, path, &in);
	if (st != E4_OK)
		return st;
	if (!E4_ISREG(in.mode)) {
		e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, e->ino, path,
			  "not a regular file; left out");
		return E4_CORRUPT;
	}
	if (in.encrypted) {
		e4_report(fs, E4_DIAG_WARNING, E4_CORRUPT, e->ino, path,
			  "encrypted (fscrypt's metadata never is); left out");
		return E4_CORRUPT;
	}
	if (in.size > max) {
		e4_report(fs, E4_DIAG_ERROR, E4_LIMIT, e->ino, path,
			  "%llu bytes, more than the %zu fscrypt reads; left out",
			  (unsigned long long)in.size, max);
		return E4_LIMIT;
	}
	f->data = malloc(in.size ? in.size : 1);
	if (!f->data)
		return E4_NOMEM;
	st = e4_file_open(fs, &in, path, &fh);
	if (st == E4_OK) {
		st = e4_file_pread(fh, 0, f->data, in.size, &got);
		e4_file_close(fh);
	}
	if (st == E4_OK && got != in.size)
		st = E4_IO;
	if (st != E4_OK) {
		free(f->data);
		f->data = NULL;
		return st;
	}
	f->len = got;
	f->ino = e->ino;
	f->uid = in.uid;
	f->name = malloc(e->name_len + 1);
	if (!f->name) {
		free(f->data);
		f->data = NULL;
		return E4_NOMEM;
	}
	memcpy(f->name, e->name, e->name_len);
	f->name[e->name_len] = 0;
	f->name_len = e->name_len;
	return E4_OK;
}

enum e4_status e4_fsmeta_read(struct e4_fs *fs, const char *sub, size_t max,
			      struct e4_fsmeta_dir *out)
{
	uint32_t base, ino;
	struct e4_inode in;
	struct e4_dir *d;
	enum e4_status st;
	size_t n;

	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "/.fscrypt/%s", sub);
	base = subdir(fs, E4_ROOT_INO, "/", ".fscrypt", "/.fscrypt");
	ino = base ? subdir(fs, base, "/.fscrypt", sub, out->path) : 0;
	if (!ino)
		return E4_NOT_FOUND;
	st = e4_inode_read(fs, ino, out->path, &in);
	if (st != E4_OK)
		return st;
	if (in.encrypted) {
		e4_report(fs, E4_DIAG_ERROR, E4_CORRUPT, ino, out->path,
			  "encrypted (fscrypt's metadata never is)");
		return E4_CORRUPT;
	}
	st = e4_dir_list(fs, &in, out->path, 0, &d);
	if (st != E4_OK)
		return st;
	n = e4_dir_count(d);
	if (n > E4_FSMETA_MAX_FILES) {
		e4_report(fs, E4_DIAG_ERROR, E4_LIMIT, ino, out->path,
			  "%zu entries; only the first %d are read", n,
			  E4_FSMETA_MAX_FILES);
		n = E4_FSMETA_MAX_FILES;
	}
	out->files = calloc(n ? n : 1, sizeof(*out->files));
	if (!out->files) {
		e4_dir_free(d);
		return E4_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct e4_entry e;
		char *path;
		size_t pl;

		e4_dir_get(d, i, &e);
		pl = strlen(out->path) + 1 + E4_ESCAPE_SIZE(e.name_len) + 1;
		path = malloc(pl);
		if (!path) {
			st = E4_NOMEM;
			break;
		}
		snprintf(path, pl, "%s/", out->path);
		e4_escape(e.name, e.name_len, path + strlen(path), E4_ESCAPE_SLASH);
		st = read_one(fs, &e, path, max, &out->files[out->n]);
		free(path);
		if (st == E4_NOMEM)
			break;
		if (st == E4_OK)
			out->n++;
		st = E4_OK;
	}
	e4_dir_free(d);
	if (st != E4_OK)
		e4_fsmeta_free(out);
	return st;
}

void e4_fsmeta_free(struct e4_fsmeta_dir *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->files[i].name);
		free(d->files[i].data);
	}
	free(d->files);
	d->files = NULL;
	d->n = 0;
}
