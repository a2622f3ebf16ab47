/* Recursive extraction.  Every file is created relative to a directory file
 * descriptor inside the output directory, with O_EXCL and O_NOFOLLOW, and
 * names are checked, so nothing is written outside it. */
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
#include "report.h"

struct hardlink {
	ext2_ino_t ino;
	char *rel; /* path relative to the output directory */
};

struct extract {
	struct keyring *kr;
	int root_fd;
	size_t done, skipped;
	struct hardlink *links;
	size_t nlinks;
};

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

static int safe_name(const struct dent *d)
{
	return d->name_len > 0 && strlen(d->name) == d->name_len &&
	       !strchr(d->name, '/') && strcmp(d->name, ".") &&
	       strcmp(d->name, "..");
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

static const char *find_link(struct extract *x, ext2_ino_t ino)
{
	for (size_t i = 0; i < x->nlinks; i++)
		if (x->links[i].ino == ino)
			return x->links[i].rel;
	return NULL;
}

static void remember_link(struct extract *x, ext2_ino_t ino, const char *rel)
{
	struct hardlink *v = realloc(x->links, (x->nlinks + 1) * sizeof(*v));

	if (!v)
		return;
	x->links = v;
	v[x->nlinks].ino = ino;
	v[x->nlinks].rel = strdup(rel);
	if (v[x->nlinks].rel)
		x->nlinks++;
}

static int extract_file(struct extract *x, int dirfd, const char *name,
			const char *path, const char *rel, ext2_ino_t ino,
			struct ext2_inode_large *inode)
{
	const char *first = inode->i_links_count > 1 ? find_link(x, ino) : NULL;
	int fd, rc;

	if (first) {
		if (linkat(x->root_fd, first, dirfd, name, 0) == 0)
			return 0;
		/* fall back to a copy */
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				 O_CLOEXEC, 0600);
	if (fd < 0) {
		report_error("%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	rc = content_read(x->kr, ino, inode, path, file_sink, &fd);
	if (rc == 0 && ftruncate(fd, (off_t)img_inode_size(inode))) {
		report_error("%s: cannot set size: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc) {
		close(fd);
		unlinkat(dirfd, name, 0); /* no partial files */
		if (rc < 0 && errno == ENOSPC)
			report_error("%s: output device full", path);
		return -1;
	}
	fchmod(fd, inode->i_mode & 07777);
	set_times(dirfd, name, fd, inode);
	if (close(fd)) {
		report_error("%s: write failed: %s", path, strerror(errno));
		unlinkat(dirfd, name, 0);
		return -1;
	}
	if (inode->i_links_count > 1)
		remember_link(x, ino, rel);
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
	if (symlinkat(target, dirfd, name)) {
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
		if (mkdirat(dirfd, name, 0700) && errno != EEXIST) {
			report_error("%s: cannot create directory: %s", path,
				     strerror(errno));
			x->skipped++;
			return;
		}
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
		if (fd < 0) {
			report_error("%s: cannot open directory: %s", path,
				     strerror(errno));
			x->skipped++;
			return;
		}
		extract_dir(x, fd, ino, path, rel, depth + 1);
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

static void extract_dir(struct extract *x, int dirfd, ext2_ino_t dir,
			const char *path, const char *rel, int depth)
{
	struct dir_listing l;

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
	for (size_t i = 0; i < l.n; i++) {
		struct dent *d = &l.v[i];
		char esc[4 * 256 + 1];
		char *cpath, *crel;

		escape_name((unsigned char *)d->name, d->name_len, esc);
		cpath = join(path, esc);
		crel = *rel ? join(rel, d->name) : strdup(d->name);
		if (!cpath || !crel) {
			report_error("%s: out of memory", path);
			x->skipped++;
		} else if (d->state == NAME_BAD) {
			x->skipped++; /* reported by dir_list */
		} else if (!safe_name(d)) {
			report_error("%s (inode %u): unsafe name not extracted",
				     cpath, d->ino);
			x->skipped++;
		} else if (d->ino == dir) {
			report_error("%s: directory contains itself", cpath);
			x->skipped++;
		} else {
			extract_entry(x, dirfd, d->ino, d->name, cpath, crel, depth);
		}
		free(cpath);
		free(crel);
	}
	dir_listing_free(&l);
}

static const char *base_name(const char *path)
{
	const char *end = path + strlen(path), *b;

	while (end > path && end[-1] == '/')
		end--;
	b = end;
	while (b > path && b[-1] != '/')
		b--;
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
	x.root_fd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.root_fd < 0) {
		report_error("%s: cannot open: %s", o->out_dir, strerror(errno));
		session_close(&im, &kr);
		return EXIT_FATAL;
	}
	if (path_lookup(&kr, path, &ino)) {
		x.skipped++;
	} else if (ino == EXT2_ROOT_INO) {
		extract_dir(&x, x.root_fd, ino, "/", "", 0);
	} else {
		char name[256];
		const char *b = base_name(path);
		size_t n = strcspn(b, "/");

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, b, n);
		name[n] = '\0';
		extract_entry(&x, x.root_fd, ino, name, path, name, 0);
	}
	close(x.root_fd);
	for (size_t i = 0; i < x.nlinks; i++)
		free(x.links[i].rel);
	free(x.links);
	if (x.skipped)
		fprintf(stderr, "e4dump: extracted %zu entries, skipped %zu\n",
			x.done, x.skipped);
	else
		report_info("extracted %zu entries", x.done);
	session_close(&im, &kr);
	return x.skipped ? EXIT_SKIPPED : EXIT_DONE;
}
