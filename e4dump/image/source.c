#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include "source.h"

struct file_source {
	int fd;
};

static int file_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct file_source *f = arg;
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(f->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO; /* shorter than it was */
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void file_close(void *arg)
{
	struct file_source *f = arg;

	close(f->fd);
	free(f);
}

static const struct e4_source_ops file_ops = { file_read, file_close };

enum e4_status e4_source_open_file(const char *path, struct e4_source **out)
{
	struct e4_source *s;
	struct file_source *f;
	struct stat st;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return E4_IO;
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		/* a directory, FIFO, socket or terminal is no image */
		err = errno;
		if (!err || !fstat(fd, &st))
			err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = err;
		return E4_IO;
	}
	s = calloc(1, sizeof(*s));
	f = calloc(1, sizeof(*f));
	if (!s || !f || !(s->name = strdup(path))) {
		free(s ? s->name : NULL);
		free(s);
		free(f);
		close(fd);
		errno = ENOMEM;
		return E4_NOMEM;
	}
	s->size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes = 0;

		if (!ioctl(fd, BLKGETSIZE64, &bytes))
			s->size = bytes;
	}
	f->fd = fd;
	s->concurrent = 1; /* pread */
	s->ops = &file_ops;
	s->arg = f;
	*out = s;
	return E4_OK;
}

struct window {
	struct e4_source *base;
	uint64_t offset;
};

static int window_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct window *w = arg;

	return w->base->ops->read(w->base->arg, w->offset + off, buf, len);
}

static void window_close(void *arg)
{
	struct window *w = arg;

	e4_source_close(w->base);
	free(w);
}

static const struct e4_source_ops window_ops = { window_read, window_close };

enum e4_status e4_source_window(struct e4_source *base, uint64_t offset,
				uint64_t size, struct e4_source **out)
{
	struct e4_source *s;
	struct window *w;

	*out = NULL;
	if (offset > base->size || (size && size > base->size - offset))
		return E4_INVALID;
	s = calloc(1, sizeof(*s));
	w = calloc(1, sizeof(*w));
	if (!s || !w || !(s->name = strdup(base->name))) {
		free(s ? s->name : NULL);
		free(s);
		free(w);
		return E4_NOMEM;
	}
	w->base = base;
	w->offset = offset;
	s->ops = &window_ops;
	s->arg = w;
	s->size = size ? size : base->size - offset;
	s->concurrent = base->concurrent;
	*out = s;
	return E4_OK;
}

enum e4_status e4_source_read(struct e4_source *s, uint64_t off, void *buf,
			      size_t len)
{
	if (off > s->size || len > s->size - off) {
		errno = EIO;
		return E4_IO;
	}
	return s->ops->read(s->arg, off, buf, len) ? E4_IO : E4_OK;
}

void e4_source_close(struct e4_source *s)
{
	if (!s)
		return;
	s->ops->close(s->arg);
	free(s->name);
	free(s);
}
