#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_common.h"

const uint8_t fuzz_test_key[64] = {
	0x1c, 0x78, 0x9f, 0x07, 0x0a, 0xda, 0x8f, 0x90, 0xb2, 0xf3, 0x4c, 0xdd,
	0x74, 0x07, 0x63, 0xf8, 0x54, 0x42, 0x53, 0xf4, 0xf6, 0x32, 0x95, 0x49,
	0x52, 0x14, 0x1b, 0xe1, 0xcf, 0xba, 0x72, 0xb5, 0x82, 0xbb, 0x0e, 0xba,
	0xe5, 0x37, 0x9b, 0xe4, 0x6e, 0xeb, 0x22, 0x6d, 0x94, 0x78, 0xb0, 0xca,
	0x15, 0xd8, 0x73, 0xaa, 0xe9, 0x77, 0x53, 0x9a, 0x7c, 0x6a, 0x53, 0xf1,
	0x25, 0x2a, 0xb4, 0x9f,
};

int fuzz_memfd(const char *name, char *path, size_t path_size)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

void fuzz_key_file(char *path, size_t path_size)
{
	int fd = fuzz_memfd("e4dump-fuzz-key", path, path_size);

	if (write(fd, fuzz_test_key, sizeof(fuzz_test_key)) != (ssize_t)sizeof(fuzz_test_key))
		abort();
}

void fuzz_quiet(void)
{
	static int done;
	const char *v = getenv("E4DUMP_FUZZ_VERBOSE");
	int fd;
	FILE *f;

	if (done || (v && *v == '1'))
		return;
	done = 1;
	fflush(stdout);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	f = fopen("/dev/null", "w");
	if (f)
		stderr = f; /* glibc: stderr is an assignable FILE * */
}

static int remove_cb(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (remove(path) && errno != ENOENT) {
		/* A directory left without write permission (extract restores
		 * modes): give it back and retry. */
		chmod(path, 0700);
		remove(path);
	}
	return 0;
}

static int open_cb(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR || S_ISDIR(st->st_mode))
		chmod(path, 0700);
	return 0;
}

void fuzz_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return;
	/* Pre-order pass (fn before the directory is read) so that every
	 * directory can be entered, whatever mode the code under test gave
	 * it; then remove depth first, never following a symlink. */
	nftw(path, open_cb, 64, FTW_PHYS);
	nftw(path, remove_cb, 64, FTW_DEPTH | FTW_PHYS);
}
