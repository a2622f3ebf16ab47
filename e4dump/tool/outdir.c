/* Safe operations in extract's output directory (see outdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outdir.h"

static int must_encode(unsigned char c, int dots)
{
	return c < 0x20 || c == 0x7f || c == '/' || c == '%' ||
	       (dots && c == '.');
}

static size_t put(char *out, size_t o, unsigned char c, int dots)
{
	static const char hex[] = "0123456789ABCDEF";

	if (!must_encode(c, dots)) {
		out[o] = (char)c;
		return o + 1;
	}
	out[o] = '%';
	out[o + 1] = hex[c >> 4];
	out[o + 2] = hex[c & 15];
	return o + 3;
}

/* The escaped form: '%', then every byte as is or as %HH; when that is
 * longer than 255 bytes, or tail is forced, a prefix of it and the tail
 * ("%~" and the inode number; in a full escape "%~" can only be the first
 * two bytes). */
static void escape_form(const char *name, size_t len, int dots,
			const char *forced_tail, unsigned long ino,
			char out[OUTDIR_NAME_MAX])
{
	size_t total = 1, o = 0, limit = OUTDIR_NAME_MAX - 1;
	char tail[48];

	for (size_t i = 0; i < len; i++)
		total += must_encode((unsigned char)name[i], dots) ? 3 : 1;
	tail[0] = '\0';
	if (forced_tail)
		snprintf(tail, sizeof(tail), "%s", forced_tail);
	else if (total > limit)
		snprintf(tail, sizeof(tail), "%%~%lu", ino);
	limit -= strlen(tail);
	out[o++] = '%';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (o + (must_encode(c, dots) ? 3 : 1) > limit)
			break;
		o = put(out, o, c, dots);
	}
	strcpy(out + o, tail);
}

void outdir_escape_again(const char *name, size_t len, unsigned long ino,
			 unsigned int k, char out[OUTDIR_NAME_MAX])
{
	int dots = (len == 1 && name[0] == '.') ||
		   (len == 2 && name[0] == '.' && name[1] == '.');
	char tail[48];

	if (k <= 1)
		snprintf(tail, sizeof(tail), "%%~%lu", ino);
	else
		snprintf(tail, sizeof(tail), "%%~%lu~%u", ino, k);
	escape_form(name, len, dots, tail, ino, out);
}

int outdir_escape(const char *name, size_t len, unsigned long ino,
		  char out[OUTDIR_NAME_MAX])
{
	int dots = (len == 1 && name[0] == '.') ||
		   (len == 2 && name[0] == '.' && name[1] == '.');
	int plain = len > 0 && len < OUTDIR_NAME_MAX && name[0] != '%' && !dots;

	for (size_t i = 0; i < len && plain; i++)
		if (must_encode((unsigned char)name[i], dots))
			plain = 0;
	if (plain) {
		memcpy(out, name, len);
		out[len] = '\0';
		return 0;
	}
	escape_form(name, len, dots, NULL, ino, out);
	return 1;
}

/* A fresh temporary name in dirfd for --force: made, then renamed over
 * the entry it replaces. */
static void tmp_name(struct outdir *o, char tmp[64])
{
	snprintf(tmp, 64, ".e4dump-tmp-%ld-%lu", (long)getpid(), o->seq++);
}

/* Is name in dirfd the image being read (or another link to it)? */
static int is_image(const struct outdir *o, int dirfd, const char *name)
{
	struct stat st;

	return o->guard && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == o->image_dev && st.st_ino == o->image_ino;
}

typedef int (*make_fn)(void *arg, int dirfd, const char *name);

/* Make name in dirfd with make(); with force through a temporary name
 * and renameat(), which replaces a non-directory entry itself (a symlink
 * is replaced, not followed) and fails on a directory. */
static int place(struct outdir *o, int dirfd, const char *name, make_fn make,
		 void *arg)
{
	char tmp[64];
	int err;

	if (!o->force)
		return make(arg, dirfd, name);
	if (is_image(o, dirfd, name)) {
		errno = OUTDIR_EIMAGE;
		return -1;
	}
	for (int tries = 0;; tries++) {
		tmp_name(o, tmp);
		if (!make(arg, dirfd, tmp))
			break;
		if (errno != EEXIST || tries == 100)
			return -1;
	}
	if (renameat(dirfd, tmp, dirfd, name)) {
		err = errno;
		unlinkat(dirfd, tmp, 0);
		errno = err;
		return -1;
	}
	/* rename() does nothing when both are links to one file. */
	unlinkat(dirfd, tmp, 0);
	return 0;
}

static int make_file(int *fd, int dirfd, const char *name, mode_t mode)
{
	*fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				  O_CLOEXEC, mode & 0755);
	return *fd < 0 ? -1 : 0;
}

int outdir_file_open(struct outdir *o, int dirfd, const char *name,
		     mode_t mode, struct out_file *f)
{
	f->dirfd = dirfd;
	f->name = name;
	f->tmp[0] = '\0';
	if (!o->force)
		return make_file(&f->fd, dirfd, name, mode);
	for (int tries = 0;; tries++) {
		tmp_name(o, f->tmp);
		if (!make_file(&f->fd, dirfd, f->tmp, mode))
			return 0;
		if (errno != EEXIST || tries == 100)
			return -1;
	}
}

int outdir_file_commit(struct outdir *o, struct out_file *f)
{
	int err;

	if (f->tmp[0] && is_image(o, f->dirfd, f->name)) {
		close(f->fd);
		f->fd = -1;
		unlinkat(f->dirfd, f->tmp, 0);
		errno = OUTDIR_EIMAGE;
		return -1;
	}
	if (close(f->fd)) {
		err = errno;
		unlinkat(f->dirfd, f->tmp[0] ? f->tmp : f->name, 0);
		errno = err;
		return -1;
	}
	f->fd = -1;
	if (f->tmp[0] && renameat(f->dirfd, f->tmp, f->dirfd, f->name)) {
		err = errno;
		unlinkat(f->dirfd, f->tmp, 0);
		errno = err;
		return -1;
	}
	return 0;
}

int outdir_write(struct outdir *o, int fd, const void *data, size_t len,
		 uint64_t off)
{
	const uint8_t *p = data;

	if (o->max_output) {
		uint64_t now = __atomic_add_fetch(&o->written, (uint64_t)len,
						  __ATOMIC_RELAXED);

		if (now > o->max_output || now < len) {
			__atomic_sub_fetch(&o->written, (uint64_t)len, __ATOMIC_RELAXED);
			errno = EFBIG;
			return 2;
		}
	}
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n <= 0) {
			if (!n)
				errno = EIO;
			return 1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

void outdir_unwrite(struct outdir *o, uint64_t bytes)
{
	if (o->max_output)
		__atomic_sub_fetch(&o->written, bytes, __ATOMIC_RELAXED);
}

void outdir_file_abort(struct out_file *f)
{
	int err = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	unlinkat(f->dirfd, f->tmp[0] ? f->tmp : f->name, 0);
	errno = err;
}

int outdir_mkdir(struct outdir *o, int dirfd, const char *name)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd;

	if (mkdirat(dirfd, name, 0700) && errno != EEXIST)
		return -1;
	fd = openat(dirfd, name, flags);
	if (fd >= 0 || !o->force || (errno != ENOTDIR && errno != ELOOP))
		return fd;
	/* A file or symlink is in the way: remove the entry itself (never
	 * the image). */
	if (is_image(o, dirfd, name)) {
		errno = OUTDIR_EIMAGE;
		return -1;
	}
	if (unlinkat(dirfd, name, 0) || mkdirat(dirfd, name, 0700))
		return -1;
	return openat(dirfd, name, flags);
}

static int make_symlink(void *arg, int dirfd, const char *name)
{
	return symlinkat((const char *)arg, dirfd, name);
}

int outdir_symlink(struct outdir *o, const char *target, int dirfd,
		   const char *name)
{
	return place(o, dirfd, name, make_symlink, (void *)target);
}

struct link_src {
	int dirfd;
	const char *name;
};

static int make_link(void *arg, int dirfd, const char *name)
{
	struct link_src *s = arg;

	return linkat(s->dirfd, s->name, dirfd, name, 0);
}

int outdir_link(struct outdir *o, const char *rel, dev_t dev, ino_t ino,
		int dirfd, const char *name)
{
	char *copy = strdup(rel), *p = copy, *slash;
	int cur = o->root_fd, ret = -1, err;
	struct stat st;

	if (!copy)
		return -1;
	while ((slash = strchr(p, '/'))) {
		int fd;

		*slash = '\0';
		fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_CLOEXEC);
		if (cur != o->root_fd)
			close(cur);
		if (fd < 0) {
			free(copy);
			return -1;
		}
		cur = fd;
		p = slash + 1;
	}
	if (fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (st.st_dev == dev && st.st_ino == ino && S_ISREG(st.st_mode)) {
			struct link_src s = { cur, p };

			ret = place(o, dirfd, name, make_link, &s);
		} else {
			errno = ESTALE; /* replaced since it was written */
		}
	}
	err = errno;
	if (cur != o->root_fd)
		close(cur);
	free(copy);
	errno = err;
	return ret;
}
