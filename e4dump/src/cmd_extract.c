/* Recursive extraction.  Every file is created relative to a directory file
 * descriptor inside the output directory without following symlinks
 * (outdir.c), and names that are not safe there are escaped, so nothing is
 * written outside it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "content.h"
#include "dirlist.h"
#include "outdir.h"
#include "report.h"

struct hardlink {
	ext2_ino_t ino;
	char *rel;    /* output names from the output directory, '/'-joined */
	dev_t dev;    /* the file written there */
	ino_t out_ino;
};

struct extract {
	struct keyring *kr;
	struct outdir od;
	size_t done, skipped, renamed;
	struct hardlink *links;
	size_t nlinks;
	uint8_t *on_path;     /* bitmap of the directories being extracted */
	uint32_t ninodes;
};

/* A directory that is its own ancestor (a loop in a hostile image) is not
 * entered again: the paths of a loop grow at every level, and 4096 levels
 * of them need gigabytes.  Returns 1 for such a directory, else marks it
 * (and path_leave() unmarks it). */
static int path_enter(struct extract *x, ext2_ino_t dir)
{
	if (!x->on_path || dir > x->ninodes)
		return 0;
	if (x->on_path[dir / 8] & (1u << (dir % 8)))
		return 1;
	x->on_path[dir / 8] |= (uint8_t)(1u << (dir % 8));
	return 0;
}

static void path_leave(struct extract *x, ext2_ino_t dir)
{
	if (x->on_path && dir <= x->ninodes)
		x->on_path[dir / 8] &= (uint8_t)~(1u << (dir % 8));
}

static void set_times(int dirfd, const char *name, int fd,
		      const struct ext2_inode_large *inode)
{
	struct timespec ts[2];
	int64_t sec;
	long nsec;

	img_inode_mtime(inode, &sec, &nsec);
	ts[0].tv_sec = (time_t)sec;
	ts[0].tv_nsec = nsec;
	ts[1] = ts[0];
	if (fd >= 0)
		futimens(fd, ts);
	else
		utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

static int file_sink(void *arg, uint64_t off, const uint8_t *data, size_t len)
{
	int fd = *(int *)arg;

	while (len) {
		ssize_t n = pwrite(fd, data, len, (off_t)off);

		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static const struct hardlink *find_link(struct extract *x, ext2_ino_t ino)
{
	for (size_t i = 0; i < x->nlinks; i++)
		if (x->links[i].ino == ino)
			return &x->links[i];
	return NULL;
}

static void remember_link(struct extract *x, ext2_ino_t ino, const char *rel,
			  const struct stat *st)
{
	struct hardlink *v = realloc(x->links, (x->nlinks + 1) * sizeof(*v));

	if (!v)
		return;
	x->links = v;
	v[x->nlinks].ino = ino;
	v[x->nlinks].rel = strdup(rel);
	v[x->nlinks].dev = st->st_dev;
	v[x->nlinks].out_ino = st->st_ino;
	if (v[x->nlinks].rel)
		x->nlinks++;
}

static int extract_file(struct extract *x, int dirfd, const char *name,
			const char *path, const char *rel, ext2_ino_t ino,
			struct ext2_inode_large *inode)
{
	const struct hardlink *first =
		inode->i_links_count > 1 ? find_link(x, ino) : NULL;
	struct out_file f;
	struct stat st;
	int rc;

	if (first) {
		if (outdir_link(&x->od, first->rel, first->dev, first->out_ino,
				dirfd, name) == 0)
			return 0;
		/* fall back to a copy */
	}
	if (outdir_file_open(&x->od, dirfd, name, &f)) {
		report_error("%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	rc = content_read(x->kr, ino, inode, path, file_sink, &f.fd);
	if (rc == 0 && ftruncate(f.fd, (off_t)img_inode_size(inode))) {
		report_error("%s: cannot set size: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc) {
		outdir_file_abort(&f); /* no partial files */
		if (rc < 0 && errno == ENOSPC)
			report_error("%s: output device full", path);
		return -1;
	}
	fchmod(f.fd, inode->i_mode & 07777);
	set_times(dirfd, name, f.fd, inode);
	if (fstat(f.fd, &st))
		memset(&st, 0, sizeof(st));
	if (outdir_file_commit(&x->od, &f)) {
		report_error("%s: %s: %s", path, x->od.force ?
			     "cannot replace" : "write failed", strerror(errno));
		return -1;
	}
	if (inode->i_links_count > 1)
		remember_link(x, ino, rel, &st);
	return 0;
}

static int extract_symlink(struct extract *x, int dirfd, const char *name,
			   const char *path, ext2_ino_t ino,
			   struct ext2_inode_large *inode)
{
	char *target;
	size_t len;

	if (symlink_target(x->kr, ino, inode, path, &target, &len))
		return -1;
	if (len == 0 || strlen(target) != len) {
		report_error("%s (inode %u): empty symlink target", path, ino);
		free(target);
		return -1;
	}
	if (outdir_symlink(&x->od, target, dirfd, name)) {
		report_error("%s: cannot create symlink: %s", path, strerror(errno));
		free(target);
		return -1;
	}
	free(target);
	set_times(dirfd, name, -1, inode);
	return 0;
}

static void extract_dir(struct extract *x, int dirfd, ext2_ino_t dir,
			const char *path, const char *rel, int depth);

/* Extract one entry named name into dirfd. */
static void extract_entry(struct extract *x, int dirfd, ext2_ino_t ino,
			  const char *name, const char *path, const char *rel,
			  int depth)
{
	struct ext2_inode_large inode;
	int rc = -1;

	if (img_read_inode(x->kr->im, ino, &inode)) {
		x->skipped++;
		return;
	}
	if (LINUX_S_ISDIR(inode.i_mode)) {
		int fd;

		if (depth > 4096) {
			report_error("%s: directories nested too deep (loop?)", path);
			x->skipped++;
			return;
		}
		if (path_enter(x, ino)) {
			report_error("%s (inode %u): directory loop: contains its own ancestor",
				     path, ino);
			x->skipped++;
			return;
		}
		fd = outdir_mkdir(&x->od, dirfd, name);
		if (fd < 0) {
			report_error("%s: cannot open directory: %s", path,
				     strerror(errno));
			x->skipped++;
			path_leave(x, ino);
			return;
		}
		extract_dir(x, fd, ino, path, rel, depth + 1);
		path_leave(x, ino);
		fchmod(fd, inode.i_mode & 07777);
		set_times(dirfd, name, fd, &inode);
		close(fd);
		x->done++;
		return;
	}
	if (LINUX_S_ISREG(inode.i_mode))
		rc = extract_file(x, dirfd, name, path, rel, ino, &inode);
	else if (LINUX_S_ISLNK(inode.i_mode))
		rc = extract_symlink(x, dirfd, name, path, ino, &inode);
	else
		report_error("%s (inode %u): special file not extracted", path, ino);
	if (rc)
		x->skipped++;
	else
		x->done++;
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s = malloc(la + strlen(b) + 2);

	if (s)
		sprintf(s, "%s%s%s", a, la && a[la - 1] != '/' ? "/" : "", b);
	return s;
}

/* A name that is not safe in the output directory is written escaped.
 * Not inlined: its buffer would sit in every recursion level of
 * extract_dir. */
static __attribute__((noinline)) void warn_renamed(struct extract *x,
						   const char *path,
						   ext2_ino_t ino,
						   const char *out)
{
	char esc[4 * OUTDIR_NAME_MAX + 1];

	escape_name((const unsigned char *)out, strlen(out), esc);
	report_warning("%s (inode %u): unsafe name, extracted as \"%s\"",
		       path, ino, esc);
	x->renamed++;
}

static void extract_dir(struct extract *x, int dirfd, ext2_ino_t dir,
			const char *path, const char *rel, int depth)
{
	struct dir_listing l;
	/* On the heap: this recursion may be 4096 levels deep (a hostile
	 * image), and 8 MiB of stack must hold them. */
	struct {
		char esc[4 * 256 + 1], out[OUTDIR_NAME_MAX];
	} *buf;

	if (dir_list(x->kr, dir, path, &l)) {
		x->skipped++;
		return;
	}
	if (l.encrypted && !l.have_key) {
		if (l.n)
			report_error("%s (inode %u): skipped %zu entries: cannot decrypt names",
				     path, dir, l.n);
		x->skipped += l.n;
		dir_listing_free(&l);
		return;
	}
	buf = malloc(sizeof(*buf));
	if (!buf) {
		report_error("%s: out of memory", path);
		x->skipped += l.n;
		dir_listing_free(&l);
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		struct dent *d = &l.v[i];
		char *esc = buf->esc, *out = buf->out;
		char *cpath, *crel;
		int renamed;

		escape_component((unsigned char *)d->name, d->name_len, esc);
		renamed = outdir_escape(d->name, d->name_len, d->ino, out);
		cpath = join(path, esc);
		crel = *rel ? join(rel, out) : strdup(out);
		if (!cpath || !crel) {
			report_error("%s: out of memory", path);
			x->skipped++;
		} else if (d->state == NAME_BAD) {
			x->skipped++; /* reported by dir_list */
		} else if (d->ino == dir) {
			report_error("%s: directory contains itself", cpath);
			x->skipped++;
		} else {
			if (renamed)
				warn_renamed(x, cpath, d->ino, out);
			extract_entry(x, dirfd, d->ino, out, cpath, crel, depth);
		}
		free(cpath);
		free(crel);
	}
	free(buf);
	dir_listing_free(&l);
}

/* The last name of path that is not "." (path_lookup skips those), or
 * the empty string. */
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

int cmd_extract(const struct options *o)
{
	struct img im;
	struct keyring kr;
	struct extract x;
	const char *path = o->n_args > 1 ? o->args[1] : "/";
	ext2_ino_t ino;
	int rc;

	if (!o->out_dir) {
		report_error("extract: needs -o DIR");
		return EXIT_FATAL;
	}
	rc = session_open(o, &im, &kr);
	if (rc)
		return rc;
	memset(&x, 0, sizeof(x));
	x.kr = &kr;
	if (mkdir(o->out_dir, 0755) && errno != EEXIST) {
		report_error("%s: cannot create: %s", o->out_dir, strerror(errno));
		session_close(&im, &kr);
		return EXIT_FATAL;
	}
	dir_keep_unsafe_names = 1; /* they are escaped */
	x.od.force = o->force;
	x.od.root_fd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.od.root_fd < 0) {
		report_error("%s: cannot open: %s", o->out_dir, strerror(errno));
		session_close(&im, &kr);
		return EXIT_FATAL;
	}
	x.ninodes = im.fs->super->s_inodes_count;
	x.on_path = calloc((size_t)x.ninodes / 8 + 1, 1);
	if (!x.on_path) {
		report_error("%s: out of memory", im.path);
		close(x.od.root_fd);
		session_close(&im, &kr);
		return EXIT_FATAL;
	}
	if (path_lookup(&kr, path, &ino)) {
		x.skipped++;
	} else if (ino == EXT2_ROOT_INO) {
		path_enter(&x, ino);
		extract_dir(&x, x.od.root_fd, ino, "/", "", 0);
	} else {
		char name[OUTDIR_NAME_MAX];
		size_t n;
		const char *b = base_name(path, &n);

		if (outdir_escape(b, n, ino, name))
			warn_renamed(&x, path, ino, name);
		extract_entry(&x, x.od.root_fd, ino, name, path, name, 0);
	}
	close(x.od.root_fd);
	free(x.on_path);
	for (size_t i = 0; i < x.nlinks; i++)
		free(x.links[i].rel);
	free(x.links);
	if (x.skipped || x.renamed)
		fprintf(stderr, "e4dump: extracted %zu entries (%zu renamed), skipped %zu\n",
			x.done, x.renamed, x.skipped);
	else
		report_info("extracted %zu entries", x.done);
	session_close(&im, &kr);
	/* A renamed entry was extracted (its warning says where). */
	return x.skipped ? EXIT_SKIPPED : EXIT_DONE;
}
