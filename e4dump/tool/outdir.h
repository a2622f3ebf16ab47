/* The output directory of extract: every operation is relative to a
 * directory descriptor inside it and never follows a symlink, so nothing
 * is written outside it; names from the image are escaped first. */
#ifndef E4DUMP_OUTDIR_H
#define E4DUMP_OUTDIR_H

#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest escaped name plus NUL. */
#define OUTDIR_NAME_MAX 256

struct outdir {
	int root_fd;
	int force;            /* replace existing non-directories */
	unsigned long seq;    /* temporary names */
	int guard;            /* never replace the file (dev, ino) below: */
	dev_t image_dev;      /* the image being read */
	ino_t image_ino;
	/* The bytes of data the files written may hold together (holes not
	 * counted; a file removed again gives its bytes back): 0, no limit.
	 * A sound image's files hold at most its size; more means blocks
	 * claimed more than once (e4dump verify: block.multiply_claimed). */
	uint64_t max_output;
	uint64_t written;     /* counted so far (atomic: writer threads) */
};

/* Write all of data at off in fd, a file of this output, counting it
 * against max_output: 0; 1 with errno when a write fails; 2 when it would
 * pass the limit (nothing is written then; errno EFBIG). */
int outdir_write(struct outdir *o, int fd, const void *data, size_t len,
		 uint64_t off);
/* Give back bytes counted by outdir_write (of a file removed again). */
void outdir_unwrite(struct outdir *o, uint64_t bytes);

/* errno of an operation refused because it would replace the image. */
#define OUTDIR_EIMAGE EPERM

/* The on-disk name for an entry name of len bytes (inode ino, used only
 * when the escaped name would be longer than 255 bytes).  Names without
 * '/', NUL, control bytes (0x01-0x1f, 0x7f), not "." or ".." and not
 * starting with '%' are kept; any other is written as '%' followed by the
 * name with '%', '/', NUL, control bytes and (in "." and "..") '.' as %HH.
 * Returns 1 when the name was changed. */
int outdir_escape(const char *name, size_t len, unsigned long ino,
		  char out[OUTDIR_NAME_MAX]);

/* The name for the k-th (k >= 1) entry of a directory whose name is taken
 * by an earlier one: always the escaped form, ending in "%~" and the inode
 * number, or "%~INO~K" from k = 2 on. */
void outdir_escape_again(const char *name, size_t len, unsigned long ino,
			 unsigned int k, char out[OUTDIR_NAME_MAX]);

/* A new regular file being written: name in dirfd (through a temporary
 * name and rename when forced). */
struct out_file {
	int dirfd;
	int fd;
	const char *name;
	char tmp[64];         /* "" without --force */
};

/* Create the file (O_EXCL, O_NOFOLLOW) with mode's bits of 0755 (less
 * the umask): no setid, sticky or write bit for others while it is being
 * written.  -1 with errno. */
int outdir_file_open(struct outdir *o, int dirfd, const char *name,
		     mode_t mode, struct out_file *f);
/* Put it in place (closes f->fd).  -1 with errno; then nothing is left. */
int outdir_file_commit(struct outdir *o, struct out_file *f);
/* Remove what was written (closes f->fd); errno is kept. */
void outdir_file_abort(struct out_file *f);

/* Create (or, if a directory is there, reuse) directory name in dirfd and
 * return a descriptor for it; with force, a non-directory in the way is
 * removed (a symlink itself, never its target).  -1 with errno. */
int outdir_mkdir(struct outdir *o, int dirfd, const char *name);

/* Create a symlink.  -1 with errno. */
int outdir_symlink(struct outdir *o, const char *target, int dirfd,
		   const char *name);

/* Hard-link name in dirfd to the file at rel (names separated by '/',
 * relative to the root), which must still be inode (dev, ino); no
 * component is followed if it is a symlink.  -1 with errno. */
int outdir_link(struct outdir *o, const char *rel, dev_t dev, ino_t ino,
		int dirfd, const char *name);

#endif
